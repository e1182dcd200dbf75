"""One streaming row of the reservoir learners OAM_seq, OAM_gra (Natole 2020, Algorithms
4-7) and Kar et al.'s OLP (RS-x buffer, Kar et al. 2013, section 6) on the row path of
``learn_one`` (:mod:`aucopt.algorithms._rowpath`): each family's one-pass kernel
(:func:`aucopt._kernels.oam.oam_epoch`,
:func:`aucopt._kernels.pairwise_buffer_lazy.rsx_epoch_lazy`) on a one-row chunk, made
all-or-nothing for the entries the row path does not save.

The row's uniforms (``draws``, filled by the row path from the estimator's generator)
decide before the call which buffer slots the row is written to: OAM's reservoir of the
row's class takes it in the next free slot or, with probability ``N / seen``, in a slot
drawn uniformly (Algorithm 5); RS-x puts it in the next free slot, in every slot once (the
repopulation at ``t = s + 1``), or in each slot whose uniform is below ``1 / t``. These
kernels keep those slots, and OAM's the iterate at the columns its step writes (the row's
and those of the rows stored in the other reservoir: O(N K), the order of the step's own
cost, K the slots' width; more than :data:`~aucopt._kernels.pauc_rows.KEEP_CAP` values:
the general path), and put them back if the step stops on a diverging value. The row
path's transaction (:mod:`aucopt._kernels.row_step`) puts back the rest (the counts, Kar's
iterate and average, which its lazy pass writes whole, and the data statistics).
"""

import numpy as np
from numba import njit

from ._buffers import reservoir_slot, rsx_writes
from ._checks import OK
from .oam import oam_epoch
from .pairwise_buffer_lazy import rsx_epoch_lazy
from .pauc_rows import KEEP_CAP, RowKeep, _columns
from .row_step import NOT_HERE

__all__ = ["oam_keep", "oam_row", "kar_keep", "kar_row"]


def oam_keep(capacity: int, width: int) -> RowKeep:
    """Return the scratch of :func:`oam_row` for reservoirs of ``capacity`` slots of
    ``width`` values: one slot (:func:`_slot`), then the iterate at the columns of one
    reservoir's rows and of the row."""
    per_entry = min((capacity + 1) * width, KEEP_CAP)
    return RowKeep(np.empty(width + 2 + per_entry), np.empty(width + 1, dtype=np.int64))


def kar_keep(capacity: int, width: int) -> RowKeep:
    """Return the scratch of :func:`kar_row` for an RS-x buffer of ``capacity`` slots of
    ``width`` values: every slot (:func:`_slot`)."""
    return RowKeep(np.empty(capacity * (width + 2)), np.empty(capacity * (width + 1),
                                                               dtype=np.int64))


@njit(inline="always")
def _slot(slots, keep, place, s, back):
    """Copy slot ``s`` of ``slots = (values, indices, lengths, squared norms, weights)`` into
    place ``place`` of ``keep`` (``width + 2`` floats and ``width + 1`` integers a place),
    or back."""
    val, idx, nnz, sq, weight = slots
    k = val.shape[1]
    f, i = place * (k + 2), place * (k + 1)
    fl, it = keep
    if back:
        val[s, :] = fl[f:f + k]
        idx[s, :] = it[i:i + k]
        sq[s], weight[s], nnz[s] = fl[f + k], fl[f + k + 1], it[i + k]
    else:
        fl[f:f + k] = val[s, :]
        it[i:i + k] = idx[s, :]
        fl[f + k], fl[f + k + 1], it[i + k] = sq[s], weight[s], nnz[s]


@njit(cache=True, nogil=True)
def oam_row(st, slots, work, data, indices, indptr, y, order, draws, hp, t, how):
    """OAM_seq or OAM_gra on one CSR row (``oam_epoch`` with ``order = [0]``, sparse slots,
    ``draws`` of shape (1, 2), ``how = (update, keep)``: the update rule and the scratch
    :func:`oam_keep`); a step that stops leaves ``w`` and the reservoirs' slots as
    they were. Returns ``(t, status)``; ``NOT_HERE`` with nothing done for a row wider than
    the slots or more columns to keep than ``keep`` holds."""
    update, keep = how
    bval, bidx, bnnz = slots
    capacity, width = bval.shape[1], bval.shape[2]
    nnz = indptr[1]
    if nnz > width:
        return t, NOT_HERE
    c = 1 if y[order[0]] > 0 else 0
    o = 1 - c
    sizes = (st.size[0] if o == 0 else 0, st.size[1] if o == 1 else 0)  # the other class's
    need = nnz
    for j in range(st.size[o]):
        need += bnnz[o, j]
    if keep.floats.shape[0] < width + 2 + need:
        return t, NOT_HERE
    slot = reservoir_slot(st.size[c], st.seen[c] + 1, draws[0, 0], draws[0, 1], capacity)
    mine = (bval[c], bidx[c], bnnz[c], st.buf_sq[c], st.buf_w[c])
    if slot >= 0:
        _slot(mine, keep, 0, slot, False)
    _columns((st.w,), keep.floats, width + 2, bidx, bnnz, sizes, indices, nnz, False)
    result = oam_epoch(st, slots, work, data, indices, indptr, y, order, draws, hp, t, update)
    if result[1] != OK:
        _columns((st.w,), keep.floats, width + 2, bidx, bnnz, sizes, indices, nnz, True)
        if slot >= 0:
            _slot(mine, keep, 0, slot, True)
    return result


@njit(cache=True, nogil=True)
def kar_row(st, buf, work, data, indices, indptr, y, order, draws, hp, t, keep):
    """Kar's OLP on one CSR row (``rsx_epoch_lazy`` with ``order = [0]``, sparse slots,
    ``draws`` of shape (1, s)); a step that stops leaves the buffer's slots as they were.
    Returns ``(t, status)``; ``NOT_HERE`` with nothing done for a row wider than the
    slots."""
    capacity, width = buf.val.shape[0], buf.val.shape[1]
    if indptr[1] > width or keep.floats.shape[0] < capacity * (width + 2):
        return t, NOT_HERE
    size, seen = st.size[0], st.seen[0] + 1
    slots = (buf.val, buf.idx, buf.nnz, buf.sq, buf.y)
    n = 0
    for k in range(capacity):
        if rsx_writes(k, size, seen, draws[0, k], capacity):
            _slot(slots, keep, n, k, False)
            n += 1
    result = rsx_epoch_lazy(st, buf, work, data, indices, indptr, y, order, draws, hp, t)
    if result[1] != OK:
        n = 0
        for k in range(capacity):
            if rsx_writes(k, size, seen, draws[0, k], capacity):
                _slot(slots, keep, n, k, True)
                n += 1
    return result
