"""Dense column moments and the affine map of the preconditioner (notes.md#preconditioning).

One sweep over the rows each, row-major, so that a dense ``fit`` pays two streams over
``X`` for its preconditioner (NumPy needs one temporary per operation).
"""

from numba import njit

__all__ = ["dense_moments", "dense_affine"]


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
def dense_affine(X, inv, offset, out):
    """Write ``out[i, j] = X[i, j] * inv[j] + offset[j]`` (``out`` may not alias ``X``)."""
    n, d = X.shape
    for i in range(n):
        for j in range(d):
            out[i, j] = X[i, j] * inv[j] + offset[j]
