"""Slow NumPy transcription of SPDAM (Natole 2020, Algorithm 21; notes.md#spdam-reformulation)."""

import numpy as np


def step_parameters(lam, n, m, kappa, thesis=False):
    """Return ``(sigma, tau, theta)``: re-derived (default) or the thesis' Theorem 5.1."""
    if thesis:
        sigma = ((n - m) + np.sqrt((n - m) ** 2 + 4 * n * kappa**2 * m / lam)) / (
            8 * m * kappa**2)
    else:
        sigma = (lam * (n - m) + np.sqrt(lam**2 * (n - m) ** 2 + 4 * m * n * kappa**2 * lam)) / (
            4 * m * kappa**2)
    tau = 1 / (4 * sigma * kappa**2)
    theta = 1 - lam / (lam + 2 * sigma * kappa**2)
    return sigma, tau, theta


def spdam(X, y, batches, *, lam, thesis=False, w0=None, sample_weight=None):
    """Run one iteration per index set in ``batches``; return the last primal iterate.

    ``sample_weight``: weighted ``p, m+, m-`` and the sum ``(1/W) sum_i w_i (...)``, i.e.
    the coupling rows scaled by ``sqrt(n w_i / W)``; the thesis' ``kappa`` becomes
    ``max ||x_i|| sqrt(max_i n w_i / W)`` (notes.md#sample-weights).
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    pos, neg = y > 0, y < 0
    p = sw[pos].sum() / sw.sum()
    m_pos, m_neg = sw[pos] @ X[pos] / sw[pos].sum(), sw[neg] @ X[neg] / sw[neg].sum()
    b = m_neg - m_pos
    root = np.sqrt(n * sw / sw.sum())[:, None]
    Xbar = root * np.where(pos[:, None], np.sqrt(2 / p) * (X - m_pos),
                           np.sqrt(2 / (1 - p)) * (X - m_neg))
    m = len(batches[0])
    kappa = (np.linalg.norm(X, axis=1).max() * root.max() if thesis
             else np.linalg.norm(Xbar, axis=1).max())
    sigma, tau, theta = step_parameters(lam, n, m, kappa, thesis)
    beta = np.zeros(n)
    w = np.zeros(d) if w0 is None else np.array(w0, dtype=float)
    w_bar = w.copy()
    u = np.zeros(d)
    for batch in batches:
        new = (sigma * (Xbar[batch] @ w_bar) + beta[batch]) / (1 + sigma)
        du = (new - beta[batch]) @ Xbar[batch] / n
        beta[batch] = new
        u_bar = u + (n / m) * du
        u = u + du
        # w = argmin <u_bar, w> + (b.w)^2 + 2 b.w + lam/2 |w|^2 + |w - w_old|^2 / (2 tau)
        H = 2 * np.outer(b, b) + (lam + 1 / tau) * np.eye(d)
        w_new = np.linalg.solve(H, w / tau - u_bar - 2 * b)
        w_bar = w_new + theta * (w_new - w)
        w = w_new
    return w


def closed_form(X, y, lam):
    """Return the minimiser ``(Sigma2 + lam/2 I)^-1 mu`` of Natole 2020, Algorithm 21's
    objective (unweighted: integer weights are tested by repeating rows)."""
    X = np.asarray(X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    return np.linalg.solve(sigma2 + lam / 2 * np.eye(X.shape[1]), mu)


def objective(X, y, w, lam):
    """Return the pairwise objective of Natole 2020, Algorithm 21 by enumerating every pair."""
    X = np.asarray(X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    diffs = 1.0 - (pos @ w)[:, None] + (neg @ w)[None, :]
    return np.mean(diffs**2) + 0.5 * lam * w @ w
