"""One O(nnz) pass over the index arrays of a compressed sparse matrix (CSR or CSC).

The kernels read CSR rows without bounds checks (:mod:`aucopt._kernels._rows`); the
Python layer runs :func:`compressed_problem` once on every matrix that comes from
outside before any kernel, or scipy's own C++ routines, reads it.
"""

from numba import njit

__all__ = ["STRUCTURE_OK", "BAD_START", "DECREASING", "PAST_END", "BAD_INDEX",
           "compressed_problem"]

STRUCTURE_OK = 0
BAD_START = 1  # indptr[0] != 0
DECREASING = 2  # indptr[i + 1] < indptr[i]
PAST_END = 3  # indptr[-1] beyond the stored entries
BAD_INDEX = 4  # an index < 0 or >= the minor dimension


@njit(cache=True, nogil=True)
def compressed_problem(indptr, indices, n_minor):
    """Return ``(code, position, value)`` of the first structural problem (code 0: none).

    Parameters
    ----------
    indptr : ndarray of shape (n_major + 1,), integer
        Offsets of the rows (CSR) or columns (CSC).
    indices : ndarray of shape (nnz,), integer
        Column (CSR) or row (CSC) index of each stored entry.
    n_minor : int
        Number of columns (CSR) or rows (CSC).

    Returns
    -------
    code : int
        One of the module's codes.
    position : int
        Where: the row of ``indptr`` (codes 1-3) or the entry of ``indices`` (code 4).
    value : int
        The offending ``indptr`` or index value.
    """
    if indptr[0] != 0:
        return BAD_START, 0, indptr[0]
    n_major = indptr.shape[0] - 1
    for i in range(n_major):
        if indptr[i + 1] < indptr[i]:
            return DECREASING, i, indptr[i + 1]
    end = indptr[n_major]
    if end > indices.shape[0]:
        return PAST_END, n_major, end
    if end == 0:
        return STRUCTURE_OK, 0, 0
    low = high = indices[0]
    for k in range(end):  # branch-free min/max (vectorised); the position only on failure
        low = min(low, indices[k])
        high = max(high, indices[k])
    if low >= 0 and high < n_minor:
        return STRUCTURE_OK, 0, 0
    for k in range(end):
        j = indices[k]
        if j < 0 or j >= n_minor:
            return BAD_INDEX, k, j
    return STRUCTURE_OK, 0, 0
