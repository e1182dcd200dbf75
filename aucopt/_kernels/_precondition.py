"""Column moments, row norms and the affine map with its row clipping, of the
preconditioner (notes.md#preconditioning).

One sweep over the rows each, row-major, so that a dense ``fit`` pays a few streams over
``X`` for its preconditioner (NumPy needs one temporary per operation).
"""

import numpy as np
from numba import njit

__all__ = ["dense_moments", "dense_clip_affine", "csr_clip", "dense_affine_norms",
           "csr_affine_norms"]


@njit(cache=True, nogil=True)
def dense_moments(X, weight, count, total, squares):
    """Add the weighted non-zero count, sum and sum of squares of every column of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous
    weight : ndarray of shape (n,)
        Row weights.
    count, total, squares : ndarray of shape (d,)
        Accumulated in place.
    """
    n, d = X.shape
    for i in range(n):  # branch-free, so that the inner loop vectorises
        w = weight[i]
        for j in range(d):
            x = X[i, j]
            wx = w * x
            count[j] += w * (x != 0.0)
            total[j] += wx
            squares[j] += wx * x


@njit(cache=True, nogil=True)
def dense_clip_affine(X, inv, offset, bound, out):
    """Write ``out[i] = X[i] * inv + offset``, then scale every row of ``out`` whose norm
    exceeds ``bound`` down to norm ``bound`` (``bound`` 0: no row is scaled)."""
    n, d = X.shape
    limit = bound * bound
    for i in range(n):
        sq = 0.0
        for j in range(d):
            v = X[i, j] * inv[j] + offset[j]
            out[i, j] = v
            sq += v * v
        if bound > 0.0 and sq > limit:
            f = bound / np.sqrt(sq)
            for j in range(d):
                out[i, j] *= f


@njit(cache=True, nogil=True)
def csr_clip(data, indptr, bound):
    """Scale, in place, every CSR row whose norm exceeds ``bound`` (> 0) down to ``bound``."""
    limit = bound * bound
    for i in range(indptr.size - 1):
        sq = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            sq += data[k] * data[k]
        if sq > limit:
            f = bound / np.sqrt(sq)
            for k in range(indptr[i], indptr[i + 1]):
                data[k] *= f


@njit(cache=True, nogil=True)
def dense_affine_norms(X, inv, offset, stride, out):
    """Write the squared norms of the rows ``X[i] * inv + offset``, ``i = 0, stride,
    2 stride, ...``, to ``out`` (of size ``ceil(n / stride)``)."""
    n, d = X.shape
    for i in range(0, n, stride):
        sq = 0.0
        for j in range(d):
            v = X[i, j] * inv[j] + offset[j]
            sq += v * v
        out[i // stride] = sq


@njit(cache=True, nogil=True)
def csr_affine_norms(data, indices, indptr, scale, shift, centred, stride, out):
    """Write the squared norms of the CSR rows ``(x - shift) / scale`` (``scale`` 0: 1),
    ``i = 0, stride, ...``, to ``out`` (of size ``ceil(n / stride)``); ``shift`` is
    non-zero at the columns ``centred`` only, and applies to the entries a row does not
    store too. Nothing of the rows' width is formed."""
    base = 0.0
    for j in centred:
        c = shift[j] / scale[j]
        base += c * c
    for i in range(0, indptr.size - 1, stride):
        sq = base
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            inv = 1.0 / scale[j] if scale[j] > 0.0 else 1.0
            offset = -(shift[j] * inv)
            v = data[k] * inv + offset
            sq += v * v - offset * offset
        out[i // stride] = sq
