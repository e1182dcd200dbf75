"""OPAUC kernels: one-pass AUC optimisation (Gao et al. 2013, Section 3, Algorithm 1; Gao et al.
2013, Section 3, Eqs. 6-11; Gao et al. 2013, Section 6.2; notes.md#opauc-covariance;
notes.md#opaucr-sketch).

Gao, Jin, Zhu, Zhou, "One-pass AUC optimization", ICML 2013 (long version),
Algorithm 1 and Eqs. 2-11.

Per-step loss (Gao et al. 2013, Section 3, Algorithm 1): with ``c, S`` the mean and covariance
(1/T normalisation) of the class opposite to ``y_t`` and ``delta = x_t - c``,
the gradient is ``g = lam w - y_t delta + delta (delta . w) + S w``.

* :func:`opauc_epoch`: full covariance (``opauc``), and full OPAUC after a
  random feature subset or a linear map (``opauc-f``, ``opauc-rp``,
  ``opauc-pca``); O(k^2) per step in the k-dimensional working space, no
  k x k temporaries. The class covariances are kept as lower triangles of
  scatter matrices with deferred rank-one updates, multiplied by BLAS
  (:func:`aucopt._kernels._stats.welford_deferred`); AdaOAM uses the same
  :func:`observe_deferred` and :func:`opauc_step_gradient`.
* :func:`opauc_sketch_epoch`: randomised low-rank covariance (``opauc-r``),
  O(rank * d) memory and time per step, CSR rows are never densified.
"""

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._rows import row_axpy, row_dot, row_sqnorm, row_to_dense
from ._stats import dot_unrolled, scatter_times, welford_deferred

__all__ = [
    "REDUCE_NONE",
    "REDUCE_SUBSET",
    "REDUCE_LINEAR",
    "CENTER_UNBIASED",
    "CENTER_PAPER",
    "opauc_step_gradient",
    "load_sample",
    "observe_deferred",
    "opauc_epoch",
    "opauc_sketch_epoch",
]

REDUCE_NONE = 0  # work in the original space
REDUCE_SUBSET = 1  # x_hat = x[features]
REDUCE_LINEAR = 2  # x_hat = P x, P of shape (k, d)

CENTER_UNBIASED = 0  # S_hat = (Z - c s^T)(Z - c s^T)^T / T   (notes.md#opaucr-sketch default)
CENTER_PAPER = 1  # S_hat = Z Z^T / T - ||s/T||^2 c c^T   (literal Gao et al. 2013)


@njit(cache=True, nogil=True)
def load_sample(xbuf, rowbuf, features, proj, reduce, data, indices, indptr, i):
    """Write the working-space vector of row ``i`` into ``xbuf``.

    Parameters
    ----------
    xbuf : ndarray of shape (k,)
        Output.
    rowbuf : ndarray of shape (d,)
        Scratch for the dense row (``REDUCE_SUBSET`` only).
    features : ndarray of shape (k,), int64
        Selected columns (``REDUCE_SUBSET``).
    proj : ndarray of shape (k, d)
        Linear map (``REDUCE_LINEAR``).
    reduce : int
        ``REDUCE_NONE``, ``REDUCE_SUBSET`` or ``REDUCE_LINEAR``.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    i : int
        Row index.
    """
    if reduce == REDUCE_NONE:
        row_to_dense(xbuf, data, indices, indptr, i)
    elif reduce == REDUCE_SUBSET:
        row_to_dense(rowbuf, data, indices, indptr, i)
        for c in range(xbuf.shape[0]):
            xbuf[c] = rowbuf[features[c]]
    else:
        for c in range(xbuf.shape[0]):
            xbuf[c] = row_dot(proj[c], data, indices, indptr, i)


@njit(cache=True, nogil=True)
def opauc_step_gradient(g, w, x, mean, scatter, pending, n_pending, count, positive, lam):
    """Write the OPAUC gradient ``lam w - y delta + delta (delta.w) + S w`` into ``g``.

    ``delta = x - c`` with ``c, S`` the mean and covariance (1/T normalisation)
    of the class opposite to the sample, ``S`` in the deferred scatter form of
    :func:`aucopt._kernels._stats.welford_deferred`: ``S w = (M w + V^T (V w)) / T``,
    one symmetric BLAS product over the lower triangle of ``M`` plus O(len(V) d).
    No d x d temporary is formed.

    Parameters
    ----------
    g : ndarray of shape (d,)
        Output buffer.
    w : ndarray of shape (d,)
        Current iterate.
    positive : bool
        Whether ``y = +1``.
    lam : float
        l2 weight.
    x : ndarray of shape (d,)
        Current sample (dense), overwritten by ``delta = x - mean``.
    mean, scatter, pending, n_pending, count
        Statistics of the class opposite to the sample (``count`` = T > 0).

    Returns
    -------
    float
        ``delta . w`` (the centred score, used to detect divergence).
    """
    scatter_times(g, scatter, pending, n_pending, w)
    for j in range(w.shape[0]):
        x[j] -= mean[j]
    dw = dot_unrolled(x, w)
    coef = dw - 1.0 if positive else dw + 1.0
    inv_t = 1.0 / count
    for j in range(w.shape[0]):
        g[j] = g[j] * inv_t + lam * w[j] + x[j] * coef
    return dw


