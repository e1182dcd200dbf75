"""OPAUC kernels: one-pass AUC optimisation (Gao et al. 2013, Algorithm 1 and Eqs. 6-11).

Gao, Jin, Zhu, Zhou, "One-pass AUC optimization", ICML 2013 (long version),
Algorithm 1 and Eqs. 2-11; the reduced baselines of its Section 6.2;
notes.md#opauc-covariance and notes.md#opaucr-sketch.

Per-step loss (Algorithm 1): with ``c, S`` the mean and covariance (1/T
normalisation) of the class opposite to ``y_t`` and ``delta = x_t - c``, the
gradient is ``g = lam w - y_t delta + delta (delta . w) + S w``.

Sample weights (notes.md#sample-weights) arrive in the signed labels ``y = ±v``:
the class statistics are weighted (a row of weight ``v`` counts as ``v`` copies
of it in the means, covariances and sketches) and the step on the row is scaled
by ``v``. Labels ``±1`` give the unweighted bits.

* :func:`opauc_epoch`: full covariance (``opauc``), and full OPAUC after a
  random feature subset or a linear map (``opauc-f``, ``opauc-rp``,
  ``opauc-pca``); O(k^2) per step in the k-dimensional working space, no
  k x k temporaries. The class covariances are kept as lower triangles of
  scatter matrices with deferred rank-one updates, multiplied by BLAS
  (:func:`aucopt._kernels._stats.welford_deferred`); AdaOAM takes its
  gradient from :func:`sample_gradient` too.
* :func:`opauc_sketch_epoch`: randomised low-rank covariance (``opauc-r``),
  O(rank * d) memory and time per step, CSR rows are never densified.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._rows import row_axpy, row_dot, row_sqnorm, row_to_dense
from ._state import F64, I64, D, Dim
from ._stats import dot_unrolled, scatter_times, welford_deferred

__all__ = [
    "CENTER_UNBIASED",
    "CENTER_PAPER",
    "DEFER",
    "OpaucState",
    "RowMap",
    "OpaucSketchState",
    "MAP_NONE",
    "MAP_SUBSET",
    "MAP_LINEAR",
    "map_mode",
    "load_sample",
    "observe_deferred",
    "opauc_step_gradient",
    "step_arrays",
    "sample_gradient",
    "opauc_epoch",
    "opauc_sketch_epoch",
]

CENTER_UNBIASED = 0  # S_hat = (Z - c s^T)(Z - c s^T)^T / T   (notes.md#opaucr-sketch default)
CENTER_PAPER = 1  # S_hat = Z Z^T / T - ||s/T||^2 c c^T   (literal Gao et al. 2013)

# Welford rank-one updates deferred per class and folded into the scatter matrix by one BLAS
# rank-DEFER update: 8 to 16 were the fastest of 1-64 at d = 100 and d = 1000 (measured)
DEFER = 16
K = Dim("k")  # working dimension: n_features, or the reduced variants' n_components
RANK = Dim("rank")


class OpaucState(NamedTuple):
    """OPAUC's state in its k-dimensional working space (AdaOAM's begins with the same)."""

    w: F64[K]  # iterate (the last one is the output, notes.md#opauc-output)
    count: F64[2]  # total sample weight per class (0 negative, 1 positive): rows, unweighted
    mean: F64[2, K]  # class means
    sqmax: F64[1]  # largest squared norm of the working vectors seen (eta="auto")
    xbuf: F64[K]  # scratch: the working vector of the row, then delta = x - c
    g: F64[K]  # scratch: the gradient
    scatter: F64[2, K, K]  # lower triangles of the folded class scatter matrices
    pending: F64[2, DEFER, K]  # Welford rows not yet folded into scatter, per class
    n_pending: I64[2]  # rows of pending in use, per class


class RowMap(NamedTuple):
    """How a row becomes its working vector (:func:`load_sample`); unused arrays are empty.

    Non-empty ``features``: the selected columns (``opauc-f``, and ``opauc-rp`` when
    ``k >= d``); otherwise non-empty ``proj``: ``x_hat = P x`` (``opauc-rp``,
    ``opauc-pca``); otherwise the row itself (``opauc``).
    """

    rowbuf: np.ndarray  # (d,) scratch for the dense row of a column subset
    features: np.ndarray  # (k,) int64, sorted column indices
    proj: np.ndarray  # (k, d) linear map P


class OpaucSketchState(NamedTuple):
    """OPAUCr's state: class means and Gaussian sketches of the class covariances."""

    w: F64[D]  # iterate
    count: F64[2]  # total sample weight per class (rows, unweighted)
    mean: F64[2, D]  # class means
    sketch_z: F64[2, RANK, D]  # sketches Z^T per class: Z <- Z + sqrt(v) x a^T
    sketch_sum: F64[2, RANK]  # column sums s <- s + sqrt(v) a of the sketches
    sqmax: F64[1]  # largest squared row norm seen (eta="auto")
    g: F64[D]  # scratch
    u: F64[RANK]  # scratch


