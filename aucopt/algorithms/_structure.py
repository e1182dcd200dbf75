"""The structure check of sparse input: no kernel reads outside a matrix's arrays.

scipy builds ``csr_matrix((data, indices, indptr), shape)`` without checking the index
arrays (and lets them be replaced afterwards), and its C++ routines (``has_sorted_indices``,
``sum_duplicates``, conversions) read them unchecked too. :func:`check_sparse_structure`
is the one check every sparse ``X`` passes before any of them, or a kernel, reads it: one
compiled pass over the indices (O(nnz), a few milliseconds for 10^7 entries).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels._structure import (
    BAD_INDEX,
    BAD_START,
    DECREASING,
    PAST_END,
    STRUCTURE_OK,
    compressed_problem,
)

__all__ = ["check_sparse_structure"]

_ADVICE = ("Build the matrix with valid index arrays (scipy does not check them; "
           "X.check_format(full_check=True) shows the problem) or from dense data.")


def _index_array(values, what: str, name: str) -> np.ndarray:
    """Return an index array as int32/int64 ndarray; refuse other kinds or a bad shape."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"Sparse X has an invalid {what}.{name}: it must be a 1-d integer "
                         f"array, got dtype {arr.dtype} with shape {arr.shape}. {_ADVICE}")
    if arr.dtype not in (np.int32, np.int64):
        if arr.size and (arr.dtype.kind == "u" and arr.max() > np.iinfo(np.int64).max):
            raise ValueError(f"Sparse X has {what}.{name} values beyond 2**63-1. {_ADVICE}")
        arr = arr.astype(np.int64)
    return arr


def _check_compressed(X, n_major: int, n_minor: int, major: str, minor: str) -> None:
    indptr = _index_array(X.indptr, X.format, "indptr")
    indices = _index_array(X.indices, X.format, "indices")
    if indptr.shape[0] != n_major + 1:
        raise ValueError(f"Sparse X ({X.format}) of shape {X.shape} has an indptr of length "
                         f"{indptr.shape[0]}; it must be {n_major + 1} (one more than the "
                         f"number of {major}s). {_ADVICE}")
    data = np.asarray(X.data)
    if data.shape[:1] != indices.shape:
        raise ValueError(f"Sparse X ({X.format}) has {data.shape[0] if data.ndim else 0} "
                         f"values but {indices.shape[0]} indices; they must be as many. "
                         f"{_ADVICE}")
    code, where, value = compressed_problem(indptr, indices, n_minor)
    if code == STRUCTURE_OK:
        return
    if code == BAD_START:
        problem = f"indptr[0] is {value}; it must be 0"
    elif code == DECREASING:
        problem = (f"indptr decreases at {major} {where} (indptr[{where + 1}] = {value} < "
                   f"indptr[{where}] = {int(indptr[where])}); it must be non-decreasing")
    elif code == PAST_END:
        problem = (f"indptr[-1] is {value} but only {indices.shape[0]} entries are stored; "
                   "it must equal the number of stored entries")
    else:
        assert code == BAD_INDEX
        problem = (f"entry {where} has {minor} index {value}, outside [0, {n_minor}) for "
                   f"shape {X.shape}")
    raise ValueError(f"Sparse X ({X.format}) has an invalid structure: {problem}. {_ADVICE}")


def check_sparse_structure(X) -> None:
    """Raise ValueError if a scipy sparse ``X`` has index arrays a kernel could overrun.

    CSR and CSC: ``indptr`` of length ``n_major + 1``, starting at 0, non-decreasing,
    ending within the stored entries; every index in ``[0, n_minor)``; as many values as
    indices; integer index arrays. COO: row and column indices in range, as many as the
    values. Other formats are converted by scipy's Python code (checked afterwards as
    CSR). Dense input passes. O(nnz), no copy for int32/int64 index arrays.

    Parameters
    ----------
    X : object
        The input as the user gave it.

    Raises
    ------
    ValueError
        Naming the array, the position and the value that is wrong.
    """
    if not sp.issparse(X):
        return
    if X.ndim != 2:  # scipy's sparse arrays may be 1-D (csr_array of a vector)
        raise ValueError(f"Expected a 2-D sparse matrix, got a sparse array of shape "
                         f"{X.shape}: reshape a single row with X.reshape(1, -1).")
    fmt = X.format
    n, d = X.shape
    if fmt == "csr":
        _check_compressed(X, n, d, "row", "column")
    elif fmt == "csc":
        _check_compressed(X, d, n, "column", "row")
    elif fmt == "coo":
        coords = getattr(X, "coords", None) or (X.row, X.col)
        data = np.asarray(X.data)
        for axis, (idx, size) in enumerate(zip(coords, X.shape)):
            idx = _index_array(idx, "coo", "row" if axis == 0 else "col")
            if idx.shape != data.shape[:1]:
                raise ValueError(f"Sparse X (coo) has {data.shape[0]} values but "
                                 f"{idx.shape[0]} indices on axis {axis}. {_ADVICE}")
            if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= size):
                raise ValueError(f"Sparse X (coo) has an index outside [0, {size}) on axis "
                                 f"{axis} for shape {X.shape}. {_ADVICE}")
    elif fmt == "bsr":
        r, c = X.blocksize
        _check_compressed(X, n // r, d // c, "block row", "block column")
