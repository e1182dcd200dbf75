"""The transaction around one streaming row: save, observe, (the family's step), undo.

Row-by-row learning (River's ``learn_one``) runs each family's own one-pass kernel on a
one-row chunk. What the estimator's general path does around that kernel (the data
statistics, an all-or-nothing update) is done here, in two compiled calls that are the
same for every family:

* :func:`begin_row` checks that the row is finite, copies what the row's update may
  change (the per-feature entries at the row's columns, every other writable entry
  whole) into a scratch buffer, and adds the row to the data statistics
  (:func:`aucopt._kernels._stats.accumulate_class_sums`, as the general path does);
* the family's kernel then learns the row (called by the caller, with the arguments its
  spec binds);
* :func:`undo_row` puts back what :func:`begin_row` saved when the kernel could not
  finish (a divergence, a fold of lazy scales): the caller then runs the general path
  from the unchanged state, which handles those cases.

The saved values cost O(nnz) for the per-feature entries (``AlgorithmSpec.column_keys``)
plus the size of the other writable entries. Arrays are passed as arrays (numba holds a
reference to each for the call): nothing refers to memory by address.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import OK, TINY_SQNORM
from ._stats import accumulate_class_sums
from .row_keep import copy_values

__all__ = ["RowUndo", "begin_row", "end_row", "undo_row", "NOT_HERE", "MORE_SPACE", "REBIND"]

NOT_HERE = -1  # status: the state is as before the call; take the general path
MORE_SPACE = -2  # status: nothing done; ``saved`` needs more slots (``width * (nnz + extra)``)
REBIND = -3  # status: the row is saved and observed; bind the step again before making it


class RowUndo(NamedTuple):
    """What :func:`begin_row` saves of a state, and where.

    Attributes
    ----------
    by_rows : tuple of 2-D float64 arrays
        The per-feature entries with the feature axis first, as ``(d, k)`` arrays (a ``(d,)``
        entry as ``(d, 1)``), saved at the row's columns.
    by_cols : tuple of 2-D float64 arrays
        The ``(k, d)`` per-feature entries (the data statistics' ``data_sum`` is one).
    whole : tuple of 1-D uint8 arrays
        Every other writable entry, as its bytes, saved whole.
    saved : ndarray of float64
        Scratch for the column values: ``nnz + n_extra`` slots per value of a column.
    saved_whole : ndarray of uint8
        Scratch for the whole entries: their total size.
    extra : ndarray of int64
        Further columns the step writes besides the row's (e.g. those of a row stored by
        an earlier call: ``AlgorithmSpec.extra_columns``), saved too.
    n_extra : ndarray of int64 of shape (1,)
        How many of ``extra`` (a negative count: none).
    used : ndarray of int64 of shape (1,)
        Set by :func:`begin_row` to the number of ``extra`` columns saved.
    zeroed : tuple of 1-D float64 arrays
        Scratch of the step that starts every call at zero (as a fresh one of ``run``);
        :func:`begin_row` zeroes them.
    max_nnz : int
        The most non-zeros the step takes (a larger row: ``NOT_HERE``).
    watch : ndarray of shape (1,)
        A state entry whose value the step's bound arguments depend on.
    watched : ndarray of float64 of shape (1,)
        Its value when they were bound (a different value after the row joined the data
        statistics: ``REBIND``).
    outlier_ratio : float
        ``OUTLIER_RATIO`` for a preconditioned state (the general path refuses such a row),
        infinity for rows learnt as given (``precondition=None``).
    """

    by_rows: tuple
    by_cols: tuple
    whole: tuple
    saved: np.ndarray
    saved_whole: np.ndarray
    extra: np.ndarray
    n_extra: np.ndarray
    used: np.ndarray
    zeroed: tuple
    max_nnz: int
    watch: np.ndarray
    watched: np.ndarray
    outlier_ratio: float


@njit(cache=True, nogil=True)
def begin_row(stats, undo, data, indices, indptr, y):
    """Save what one CSR row's update may change, then add the row to the data statistics.

    Parameters
    ----------
    stats : tuple of ndarray
        The estimator's data statistics (``data_count`` (2,), ``data_sum`` (2, d),
        ``data_sqmax`` (1,)), updated in place.
    undo : RowUndo
        What to save and where.
    data, indices, indptr : ndarray
        The row (row 0 of a CSR chunk).
    y : ndarray of shape (1,)
        Its signed label (``±1``, or ``±w`` with a sample weight).

    Returns
    -------
    int
        ``OK``; ``MORE_SPACE`` with nothing done (``undo.saved`` is too small);
        ``REBIND`` with the row saved and observed, the step not made (see
        ``RowUndo.watched``: the caller binds the step again, then makes it or undoes); or
        ``NOT_HERE`` with the state unchanged (a row that is not one valid CSR row of
        width ``d``, a non-finite row, an outlier (``outlier_ratio``), tiny-scaled data:
        the general path handles or reports them).
    """
    count, sums, sqmax = stats
    d = sums.shape[1]
    if indptr.shape[0] != 2 or indptr[0] != 0 or y.shape[0] != 1:
        return NOT_HERE
    nnz = indptr[1]
    if nnz > data.shape[0] or nnz > indices.shape[0] or nnz > undo.max_nnz:
        return NOT_HERE
    extra = undo.extra
    n_more = min(max(undo.n_extra[0], 0), extra.shape[0])
    sq = 0.0
    for q in range(nnz):
        if indices[q] < 0 or indices[q] >= d:
            return NOT_HERE
        sq += data[q] * data[q]
    if not np.isfinite(sq) or sq > undo.outlier_ratio * sqmax[0] > 0.0:  # (the general
        return NOT_HERE  # path reports them)
    for q in range(n_more):
        if extra[q] < 0 or extra[q] >= d:
            return NOT_HERE
    width = 0
    for a in undo.by_rows:
        width += a.shape[1]
    for a in undo.by_cols:
        width += a.shape[0]
    size = 0
    for b in undo.whole:
        size += b.shape[0]
    saved, saved_whole = undo.saved, undo.saved_whole
    if saved_whole.shape[0] < size:
        return NOT_HERE
    if saved.shape[0] < width * (nnz + n_more):
        return MORE_SPACE
    undo.used[0] = n_more
    at = 0
    for a in undo.by_rows:
        if a.shape[1] == 0:
            continue
        for q in range(nnz):
            for c in range(a.shape[1]):
                saved[at] = a[indices[q], c]
                at += 1
        for q in range(n_more):
            for c in range(a.shape[1]):
                saved[at] = a[extra[q], c]
                at += 1
    for a in undo.by_cols:
        for c in range(a.shape[0]):
            for q in range(nnz):
                saved[at] = a[c, indices[q]]
                at += 1
            for q in range(n_more):
                saved[at] = a[c, extra[q]]
                at += 1
    at = 0
    for b in undo.whole:
        if b.shape[0]:  # (the padding is empty)
            copy_values(b, saved_whole[at:at + b.shape[0]])
            at += b.shape[0]
    for z in undo.zeroed:
        z[:] = 0.0
    accumulate_class_sums(count, sums, sqmax, data, indices, indptr, y)
    if sqmax[0] < TINY_SQNORM:  # count and sqmax are among the whole entries
        undo_row(undo, indices, indptr)
        return NOT_HERE
    if undo.watch[0] != undo.watched[0]:
        return REBIND  # the row is saved and observed: the caller binds the step again
    return OK


@njit(inline="always")
def end_row(result, undo, indices, indptr, t):
    """Return ``(t, OK)`` after a step that ended with ``result = (t, status, ...)``, else
    undo :func:`begin_row` and return ``(t, NOT_HERE)`` with the ``t`` before the step."""
    if result[1] != OK:
        undo_row(undo, indices, indptr)
        return t, NOT_HERE
    return result[0], OK


@njit(cache=True, nogil=True)
def undo_row(undo, indices, indptr):
    """Put back what :func:`begin_row` saved: the whole entries first (``extra`` may be one
    of them), then the columns (a column saved twice holds the same value twice)."""
    saved, saved_whole, extra = undo.saved, undo.saved_whole, undo.extra
    at = 0
    for b in undo.whole:
        if b.shape[0]:
            copy_values(saved_whole[at:at + b.shape[0]], b)
            at += b.shape[0]
    nnz, n_more = indptr[1], undo.used[0]
    at = 0
    for a in undo.by_rows:
        if a.shape[1] == 0:
            continue
        for q in range(nnz):
            for c in range(a.shape[1]):
                a[indices[q], c] = saved[at]
                at += 1
        for q in range(n_more):
            for c in range(a.shape[1]):
                a[extra[q], c] = saved[at]
                at += 1
    for a in undo.by_cols:
        for c in range(a.shape[0]):
            for q in range(nnz):
                a[c, indices[q]] = saved[at]
                at += 1
            for q in range(n_more):
                a[c, extra[q]] = saved[at]
                at += 1
