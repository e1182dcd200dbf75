"""Streaming class statistics (notes.md#opauc-covariance): counts, sums, largest row norm.

Also the class scatter matrices of OPAUC with deferred rank-one updates and the
two BLAS calls they need (see the section comments below).

Class index 0 is the negative class, 1 the positive class. Sums rather than
means are kept so that a CSR row costs O(nnz): the mean of class ``c`` is
``sums[c] / counts[c]``.
"""

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

# the dense reductions live in _rows; re-exported here under their former home
from . import _blas  # noqa: F401  (registers the BLAS symbols called below)
from ._reduce import dot_plain, dot_unrolled
from ._rows import (
    row_add_sq_unrolled,
    row_axpy,
    row_dot3,
    row_dot3_unrolled,
    row_fetch_targets,
    row_sqnorm,
)

__all__ = [
    "accumulate_class_sums",
    "csr_row_sqnorms",
    "add_to_class_sums",
    "add_weighted_to_class_sums",
    "forget_class_sums",
    "dot_unrolled",
    "dot_plain",
    "row_dot3",
    "row_dot3_unrolled",
    "welford_deferred",
    "scatter_times",
    "symv_lower",
    "syrk_lower",
]


@njit(cache=True, nogil=True)
def csr_row_sqnorms(data, indptr, out):
    """Write the squared norm of every CSR row into ``out`` (no copy of the values)."""
    for i in range(out.shape[0]):
        total = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            total += data[k] * data[k]
        out[i] = total


@njit(cache=True, nogil=True)
def add_to_class_sums(counts, sums, sqmax, data, indices, indptr, i, c):
    """Add row ``i`` (of class index ``c``) to the class statistics, in place.

    Parameters
    ----------
    counts : ndarray of shape (2,), int64
        Samples seen per class.
    sums : ndarray of shape (2, d)
        Per-class sums of the rows.
    sqmax : ndarray of shape (1,)
        Largest squared row norm seen, updated.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    i : int
        Row index.
    c : int
        Class index (0 negative, 1 positive).
    """
    counts[c] += 1
    sq = row_add_sq_unrolled(sums, c, data, indices, indptr, i)
    if sq > sqmax[0]:
        sqmax[0] = sq


@njit(cache=True, nogil=True)
def add_weighted_to_class_sums(counts, sums, sqmax, data, indices, indptr, i, c, weight):
    """Add row ``i`` of class index ``c`` with sample weight ``weight``, in place.

    ``counts`` (float64) gains ``weight`` and ``sums[c]`` gains ``weight x_i``
    (notes.md#sample-weights); ``sqmax`` tracks the unweighted squared row norm. A
    weight of 1.0 gives the bits of :func:`add_to_class_sums`.
    """
    counts[c] += weight
    if weight == 1.0:
        sq = row_add_sq_unrolled(sums, c, data, indices, indptr, i)
    else:
        row_axpy(weight, sums[c], data, indices, indptr, i)
        sq = row_sqnorm(data, indices, indptr, i)
    if sq > sqmax[0]:
        sqmax[0] = sq


# rows between the one added and the one whose entries of sums are prefetched (CSR; 10^6 hashed
# rows of 50 tokens, d = 2^20: 0.18-0.23 s of CPU against 0.37-0.46 s without)
_SUMS_AHEAD = 2


