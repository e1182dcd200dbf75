"""One streaming row of OPAUCr (Gao et al. 2013, section 3.2, Eqs. 6-11) on the row path of
``learn_one`` (:mod:`aucopt.algorithms._rowpath`): :func:`aucopt._kernels.opauc.opauc_sketch_epoch`
on a one-row chunk with the row's Gaussian sketch row, made all-or-nothing for the class
sketch, which the row path does not save: the row adds ``sqrt(v) x a^T`` to the sketch of
its class at the row's columns only (O(rank nnz)); this kernel keeps those values and puts
them back if the step stops. The row path's transaction saves the rest whole (the
iterate, the class means, the column sums: O(d + rank), written whole by the step).
"""

import numpy as np
from numba import njit

from ._checks import OK
from .opauc import opauc_sketch_epoch
from .row_step import NOT_HERE

__all__ = ["sketch_keep", "opauc_sketch_row"]


def sketch_keep(rank: int, width: int) -> np.ndarray:
    """Return the scratch of :func:`opauc_sketch_row`: ``rank`` values per column of a row
    of up to ``width`` columns."""
    return np.empty(rank * width)


@njit(inline="always")
def _sketch_columns(z, kept, indices, nnz, back):
    """Copy the class sketch ``z`` (rank, d) at the row's columns into ``kept``, or back."""
    at = 0
    for r in range(z.shape[0]):
        for q in range(nnz):
            if back:
                z[r, indices[q]] = kept[at]
            else:
                kept[at] = z[r, indices[q]]
            at += 1


@njit(cache=True, nogil=True)
def opauc_sketch_row(st, sketch, data, indices, indptr, y, order, hp, t, learn, kept):
    """OPAUCr on one CSR row (``opauc_sketch_epoch`` with ``order = [0]`` and ``sketch`` of
    shape (1, rank)); a step that stops leaves the class sketch as it was. Returns
    ``(t, status)``; ``NOT_HERE`` with nothing done for a row with more columns than
    ``kept`` holds."""
    z = st.sketch_z[1 if y[order[0]] > 0 else 0]
    nnz = indptr[1]
    if kept.shape[0] < z.shape[0] * nnz:
        return t, NOT_HERE
    _sketch_columns(z, kept, indices, nnz, False)
    result = opauc_sketch_epoch(st, sketch, data, indices, indptr, y, order, hp, t, learn)
    if result[1] != OK:
        _sketch_columns(z, kept, indices, nnz, True)
    return result
