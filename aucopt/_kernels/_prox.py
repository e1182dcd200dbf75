"""Proximal maps and Euclidean projections (notes.md#projections).

All functions work in place on 1-D float64 arrays (or return a scalar) and
allocate nothing, so kernels may call them once per sample.
"""

import numpy as np
from numba import njit

__all__ = [
    "prox_l2",
    "prox_elastic_net",
    "project_l2_ball",
    "project_l2_ball_centered",
    "project_l1_ball",
    "clip",
]


@njit(cache=True, nogil=True)
def prox_l2(w, eta, beta):
    """Proximal map of ``(beta/2)||w||^2`` with step ``eta`` (notes.md#prox), in place.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point ``u``, overwritten by ``u / (1 + eta * beta)``.
    eta : float
        Step size.
    beta : float
        l2 weight.
    """
    scale = 1.0 / (1.0 + eta * beta)
    for j in range(w.shape[0]):
        w[j] *= scale


@njit(cache=True, nogil=True)
def prox_elastic_net(w, eta, beta, beta1):
    """Proximal map of ``(beta/2)||w||^2 + beta1 ||w||_1`` (notes.md#prox), in place.

    ``w_j <- sign(u_j) max(|u_j| - eta*beta1, 0) / (1 + eta*beta)``: soft
    thresholding followed by the l2 shrinkage; exact zeros are produced.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point ``u``, overwritten by the proximal point.
    eta : float
        Step size.
    beta : float
        l2 weight.
    beta1 : float
        l1 weight.
    """
    thr = eta * beta1
    scale = 1.0 / (1.0 + eta * beta)
    for j in range(w.shape[0]):
        u = w[j]
        if u > thr:
            w[j] = (u - thr) * scale
        elif u < -thr:
            w[j] = (u + thr) * scale
        else:
            w[j] = 0.0


@njit(cache=True, nogil=True)
def project_l2_ball(w, radius):
    """Project ``w`` onto ``{||w|| <= radius}`` in place (notes.md#projections).

    The norm is the plain square root of the sum of squares (no rescaling), so
    vectors whose entries are all below ~1e-154 count as norm 0.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point to project, overwritten.
    radius : float
        Ball radius (>= 0).

    Returns
    -------
    norm : float
        Euclidean norm of ``w`` before the projection.
    """
    sq = 0.0
    for j in range(w.shape[0]):
        sq += w[j] * w[j]
    norm = np.sqrt(sq)
    if norm > radius:
        scale = radius / norm
        for j in range(w.shape[0]):
            w[j] *= scale
    return norm


@njit(cache=True, nogil=True)
def project_l2_ball_centered(w, center, radius):
    """Project ``w`` onto the ball of ``radius`` around ``center`` in place (P1).

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point to project, overwritten.
    center : ndarray of shape (d,)
        Centre of the ball.
    radius : float
        Ball radius (>= 0).
    """
    sq = 0.0
    for j in range(w.shape[0]):
        diff = w[j] - center[j]
        sq += diff * diff
    norm = np.sqrt(sq)
    if norm > radius:
        scale = radius / norm
        for j in range(w.shape[0]):
            w[j] = center[j] + (w[j] - center[j]) * scale


@njit(cache=True, nogil=True)
def project_l1_ball(w, radius, work):
    """Project ``w`` onto ``{||w||_1 <= radius}`` in place (notes.md#projections).

    Sort-based algorithm of Duchi, Shalev-Shwartz, Singer and Chandra (2008):
    O(d log d).

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point to project, overwritten.
    radius : float
        Ball radius (>= 0); ``radius == 0`` gives the zero vector.
    work : ndarray of shape (d,)
        Scratch buffer (overwritten), so that no memory is allocated.

    Returns
    -------
    theta : float
        The soft threshold that was applied (0 when ``w`` was inside the ball).
    """
    d = w.shape[0]
    l1 = 0.0
    for j in range(d):
        work[j] = abs(w[j])
        l1 += work[j]
    if l1 <= radius:
        return 0.0
    if radius <= 0.0:
        for j in range(d):
            w[j] = 0.0
        return np.inf
    work.sort()
    # work is increasing; scan it in decreasing order (u_1 >= u_2 >= ...)
    cumsum = 0.0
    theta = 0.0
    for rank in range(1, d + 1):
        u = work[d - rank]
        cumsum += u
        candidate = (cumsum - radius) / rank
        if rank == 1 or u - candidate > 0.0:  # rho >= 1 always; rounding may hide it
            theta = candidate
        else:
            break
    for j in range(d):
        u = w[j]
        if u > theta:
            w[j] = u - theta
        elif u < -theta:
            w[j] = u + theta
        else:
            w[j] = 0.0
    return theta


@njit(cache=True, nogil=True)
def clip(t, lo, hi):
    """Project the scalar ``t`` onto the interval ``[lo, hi]`` (notes.md#projections).

    Parameters
    ----------
    t : float
        Value to project.
    lo, hi : float
        Interval bounds, ``lo <= hi``.

    Returns
    -------
    float
        ``min(max(t, lo), hi)``.
    """
    if t < lo:
        return lo
    if t > hi:
        return hi
    return t
