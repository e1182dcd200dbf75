"""SPAM-L2's update on one streaming row in one compiled call (the ``learn_one`` path).

A stream learnt row by row spends most of its time calling kernels, not in them:
the estimator's general path makes three kernel calls per row (the data
statistics, the frozen class sums, the step) and keeps an undo log in Python.
:func:`spam_learn_row` makes the same calls, in the same order, on the same
arrays, from one compiled function, so a row gives the same bits as
``partial_fit`` on it. It saves what the row may change first (O(nnz): the
row's columns and the few scalars) and puts it back if the row cannot be done
here (a divergence, a fold of the lazy scales, tiny-scaled data): the caller
then runs the general path from the unchanged state, which handles those cases.
"""

import numpy as np
from numba import njit

from ._bound import addresses, f64_at, i64_at
from ._checks import OK, TINY_SQNORM
from ._state import D, layout
from ._stats import accumulate_class_sums
from .spam import (
    STATS_TRAIN,
    ClassStats,
    SpamLazyState,
    spam_epoch_lazy,
    spam_lazy_add_rows,
)

__all__ = ["spam_learn_row", "bind", "NOT_HERE"]

NOT_HERE = -1  # status: the state is as before the call; take the general path
SCRATCH_ROWS = 64  # non-zeros a row may have before its saved values need an allocation
_LAZY, _STATS = layout(SpamLazyState), layout(ClassStats)
PACK_WIDTH, LAZY_SIZE = _LAZY["pack"].dims[1], _LAZY["lazy"].dims[0]


_SMALL = LAZY_SIZE + 6  # the lazy scalars, the counts and largest norm in use, the data's
SCRATCH_SIZE = _SMALL + SCRATCH_ROWS * (PACK_WIDTH + 2)
# the arrays spam_learn_row rebuilds, in order: the lazy state, the data statistics, the
# scratch buffer and the order
_DTYPES = (*(lay.dtype for lay in _LAZY.values()), *(lay.dtype for lay in _STATS.values()),
           np.dtype(np.float64), np.dtype(np.int64))
assert len(_DTYPES) == 11, "spam_learn_row rebuilds 6 + 3 + 2 arrays: update it with the state"


@njit(inline="always")
def _save(st, data_stats, counts, sqmax, indices, nnz, scratch):
    """Copy what one row may change (the scalars, then the row's columns) into a buffer.

    Scalar loops throughout: a slice assignment per column costs more than the row's step.
    """
    pack, lazy = st.pack, st.lazy
    width = pack.shape[1]
    need = _SMALL + nnz * (width + 2)
    buf = scratch if scratch.shape[0] >= need else np.empty(need)
    for k in range(lazy.shape[0]):
        buf[k] = lazy[k]
    k = LAZY_SIZE
    buf[k], buf[k + 1], buf[k + 2] = counts[0], counts[1], sqmax[0]
    dc = data_stats.count
    buf[k + 3], buf[k + 4], buf[k + 5] = dc[0], dc[1], data_stats.sqmax[0]
    at = _SMALL
    for q in range(nnz):
        j = indices[q]
        for col in range(width):
            buf[at + col] = pack[j, col]
        buf[at + width] = data_stats.sum[0, j]
        buf[at + width + 1] = data_stats.sum[1, j]
        at += width + 2
    return buf


@njit(inline="always")
def _restore(st, data_stats, counts, sqmax, indices, nnz, buf):
    """Put back what :func:`_save` copied."""
    pack, lazy = st.pack, st.lazy
    width = pack.shape[1]
    for k in range(lazy.shape[0]):
        lazy[k] = buf[k]
    k = LAZY_SIZE
    counts[0], counts[1], sqmax[0] = buf[k], buf[k + 1], buf[k + 2]
    dc = data_stats.count
    dc[0], dc[1], data_stats.sqmax[0] = buf[k + 3], buf[k + 4], buf[k + 5]
    at = _SMALL
    for q in range(nnz):
        j = indices[q]
        for col in range(width):
            pack[j, col] = buf[at + col]
        data_stats.sum[0, j] = buf[at + width]
        data_stats.sum[1, j] = buf[at + width + 1]
        at += width + 2