@njit(cache=True, nogil=True)
def observe_deferred(counts, means, scatter, pending, n_pending, sqmax, xbuf, c, learn):
    """Add ``xbuf`` (class index ``c``) to the deferred Welford statistics when ``learn``.

    The statistics are in the scatter form of
    :func:`aucopt._kernels._stats.welford_deferred`; ``sqmax`` is raised to
    ``||xbuf||^2``. Returns whether the opposite class has been seen (otherwise
    the loss is zero and no step is taken, notes.md#opauc-first-examples).
    """
    if learn:
        sq = dot_unrolled(xbuf, xbuf)
        if sq > sqmax[0]:
            sqmax[0] = sq
        welford_deferred(counts[c:c + 1], means[c], scatter[c], pending[c],
                         n_pending[c:c + 1], xbuf)
    return counts[1 - c] > 0


@njit(cache=True, nogil=True)
def opauc_epoch(w, counts, means, scatter, pending, n_pending, sqmax, xbuf, g, rowbuf, features,
                proj, data, indices, indptr, y, order, hp, t, learn):
    """Run OPAUC (Algorithm 1 of Gao et al. 2013, corrected) over ``order``, in place.

    For each sample: load its (possibly reduced) vector, add it to its class
    statistics by Welford (P9; only when ``learn``), skip while the opposite
    class is empty (notes.md#opauc-first-examples), else ``w <- w - eta g`` with the gradient of
    :func:`opauc_step_gradient` (current opposite-class statistics, notes.md#opauc-first-examples).
    Per sample: one symmetric product over a k x k triangle, a rank-one
    update deferred and folded in blocks of ``pending.shape[1]`` rows
    (:func:`aucopt._kernels._stats.welford_deferred`), O(m k) for the
    pending rows; no k x k temporaries.

    Parameters
    ----------
    w : ndarray of shape (k,)
        Iterate (last iterate is the output, notes.md#opauc-output).
    counts : ndarray of shape (2,), int64
        Samples per class (0 negative, 1 positive).
    means : ndarray of shape (2, k)
        Class means.
    scatter : ndarray of shape (2, k, k)
        Lower triangles of the folded class scatter matrices.
    pending : ndarray of shape (2, m, k)
        Deferred Welford rows per class.
    n_pending : ndarray of shape (2,), int64
        Rows of ``pending`` in use per class.
    sqmax : ndarray of shape (1,)
        Largest squared norm of the working-space vectors seen (for ``eta="auto"``).
    xbuf, g : ndarray of shape (k,)
        Scratch buffers.
    rowbuf, features, proj
        See :func:`load_sample`.
    data, indices, indptr : arrays
        Rows.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    order : ndarray of int64
        Rows to visit, in this order.
    hp : OpaucHyper
        ``(eta, auto_eta, lam, reduce)``; with ``auto_eta`` the step is
        ``eta / sqmax``.
    t : int
        Updates done before this call.
    learn : bool
        Whether the rows are new (their statistics are added).

    Returns
    -------
    t, status : int
    """
    k = w.shape[0]
    for i in order:
        positive = y[i] > 0
        c = 1 if positive else 0
        load_sample(xbuf, rowbuf, features, proj, hp.reduce, data, indices, indptr, i)
        if not observe_deferred(counts, means, scatter, pending, n_pending, sqmax, xbuf, c,
                                learn):
            continue  # no opposite-class example yet: L_t = 0 (notes.md#opauc-first-examples)
        o = 1 - c
        dw = opauc_step_gradient(g, w, xbuf, means[o], scatter[o], pending[o],
                                 n_pending[o:o + 1], counts[o], positive, hp.lam)
        if exploding(dw):
            return t, DIVERGED
        eta = hp.eta / max(sqmax[0], 1e-300) if hp.auto_eta else hp.eta
        for j in range(k):
            w[j] -= eta * g[j]
        t += 1
    for j in range(k):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK


