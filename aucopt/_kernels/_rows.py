"""Row access shared by every kernel: one kernel body for dense and CSR input.

A data set reaches a kernel as three arguments ``(data, indices, indptr)``:

* dense ``X``: ``(X, None, None)`` with ``X`` C-contiguous float64 of shape (n, d);
* CSR ``X``: ``(X.data, X.indices, X.indptr)`` with sorted int64 indices.

Each helper below is a plain Python function (used as it is when
``NUMBA_DISABLE_JIT=1``) with a numba ``overload`` that picks the dense or the
CSR body at compile time from the type of ``indices``. A kernel written with
these helpers compiles to exactly two cached specialisations.

Dense rows are reduced by :mod:`aucopt._kernels._reduce` (four interleaved
partial sums on the lanes of :mod:`aucopt._kernels._lanes`, or the plain running
sum that the fastmath twins use).
"""

import inspect

from numba import types
from numba.extending import overload

from ._lanes import add4, lane, load4, mul4, prefetch, splat4, store4
from ._reduce import add_sq_unrolled, combine4, dot3_plain, dot3_unrolled, dot_plain, dot_unrolled
from ._variants import plain_under_fastmath

__all__ = [
    "row_dot", "row_axpy", "row_add_sq", "row_sqnorm", "row_to_dense", "row_nnz",
    "inline_row_function", "row_dot_plain", "row_dot3_unrolled", "row_dot3", "row_axpy_dot",
    "row_add_sq_unrolled",
    "row_fetch_targets", "fetch_rows_ahead",
]


def _row_function(dense_impl, csr_impl, name=None, inline=False):
    """Return one function that runs ``dense_impl`` or ``csr_impl``.

    Parameters
    ----------
    dense_impl, csr_impl : callable
        Implementations with the same signature, whose last four arguments are
        ``data, indices, indptr, i``.
    name : str, optional
        Name of the returned function (default: ``dense_impl``'s with ``_dense_``
        replaced by ``row_``).
    inline : bool
        Inline the implementation into the calling kernel (numba IR inlining).

    Returns
    -------
    callable
        A Python function dispatching on ``indices is None``, with a numba
        overload that makes the same choice at compile time.
    """
    signature = inspect.signature(dense_impl)

    def dispatch(*args):
        impl = dense_impl if args[-3] is None else csr_impl
        return impl(*args)

    def typer(*args):
        return dense_impl if isinstance(args[-3], types.NoneType) else csr_impl

    typer.__signature__ = signature
    dispatch.__signature__ = signature
    dispatch.__name__ = name or dense_impl.__name__.replace("_dense_", "row_")
    dispatch.__doc__ = dense_impl.__doc__
    overload(dispatch, inline="always" if inline else "never")(typer)
    return dispatch


