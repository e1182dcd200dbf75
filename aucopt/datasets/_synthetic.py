"""Synthetic AUC problems: linear ones with a known ranking direction, and non-linear ones."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = ["make_auc_problem", "make_nonlinear_problem"]


def _check_int(name, value, low):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}.")
    return int(value)


def _check_real(name, value, low, high, *, low_open=False):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and not np.isnan(value)
    if not ok or not ((value > low if low_open else value >= low) and value < high):
        interval = f"{'(' if low_open else '['}{low:g}, {high:g})"
        raise ValueError(f"{name} must be a real number in {interval}; got {value!r}.")
    return float(value)


def make_auc_problem(n_samples=1000, n_features=20, *, pos_rate=0.3, separation=1.0,
                     sparsity=0.0, sparse_output=False, random_state=None):
    """Two Gaussian classes whose means differ by ``separation`` along a random direction.

    The rows are ``z @ M (+ separation * u for positives)`` with ``z`` standard
    normal, ``M = I + G / (2 sqrt(d))`` (``G`` a standard normal matrix, so the
    features are correlated) and ``u`` a random unit vector. The Bayes-optimal
    scorer is linear, ``x -> x . (M^T M)^-1 u``, and its AUC,
    ``Phi(separation * sqrt(u^T (M^T M)^-1 u) / sqrt(2))``, grows with
    ``separation`` (0.5 at ``separation=0``).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows (at least 2).
    n_features : int, default=20
        Number of features (at least 1).
    pos_rate : float, default=0.3
        Fraction of positives, in (0, 1): exactly ``round(pos_rate * n_samples)``
        rows are positive, clipped so that each class has at least one row.
    separation : float, default=1.0
        Distance between the class means along the unit direction ``u``, in
        ``[0, inf)``.
    sparsity : float, default=0.0
        Fraction of the entries set to zero (independently at random), in ``[0, 1)``.
    sparse_output : bool, default=False
        Return ``X`` as a CSR matrix.
    random_state : int, numpy.random.Generator or None, default=None
        Seed, or a Generator to draw from; the output is a deterministic function
        of it.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        float64 features.
    y : ndarray of shape (n_samples,)
        int64 labels in {-1, +1}, positives at random positions.

    Notes
    -----
    The positives are the rows ``numpy.random.default_rng(random_state)
    .permutation(n_samples)[:n_pos]``. An estimator given the same integer
    seed visits the rows in that same order in its first shuffled pass, i.e.
    all positives first: use different seeds for the data and the estimator.

    Examples
    --------
    >>> from aucopt.datasets import make_auc_problem
    >>> X, y = make_auc_problem(200, 5, pos_rate=0.1, random_state=0)
    >>> X.shape, int((y == 1).sum())
    ((200, 5), 20)
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    n_features = _check_int("n_features", n_features, 1)
    pos_rate = _check_real("pos_rate", pos_rate, 0.0, 1.0, low_open=True)
    separation = _check_real("separation", separation, 0.0, np.inf)
    sparsity = _check_real("sparsity", sparsity, 0.0, 1.0)
    if not isinstance(sparse_output, bool | np.bool_):
        raise TypeError(f"sparse_output must be True or False; got {sparse_output!r}.")
    if not (random_state is None or isinstance(random_state, np.random.Generator)
            or (isinstance(random_state, numbers.Integral) and not isinstance(random_state,
                                                                             bool))):
        raise TypeError(f"random_state must be None, an int or a numpy.random.Generator; got "
                        f"{random_state!r}.")
    rng = np.random.default_rng(random_state)
    n_pos = min(max(round(pos_rate * n_samples), 1), n_samples - 1)
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


def make_nonlinear_problem(n_samples=1000, kind="xor", *, random_state=None):
    """Noiseless two-dimensional problems that no linear scorer ranks well.

    ``kind="xor"``: points uniform on ``[-1, 1]^2``, positive when
    ``x0 * x1 > 0`` (by symmetry every linear scorer has an expected AUC of 0.5).
    ``kind="circles"``: points on two concentric circles, radius 0.5 positive
    (30 % of the rows) and radius 1.0 negative (a linear scorer again has an
    expected AUC of 0.5, a radial one 1.0). Used to show that the kernel
    learners (AOGD, Projection++, Sparse Kernel) learn what the linear ones cannot.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows (at least 2).
    kind : {"xor", "circles"}, default="xor"
        The problem.
    random_state : int, numpy.random.Generator or None, default=None
        Seed, or a Generator to draw from.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        int64 labels in {-1, +1}.

    Examples
    --------
    >>> from aucopt.datasets import make_nonlinear_problem
    >>> X, y = make_nonlinear_problem(100, "circles", random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((100, 2), [-1, 1])
    """
    n_samples = _check_int("n_samples", n_samples, 2)
    if kind not in ("xor", "circles"):
        raise ValueError(f"kind must be 'xor' or 'circles'; got {kind!r}.")
    rng = np.random.default_rng(random_state)
    if kind == "xor":
        X = rng.uniform(-1.0, 1.0, (n_samples, 2))
        return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1).astype(np.int64)
    radius = np.where(rng.random(n_samples) < 0.3, 0.5, 1.0)
    angle = rng.uniform(0.0, 2.0 * np.pi, n_samples)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    return X, np.where(radius < 0.75, 1, -1).astype(np.int64)
