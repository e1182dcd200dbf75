"""Elastic-net quadratic solver of MBA (Natole 2020, Algorithm 16).

Gultekin, Saha, Ratnaparkhi, Paisley, "MBA: Mini-batch AUC optimization",
2018 (thesis Algorithm 16): after the pair statistics ``mu`` and ``Sigma`` are
sampled, ``w = argmin (1/2) w'Sigma w - w'mu + lam1 ||w||_1 + (lam2/2)||w||^2``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._state import F64, I64, D

__all__ = ["MbaState", "enet_quadratic_cd", "enet_quadratic_sweeps", "times"]


class MbaState(NamedTuple):
    """MBA's state."""

    w: F64[D]  # solution of the quadratic problem
    sweeps: I64[1]  # coordinate-descent sweeps of the last solve (0: linear solve)
    n_iter: I64[1]  # sampling rounds of the last fit
    lam2: F64[1]  # the l2 weight of the last fit (lam2="auto": the value chosen)


@njit(cache=True, nogil=True)
def times(A, w):
    """Return ``A @ w`` (the residual :func:`enet_quadratic_sweeps` starts from)."""
    return A @ w


@njit(cache=True, nogil=True)
def enet_quadratic_cd(A, mu, lam1, lam2, w, tol, max_sweeps):
    """Minimise ``(1/2) w'Aw - w'mu + lam1 ||w||_1 + (lam2/2)||w||^2`` by cyclic coordinate
    descent, in place from the given ``w``.

    Parameters
    ----------
    A : ndarray of shape (d, d)
        Symmetric positive semi-definite matrix.
    mu : ndarray of shape (d,)
    lam1, lam2 : float
        l1 and l2 weights (``A_jj + lam2 > 0`` is required for every ``j``
        with a non-zero coordinate).
    w : ndarray of shape (d,)
        Start point; overwritten with the solution.
    tol : float
        Stop when a sweep changes no coordinate by more than
        ``tol * max(1, max_j |w_j|)``.
    max_sweeps : int
        Sweep budget.

    Returns
    -------
    int
        Sweeps done (``max_sweeps + 1`` if the budget ran out unconverged).
    """
    return enet_quadratic_sweeps(A, mu, lam1, lam2, w, times(A, w), tol, max_sweeps)


@njit(cache=True, nogil=True)
def enet_quadratic_sweeps(A, mu, lam1, lam2, w, r, tol, max_sweeps):
    """Run the sweeps of :func:`enet_quadratic_cd` with its residual ``r = A w`` given and
    kept up to date in place: calls in a row, each with a part of the sweep budget, do
    bit for bit what one call does (the caller checks a time budget between them).

    Returns
    -------
    int
        Sweeps done (``max_sweeps + 1`` if the budget ran out unconverged).
    """
    d = w.shape[0]
    for sweep in range(1, max_sweeps + 1):
        biggest_step = 0.0
        biggest_w = 1.0
        for j in range(d):
            curvature = A[j, j] + lam2
            if curvature <= 0.0:
                continue
            z = mu[j] - (r[j] - A[j, j] * w[j])
            new = np.sign(z) * max(abs(z) - lam1, 0.0) / curvature
            step = new - w[j]
            if step != 0.0:
                for k in range(d):
                    r[k] += step * A[k, j]
                w[j] = new
            biggest_step = max(biggest_step, abs(step))
            biggest_w = max(biggest_w, abs(new))
        if biggest_step <= tol * biggest_w:
            return sweep
    return max_sweeps + 1
