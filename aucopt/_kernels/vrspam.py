"""VRSPAM kernel: variance-reduced SPAM, i.e. proximal SVRG (Dan & Sahoo, Algorithm 1).

Dan and Sahoo, "Variance reduced stochastic proximal algorithm for AUC
maximization" (VRSPAM); M. Natole Jr., PhD thesis (SUNY Albany 2020),
Algorithm 17.

Objective (finite sum over the stored training set, training-set ``p, m+, m-``):
``min_w (1/n) sum_i F_i(w) + Omega(w)`` whose gradient is ``(1/n) sum_i G(w; z_i)``
with SPAM's ``G`` (:func:`aucopt._kernels.spam.spam_gradient_coef`) and
``Omega(w) = (beta/2)||w||^2 + beta1 ||w||_1``. With sample weights ``w_i = |y_i|``
(notes.md#sample-weights) the sum is ``(1/W) sum_i w_i F_i``, ``W = sum_i w_i``, and the
statistics are weighted: the full gradient weighs each row by ``w_i / W``, and an inner step
on a row drawn uniformly is scaled by ``n w_i / W`` (an unbiased estimate; 1 when unweighted).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._prox import prox_elastic_net
from ._rows import row_axpy, row_dot
from ._state import ANY, F64, I64, D
from .spam import spam_gradient_coef

__all__ = ["VrspamState", "Snapshot", "vrspam_inner", "vrspam_snapshot", "vrspam_stage",
           "vrspam_step"]


class VrspamState(NamedTuple):
    """VRSPAM's state."""

    w: F64[D]  # the snapshot w~_s
    started: I64[1]  # 1 once a start point exists (warm_start skips the SPAM pass)
    n_iter: I64[1]  # stages run by the last fit
    change: F64[1]  # relative change of the last stage's snapshot
    beta: F64[1]  # l2 weight of the last fit (beta, or the value "auto" chose)


class Snapshot(NamedTuple):
    """Scratch of one stage: the snapshot, its full gradient and its scores."""

    w_ref: F64[D]  # the snapshot w~
    mu: F64[D]  # its full gradient (1/n) sum_i G(w~; z_i)
    s_ref: F64[ANY]  # its scores x_i . w~ of the rows


@njit(cache=True, nogil=True)
def _class_dots(w, counts, sums):
    """Return ``(w.m+, w.m-, p)`` from the class counts and sums."""
    a = row_dot(w, sums, None, None, 1) / counts[1]
    b = row_dot(w, sums, None, None, 0) / counts[0]
    return a, b, counts[1] / (counts[0] + counts[1])


@njit(cache=True, nogil=True)
def vrspam_step(hp, sqmax):
    """Return the constant step: ``eta``, or ``eta / M^2`` for ``eta="auto"``."""
    if hp.auto_eta:
        return hp.eta / max(sqmax[0], 1e-300)
    return hp.eta


@njit(cache=True, nogil=True)
def vrspam_snapshot(snap, stats, data, indices, indptr, y, n_total):
    """Add the rows' share of the full gradient at the snapshot ``snap.w_ref`` to ``snap.mu``.

    Writes the scores ``snap.s_ref[i] = x_i . w_ref`` and adds ``|y_i| G(w_ref; z_i) / n_total``
    for every row: with ``n_total`` the total sample weight of the whole training set (its
    size when unweighted), the shares of disjoint parts of it sum to the full gradient
    (map-reduce).
    """
    w_ref, mu, s_ref = snap
    a_ref, b_ref, p = _class_dots(w_ref, stats.count, stats.sum)
    for i in range(y.shape[0]):
        s_ref[i] = row_dot(w_ref, data, indices, indptr, i)
        g = abs(y[i]) * spam_gradient_coef(s_ref[i], a_ref, b_ref, p, y[i] > 0)
        row_axpy(g / n_total, mu, data, indices, indptr, i)


@njit(cache=True, nogil=True)
def vrspam_inner(w, snap, stats, data, indices, indptr, y, picks, hp, t):
    """Run the inner proximal SVRG loop over ``picks`` from ``w`` (snapshot ``snap``).

    ``snap`` holds the full gradient and the snapshot scores of these rows
    (:func:`vrspam_snapshot`). Returns ``(t, status)`` as :func:`vrspam_stage`. A row
    drawn uniformly from these rows moves by ``|y_i| / mean |y|`` times its unweighted
    step (1 when unweighted).
    """
    w_ref, mu, s_ref = snap
    counts, sums = stats.count, stats.sum
    eta = vrspam_step(hp, stats.sqmax)
    d = w.shape[0]
    a_ref, b_ref, p = _class_dots(w_ref, counts, sums)
    total = 0.0
    for i in range(y.shape[0]):
        total += abs(y[i])
    mean_weight = total / y.shape[0]
    for i in picks:
        a, b, _ = _class_dots(w, counts, sums)
        positive = y[i] > 0
        s = row_dot(w, data, indices, indptr, i)
        g = spam_gradient_coef(s, a, b, p, positive)
        g -= spam_gradient_coef(s_ref[i], a_ref, b_ref, p, positive)
        g *= abs(y[i]) / mean_weight
        if exploding(g):
            return t, DIVERGED
        row_axpy(-eta * g, w, data, indices, indptr, i)
        for j in range(d):
            w[j] -= eta * mu[j]
        prox_elastic_net(w, eta, hp.beta, hp.beta1)
        t += 1
    for j in range(d):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK


@njit(cache=True, nogil=True)
def vrspam_stage(w, snap, stats, data, indices, indptr, y, picks, hp, t):
    """Run one outer stage of VRSPAM from ``w``; ``w`` ends as the last inner iterate.

    Parameters
    ----------
    w : ndarray of shape (d,)
        On entry the snapshot ``w~_{s-1}``; on exit ``w~_s = w_m``.
    snap : Snapshot
        Scratch: the snapshot, its full gradient ``(1/n) sum_i G(w~; z_i)`` and its
        scores ``x_i . w~`` (``s_ref`` of shape (n,)).
    stats : ClassStats
        Training-set class counts (2,), class sums (2, d) (negatives first) and
        largest squared row norm ``M^2`` (1,) (:class:`aucopt._kernels.spam.ClassStats`).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Signed sample weights: the sign is the class, ``|y_i|`` the weight (``±1``
        unweighted; notes.md#sample-weights).
    picks : ndarray of shape (m,), int64
        The inner loop's sample indices, drawn uniformly with replacement.
    hp : VrspamHyper
        Kernel scalars: ``eta``, ``auto_eta`` (:func:`vrspam_step`), ``beta``, ``beta1``.
    t : int
        Inner steps done before this stage.

    Returns
    -------
    t : int
        Inner steps done after this stage.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    snap.w_ref[:] = w
    snap.mu[:] = 0.0
    vrspam_snapshot(snap, stats, data, indices, indptr, y, stats.count[0] + stats.count[1])
    return vrspam_inner(w, snap, stats, data, indices, indptr, y, picks, hp, t)
