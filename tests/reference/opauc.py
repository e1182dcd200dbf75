"""Slow NumPy transcription of OPAUC and OPAUCr (Gao et al. 2013, Algorithm 1, Eqs. 6-11; Gao et
al. 2013, Section 3, Algorithm 1; Gao et al. 2013, Section 3, Eqs. 6-11).

Written from the paper's equations (Gao et al. 2013, Section 3), independently of the kernels:
class statistics are
recomputed from the samples seen (numpy mean / cov with 1/T normalisation) and
the sketched covariance is formed as a d x d matrix. Dense only.

With ``sample_weight`` (notes.md#sample-weights) the class statistics are the weighted
mean and covariance of the rows seen (``numpy.cov`` with ``aweights``), a sketch row is
``sqrt(v) a`` and the step on a row of weight ``v`` is ``v`` times the unweighted one.
"""

import numpy as np


def closed_form(X, y, lam):
    """Return ``(lam I + Sigma2)^-1 mu`` (notes.md#square-loss / R)."""
    pos, neg = X[y > 0], X[y < 0]
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    return np.linalg.solve(sigma2 + lam * np.eye(X.shape[1]), mu)


def objective(X, y, w, lam):
    """Return the empirical OPAUC objective L(w) of notes.md#square-loss (all pairs)."""
    s = X @ w
    diff = s[y > 0][:, None] - s[y < 0][None, :]
    return 0.5 * lam * w @ w + 0.5 * np.mean((1.0 - diff) ** 2)


def _stats(X, idx, v):
    idx = np.asarray(idx, dtype=int)
    rows, weights = X[idx], v[idx]
    cov = np.cov(rows.T, aweights=weights, bias=True)
    return np.average(rows, axis=0, weights=weights), np.atleast_2d(cov)


def _weights(y, sample_weight):
    return np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)


def _eta(eta, sq_seen, lam):
    """The step: a number, or the uncalibrated "auto" rule 0.1 / (M^2 + lam) with M^2 the
    largest squared norm seen."""
    return 0.1 / (max(sq_seen) + lam) if eta == "auto" else eta


def opauc(X, y, orders, *, eta, lam, w0=None, sample_weight=None):
    """Run OPAUC over the passes ``orders`` (the first sees new data); return ``(w, t)``."""
    X = np.asarray(X, dtype=float)
    v = _weights(y, sample_weight)
    w = np.zeros(X.shape[1]) if w0 is None else np.array(w0, dtype=float)
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
            c, S = _stats(X, seen[-yi], v)
            delta = X[i] - c
            g = lam * w - yi * delta + delta * (delta @ w) + S @ w
            w = w - _eta(eta, sq, lam) * v[i] * g
            t += 1
    return w, t


def opauc_r(X, y, orders, sketch, *, eta, lam, centering="unbiased", sample_weight=None):
    """Run OPAUCr; ``sketch[k]`` is ``a_t`` of the k-th sample of the first pass."""
    X = np.asarray(X, dtype=float)
    v = _weights(y, sample_weight)
    d, rank = X.shape[1], sketch.shape[1]
    w = np.zeros(d)
    T = {1: 0, -1: 0}
    c = {1: np.zeros(d), -1: np.zeros(d)}
    Z = {1: np.zeros((d, rank)), -1: np.zeros((d, rank))}
    s = {1: np.zeros(rank), -1: np.zeros(rank)}
    sq = []
    t = 0
    for epoch, order in enumerate(orders):
        for k, i in enumerate(order):
            yi = 1 if y[i] > 0 else -1
            if epoch == 0:
                a = np.sqrt(v[i]) * sketch[k]
                sq.append(X[i] @ X[i])
                T[yi] += v[i]
                c[yi] = c[yi] + v[i] * (X[i] - c[yi]) / T[yi]
                Z[yi] = Z[yi] + np.outer(X[i], a)
                s[yi] = s[yi] + a
            o = -yi
            if T[o] == 0:
                continue
            if centering == "unbiased":
                Zc = Z[o] - np.outer(c[o], s[o])
                S_hat = Zc @ Zc.T / T[o]
            else:
                c_hat = np.outer(c[o], s[o]) / T[o]
                S_hat = Z[o] @ Z[o].T / T[o] - c_hat @ c_hat.T
            delta = X[i] - c[o]
            g = lam * w - yi * delta + delta * (delta @ w) + S_hat @ w
            w = w - _eta(eta, sq, lam) * v[i] * g
            t += 1
    return w, t
