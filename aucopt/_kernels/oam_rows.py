"""One streaming row of OAM_seq and OAM_gra on the row path of ``learn_one``
(:mod:`aucopt.algorithms._rowpath`): :func:`aucopt._kernels.oam.oam_epoch` on a one-row
chunk, made all-or-nothing for the entries the row path does not save.

A row is offered to the reservoir of its class (Natole 2020, Algorithm 5: the next free
slot, or with probability ``N / seen`` a slot drawn uniformly), then compared with the
reservoir of the other class (Algorithm 6 or 7), which writes the iterate at the
columns of the row and of every row stored in that reservoir. Before the call this kernel
keeps those entries of the iterate (O(N K), the order of the step's own cost, K the
slots' width; more than :data:`~aucopt._kernels.pauc_rows.KEEP_CAP` values: the general
path) and the slot the row goes to, and puts them back if the step stops on a diverging
margin; the row path's transaction (:mod:`aucopt._kernels.row_step`) puts back the rest
(reservoir sizes and counts, data statistics).
"""

import numpy as np
from numba import njit

from ._buffers import reservoir_slot
from ._checks import OK
from .oam import oam_epoch
from .pauc_rows import KEEP_CAP, RowKeep, _columns
from .row_step import NOT_HERE

__all__ = ["oam_keep", "oam_row"]


def oam_keep(capacity: int, width: int) -> RowKeep:
    """Return the scratch of :func:`oam_row` for reservoirs of ``capacity`` slots of
    ``width`` values: the slot (values, squared norm, weight; indices, length), then the
    iterate at the columns of one reservoir's rows and of the row."""
    per_entry = min((capacity + 1) * width, KEEP_CAP)
    return RowKeep(np.empty(width + 2 + per_entry), np.empty(width + 1, dtype=np.int64))


@njit(inline="always")
def _slot(st, slots, keep, c, s, back):
    """Copy slot ``s`` of class ``c`` (values, indices, length, squared norm, weight) into
    ``keep``, or back."""
    bval, bidx, bnnz = slots
    fl, it = keep
    k = bval.shape[2]
    if back:
        bval[c, s, :] = fl[:k]
        bidx[c, s, :] = it[:k]
        st.buf_sq[c, s], st.buf_w[c, s], bnnz[c, s] = fl[k], fl[k + 1], it[k]
    else:
        fl[:k] = bval[c, s, :]
        it[:k] = bidx[c, s, :]
        fl[k], fl[k + 1], it[k] = st.buf_sq[c, s], st.buf_w[c, s], bnnz[c, s]


@njit(cache=True, nogil=True)
def oam_row(st, slots, work, data, indices, indptr, y, order, draws, hp, t, update, keep):
    """OAM_seq or OAM_gra on one CSR row (``oam_epoch`` with ``order = [0]``, sparse slots,
    ``draws`` of shape (1, 2)); a step that stops leaves ``w`` and the reservoirs' slots as
    they were. Returns ``(t, status)``; ``NOT_HERE`` with nothing done for a row wider than
    the slots or more columns to keep than ``keep`` holds."""
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
    if slot >= 0:
        _slot(st, slots, keep, c, slot, False)
    _columns((st.w,), keep.floats, width + 2, bidx, bnnz, sizes, indices, nnz, False)
    result = oam_epoch(st, slots, work, data, indices, indptr, y, order, draws, hp, t, update)
    if result[1] != OK:
        _columns((st.w,), keep.floats, width + 2, bidx, bnnz, sizes, indices, nnz, True)
        if slot >= 0:
            _slot(st, slots, keep, c, slot, True)
    return result
