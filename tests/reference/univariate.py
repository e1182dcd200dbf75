"""Slow NumPy transcription of online Uni-Exp / Uni-Squ / Uni-Log (Kotlowski et al. 2011; Gao et
al. 2013, Section 6, balanced weights).

One loop per sample, class counts recomputed from the samples seen, dense only.
"""

import numpy as np
from scipy.optimize import minimize


def univariate(X, y, orders, *, loss, eta, auto=None, schedule="inv_sqrt", lam=0.0,
               weights="train", sample_weight=None):
    """Run the weighted univariate SGD; return ``(w, b, t)``.

    ``eta="auto"`` uses ``auto / (M^2 + 1)``; ``weights="train"`` uses the
    class counts and M^2 of all of X, ``"online"`` those of the samples seen
    so far including the current one. ``sample_weight`` (notes.md#sample-weights):
    the class counts are sums of the sample weights and row i's step, the proximal step of
    the penalty included, is scaled by its weight (M^2 stays the largest squared row norm).
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    w, b, t = np.zeros(X.shape[1]), 0.0, 0
    seen = list(range(len(y))) if weights == "train" else []
    for p, order in enumerate(orders):
        for i in order:
            if weights == "online" and p == 0:
                seen.append(i)
            seen_w = sw[seen]
            n_pos = seen_w[y[seen] > 0].sum()
            n_y = n_pos if y[i] > 0 else seen_w.sum() - n_pos
            weight = seen_w.sum() / (2.0 * n_y)
            m = y[i] * (w @ X[i] + b)
            dl = _derivative(loss, m)
            g = weight * dl * y[i] * sw[i]
            t += 1
            m2 = max(X[j] @ X[j] for j in seen)
            scale = auto / (m2 + 1.0) if eta == "auto" else eta
            eta_t = scale / np.sqrt(t) if schedule == "inv_sqrt" else scale
            w = (w - eta_t * g * X[i]) / (1.0 + eta_t * sw[i] * lam)
            b = b - eta_t * g
    return w, b, t


def _derivative(loss, m):
    """``l'(m)`` of the exponential, square or logistic loss."""
    if loss == "exp":
        return -np.exp(-m)
    if loss == "log":
        return -1.0 / (1.0 + np.exp(m))
    return -2.0 * (1.0 - m)


def objective(X, y, w, b, loss, lam):
    """Balanced univariate objective (lam/2)||w||^2 + mean_+ l(s)/2 + mean_- l(-s)/2."""
    m = y * (X @ w + b)
    if loss == "exp":
        values = np.exp(-m)
    elif loss == "log":
        values = np.logaddexp(0.0, -m)
    else:
        values = (1.0 - m) ** 2
    return 0.5 * lam * w @ w + 0.5 * values[y > 0].mean() + 0.5 * values[y < 0].mean()


def minimiser(X, y, loss, lam):
    """Return ``(w, b)`` minimising :func:`objective` (closed form for the square loss)."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if loss == "squ":  # weighted ridge, unpenalised bias: solve the normal equations
        omega = np.where(y > 0, 0.5 / np.sum(y > 0), 0.5 / np.sum(y < 0))
        Z = np.hstack([X, np.ones((n, 1))])
        A = Z.T @ (omega[:, None] * Z)
        A[:d, :d] += 0.5 * lam * np.eye(d)
        sol = np.linalg.solve(A, Z.T @ (omega * y))
        return sol[:d], sol[d]
    res = minimize(lambda v: objective(X, y, v[:d], v[d], loss, lam), np.zeros(d + 1),
                   method="BFGS", options={"gtol": 1e-10})
    return res.x[:d], res.x[d]
