"""Slow NumPy transcriptions of KOIL RS++/FIFO++ ("Projection++") and the Sparse Kernel objective.

KOIL is written from the authors' MATLAB code (nUpdateKernel4.m, nUpdateBudgetRSC.m,
nUpdateBudgetFIFOC.m), independently of the numba kernel: every kernel value and score
is recomputed from the stored vectors, buffers are Python lists of slots.
"""

import numpy as np


def gauss(a, b, sigma):
    """Gaussian kernel ``exp(-||a - b||^2 / (2 sigma^2))``."""
    return float(np.exp(-np.sum((a - b) ** 2) / (2.0 * sigma**2)))


def projection_pp(X, y, passes, *, eta, lam, k, budget, sigma, replacement="reservoir",
                  sample_weight=None):
    """Run KOIL; ``passes`` is a list of ``(order, draws)`` with ``draws`` of shape (m, 2).

    Returns ``(alpha, sv)`` in the kernel's slot layout (positives in slots
    ``[0, budget)``, negatives in ``[budget, 2 budget)``) and the step count.
    ``sample_weight`` (notes.md#sample-weights): the pair of row ``t`` with a violated
    support vector ``j`` is weighted by ``w_t w_j``, a step without pairs by ``w_t``; a
    support vector keeps the weight of its row.
    """
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    slots = {1: [None] * budget, -1: [None] * budget}  # class -> [(x, alpha, w) or None]
    size = {1: 0, -1: 0}
    head = {1: 0, -1: 0}
    seen = {1: 0, -1: 0}
    t = 0

    def f(x):
        return sum(a * gauss(x, s, sigma) for c in (1, -1) for e in slots[c] if e
                   for s, a, _ in [e])

    for order, draws in passes:
        for i, (u_admit, u_slot) in zip(order, draws, strict=True):
            x, yt, wt = X[i], int(y[i]), weight[i]
            seen[yt] += 1
            f_x = f(x)
            opp = [j for j, e in enumerate(slots[-yt]) if e]
            violated = [j for j in opp if 1 - yt * (f_x - f(slots[-yt][j][0])) > 0]
            for c in (1, -1):  # shrink (regulariser step)
                slots[c] = [(e[0], (1 - eta * lam) * e[1], e[2]) if e else None
                            for e in slots[c]]
            if size[-yt] == 0 or (size[yt] == 0 and not violated):
                a_t = eta * wt * yt
            elif not violated:
                a_t = 0.0
            else:
                if len(violated) > k:
                    sims = [gauss(x, slots[-yt][j][0], sigma) for j in violated]
                    violated = [violated[r] for r in np.argsort(sims, kind="stable")[::-1][:k]]
                a_t = eta * wt * yt * sum(slots[-yt][j][2] for j in violated)
                for j in violated:
                    s, a, wj = slots[-yt][j]
                    slots[-yt][j] = (s, a - eta * wt * wj * yt, wj)
            t += 1
            if a_t == 0.0:
                continue
            if size[yt] < budget:
                slots[yt][size[yt]] = (x.copy(), a_t, wt)
                size[yt] += 1
                continue
            if replacement == "fifo":
                r = head[yt]
                head[yt] = (head[yt] + 1) % budget
                admit = True
            else:
                admit = u_admit < budget / seen[yt]
                r = min(int(u_slot * budget), budget - 1)
            if admit:
                gone_x, gone_a, _ = slots[yt][r]
                slots[yt][r] = (x.copy(), a_t, wt)
            else:
                gone_x, gone_a = x, a_t
            sims = [gauss(gone_x, e[0], sigma) for e in slots[yt]]
            j = int(np.argmax(sims))
            s, a, wj = slots[yt][j]
            slots[yt][j] = (s, a + gone_a, wj)
    d = X.shape[1]
    alpha = np.zeros(2 * budget)
    sv = np.zeros((2 * budget, d))
    for c, offset in ((1, 0), (-1, budget)):
        for j, e in enumerate(slots[c]):
            if e:
                sv[offset + j], alpha[offset + j] = e[:2]
    return alpha, sv, t


def sparse_objective(beta, basis, X, y, sigma, lam, sample_weight=None):
    """``lam/2 b'K_JJ b + mean over pairs of max(0, 1 - f(x+) + f(x-))^2`` (all pairs).

    With ``sample_weight`` the mean weighs the pair ``(i, j)`` by ``w_i w_j``.
    """
    K = np.exp(-((X[:, None, :] - basis[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))
    G = np.exp(-((basis[:, None, :] - basis[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))
    s = K @ beta
    margins = 1.0 - s[y > 0][:, None] + s[y < 0][None, :]
    if sample_weight is None:
        return 0.5 * lam * beta @ G @ beta + np.mean(np.maximum(margins, 0.0) ** 2)
    pair_w = np.outer(sample_weight[y > 0], sample_weight[y < 0])
    loss = np.sum(pair_w * np.maximum(margins, 0.0) ** 2) / pair_w.sum()
    return 0.5 * lam * beta @ G @ beta + loss