@njit(cache=True, nogil=True)
def _sketch_cov_times(g, u, w, z, s, mean, count, centering):
    """Write ``S_hat w`` (Gao et al. 2013, Section 3, Eqs. 6-11) into ``g``; ``u`` is a (rank,)
    scratch.

    ``z`` has shape (rank, d) (the transpose of the paper's Z, so each sketch
    column is contiguous), ``s`` the sketch column sums, ``count`` = T.
    """
    rank, d = z.shape
    cw = 0.0
    for j in range(d):
        cw += mean[j] * w[j]
    for r in range(rank):
        acc = 0.0
        for j in range(d):
            acc += z[r, j] * w[j]
        u[r] = acc  # Z^T w
    inv_t = 1.0 / count
    if centering == CENTER_UNBIASED:
        # u = Zc^T w = Z^T w - s (c.w);  S_hat w = (Z u - c (s.u)) / T
        su = 0.0
        for r in range(rank):
            u[r] -= s[r] * cw
            su += s[r] * u[r]
        for j in range(d):
            g[j] = -mean[j] * su * inv_t
    else:
        # S_hat w = Z Z^T w / T - ||s/T||^2 c (c.w)
        ss = 0.0
        for r in range(rank):
            ss += s[r] * s[r]
        coef = ss * inv_t * inv_t * cw
        for j in range(d):
            g[j] = -mean[j] * coef
    for r in range(rank):
        ur = u[r] * inv_t
        for j in range(d):
            g[j] += z[r, j] * ur


@njit(cache=True, nogil=True)
def opauc_sketch_epoch(w, counts, means, zs, ssum, sqmax, g, u, sketch,
                       data, indices, indptr, y, order, hp, t, learn):
    """Run OPAUCr (Gao et al. 2013, Section 3, Eqs. 6-11) over ``order``, in place; O(rank d) per
    step.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Iterate.
    counts : ndarray of shape (2,), int64
        Samples per class.
    means : ndarray of shape (2, d)
        Class means.
    zs : ndarray of shape (2, rank, d)
        Sketches ``Z^T`` per class: ``Z <- Z + x a^T``.
    ssum : ndarray of shape (2, rank)
        Column sums ``s <- s + a`` of the sketch per class.
    sqmax : ndarray of shape (1,)
        Largest squared row norm seen (``eta="auto"``).
    g : ndarray of shape (d,)
        Scratch.
    u : ndarray of shape (rank,)
        Scratch.
    sketch : ndarray of shape (len(order), rank)
        ``a_t = r_t / sqrt(rank)`` for the t-th visited row (notes.md#opaucr-sketch); read only
        when ``learn``.
    data, indices, indptr : arrays
        Rows (CSR rows cost O(rank nnz) for the sketch update).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    order : ndarray of int64
        Rows to visit.
    hp : OpaucSketchHyper
        ``(eta, auto_eta, lam, centering)``.
    t : int
        Updates done before this call.
    learn : bool
        Whether the rows are new (their statistics are added).

    Returns
    -------
    t, status : int
    """
    d = w.shape[0]
    rank = ssum.shape[1]
    for pos in range(order.shape[0]):
        i = order[pos]
        positive = y[i] > 0
        c = 1 if positive else 0
        if learn:
            sq = row_sqnorm(data, indices, indptr, i)
            if sq > sqmax[0]:
                sqmax[0] = sq
            counts[c] += 1
            inv_t = 1.0 / counts[c]
            mean = means[c]
            for j in range(d):
                mean[j] *= 1.0 - inv_t
            row_axpy(inv_t, mean, data, indices, indptr, i)
            for r in range(rank):
                a = sketch[pos, r]
                row_axpy(a, zs[c, r], data, indices, indptr, i)
                ssum[c, r] += a
        o = 1 - c
        if counts[o] == 0:
            continue  # notes.md#opauc-first-examples
        _sketch_cov_times(g, u, w, zs[o], ssum[o], means[o], counts[o], hp.centering)
        mean = means[o]
        dw = row_dot(w, data, indices, indptr, i)
        for j in range(d):
            dw -= mean[j] * w[j]
        if exploding(dw):
            return t, DIVERGED
        coef = dw - 1.0 if positive else dw + 1.0
        eta = hp.eta / max(sqmax[0], 1e-300) if hp.auto_eta else hp.eta
        # g = S_hat w + lam w + delta (dw - y), delta = x - c: the x part goes sparse
        for j in range(d):
            w[j] -= eta * (g[j] + hp.lam * w[j] - mean[j] * coef)
        row_axpy(-eta * coef, w, data, indices, indptr, i)
        t += 1
    for j in range(d):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK
