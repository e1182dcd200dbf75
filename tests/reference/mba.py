"""Slow NumPy transcription of MBA (thesis Algorithm 16, Natole 2020, Algorithm 16)."""

import numpy as np


def pair_statistics(X, y, rounds):
    """Return ``(mu_S, Sigma_S)`` from ``rounds``: a list of (positive, negative) index arrays
    into the positive and negative rows (weighted sampling is in how they were drawn)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    d = X.shape[1]
    total = sum(len(i) for i, _ in rounds)
    mu, sigma = np.zeros(d), np.zeros((d, d))
    for i_pos, i_neg in rounds:
        for a, b in zip(i_pos, i_neg, strict=True):
            diff = pos[a] - neg[b]
            mu += diff / total
            sigma += np.outer(diff, diff) / total
    return mu, sigma


def all_pairs(X, y, sample_weight=None):
    """Return ``(mu, Sigma)`` by enumerating every positive-negative pair, each counted with
    the product of its sample weights."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    diffs = (X[y > 0][:, None, :] - X[y < 0][None, :, :]).reshape(-1, X.shape[1])
    if sample_weight is None:
        return diffs.mean(0), diffs.T @ diffs / len(diffs)
    v = np.asarray(sample_weight, float)
    pair_weights = np.outer(v[y > 0], v[y < 0]).ravel()
    pair_weights = pair_weights / pair_weights.sum()
    return pair_weights @ diffs, diffs.T @ (diffs * pair_weights[:, None])


def objective(sigma, mu, w, lam1, lam2):
    """Return ``(1/2) w'Sigma w - w'mu + lam1 |w|_1 + (lam2/2)|w|^2``."""
    return 0.5 * w @ sigma @ w - w @ mu + lam1 * np.abs(w).sum() + 0.5 * lam2 * w @ w