def inline_row_function(dense_impl, csr_impl, name):
    """Return a row helper like :func:`_row_function`, inlined where numba calls it.

    Inlining matters for helpers called once per row with many array
    arguments (the class-sums pass ran 1.4x faster than with a call per row).

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
    return _row_function(dense_impl, csr_impl, name, inline=True)


def _dense_dot(w, data, indices, indptr, i):
    """Return ``w . x_i`` (dense rows: four partial sums, :func:`dot_unrolled`)."""
    return dot_unrolled(w, data[i])


def _dense_dot_plain(w, data, indices, indptr, i):
    """Return ``w . x_i`` (dense rows: one running sum, the fastmath form)."""
    return dot_plain(w, data[i])


def _csr_dot(w, data, indices, indptr, i):
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += w[indices[k]] * data[k]
    return s


def _dense_axpy(a, w, data, indices, indptr, i):
    """Add ``a * x_i`` to ``w`` in place."""
    for j in range(w.shape[0]):
        w[j] += a * data[i, j]


def _csr_axpy(a, w, data, indices, indptr, i):
    for k in range(indptr[i], indptr[i + 1]):
        w[indices[k]] += a * data[k]


def _dense_add_sq(out, r, data, indices, indptr, i):
    """Add ``x_i`` to row ``r`` of ``out`` in place and return ``||x_i||^2`` (one sweep)."""
    sq = 0.0
    for j in range(data.shape[1]):
        x = data[i, j]
        out[r, j] += x
        sq += x * x
    return sq


def _csr_add_sq(out, r, data, indices, indptr, i):
    sq = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        x = data[k]
        out[r, indices[k]] += x
        sq += x * x
    return sq


def _dense_sqnorm(data, indices, indptr, i):
    """Return ``||x_i||^2``."""
    s = 0.0
    for j in range(data.shape[1]):
        s += data[i, j] * data[i, j]
    return s


def _csr_sqnorm(data, indices, indptr, i):
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += data[k] * data[k]
    return s


def _dense_to_dense(out, data, indices, indptr, i):
    """Write ``x_i`` into the dense buffer ``out`` (length d)."""
    for j in range(out.shape[0]):
        out[j] = data[i, j]


def _csr_to_dense(out, data, indices, indptr, i):
    for j in range(out.shape[0]):
        out[j] = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        out[indices[k]] = data[k]


def _dense_nnz(data, indices, indptr, i):
    """Return the number of stored entries of row ``i`` (d for dense rows)."""
    return data.shape[1]


def _csr_nnz(data, indices, indptr, i):
    return indptr[i + 1] - indptr[i]


row_dot = _row_function(_dense_dot, _csr_dot)
row_dot_plain = _row_function(_dense_dot_plain, _csr_dot, "row_dot_plain")
row_axpy = _row_function(_dense_axpy, _csr_axpy)
row_sqnorm = _row_function(_dense_sqnorm, _csr_sqnorm)
row_add_sq = _row_function(_dense_add_sq, _csr_add_sq)
row_to_dense = _row_function(_dense_to_dense, _csr_to_dense)
row_nnz = _row_function(_dense_nnz, _csr_nnz)


def _dense_dot3_unrolled(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep (dense rows: :func:`dot3_unrolled`)."""
    return dot3_unrolled(w, a, b, data[i])


