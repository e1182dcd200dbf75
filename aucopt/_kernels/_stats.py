"""Streaming class statistics (spec P9): counts, sums, largest row norm, Welford.

Class index 0 is the negative class, 1 the positive class. Sums rather than
means are kept so that a CSR row costs O(nnz): the mean of class ``c`` is
``sums[c] / counts[c]``.
"""

import numpy as np
from numba import njit

from ._rows import row_add_sq

__all__ = ["accumulate_class_sums", "add_to_class_sums", "welford_update"]


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
    sq = row_add_sq(sums, c, data, indices, indptr, i)
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
        sq = row_add_sq(sums, c, data, indices, indptr, i)
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
