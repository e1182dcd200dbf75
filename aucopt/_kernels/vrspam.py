"""VRSPAM kernel: variance-reduced SPAM, i.e. proximal SVRG (Dan & Sahoo, Algorithm 1).

Dan and Sahoo, "Variance reduced stochastic proximal algorithm for AUC
maximization" (VRSPAM); M. Natole Jr., PhD thesis (SUNY Albany 2020),
Algorithm 17.

Objective (finite sum over the stored training set, training-set ``p, m+, m-``):
``min_w (1/n) sum_i F_i(w) + Omega(w)`` whose gradient is ``(1/n) sum_i G(w; z_i)``
with SPAM's ``G`` (:func:`aucopt._kernels.spam.spam_gradient_coef`) and
``Omega(w) = (beta/2)||w||^2 + beta1 ||w||_1``.
"""

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._prox import prox_elastic_net
from ._rows import row_axpy, row_dot
from .spam import spam_gradient_coef

__all__ = ["vrspam_inner", "vrspam_snapshot", "vrspam_stage"]


@njit(cache=True, nogil=True)
def _class_dots(w, counts, sums):
    """Return ``(w.m+, w.m-, p)`` from the class counts and sums."""
    a = row_dot(w, sums, None, None, 1) / counts[1]
    b = row_dot(w, sums, None, None, 0) / counts[0]
    return a, b, counts[1] / (counts[0] + counts[1])


@njit(cache=True, nogil=True)
def vrspam_snapshot(w_ref, mu, s_ref, counts, sums, data, indices, indptr, y, n_total):
    """Add the rows' share of the full gradient at the snapshot ``w_ref`` to ``mu``.

    Writes the scores ``s_ref[i] = x_i . w_ref`` and adds ``G(w_ref; z_i) / n_total``
    for every row: with ``n_total`` the size of the whole training set, the
    shares of disjoint parts of it sum to the full gradient (map-reduce).
    """
    a_ref, b_ref, p = _class_dots(w_ref, counts, sums)
    for i in range(y.shape[0]):
        s_ref[i] = row_dot(w_ref, data, indices, indptr, i)
        g = spam_gradient_coef(s_ref[i], a_ref, b_ref, p, y[i] > 0)
        row_axpy(g / n_total, mu, data, indices, indptr, i)


@njit(cache=True, nogil=True)
def vrspam_inner(w, w_ref, mu, s_ref, counts, sums, data, indices, indptr, y, picks, eta,
                 beta, beta1, t):
    """Run the inner proximal SVRG loop over ``picks`` from ``w`` (snapshot ``w_ref``).

    ``mu`` is the full gradient and ``s_ref`` the snapshot scores of these rows
    (:func:`vrspam_snapshot`). Returns ``(t, status)`` as :func:`vrspam_stage`.
    """
    d = w.shape[0]
    a_ref, b_ref, p = _class_dots(w_ref, counts, sums)
    for i in picks:
        a, b, _ = _class_dots(w, counts, sums)
        positive = y[i] > 0
        s = row_dot(w, data, indices, indptr, i)
        g = spam_gradient_coef(s, a, b, p, positive)
        g -= spam_gradient_coef(s_ref[i], a_ref, b_ref, p, positive)
        if exploding(g):
            return t, DIVERGED
        row_axpy(-eta * g, w, data, indices, indptr, i)
        for j in range(d):
            w[j] -= eta * mu[j]
        prox_elastic_net(w, eta, beta, beta1)
        t += 1
    for j in range(d):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK


@njit(cache=True, nogil=True)
def vrspam_stage(w, w_ref, mu, s_ref, counts, sums, data, indices, indptr, y, picks, eta,
                 beta, beta1, t):
    """Run one outer stage of VRSPAM from ``w``; ``w`` ends as the last inner iterate.

    Parameters
    ----------
    w : ndarray of shape (d,)
        On entry the snapshot ``w~_{s-1}``; on exit ``w~_s = w_m``.
    w_ref, mu : ndarray of shape (d,)
        Scratch: the snapshot and its full gradient ``(1/n) sum_i G(w~; z_i)``.
    s_ref : ndarray of shape (n,)
        Scratch: the snapshot's scores ``x_i . w~``.
    counts, sums : arrays
        Training-set class counts (2,) and class sums (2, d) (negatives first).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    picks : ndarray of shape (m,), int64
        The inner loop's sample indices, drawn uniformly with replacement.
    eta, beta, beta1 : float
        Constant step and the penalty weights.
    t : int
        Inner steps done before this stage.

    Returns
    -------
    t : int
        Inner steps done after this stage.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    w_ref[:] = w
    mu[:] = 0.0
    vrspam_snapshot(w_ref, mu, s_ref, counts, sums, data, indices, indptr, y, y.shape[0])
    return vrspam_inner(w, w_ref, mu, s_ref, counts, sums, data, indices, indptr, y, picks,
                        eta, beta, beta1, t)
