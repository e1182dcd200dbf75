"""One streaming row of the buffered partial-AUC learners (1PMB, SOPA, SOPA-s, SOTA-s) on
the row path of ``learn_one`` (:mod:`aucopt.algorithms._rowpath`): each family's one-pass
kernel (:func:`aucopt._kernels.pauc.pauc_epoch`, :func:`aucopt._kernels.pauc_dro.dro_epoch`)
on a one-row chunk, made all-or-nothing for the entries the row path does not save.

A row goes into the buffers (a positive into the ring, a negative at the end of the
current batch; O(nnz), nothing can fail). Only a negative that completes a batch while
positives are stored makes the family's step, which writes the iterate at the columns of
every stored row (Kar et al. 2014, section 5; Zhu et al. 2022, Algorithm 1) and may stop
on a diverging score. Before that step, and only then, these kernels keep what it may
change of the entries the row path leaves to them: the iterate's entries at the columns
of the stored rows and of the row (O(B K), once per batch of B negatives, K the slots'
width; a step with more than :data:`KEEP_CAP` such values takes the general path), and
the slot the row is stored in. If the step stops, they put them back before
returning its status; the row path's transaction (:mod:`aucopt._kernels.row_step`) puts
back the rest (counters, per-positive averages, data statistics).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import OK
from .pauc import NEG, POS, batch_length, pauc_epoch
from .pauc_dro import dro_epoch
from .row_step import NOT_HERE

__all__ = ["RowKeep", "pauc_row", "dro_row", "keep_sizes"]


class RowKeep(NamedTuple):
    """Scratch of a row that makes a step: the slot the row is stored in, then the kept
    columns (:func:`keep_sizes`)."""

    floats: np.ndarray  # float64: slot values, slot weight, float entries at the columns
    ints: np.ndarray  # int64: slot indices, slot length, integer entries at the columns


# the most values kept per entry before a step (the stored rows' lengths and the row's):
# a step that needs more takes the general path, so that the scratch stays small (1.5 MB
# for the DRO kernels' three entries) whatever the buffers hold
KEEP_CAP = 1 << 16


def keep_sizes(capacity: int, width: int, n_floats: int, n_ints: int) -> tuple[int, int]:
    """Return the lengths of :class:`RowKeep`'s arrays for buffers of ``capacity`` slots of
    ``width`` values and ``n_floats`` / ``n_ints`` entries kept at the columns."""
    per_entry = min((2 * capacity + 1) * width, KEEP_CAP)  # every stored row and the row
    return width + 1 + n_floats * per_entry, width + 1 + n_ints * per_entry


@njit(inline="always")
def _columns(entries, kept, at, bidx, bnnz, sizes, indices, nnz, back):
    """Copy the values of ``entries`` (1-D arrays) at the columns of the stored rows
    (``sizes`` = (negatives, positives) stored) and of the row into ``kept`` from ``at``,
    or back into ``entries`` if ``back`` (a column met twice: the same value twice)."""
    for a in entries:
        for c in range(2):
            for j in range(sizes[c]):
                for q in range(bnnz[c, j]):
                    if back:
                        a[bidx[c, j, q]] = kept[at]
                    else:
                        kept[at] = a[bidx[c, j, q]]
                    at += 1
        for q in range(nnz):
            if back:
                a[indices[q]] = kept[at]
            else:
                kept[at] = a[indices[q]]
            at += 1
    return at


@njit(inline="always")
def _slot(st, slots, keep, s, back):
    """Copy negative slot ``s`` (values, indices, length, weight) into ``keep``, or back."""
    bval, bidx, bnnz = slots
    fl, it = keep
    width = bval.shape[2]
    for q in range(width):
        if back:
            bval[NEG, s, q] = fl[q]
            bidx[NEG, s, q] = it[q]
        else:
            fl[q] = bval[NEG, s, q]
            it[q] = bidx[NEG, s, q]
    if back:
        st.buf_w[NEG, s] = fl[width]
        bnnz[NEG, s] = it[width]
    else:
        fl[width] = st.buf_w[NEG, s]
        it[width] = bnnz[NEG, s]


@njit(inline="always")
def _kept_step(epoch, floats, ints, keep, st, slots, work, row, y, order, scalars, t):
    """``epoch(st, slots, work, data, indices, indptr, y, order, scalars, t)`` on a one-row
    chunk ``row = (data, indices, indptr)``; ``floats`` and ``ints`` are the entries its
    step writes at the columns of the stored rows (``ints`` may be None), kept and put
    back with the row's slot when the row makes a step that stops. Returns
    ``(t, status)``; ``NOT_HERE`` with nothing done for a row wider than the slots, or a
    step with more columns to keep than ``keep`` holds."""
    data, indices, indptr = row
    bval, bidx, bnnz = slots
    width, capacity = bval.shape[2], bval.shape[1]
    nnz = indptr[1]
    if nnz > width:
        return t, NOT_HERE
    sizes = (st.size[NEG], st.size[POS])
    if y[order[0]] > 0 or sizes[1] == 0 or sizes[0] + 1 != batch_length(st.batches[0],
                                                                      capacity):
        return epoch(st, slots, work, data, indices, indptr, y, order, scalars, t)  # no step
    fl, it = keep
    need = nnz
    for c in range(2):
        for j in range(sizes[c]):
            need += bnnz[c, j]
    if fl.shape[0] < width + 1 + len(floats) * need or (
            ints is not None and it.shape[0] < width + 1 + len(ints) * need):
        return t, NOT_HERE
    _slot(st, slots, keep, sizes[0], False)
    _columns(floats, fl, width + 1, bidx, bnnz, sizes, indices, nnz, False)
    if ints is not None:
        _columns(ints, it, width + 1, bidx, bnnz, sizes, indices, nnz, False)
    result = epoch(st, slots, work, data, indices, indptr, y, order, scalars, t)
    if result[1] != OK:
        _columns(floats, fl, width + 1, bidx, bnnz, sizes, indices, nnz, True)
        if ints is not None:
            _columns(ints, it, width + 1, bidx, bnnz, sizes, indices, nnz, True)
        _slot(st, slots, keep, sizes[0], True)
    return result


@njit(cache=True, nogil=True)
def pauc_row(st, slots, work, data, indices, indptr, y, order, hp, t, keep):
    """1PMB on one CSR row (:func:`aucopt._kernels.pauc.pauc_epoch`, ``order = [0]``, sparse
    slots); a step that stops leaves ``v`` and the buffers as they were. Returns
    ``(t, status)``."""
    return _kept_step(pauc_epoch, (st.v,), None, keep, st, slots, work,
                      (data, indices, indptr), y, order, hp, t)


@njit(cache=True, nogil=True)
def dro_row(st, slots, work, data, indices, indptr, y, order, dro, t, keep):
    """SOPA, SOPA-s or SOTA-s on one CSR row (:func:`aucopt._kernels.pauc_dro.dro_epoch`,
    ``order = [0]``, sparse slots); a step that stops leaves ``w``, ``mom``, ``last`` and
    the buffers as they were. Returns ``(t, status)``."""
    return _kept_step(dro_epoch, (st.w, st.mom), (st.last,), keep, st, slots, work,
                      (data, indices, indptr), y, order, dro, t)