@njit(cache=True, nogil=True)
def accumulate_class_sums(counts, sums, sqmax, data, indices, indptr, y):
    """Add every row to the class statistics (one O(nnz) pass), in place.

    Parameters
    ----------
    counts : ndarray of shape (2,), float64
        Total sample weight seen per class (the number of rows when unweighted).
    sums : ndarray of shape (2, d)
        Per-class weighted sums of the rows.
    sqmax : ndarray of shape (1,)
        Largest squared row norm seen (of the rows themselves, not weighted).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Signed weights: the sign is the class, the magnitude the sample weight
        (``±1`` when unweighted; notes.md#sample-weights).

    Returns
    -------
    int
        -1, or the first row whose squared norm is not finite (a NaN, an
        infinity or a value above ~1e154): the statistics are then partial and
        the caller must reject the data. This check replaces a separate
        validation pass over ``X``.
    """
    # the body of add_to_class_sums, written out: a call per row with eight array arguments
    # is not inlined by numba and made this pass 2.7x slower (measured)
    n = y.shape[0]
    for i in range(n):
        if i + _SUMS_AHEAD < n:  # CSR: the scattered entries of sums a later row adds to
            row_fetch_targets(sums, 1 if y[i + _SUMS_AHEAD] > 0 else 0, data, indices, indptr,
                              i + _SUMS_AHEAD)
        c = 1 if y[i] > 0 else 0
        weight = abs(y[i])
        counts[c] += weight
        if weight == 1.0:
            sq = row_add_sq_unrolled(sums, c, data, indices, indptr, i)
        else:  # a weighted row (notes.md#sample-weights): its statistics count it weight times
            row_axpy(weight, sums[c], data, indices, indptr, i)
            sq = row_sqnorm(data, indices, indptr, i)
        if not np.isfinite(sq):
            return i
        if sq > sqmax[0]:
            sqmax[0] = sq
    return -1


# ---------------------------------------------------------------------------------------------
# Class covariances kept as a scatter matrix with deferred rank-one updates
# (notes.md#opauc-covariance, OPAUC).
#
# ``scatter`` holds the lower triangle (row-major) of M = sum (1 - 1/T)(x - c_old)(x - c_old)^T,
# so that the covariance is S = (M + V^T V) / T, where the rows of ``pending`` (V) are the
# Welford terms sqrt(1 - 1/T)(x - c_old) not yet added to M. A full buffer is folded into M by
# one BLAS rank-k update (one sweep over the triangle per DEFER rows instead of one per row),
# and S w is one symmetric BLAS product over the triangle plus O(DEFER d). The BLAS routines are
# scipy's (``scipy.linalg.cython_blas``), called from numba through symbols registered with
# llvmlite by :mod:`aucopt._kernels._blas` (imported above), so the kernels calling them stay
# cacheable.

_P = types.voidptr
_dsymv = types.ExternalFunction("aucopt_dsymv", types.void(*(_P,) * 10))
_dsyrk = types.ExternalFunction("aucopt_dsyrk", types.void(*(_P,) * 10))
_LOWER, _NO_TRANS = 85, 78  # 'U', 'N': a row-major lower triangle is the column-major upper
# one, and a row-major (k, d) block is a column-major (d, k) matrix