MAP_NONE = 0  # the working vector is the row
MAP_SUBSET = 1  # x_hat = x[features]
MAP_LINEAR = 2  # x_hat = P x, P of shape (k, d)


@njit(inline="always")
def map_mode(rm):
    """Return the ``MAP_*`` code of a :class:`RowMap` (which of its arrays is in use)."""
    if rm.features.shape[0] > 0:
        return MAP_SUBSET
    return MAP_LINEAR if rm.proj.shape[0] > 0 else MAP_NONE


@njit(cache=True, nogil=True)
def load_sample(xbuf, rowbuf, features, proj, mode, data, indices, indptr, i):
    """Write the working-space vector of row ``i`` into ``xbuf``.

    Parameters
    ----------
    xbuf : ndarray of shape (k,)
        Output.
    rowbuf, features, proj
        The arrays of a :class:`RowMap`.
    mode : int
        ``MAP_NONE``, ``MAP_SUBSET`` or ``MAP_LINEAR`` (:func:`map_mode`).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    i : int
        Row index.
    """
    if mode == MAP_NONE:
        row_to_dense(xbuf, data, indices, indptr, i)
    elif mode == MAP_SUBSET:
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
    x : ndarray of shape (d,)
        Current sample (dense), overwritten by ``delta = x - mean``.
    mean, scatter, pending, n_pending, count
        Statistics of the class opposite to the sample (``count`` = T > 0, its weight).
    positive : bool
        Whether ``y = +1``.
    lam : float
        l2 weight.

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
def observe_deferred(counts, means, scatter, pending, n_pending, sqmax, xbuf, c, weight, learn):
    """Add ``xbuf`` (class index ``c``, sample weight ``weight``) to the deferred Welford
    statistics when ``learn``.

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
                         n_pending[c:c + 1], xbuf, weight)
    return counts[1 - c] > 0


@njit(inline="always")
def step_arrays(st):
    """Return the arrays of ``st`` that :func:`sample_gradient` takes, in its order.

    Taken once per call: reading the fields of the state tuple in the loop of every
    sample made OPAUC and AdaOAM 10-15% slower at d = 60 (measured).
    """
    return st.count, st.mean, st.scatter, st.pending, st.n_pending, st.sqmax, st.xbuf, st.g, st.w


@njit(inline="always")
def sample_gradient(arrays, label, lam, learn):
    """Observe the working vector ``xbuf`` of a sample and write its gradient into ``g``.

    The step logic OPAUC and AdaOAM share: the sample joins its class statistics
    (:func:`observe_deferred`) with the weight ``|label|``, then, if the opposite
    class has been seen, :func:`opauc_step_gradient` (the gradient of one unweighted
    copy of the sample; the caller scales the step by the weight). ``arrays`` are
    those of the state that :func:`step_arrays` returns. Returns ``(ready, delta . w)``;
    ``ready`` is False (and no gradient written) while the opposite class is empty:
    ``L_t = 0`` (notes.md#opauc-first-examples).
    """
    counts, means, scatter, pending, n_pending, sqmax, xbuf, g, w = arrays
    positive = label > 0
    c = 1 if positive else 0
    if not observe_deferred(counts, means, scatter, pending, n_pending, sqmax, xbuf, c,
                            abs(label), learn):
        return False, 0.0
    o = 1 - c
    return True, opauc_step_gradient(g, w, xbuf, means[o], scatter[o], pending[o],
                                     n_pending[o:o + 1], counts[o], positive, lam)


@njit(inline="always")
def finite_status(w):
    """Return ``OK`` if every entry of ``w`` is finite, else ``DIVERGED``."""
    for j in range(w.shape[0]):
        if not np.isfinite(w[j]):
            return DIVERGED
    return OK


@njit(cache=True, nogil=True)
def opauc_epoch(st, rm, data, indices, indptr, y, order, hp, t, learn):
    """Run OPAUC (Algorithm 1 of Gao et al. 2013, corrected) over ``order``, in place.

    For each sample: load its (possibly reduced) vector, add it to its class
    statistics by Welford (only when ``learn``; notes.md#opauc-covariance), skip
    while the opposite class is empty (notes.md#opauc-first-examples), else
    ``w <- w - eta v g`` with the gradient of :func:`opauc_step_gradient` (current
    opposite-class statistics) and ``v`` the sample weight. Per sample: one
    symmetric product over a k x k triangle, a rank-one update deferred and
    folded in blocks of ``DEFER`` rows (:func:`aucopt._kernels._stats.welford_deferred`),
    O(DEFER k) for the pending rows; no k x k temporaries.

    Parameters
    ----------
    st : OpaucState
        The state, updated.
    rm : RowMap
        How a row becomes its working vector.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Signed sample weights ``±v`` (``±1`` unweighted; notes.md#sample-weights).
    order : ndarray of int64
        Rows to visit, in this order.
    hp : OpaucHyper
        The kernel scalars (:data:`aucopt.algorithms.opauc.PARAMS`); with ``auto_eta``
        the step is ``eta / (sqmax + lam)``.
    t : int
        Updates done before this call.
    learn : bool
        Whether the rows are new (their statistics are added).

    Returns
    -------
    t, status : int
    """
    arrays = step_arrays(st)
    w, g, sqmax, xbuf = st.w, st.g, st.sqmax, st.xbuf
    rowbuf, features, proj = rm
    mode = map_mode(rm)
    ready = False
    for i in order:
        load_sample(xbuf, rowbuf, features, proj, mode, data, indices, indptr, i)
        ready, dw = sample_gradient(arrays, y[i], hp.lam, learn)
        if not ready:
            continue
        if exploding(dw):
            return t, DIVERGED
        eta = hp.eta / max(sqmax[0] + hp.lam, 1e-300) if hp.auto_eta else hp.eta
        eta *= abs(y[i])  # the row's weight (notes.md#sample-weights)
        for j in range(w.shape[0]):
            w[j] -= eta * g[j]
        t += 1
    # the guard above sees a step's result at the next step: the last one is checked here
    # (xbuf still holds its delta), else one huge step (a weight of 1e300) ends the pass
    # with margins that overflow the scores
    if ready and exploding(dot_unrolled(xbuf, w)):
        return t, DIVERGED
    return t, finite_status(w)


@njit(cache=True, nogil=True)
def _sketch_cov_times(st, o, centering):
    """Write ``S_hat w`` of class ``o`` (Gao et al. 2013, Eqs. 6-11) into ``st.g``.

    ``st.sketch_z[o]`` has shape (rank, d) (the transpose of the paper's Z, so each
    sketch column is contiguous), ``st.sketch_sum[o]`` holds the sketch column sums
    ``s`` and ``st.count[o]`` is T (the class weight); ``st.u`` is a (rank,) scratch.
    """
    g, u, w = st.g, st.u, st.w
    z, s, mean = st.sketch_z[o], st.sketch_sum[o], st.mean[o]
    rank, d = z.shape
    cw = 0.0
    for j in range(d):
        cw += mean[j] * w[j]
    for r in range(rank):
        acc = 0.0
        for j in range(d):
            acc += z[r, j] * w[j]
        u[r] = acc  # Z^T w
    inv_t = 1.0 / st.count[o]
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
def opauc_sketch_epoch(st, sketch, data, indices, indptr, y, order, hp, t, learn):
    """Run OPAUCr (Gao et al. 2013, Eqs. 6-11) over ``order``, in place; O(rank d) per step.

    A row of weight ``v`` adds ``sqrt(v) x a^T`` to its class sketch and ``sqrt(v) a`` to
    the column sums: ``E[Z Z^T]`` gains ``v x x^T``, and ``sqrt(v) a`` has the law of the
    sum of ``v`` independent sketch rows, so an integer weight is ``v`` copies of the row
    in distribution. Its step is scaled by ``v`` (notes.md#sample-weights).

    Parameters
    ----------
    st : OpaucSketchState
        The state, updated.
    sketch : ndarray of shape (len(order), rank)
        ``a_t = r_t / sqrt(rank)`` for the t-th visited row (notes.md#opaucr-sketch); read only
        when ``learn``.
    data, indices, indptr, y, order, hp, t, learn
        As in :func:`opauc_epoch` (CSR rows cost O(rank nnz) for the sketch update).

    Returns
    -------
    t, status : int
    """
    w, counts, means = st.w, st.count, st.mean
    zs, ssum, sqmax = st.sketch_z, st.sketch_sum, st.sqmax
    d = w.shape[0]
    rank = ssum.shape[1]
    last = -1  # the last row stepped on (its margin is checked after the loop)
    for pos in range(order.shape[0]):
        i = order[pos]
        positive = y[i] > 0
        weight = abs(y[i])
        c = 1 if positive else 0
        if learn:
            sq = row_sqnorm(data, indices, indptr, i)
            if sq > sqmax[0]:
                sqmax[0] = sq
            counts[c] += weight
            inv_t = weight / counts[c]
            mean = means[c]
            for j in range(d):
                mean[j] *= 1.0 - inv_t
            row_axpy(inv_t, mean, data, indices, indptr, i)
            root = np.sqrt(weight)
            for r in range(rank):
                a = sketch[pos, r] * root
                row_axpy(a, zs[c, r], data, indices, indptr, i)
                ssum[c, r] += a
        o = 1 - c
        if counts[o] == 0:
            continue  # notes.md#opauc-first-examples
        _sketch_cov_times(st, o, hp.centering)
        g, mean = st.g, means[o]
        dw = row_dot(w, data, indices, indptr, i)
        for j in range(d):
            dw -= mean[j] * w[j]
        if exploding(dw):
            return t, DIVERGED
        coef = dw - 1.0 if positive else dw + 1.0
        eta = hp.eta / max(sqmax[0] + hp.lam, 1e-300) if hp.auto_eta else hp.eta
        eta *= weight
        # g = S_hat w + lam w + delta (dw - y), delta = x - c: the x part goes sparse
        for j in range(d):
            w[j] -= eta * (g[j] + hp.lam * w[j] - mean[j] * coef)
        row_axpy(-eta * coef, w, data, indices, indptr, i)
        t += 1
        last = i
    if last >= 0:  # the last step's result, as in opauc_epoch
        o = 0 if y[last] > 0 else 1
        dw = row_dot(w, data, indices, indptr, last)
        for j in range(d):
            dw -= means[o, j] * w[j]
        if exploding(dw):
            return t, DIVERGED
    return t, finite_status(w)
