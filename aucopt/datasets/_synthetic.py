"""Synthetic AUC problems with a known ranking direction."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["make_auc_problem"]


def make_auc_problem(n_samples=1000, n_features=20, *, pos_rate=0.3, separation=1.0,
                     sparsity=0.0, sparse_output=False, random_state=None):
    """Two Gaussian classes whose means differ by ``separation`` along a random direction.

    Features are correlated (a random mixing matrix); the Bayes AUC grows with
    ``separation``.

    Parameters
    ----------
    n_samples : int, default=1000
    n_features : int, default=20
    pos_rate : float, default=0.3
        Fraction of positives; exactly ``round(pos_rate * n)`` (at least one of each class).
    separation : float, default=1.0
        Distance between the class means along the unit direction.
    sparsity : float, default=0.0
        Fraction of entries set to zero.
    sparse_output : bool, default=False
        Return X as CSR.
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    y : ndarray of int64 in {-1, +1}
    """
    if not isinstance(n_samples, numbers.Integral) or n_samples < 2:
        raise ValueError(f"n_samples must be an int >= 2; got {n_samples!r}.")
    if not isinstance(n_features, numbers.Integral) or n_features < 1:
        raise ValueError(f"n_features must be an int >= 1; got {n_features!r}.")
    if not 0 < pos_rate < 1:
        raise ValueError(f"pos_rate must be in (0, 1); got {pos_rate!r}.")
    if not 0 <= sparsity < 1:
        raise ValueError(f"sparsity must be in [0, 1); got {sparsity!r}.")
    rng = np.random.default_rng(random_state)
    n_pos = int(min(max(round(pos_rate * n_samples), 1), n_samples - 1))
    y = -np.ones(n_samples, dtype=np.int64)
    y[rng.permutation(n_samples)[:n_pos]] = 1
    direction = rng.standard_normal(n_features)
    direction /= np.linalg.norm(direction)
    mixing = np.eye(n_features) + rng.standard_normal((n_features, n_features)) / np.sqrt(
        n_features) * 0.5
    X = rng.standard_normal((n_samples, n_features)) @ mixing
    X += np.outer(y > 0, direction) * separation
    if sparsity > 0:
        X[rng.random(X.shape) < sparsity] = 0.0
    return (sp.csr_matrix(X) if sparse_output else X), y
