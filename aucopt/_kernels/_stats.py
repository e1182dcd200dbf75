"""Streaming class statistics (spec P9): counts, sums, largest row norm, Welford.

Also dense row reductions in four partial sums, and the class scatter matrices of
OPAUC with deferred rank-one updates with the two BLAS calls they need (see the
section comments below).

Class index 0 is the negative class, 1 the positive class. Sums rather than
means are kept so that a CSR row costs O(nnz): the mean of class ``c`` is
``sums[c] / counts[c]``.
"""

import inspect

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from ._rows import _csr_add_sq, _csr_dot, row_add_sq, row_dot
from ._variants import plain_under_fastmath

__all__ = [
    "accumulate_class_sums",
    "add_to_class_sums",
    "dot_unrolled",
    "row_dot_unrolled",
    "row_dot3_unrolled",
    "row_dot3",
    "dot_plain",
    "inline_row_function",
    "row_add_sq_unrolled",
    "welford_update",
    "welford_deferred",
    "scatter_times",
    "symv_lower",
    "syrk_lower",
    "BLAS_SYMBOLS",
]


# ---------------------------------------------------------------------------------------------
# Dense reductions in four interleaved partial sums. A single running sum is a chain of
# dependent additions (about 4 cycles each) that the compiler may not reorder without
# fastmath (and numba disables LLVM's SLP vectoriser); four partial sums pipeline, and the
# result is still fixed by the code (the same on every machine). Measured at d = 100: the
# dot-product loop ran 1.7x faster. Under fastmath the plain running sums vectorise better, so
# the fastmath twins of the kernels use the plain forms (``plain_under_fastmath``).


def inline_row_function(dense_impl, csr_impl, name):
    """Return a row helper dispatching on ``indices is None``, inlined where numba calls it.

    As ``aucopt._kernels._rows._row_function``, with the overload inlined into the
    calling kernel (the class-sums pass ran 1.4x faster than with a call per row).

    Parameters
    ----------
    dense_impl, csr_impl : callable
        Implementations with the same signature ending in ``data, indices, indptr, i``.
    name : str
        Name of the returned function.

    Returns
    -------
    callable
    """
    def dispatch(*args):
        return (dense_impl if args[-3] is None else csr_impl)(*args)

    def typer(*args):
        return dense_impl if isinstance(args[-3], types.NoneType) else csr_impl

    dispatch.__signature__ = typer.__signature__ = inspect.signature(dense_impl)
    dispatch.__name__, dispatch.__doc__ = name, dense_impl.__doc__
    overload(dispatch, inline="always")(typer)
    return dispatch


@njit(inline="always")
def dot_unrolled(a, b):
    """Return ``a . b`` for 1-d arrays, summed in four interleaved partial sums."""
    d = a.shape[0]
    s0 = s1 = s2 = s3 = 0.0
    end = d - d % 4
    for j in range(0, end, 4):
        s0 += a[j] * b[j]
        s1 += a[j + 1] * b[j + 1]
        s2 += a[j + 2] * b[j + 2]
        s3 += a[j + 3] * b[j + 3]
    for j in range(end, d):
        s0 += a[j] * b[j]
    return (s0 + s2) + (s1 + s3)


@njit(inline="always")
def dot_plain(a, b):
    """Return ``a . b`` with one running sum (the fastmath form of :func:`dot_unrolled`)."""
    s = 0.0
    for j in range(a.shape[0]):
        s += a[j] * b[j]
    return s


def _dense_dot_unrolled(w, data, indices, indptr, i):
    """Return ``w . x_i`` (dense rows: four partial sums, see :func:`dot_unrolled`)."""
    return dot_unrolled(w, data[i])


def _dense_add_sq_unrolled(out, r, data, indices, indptr, i):
    """Add ``x_i`` to row ``r`` of ``out`` in place and return ``||x_i||^2``.

    Two loops over the row (it stays in L1): the addition vectorises on its own, the norm
    uses :func:`dot_unrolled`; one fused loop was 1.5x slower (measured at d = 100).
    """
    x = data[i]
    target = out[r]
    for j in range(x.shape[0]):
        target[j] += x[j]
    return dot_unrolled(x, x)


def _dense_dot3_unrolled(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep over row ``i`` (dense: four
    partial sums each)."""
    x = data[i]
    d = x.shape[0]
    s0 = s1 = s2 = s3 = 0.0
    p0 = p1 = p2 = p3 = 0.0
    q0 = q1 = q2 = q3 = 0.0
    end = d - d % 4
    for j in range(0, end, 4):
        x0, x1, x2, x3 = x[j], x[j + 1], x[j + 2], x[j + 3]
        s0 += w[j] * x0
        s1 += w[j + 1] * x1
        s2 += w[j + 2] * x2
        s3 += w[j + 3] * x3
        p0 += a[j] * x0
        p1 += a[j + 1] * x1
        p2 += a[j + 2] * x2
        p3 += a[j + 3] * x3
        q0 += b[j] * x0
        q1 += b[j + 1] * x1
        q2 += b[j + 2] * x2
        q3 += b[j + 3] * x3
    for j in range(end, d):
        s0 += w[j] * x[j]
        p0 += a[j] * x[j]
        q0 += b[j] * x[j]
    return (s0 + s2) + (s1 + s3), (p0 + p2) + (p1 + p3), (q0 + q2) + (q1 + q3)


def _dense_dot3(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep, one running sum each."""
    x = data[i]
    s = p = q = 0.0
    for j in range(x.shape[0]):
        s += w[j] * x[j]
        p += a[j] * x[j]
        q += b[j] * x[j]
    return s, p, q


def _csr_dot3(w, a, b, data, indices, indptr, i):
    s = p = q = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        j = indices[k]
        s += w[j] * data[k]
        p += a[j] * data[k]
        q += b[j] * data[k]
    return s, p, q


row_dot_unrolled = inline_row_function(_dense_dot_unrolled, _csr_dot, "row_dot_unrolled")
row_add_sq_unrolled = inline_row_function(_dense_add_sq_unrolled, _csr_add_sq,
                                          "row_add_sq_unrolled")
row_dot3_unrolled = inline_row_function(_dense_dot3_unrolled, _csr_dot3, "row_dot3_unrolled")
row_dot3 = inline_row_function(_dense_dot3, _csr_dot3, "row_dot3")
plain_under_fastmath(dot_unrolled, dot_plain)
plain_under_fastmath(row_dot_unrolled, row_dot)
plain_under_fastmath(row_dot3_unrolled, row_dot3)
plain_under_fastmath(row_add_sq_unrolled, row_add_sq)


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
def accumulate_class_sums(counts, sums, sqmax, data, indices, indptr, y):
    """Add every row to the class statistics (one O(nnz) pass), in place.

    Parameters
    ----------
    counts : ndarray of shape (2,), int64
        Samples seen per class.
    sums : ndarray of shape (2, d)
        Per-class sums of the rows.
    sqmax : ndarray of shape (1,)
        Largest squared row norm seen.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

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
    for i in range(y.shape[0]):
        c = 1 if y[i] > 0 else 0
        counts[c] += 1
        sq = row_add_sq_unrolled(sums, c, data, indices, indptr, i)
        if not np.isfinite(sq):
            return i
        if sq > sqmax[0]:
            sqmax[0] = sq
    return -1


@njit(cache=True, nogil=True)
def welford_update(count, mean, cov, x):
    """Add the dense vector ``x`` to one class's mean and covariance (spec P9).

    ``T <- T + 1; c <- c_old + (x - c_old)/T;
    S <- S + ((x - c_old)(x - c)^T - S)/T`` with 1/T normalisation, which
    equals ``numpy.cov(X.T, bias=True)`` (not the printed formula of the OPAUC
    paper, see spec A-01).

    Parameters
    ----------
    count : ndarray of shape (1,), int64
        Number of samples of this class, incremented.
    mean : ndarray of shape (d,)
        Class mean, updated.
    cov : ndarray of shape (d, d)
        Class covariance (1/T normalisation), updated.
    x : ndarray of shape (d,)
        The new sample.
    """
    count[0] += 1
    t = count[0]
    d = x.shape[0]
    inv_t = 1.0 / t
    # cov <- cov + (dx_old dx_new^T - cov)/T, with dx_new = (1 - 1/T) dx_old
    shrink = 1.0 - inv_t
    for j in range(d):
        dj = x[j] - mean[j]
        for k in range(d):
            dk = x[k] - mean[k]
            cov[j, k] += (dj * dk * shrink - cov[j, k]) * inv_t
    for j in range(d):
        mean[j] += (x[j] - mean[j]) * inv_t


# ---------------------------------------------------------------------------------------------
# Class covariances kept as a scatter matrix with deferred rank-one updates (spec P9, OPAUC).
#
# ``scatter`` holds the lower triangle (row-major) of M = sum (1 - 1/T)(x - c_old)(x - c_old)^T,
# so that the covariance is S = (M + V^T V) / T, where the rows of ``pending`` (V) are the
# Welford terms sqrt(1 - 1/T)(x - c_old) not yet added to M. A full buffer is folded into M by
# one BLAS rank-k update (one sweep over the triangle per DEFER rows instead of one per row),
# and S w is one symmetric BLAS product over the triangle plus O(DEFER d). The BLAS routines are
# scipy's (``scipy.linalg.cython_blas``), called from numba through symbols registered with
# llvmlite, so the kernels calling them stay cacheable. The kernel layer imports only numpy
# and numba: the symbols ``aucopt_<name>`` are registered by ``aucopt.algorithms.opauc`` when
# the package is imported (``register_blas_symbols``), before any kernel is compiled or loaded.

BLAS_SYMBOLS = ("dsymv", "dsyrk")  # registered as "aucopt_" + name

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
def welford_deferred(count, mean, scatter, pending, n_pending, x):
    """Add the dense vector ``x`` to one class's mean and scatter matrix (spec P9).

    Welford's update with the rank-one term deferred: ``T <- T + 1``,
    ``c <- c_old + (x - c_old)/T`` now; the row ``sqrt(1 - 1/T)(x - c_old)``
    goes to ``pending`` and a full ``pending`` is folded into ``scatter``.
    ``(scatter + P^T P) / T`` with ``P = pending[:n_pending[0]]`` (lower
    triangle) then equals ``numpy.cov(X.T, bias=True)``.

    Parameters
    ----------
    count : ndarray of shape (1,), int64
        Samples of this class, incremented.
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
    """
    count[0] += 1
    inv_t = 1.0 / count[0]
    scale = np.sqrt(1.0 - inv_t)
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
