"""The row step of the buffered partial-AUC learners (``pauc-1pmb``, ``pauc-sopa``,
``pauc-sopa-s``, ``pauc-sota-s``): their ``row_kernel`` (``AlgorithmSpec.row_kernel``,
:mod:`aucopt.algorithms._rowpath`) on the kernels of :mod:`aucopt._kernels.pauc_rows`.

A row's update writes its buffer slot and counters; a negative that completes a batch
also makes the step, which writes the iterate at the columns of every stored row. The
kernels keep those columns and the slot themselves, only for that row (``RowStep.own``):
the row path's transaction saves the small entries, so that a row costs O(nnz), and a
step O(B K) more, never O(d).
"""

from __future__ import annotations

import numpy as np

from .._kernels.pauc_rows import RowKeep, keep_sizes
from ._rowpath import RowStep

__all__ = ["buffered_row_step"]

_BUFFERS = ("buf", "buf_idx", "buf_nnz", "buf_w")


def buffered_row_step(kernel, st, state: dict, scalars, work: tuple, auto: bool,
                      floats: tuple[str, ...], ints: tuple[str, ...] = ()) -> RowStep | None:
    """Return the call of a buffered learner's ``run`` on one CSR row (None: dense slots,
    which ``run`` converts first).

    Parameters
    ----------
    kernel : numba dispatcher
        :func:`~aucopt._kernels.pauc_rows.pauc_row` or
        :func:`~aucopt._kernels.pauc_rows.dro_row`.
    st : NamedTuple
        The kernel's view of ``state``.
    state : dict
        The committed state (sparse slots of width K: a row of up to K values).
    scalars
        The kernel's scalars as ``run`` passes them (the step already set).
    work : tuple
        The step's scratch, as ``run`` makes it.
    auto : bool
        Whether the step follows the largest row norm seen (``eta="auto"`` not calibrated):
        bound again when it grows.
    floats, ints : tuple of str
        The float64 and int64 per-feature entries the step writes at the stored rows'
        columns (the kernel's own to restore, with the buffers).
    """
    buf, idx = state["buf"], state["buf_idx"]
    if idx.shape[-1] != buf.shape[-1]:
        return None
    capacity, width = buf.shape[1], buf.shape[2]
    n_floats, n_ints = keep_sizes(capacity, width, len(floats), len(ints))
    keep = RowKeep(np.empty(n_floats), np.empty(n_ints, dtype=np.int64))
    return RowStep(kernel, (st, (buf, idx, state["buf_nnz"]), work), (scalars,), (keep,),
                   watch=("data_sqmax",) if auto else (), max_nnz=width,
                   own=floats + ints + _BUFFERS)
