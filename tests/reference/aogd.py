"""Slow NumPy transcription of AOGD (AlQuabeh et al. 2024, Algorithm 1 as resolved in AlQuabeh et
al. 2024, Algorithm 1).

Written from the pseudocode, independently of the kernel: the feature map is
applied to the whole matrix at once, class means are recomputed from the rows
seen so far, and the gradient of the pair loss is written out in full.
"""

import numpy as np


def features(X, U):
    """Return ``phi(X) = sqrt(2/D) [sin(X U^T), cos(X U^T)]`` (P12, notes.md#rff-scale)."""
    Z = X @ U.T
    D = 2 * U.shape[0]
    return np.sqrt(2.0 / D) * np.hstack([np.sin(Z), np.cos(Z)])


def grad(w, phi, y, other, lam):
    """Gradient of ``(1 - y w.(phi - other))^2 + lam/2 ||w||^2``."""
    delta = phi - other
    return -2.0 * (1.0 - y * (w @ delta)) * y * delta + lam * w


def aogd(X, y, U, passes, *, eta, gamma, lam, q, averaging="per_class", sample_weight=None):
    """Run AOGD; ``passes`` is a list of ``(order, uniforms)`` (one uniform per visit).

    With ``sample_weight`` the class means are weighted means, the average-based step of
    a row of weight ``v`` is scaled by ``v`` and the random-example step by ``v v'``,
    ``v'`` the weight of the representative. Returns ``(w, t)``.
    """
    Phi = features(X, U)
    v = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w = np.zeros(Phi.shape[1])
    seen = {1: [], -1: [], 0: []}  # rows averaged per class (0: all, for "global")
    rep = {}  # class (or 0) -> (phi, label, weight)
    t = 0
    for p, (order, uniforms) in enumerate(passes):
        for i, u in zip(order, uniforms, strict=True):
            yi = y[i]
            key_own = yi if averaging == "per_class" else 0
            key_other = -yi if averaging == "per_class" else 0
            if seen[key_other]:
                mean = np.average(Phi[seen[key_other]], axis=0, weights=v[seen[key_other]])
                w = w - eta * v[i] * grad(w, Phi[i], yi, mean, lam)
                rep_phi, rep_y, rep_v = rep[key_other]
                if rep_y != yi:
                    w = w - gamma * v[i] * rep_v * grad(w, Phi[i], yi, rep_phi, lam)
                t += 1
            if p == 0:
                seen[key_own].append(i)
            if key_own not in rep or u < q:
                rep[key_own] = (Phi[i].copy(), yi, v[i])
    return w, t
