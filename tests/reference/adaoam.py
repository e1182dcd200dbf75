"""Slow NumPy transcription of AdaOAM (thesis Algorithm 9 with notes.md#adaoam, P8).

Class statistics recomputed from the samples seen; the H-norm projection by
plain bisection on the multiplier. Dense only.
"""

import numpy as np


def project_diag(v, h, r, iters=200):
    """argmin_{||x|| <= r} sum h_i (x_i - v_i)^2 by bisection on mu (notes.md#h-norm-projection)."""
    if np.linalg.norm(v) <= r:
        return v.copy()
    lo, hi = 0.0, 1.0
    while np.linalg.norm(h * v / (h + hi)) > r:
        hi *= 2.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if np.linalg.norm(h * v / (h + mid)) > r:
            lo = mid
        else:
            hi = mid
    return h * v / (h + 0.5 * (lo + hi))


def adaoam(X, y, orders, *, eta, lam, delta, sample_weight=None):
    """Run AdaOAM over the passes ``orders``; return ``(w, t)``.

    With ``sample_weight`` the class statistics are weighted and the gradient of a row of
    weight ``v`` is ``v`` times the unweighted one, in ``G`` and in the step.
    """
    X = np.asarray(X, dtype=float)
    v = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    d = X.shape[1]
    w = np.zeros(d)
    G = np.zeros(d)
    seen = {1: [], -1: []}
    sq = []
    t = 0
    for epoch, order in enumerate(orders):
        for i in order:
            yi = 1 if y[i] > 0 else -1
            if epoch == 0:
                seen[yi].append(i)
                sq.append(X[i] @ X[i])
            if not seen[-yi]:
                continue
            rows, weights = X[seen[-yi]], v[seen[-yi]]
            c = np.average(rows, axis=0, weights=weights)
            S = np.atleast_2d(np.cov(rows.T, aweights=weights, bias=True))
            dx = X[i] - c
            g = v[i] * (lam * w - yi * dx + dx * (dx @ w) + S @ w)
            G += g * g
            H = delta + np.sqrt(G)
            step = 0.2 / np.sqrt(max(sq)) if eta == "auto" else eta
            w = project_diag(w - step * g / H, H, 1.0 / np.sqrt(lam))
            t += 1
    return w, t
