"""The weighted column moments that set the preconditioner's scales and shifts
(:mod:`aucopt.algorithms._precondition`): one-pass sums over dense or CSR rows, and the
two-pass variances of the columns whose one-pass variance lost its digits."""

from __future__ import annotations

import numpy as np

from .._kernels._precondition import csr_moments, csr_unit_counts, dense_moments
from ._cutting_plane import as_matrix
from ._data import as_rows
from ._spec import RowData

__all__ = ["BLOCK_COLUMNS", "column_sums", "rows_at", "unit_counts", "variances"]

# columns whose variance is computed again, at most this many at a time (as dense blocks of
# the rows read, at most MEDIAN_ROWS on a first chunk)
BLOCK_COLUMNS = 256


def column_sums(rows: RowData, weight: np.ndarray, cols: np.ndarray, stride=1, entries=None):
    """Return the weighted ``(non-zero count, sum, sum of squares)`` of the columns ``cols``
    (sorted) over the rows ``0, stride, ...`` of ``rows`` (a weight each; CSR: O(their nnz);
    ``entries``: the mask of the stored entries in ``cols`` and their places in it, if known)."""
    if stride > 1 and (rows.is_sparse or cols.size < rows.n_features):  # (dense: in place)
        rows, weight = rows_at(rows, np.arange(0, rows.n_samples, stride)), weight[::stride]
        stride = 1
    if rows.is_sparse and cols.size * 8 >= rows.n_features:
        # many columns (fit, a first chunk): all of them, in one compiled pass
        counts = unit_counts(rows, weight)
        if counts is not None:  # binary rows of unit weight: the three sums are the counts
            counts = counts[cols] if cols.size < rows.n_features else counts
            return counts, counts.copy(), counts.copy()
        sums = np.zeros((rows.n_features, 4))
        csr_moments(rows.data, rows.indices, rows.indptr,
                    np.ascontiguousarray(weight, dtype=np.float64), sums)
        if cols.size < rows.n_features:
            sums = sums[cols]
        return sums[:, 0], sums[:, 1], sums[:, 2]
    if rows.is_sparse:  # a few new columns of a later chunk: O(nnz log k)
        per = np.repeat(weight, np.diff(rows.indptr))
        if entries is None:
            where = np.searchsorted(cols, rows.indices)
            where[where == cols.size] = 0
            keep = cols[where] == rows.indices
            entries = keep, where[keep]
        (keep, at), k = entries, cols.size
        val, per = rows.data[keep], per[keep]
        return (np.bincount(at, weights=per * (val != 0), minlength=k),
                np.bincount(at, weights=per * val, minlength=k),
                np.bincount(at, weights=per * val * val, minlength=k))
    X = rows.data if cols.size == rows.n_features else np.ascontiguousarray(rows.data[:, cols])
    out = np.zeros(cols.size), np.zeros(cols.size), np.zeros(cols.size)
    dense_moments(X, np.ascontiguousarray(weight, dtype=np.float64), stride, *out)
    return out


def unit_counts(rows: RowData, weight: np.ndarray) -> np.ndarray | None:
    """Return the stored entries of every column of the CSR ``rows`` (float64) if every row
    weight and every stored value is 1, else None: then they are the bits of each of the
    weighted non-zero count, sum and sum of squares (:func:`csr_unit_counts`, about 6x faster)."""
    if not (weight == 1.0).all():
        return None
    nnz = int(rows.indptr[-1] - rows.indptr[0])
    counts = np.zeros(rows.n_features, dtype=np.int32 if nnz < 2**31 else np.int64)
    if not csr_unit_counts(rows.data, rows.indices, rows.indptr, counts):
        return None
    return counts.astype(np.float64)


def variances(rows: RowData, weight: np.ndarray, stride: int, cols: np.ndarray,
               sq: np.ndarray | None = None, bound: float = 0.0,
               shift=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(ratios, values)``: the weighted variance of each column of ``cols`` over
    the rows ``0, stride, ...`` of ``rows`` divided by its mean square, in two passes (the
    mean, then the squared deviations from it) on the column divided by its largest value
    (no underflow on columns of 1e-160), exact to rounding however far the columns sit from
    0; and the value of each column that holds one value only in those rows (NaN for the
    others: a mean of equal values may differ from them in its last bit).

    With ``bound``, the rows whose squared transformed length ``sq`` exceeds ``bound**2``
    count shortened, ``shift + f (x - shift)`` with ``f = bound / sqrt(sq)``, as in
    :func:`aucopt.algorithms._precondition._clipped_sums`.
    """
    read = np.arange(0, rows.n_samples, stride)
    w = np.asarray(weight, dtype=np.float64)[read]
    long = np.flatnonzero(sq > bound * bound) if bound > 0.0 else np.empty(0, np.intp)
    f = bound / np.sqrt(sq[long]) if long.size else None
    matrix = as_matrix(rows)[read] if rows.is_sparse else rows.data  # (CSR: rows read once)
    out, values = np.empty(cols.size), np.full(cols.size, np.nan)
    for start in range(0, cols.size, BLOCK_COLUMNS):
        part = cols[start:start + BLOCK_COLUMNS]
        if rows.is_sparse:
            block = matrix[:, part].toarray()
        else:  # (only the rows read at these columns: no copy of all the columns)
            block = np.array(matrix[np.ix_(read, part)], dtype=np.float64)
        if long.size:
            c = shift[start:start + BLOCK_COLUMNS]
            block[long] = c + f[:, None] * (block[long] - c)
        low, high = block.min(axis=0), block.max(axis=0)
        values[start:start + part.size] = np.where(low == high, low, np.nan)
        size = np.maximum(np.abs(low), np.abs(high))
        block /= np.where(size > 0.0, size, 1.0)
        deviation = block - (w @ block) / w.sum()
        square = w @ (block * block)
        out[start:start + part.size] = np.where(
            square > 0.0, (w @ (deviation * deviation)) / np.where(square > 0.0, square, 1.0), 0.0)
    return out, values


def rows_at(rows: RowData, which: np.ndarray) -> RowData:
    """Return the rows ``which`` (sorted indices) of ``rows``."""
    return as_rows(as_matrix(rows)[which])