@intrinsic
def _data_ptr(typingctx, arr):
    """Pointer to the data of a C-contiguous array (typing fails for other layouts)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(arr)(context, builder, args[0])
        return builder.bitcast(array.data, context.get_value_type(types.voidptr))

    return types.voidptr(arr), codegen


@intrinsic
def _scalar_ptr(typingctx, value):
    """Pointer to a stack copy of a scalar (the BLAS calling convention)."""
    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once_value(builder, args[0])
        return builder.bitcast(slot, context.get_value_type(types.voidptr))

    return types.voidptr(value), codegen


def symv_lower(a, x, out):
    """Write ``S x`` into ``out``, ``S`` the symmetric matrix whose lower triangle is ``a``.

    The upper triangle of ``a`` (row-major) is not read. BLAS ``dsymv`` under
    the JIT; NumPy without it.

    Parameters
    ----------
    a : ndarray of shape (d, d), C-contiguous
    x, out : ndarray of shape (d,), C-contiguous
    """
    lower = np.tril(a)
    out[:] = lower @ x + lower.T @ x - np.diag(a) * x


def syrk_lower(a, v, k):
    """Add ``v[:k].T @ v[:k]`` to the lower triangle of ``a`` (upper triangle untouched).

    Parameters
    ----------
    a : ndarray of shape (d, d), C-contiguous
    v : ndarray of shape (m, d), C-contiguous, m >= k
    k : int
    """
    rows, cols = np.tril_indices(a.shape[0])
    a[rows, cols] += (v[:k].T @ v[:k])[rows, cols]


@overload(symv_lower, inline="always")
def _symv_lower_jit(a, x, out):
    def impl(a, x, out):
        n = np.int32(a.shape[0])
        one = np.int32(1)
        _dsymv(_scalar_ptr(np.int8(_LOWER)), _scalar_ptr(n), _scalar_ptr(1.0), _data_ptr(a),
               _scalar_ptr(n), _data_ptr(x), _scalar_ptr(one), _scalar_ptr(0.0), _data_ptr(out),
               _scalar_ptr(one))
    return impl


@overload(syrk_lower, inline="always")
def _syrk_lower_jit(a, v, k):
    def impl(a, v, k):
        n = np.int32(a.shape[0])
        _dsyrk(_scalar_ptr(np.int8(_LOWER)), _scalar_ptr(np.int8(_NO_TRANS)), _scalar_ptr(n),
               _scalar_ptr(np.int32(k)), _scalar_ptr(1.0), _data_ptr(v), _scalar_ptr(n),
               _scalar_ptr(1.0), _data_ptr(a), _scalar_ptr(n))
    return impl


@njit(cache=True, nogil=True)
def welford_deferred(count, mean, scatter, pending, n_pending, x, weight=1.0):
    """Add the dense vector ``x`` with sample weight ``weight`` to one class's mean and
    scatter matrix (notes.md#opauc-covariance, notes.md#sample-weights).

    Welford's update in its weighted form (West 1979) with the rank-one term
    deferred: ``T <- T + v``, ``c <- c_old + (v/T)(x - c_old)`` now; the row
    ``sqrt(v (1 - v/T))(x - c_old)`` goes to ``pending`` and a full ``pending`` is
    folded into ``scatter``. ``(scatter + P^T P) / T`` with ``P = pending[:n_pending[0]]``
    (lower triangle) then equals the weighted covariance
    ``numpy.cov(X.T, aweights=v, bias=True)``: an integer weight ``k`` gives the
    statistics of ``k`` copies of ``x``. The weight 1.0 gives the bits of the
    unweighted update (``v/T = 1/T``, ``v (1 - v/T) = 1 - 1/T``).

    Parameters
    ----------
    count : ndarray of shape (1,), float64
        Total weight of this class (the number of samples when unweighted), increased.
    mean : ndarray of shape (d,)
        Class mean, updated.
    scatter : ndarray of shape (d, d)
        Lower triangle of the folded scatter matrix, updated when ``pending`` is full.
    pending : ndarray of shape (m, d)
        Deferred rows; ``n_pending[0]`` of them are in use.
    n_pending : ndarray of shape (1,), int64
        Rows of ``pending`` in use, updated.
    x : ndarray of shape (d,)
        The new sample.
    weight : float
        Its sample weight ``v > 0``.
    """
    count[0] += weight
    inv_t = weight / count[0]
    scale = np.sqrt(weight * (1.0 - inv_t))
    row = pending[n_pending[0]]
    for j in range(x.shape[0]):
        u = x[j] - mean[j]
        mean[j] += u * inv_t
        row[j] = u * scale
    n_pending[0] += 1
    if n_pending[0] == pending.shape[0]:
        syrk_lower(scatter, pending, n_pending[0])
        n_pending[0] = 0


@njit(cache=True, nogil=True)
def scatter_times(out, scatter, pending, n_pending, w):
    """Write ``(scatter + P^T P) w``, ``P = pending[:n_pending[0]]``, into ``out``.

    ``scatter`` is a lower triangle (the upper one is not read).

    Parameters
    ----------
    out : ndarray of shape (d,)
        Output.
    scatter, pending, n_pending
        As in :func:`welford_deferred`.
    w : ndarray of shape (d,)
        Vector.
    """
    symv_lower(scatter, w, out)
    for r in range(n_pending[0]):  # loops: a BLAS call costs more than 16 short rows
        row = pending[r]
        coef = dot_unrolled(row, w)
        for j in range(out.shape[0]):
            out[j] += coef * row[j]


@njit(cache=True, nogil=True)
def forget_class_sums(keep, counts, sums):
    """Multiply the class counts and sums by ``keep`` (exponential forgetting, O(d))."""
    counts[0] *= keep
    counts[1] *= keep
    for c in range(2):
        for j in range(sums.shape[1]):
            sums[c, j] *= keep