def bind(state: dict):
    """Return the addresses ``spam_learn_row`` reads (None if an array is not as declared).

    The arrays are those of :class:`aucopt._kernels.spam.SpamLazyState`, the data
    statistics, a scratch buffer and the order ``[0]``; the caller keeps them alive
    (the second value).
    """
    d = state["acc"].shape[0]
    arrays = (*(state[name] for name in SpamLazyState._fields), state["data_count"],
              state["data_sum"], state["data_sqmax"], np.empty(SCRATCH_SIZE),
              np.zeros(1, dtype=np.int64))
    declared = [lay.dims for lay in (*_LAZY.values(), *_STATS.values())]
    for array, dims in zip(arrays, declared):  # the shapes spam_learn_row rebuilds
        if array.shape != tuple(d if dim == D else dim for dim in dims):
            return None
    found = addresses(arrays, _DTYPES)
    return None if found is None else (found, arrays)


@njit(cache=True, nogil=True)
def spam_learn_row(at, d, hp, data, indices, indptr, y, t):
    """Learn one CSR row (row 0 of ``data, indices, indptr``) with SPAM-L2's lazy kernel.

    The same operations as the estimator's general path on a one-row chunk: the
    row joins the data statistics (:func:`aucopt._kernels._stats.accumulate_class_sums`),
    then, when the step reads the training statistics, the frozen class sums
    (:func:`aucopt._kernels.spam.spam_lazy_add_rows`), then one step of
    :func:`aucopt._kernels.spam.spam_epoch_lazy` (Natole 2020, Algorithm 20).

    Parameters
    ----------
    at : ndarray of int64
        Addresses of the arrays :func:`bind` lists (:mod:`aucopt._kernels._bound`): the
        lazy state (updated), the estimator's data statistics (updated), a scratch
        buffer for the values saved before the update, and the order ``[0]``.
    d : int
        Number of features.
    hp : SpamHyper
        The kernel scalars.
    data, indices, indptr : ndarray
        One CSR row with distinct column indices.
    y : ndarray of shape (1,)
        Its signed label (``±1``, or ``±w`` with a sample weight).
    t : int
        Updates done so far.

    Returns
    -------
    t : int
        Updates done after the row.
    status : int
        ``OK``, or ``NOT_HERE`` with the state unchanged (a non-finite row, tiny-scaled
        data, a divergence, or a fold of the lazy scales is due).
    """
    st = SpamLazyState(f64_at(at[0], (d, PACK_WIDTH)), f64_at(at[1], (d,)),
                       f64_at(at[2], (LAZY_SIZE,)), f64_at(at[3], (2,)), f64_at(at[4], (1,)),
                       i64_at(at[5], (1,)))
    data_stats = ClassStats(f64_at(at[6], (2,)), f64_at(at[7], (2, d)), f64_at(at[8], (1,)))
    scratch, order = f64_at(at[9], (SCRATCH_SIZE,)), i64_at(at[10], (1,))
    train = hp.stats == STATS_TRAIN
    counts = data_stats.count if train else st.run_count
    sqmax = data_stats.sqmax if train else st.run_sqmax
    nnz = indptr[1]
    sq = 0.0
    for q in range(nnz):
        sq += data[q] * data[q]
    if not np.isfinite(sq):
        return t, NOT_HERE
    buf = _save(st, data_stats, counts, sqmax, indices, nnz, scratch)
    accumulate_class_sums(data_stats.count, data_stats.sum, data_stats.sqmax, data, indices,
                          indptr, y)
    if data_stats.sqmax[0] < TINY_SQNORM:
        _restore(st, data_stats, counts, sqmax, indices, nnz, buf)
        return t, NOT_HERE
    if train:
        spam_lazy_add_rows(st.pack, st.lazy, data, indices, indptr, y)
    t_after, status, _ = spam_epoch_lazy(st, counts, sqmax, data, indices, indptr, y, order, 0,
                                         hp, t, True)
    if status != OK:
        _restore(st, data_stats, counts, sqmax, indices, nnz, buf)
        return t, NOT_HERE
    return t_after, OK
