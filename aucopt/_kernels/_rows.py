"""Row access shared by every kernel: one kernel body for dense and CSR input.

A data set reaches a kernel as three arguments ``(data, indices, indptr)``:

* dense ``X``: ``(X, None, None)`` with ``X`` C-contiguous float64 of shape (n, d);
* CSR ``X``: ``(X.data, X.indices, X.indptr)`` with sorted int64 indices.

Each helper below is a plain Python function (used as it is when
``NUMBA_DISABLE_JIT=1``) with a numba ``overload`` that picks the dense or the
CSR body at compile time from the type of ``indices``. A kernel written with
these helpers compiles to exactly two cached specialisations.
"""

import inspect

from numba import types
from numba.extending import overload

__all__ = ["row_dot", "row_axpy", "row_add_sq", "row_sqnorm", "row_to_dense", "row_nnz"]


def _row_function(dense_impl, csr_impl):
    """Return one function that runs ``dense_impl`` or ``csr_impl``.

    Parameters
    ----------
    dense_impl, csr_impl : callable
        Implementations with the same signature, whose last four arguments are
        ``data, indices, indptr, i``.

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
    dispatch.__name__ = dense_impl.__name__.replace("_dense_", "row_")
    dispatch.__doc__ = dense_impl.__doc__
    overload(dispatch)(typer)
    return dispatch


def _dense_dot(w, data, indices, indptr, i):
    """Return ``w . x_i``."""
    s = 0.0
    for j in range(w.shape[0]):
        s += w[j] * data[i, j]
    return s


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
row_axpy = _row_function(_dense_axpy, _csr_axpy)
row_sqnorm = _row_function(_dense_sqnorm, _csr_sqnorm)
row_add_sq = _row_function(_dense_add_sq, _csr_add_sq)
row_to_dense = _row_function(_dense_to_dense, _csr_to_dense)
row_nnz = _row_function(_dense_nnz, _csr_nnz)