def _dense_dot3(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep, one running sum each."""
    return dot3_plain(w, a, b, data[i])


def _csr_dot3(w, a, b, data, indices, indptr, i):
    s = p = q = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        j = indices[k]
        s += w[j] * data[k]
        p += a[j] * data[k]
        q += b[j] * data[k]
    return s, p, q


def _dense_add_sq_unrolled(out, r, data, indices, indptr, i):
    """Add ``x_i`` to row ``r`` of ``out`` in place and return ``||x_i||^2``
    (dense rows: :func:`add_sq_unrolled`)."""
    return add_sq_unrolled(out[r], data[i])


def _dense_axpy_dot(a, prev, w, nxt, data, indices, indptr, i):
    """Add ``a x_prev`` to ``w`` and return ``w . x_i`` (the new ``w``) in one sweep.

    The dot product is summed as :func:`dot_unrolled`, so the result equals
    :func:`row_axpy` followed by :func:`row_dot` bit for bit; the cache lines of
    row ``nxt`` are prefetched on the way (a kernel pipelines its update into
    the next row's sweep: one pass over ``w`` per step).
    """
    x, xp, ahead = data[i], data[prev], data[nxt]
    d = x.shape[0]
    end = d - d % 4
    a4 = splat4(a)
    acc = splat4(0.0)
    for j in range(0, end, 4):
        if j % 8 == 0:  # one 64-byte line per 8 doubles
            prefetch(ahead, j)
        u = add4(load4(w, j), mul4(a4, load4(xp, j)))
        store4(w, j, u)
        acc = add4(acc, mul4(u, load4(x, j)))
    s0 = lane(acc, 0)
    for j in range(end, d):
        w[j] += a * xp[j]
        s0 += w[j] * x[j]
    return combine4(acc, s0)


def _csr_axpy_dot(a, prev, w, nxt, data, indices, indptr, i):
    row_axpy(a, w, data, indices, indptr, prev)
    return row_dot(w, data, indices, indptr, i)


def _dense_fetch_targets(out, r, data, indices, indptr, i):
    """Nothing (a dense row adds into every entry of ``out[r]`` in order: no scattered lines)."""


def _csr_fetch_targets(out, r, data, indices, indptr, i):
    """Prefetch the entries of ``out[r]`` at the columns of row ``i`` (a hint)."""
    target = out[r]
    for k in range(indptr[i], indptr[i + 1]):
        prefetch(target, indices[k])


row_dot3_unrolled = inline_row_function(_dense_dot3_unrolled, _csr_dot3, "row_dot3_unrolled")
row_fetch_targets = inline_row_function(_dense_fetch_targets, _csr_fetch_targets,
                                        "row_fetch_targets")
row_axpy_dot = inline_row_function(_dense_axpy_dot, _csr_axpy_dot, "row_axpy_dot")
row_dot3 = inline_row_function(_dense_dot3, _csr_dot3, "row_dot3")
row_add_sq_unrolled = inline_row_function(_dense_add_sq_unrolled, _csr_add_sq,
                                          "row_add_sq_unrolled")
plain_under_fastmath(row_dot, row_dot_plain)
plain_under_fastmath(row_dot3_unrolled, row_dot3)


# rows ahead of the one stepped whose cache lines a lazy CSR pass (SPAM's) asks for: the row
# start in indptr and the row's label, then the row's stored values and columns, then its entries
# of pack (rows in a shuffled order are scattered over X and y, and a wide pack does not stay in
# the caches). One shuffled pass over 10^6 hashed rows (50 tokens, d = 2^20): the whole fit took
# 1.69 s of CPU against 2.13 s without prefetching (medians of 7 fits; 8, 4, 2 ahead: 2.07 s).
# The label and these distances then took the kernel's pass from 1.76 s to 1.23 s on a loaded
# machine and from 0.99 s to 0.73-0.82 s on a quiet one (16, 8, 3 ahead without the label:
# 1.49 s and 0.85-0.92 s; medians of 7 interleaved passes on the fit's own rows)
# The univariate kernel takes the same distances over its weights (one entry per column):
# a one-pass shuffled fit of uni-squ on those rows took 0.77-0.81 s of CPU against 1.34-1.64 s
# without prefetching (3 fits each).
_START_AHEAD, _ROW_AHEAD, _PACK_AHEAD = 32, 16, 6


def _dense_fetch_ahead(flat, stride, order, y, data, indices, indptr, idx):
    """Nothing (dense rows are read in order from one array)."""


def _csr_fetch_ahead(flat, stride, order, y, data, indices, indptr, idx):
    """Prefetch, for the row at position ``idx`` of ``order``, the cache lines later rows
    will read: their start in ``indptr`` and label, their stored values and columns, and
    the entries ``flat[stride * column]`` of their columns (a hint: no value changes)."""
    m = order.shape[0]
    if idx + _START_AHEAD < m:
        r = order[idx + _START_AHEAD]
        prefetch(indptr, r)
        prefetch(y, r)
    if idx + _ROW_AHEAD < m:
        r = order[idx + _ROW_AHEAD]
        for k in range(indptr[r], indptr[r + 1], 8):
            prefetch(data, k)
            prefetch(indices, k)
    if idx + _PACK_AHEAD < m:
        r = order[idx + _PACK_AHEAD]
        for k in range(indptr[r], indptr[r + 1]):
            prefetch(flat, stride * indices[k])


# the rows ahead of position idx of a pass: what a lazy pass over shuffled CSR rows reads next
fetch_rows_ahead = inline_row_function(_dense_fetch_ahead, _csr_fetch_ahead, "fetch_rows_ahead")
