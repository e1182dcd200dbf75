"""The score of one row in O(nnz) from a linear model kept in a lazy form.

A streaming learner keeps its weights as a combination ``w = sum_k c_k A_k[:, col_k]`` of
per-feature columns of its state with scalar coefficients (``w = s v``, an average
``(acc + S v - b) / t``, ...); its intercept ``-(w.m+ + w.m-) / 2 - w.c`` needs the dots of
``w`` with the class sums of the rows and the shift of the preconditioner
(notes.md#preconditioning). :func:`column_dots` keeps those dots per column ``A_k``: a
call of one row changes the columns only at the row's features, so subtracting their
terms before the update and adding them after keeps the dots exact (up to the order of
the additions) in O(nnz). :func:`row_score` is the score of one row from the same columns;
:func:`row_score_after` adds the terms a learnt row left and scores in one call.
Plain loops: small dots are not handed to a (threaded) BLAS.
"""

import numpy as np
from numba import njit

__all__ = ["column_dots", "merged_columns", "row_score", "row_score_after",
           "row_score_intercept"]


@njit(cache=True, nogil=True)
def column_dots(mats, cols, sums, scale, shift, at, sign, out):
    """Add ``sign`` times the terms at features ``at`` of the dots of every column.

    ``out[k, 0] += sign * sum_j A_k[j] sums[1, j]``, ``out[k, 1]`` the same with
    ``sums[0]``, ``out[k, 2] += sign * sum_j A_k[j] shift[j] / scale[j]`` (``scale[j]``
    read as 1 where it is 0, a feature not seen; nothing when ``shift`` is empty).

    Parameters
    ----------
    mats : tuple of float64 arrays of shape (d, m_k)
        The state entries holding the columns.
    cols : int64 array
        The column ``col_k`` of each entry.
    sums : float64 array of shape (2, d)
        Class sums of the rows seen (negatives first).
    scale, shift : float64 arrays of shape (d,) or (0,)
        The preconditioner's scale and shift (empty: none).
    at : int64 array
        Distinct features, strictly increasing.
    sign : float
        +1 or -1.
    out : float64 array of shape (K, 3)

    Returns
    -------
    bool
        False (``out`` unchanged) if ``at`` is not strictly increasing or out of range.
    """
    d = sums.shape[1]
    previous = -1
    for i in range(at.shape[0]):
        if at[i] <= previous or at[i] >= d:
            return False
        previous = at[i]
    shifted = shift.shape[0] > 0
    for k in range(len(mats)):
        a = mats[k]
        c = cols[k]
        pos = 0.0
        neg = 0.0
        off = 0.0
        for i in range(at.shape[0]):
            j = at[i]
            v = a[j, c]
            pos += v * sums[1, j]
            neg += v * sums[0, j]
            if shifted and shift[j] != 0.0:
                s = scale[j]
                off += v * (1.0 / s) * shift[j] if s > 0.0 else v * shift[j]
        out[k, 0] += sign * pos
        out[k, 1] += sign * neg
        out[k, 2] += sign * off
    return True


@njit(cache=True, nogil=True)
def row_score(mats, cols, coefs, scale, data, indices):
    """Return ``sum_i data[i] w[indices[i]] / scale[indices[i]]`` with
    ``w = sum_k coefs[k] A_k[:, cols[k]]`` (``scale`` empty: none; read as 1 where 0).

    NaN if an index is outside ``[0, d)`` (the caller then takes the general path).
    """
    d = mats[0].shape[0]
    scaled = scale.shape[0] > 0
    total = 0.0
    for i in range(indices.shape[0]):
        j = indices[i]
        if j < 0 or j >= d:
            return np.nan
        w = 0.0
        for k in range(len(mats)):
            w += coefs[k] * mats[k][j, cols[k]]
        if scaled and scale[j] > 0.0:
            w = w * (1.0 / scale[j])
        total += w * data[i]
    return total


@njit(cache=True, nogil=True)
def row_score_intercept(mats, cols, coefs, scale, data, indices, dots, counts):
    """Return :func:`row_score` plus the intercept ``-(mean of w.m+ and w.m- over the
    classes seen) - w.c`` from the dots of :func:`column_dots` (``dots[k]``: the column's
    dots with the positive sum, the negative sum and the shift) and the class counts
    (negatives first). The mean is over the classes seen (0 before any row), the
    positive class first; every sum is taken in a fixed order, so the score does not
    depend on the caller.
    """
    score = row_score(mats, cols, coefs, scale, data, indices)
    pos = 0.0
    neg = 0.0
    off = 0.0
    for k in range(coefs.shape[0]):
        c = coefs[k]
        pos = pos + c * dots[k, 0]
        neg = neg + c * dots[k, 1]
        off = off + c * dots[k, 2]
    total = 0.0
    seen = 0
    if counts[1] != 0:
        total += pos / counts[1]
        seen += 1
    if counts[0] != 0:
        total += neg / counts[0]
        seen += 1
    intercept = -(total / seen) if seen else 0.0
    return score + (intercept - off)


@njit(cache=True, nogil=True)
def row_score_after(mats, cols, coefs, sums, scale, shift, pending, data, indices, dots,
                    counts):
    """Return ``(score, True)``: :func:`row_score_intercept` after adding the terms at the
    features ``pending`` to ``dots`` (:func:`column_dots` with sign +1: the update a row
    learnt since the last score left to do), the two in one call; ``(nan, False)`` with
    ``dots`` unchanged if ``pending`` is refused.
    """
    if not column_dots(mats, cols, sums, scale, shift, pending, 1.0, dots):
        return np.nan, False
    return row_score_intercept(mats, cols, coefs, scale, data, indices, dots, counts), True


@njit(cache=True, nogil=True)
def _increasing(a) -> bool:
    for i in range(1, a.shape[0]):
        if a[i] <= a[i - 1]:
            return False
    return True


@njit(cache=True, nogil=True)
def merged_columns(first, second, third, out):
    """Write the union of three strictly increasing integer arrays to ``out`` (increasing,
    distinct) and return its length; -1 if one of them is not strictly increasing or
    ``out`` is shorter than the three together (``out`` then holds nothing useful: take
    ``numpy.unique`` of their concatenation instead, the same columns).
    """
    n1, n2, n3 = first.shape[0], second.shape[0], third.shape[0]
    if (out.shape[0] < n1 + n2 + n3 or not _increasing(first) or not _increasing(second)
            or not _increasing(third)):
        return -1
    i = 0
    j = 0
    k = 0
    n = 0
    while i < n1 or j < n2 or k < n3:
        # the smallest head of the arrays not yet exhausted
        if i < n1:
            head = np.int64(first[i])
        elif j < n2:
            head = np.int64(second[j])
        else:
            head = np.int64(third[k])
        if j < n2 and second[j] < head:
            head = np.int64(second[j])
        if k < n3 and third[k] < head:
            head = np.int64(third[k])
        out[n] = head
        n += 1
        if i < n1 and first[i] == head:
            i += 1
        if j < n2 and second[j] == head:
            j += 1
        if k < n3 and third[k] == head:
            k += 1
    return n
