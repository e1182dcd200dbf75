"""Slow NumPy transcription of SOPA, SOPA-s and SOTA-s (Zhu, Li, Wang, Wu & Yang, ICML 2022,
section 4 with Algorithm 1, and section 5) in the streaming form of the kernel.

Written from the algorithms' update rules, independently of the kernel: Python lists as
buffers, dense rows, the moving averages ``u_i`` and ``v`` as plain numbers (no logarithms),
SOPA's thresholds ``s_i`` in the place of ``u_i``, the momentum applied to every coordinate
at every step (no lazy catch-up).
"""

import numpy as np


def pauc_dro(X, y, orders, *, eta, margin, momentum, buffer_size, lam=None, gamma=None,
             lam_pos=None, gamma_pos=None, max_fpr=None, eta_s=None, sample_weight=None):
    """Run SOPA (``max_fpr`` and ``eta_s``), SOPA-s (``lam_pos=None``) or SOTA-s over the
    passes ``orders``; return ``(w, t)``.

    Negatives fill batches of 1, 2, 4, ... then ``buffer_size`` rows; when a batch is full
    and a positive has been seen, one step is taken on the last ``buffer_size`` positives
    (each with its ``u`` or ``s``, 0 on arrival) against the batch, then the batch is emptied.
    ``eta`` may be a function of the number of rows streamed (a step changed mid-stream).
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w = np.zeros(X.shape[1])
    m = np.zeros(X.shape[1])
    positives, negatives = [], []  # positives: [x, weight, u or s]
    v = 0.0
    t = batches = rows = 0
    for order in orders:
        for i in order:
            rows += 1
            if y[i] > 0:
                positives = (positives + [[X[i], weight[i], 0.0]])[-buffer_size:]
                continue
            negatives.append((X[i], weight[i]))
            if len(negatives) < min(buffer_size, 2**batches):
                continue
            if positives:
                wn = np.array([c for _, c in negatives])
                wp = np.array([p[1] for p in positives])
                loss = np.array([[max(0.0, margin - (xp - xn) @ w) ** 2 for xn, _ in negatives]
                                 for xp, _, _ in positives])
                if max_fpr is not None:  # SOPA: p_ij = [L_ij > s_i] / beta, then s_i steps
                    above = loss > np.array([pos[2] for pos in positives])[:, None]
                    p = above / max_fpr
                    for r, pos in enumerate(positives):
                        pos[2] -= eta_s * (1 - np.sum(wn * above[r]) / (max_fpr * np.sum(wn)))
                else:
                    for r, pos in enumerate(positives):
                        mean = np.sum(wn * np.exp(loss[r] / lam)) / np.sum(wn)
                        pos[2] = (1 - gamma) * pos[2] + gamma * mean
                    u = np.array([pos[2] for pos in positives])
                    if lam_pos is None:
                        p = np.exp(loss / lam) / u[:, None]
                    else:
                        mean = np.sum(wp * u ** (lam / lam_pos)) / np.sum(wp)
                        v = (1 - gamma_pos) * v + gamma_pos * mean
                        p = u[:, None] ** (lam / lam_pos - 1) * np.exp(loss / lam) / v
                grad = np.zeros_like(w)
                for r, (xp, _, _) in enumerate(positives):
                    for c, (xn, _) in enumerate(negatives):
                        hinge = max(0.0, margin - (xp - xn) @ w)
                        grad += p[r, c] * wp[r] * wn[c] * (-2.0 * hinge) * (xp - xn)
                grad /= np.sum(wp) * np.sum(wn)
                m = momentum * m + (1 - momentum) * grad
                w = w - (eta(rows) if callable(eta) else eta) * m
                t += 1
            negatives = []
            batches += 1
    return w, t
