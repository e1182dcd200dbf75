"""One compiled call per streaming row: each family's one-pass kernel inside the row's
transaction (:mod:`aucopt._kernels.row_step`).

:class:`aucopt.algorithms._rowpath.RowPath` learns a row with two compiled calls (the
transaction's start, then the family's kernel) for any spec with a ``row_kernel``; a
kernel listed in :data:`FUSED` has a wrapper here that makes both (and the undo, when the
step cannot finish) in one call, with every bound argument in one lane
(:mod:`aucopt._kernels.row_lane`), so that the state crosses from Python as one pointer.
Asked to (``scale``), the wrapper also hands the kernels the row under the state's
preconditioner (:func:`aucopt._kernels.row_scale.scale_row`), so that a preconditioned
stream's row takes a single compiled call too. Each wrapper is the same line around
another kernel (:func:`fused`): the update loop stays the family's own.
"""

import numpy as np
from numba import njit

from ._checks import OK
from .adaoam import adaoam_epoch
from .aogd import aogd_row
from .fsauc import fsauc_epoch
from .ftrl_auc import ftrl_auc_epoch
from .kernel_budget import projection_pp_row
from .opauc import opauc_epoch
from .opauc_rows import opauc_sketch_row
from .pairwise_buffer_lazy import fifo_epoch_lazy
from .pauc_rows import dro_row, pauc_row
from .reservoir_rows import kar_row, oam_row
from .row_scale import scale_row
from .row_step import NOT_HERE, REBIND, begin_row, end_row, undo_row
from .solam import solam_epoch, solam_epoch_lazy
from .spam import STATS_TRAIN, spam_epoch, spam_epoch_lazy, spam_lazy_add_rows
from .univariate import univariate_epoch

__all__ = ["FUSED", "fused"]


@njit(inline="always")
def _scaled(lane, data, indices, indptr, y, scale):
    """Return ``(row values the kernels see, columns whose scale was set, how many,
    status)``: the row under the lane's preconditioner when ``scale`` (nothing written
    unless the status is ``OK``), else ``data`` itself."""
    fixed = np.empty(data.shape[0] if scale else 0, dtype=np.int64)
    if not scale:
        return data, fixed, 0, OK
    weight = abs(y[0]) if y.shape[0] == 1 else 0.5
    if lane.auto and weight != 0.0 and weight != 1.0:
        return data, fixed, 0, NOT_HERE  # scales from weighted rows: the general functions
    out = np.empty(data.shape[0])
    count, status = scale_row(lane.scale, lane.shared, lane.bound[0],
                              lane.auto and weight == 1.0, data, indices, indptr, out, fixed)
    return out, fixed, count, (OK if status == OK else NOT_HERE)


@njit(inline="always")
def _no_pre(lane, data, indices, indptr, y):
    """Nothing before the step."""


@njit(inline="always")
def fused(kernel, pre, lane, data, indices, indptr, y, t, scale):
    """Learn one row: the row under the preconditioner (if ``scale``), :func:`begin_row`,
    ``pre(lane, ...)``, ``kernel(*head, data, indices, indptr, y, order, *mid, t, *tail)``
    and :func:`end_row`; returns ``(t, status)`` as ``RowPath`` does. With ``scale``, a
    status other than ``OK`` leaves the state and the scales as they were (``REBIND``
    is undone and reported as ``NOT_HERE``: the caller's general route binds again)."""
    x, fixed, count, status = _scaled(lane, data, indices, indptr, y, scale)
    if status != OK:
        return t, status
    undo = lane.undo
    status = begin_row(lane.stats, undo, x, indices, indptr, y)
    if status == OK:
        pre(lane, x, indices, indptr, y)
        t_after, status = end_row(kernel(*lane.head, x, indices, indptr, y, lane.order,
                                         *lane.mid, t, *lane.tail), undo, indices, indptr, t)
        if status == OK:
            return t_after, OK
    if scale:
        if status == REBIND:
            undo_row(undo, indices, indptr)
            status = NOT_HERE
        for q in range(count):
            lane.scale[fixed[q]] = 0.0  # set again by whatever learns the row
    return t, status


@njit(inline="always")
def _spam_train_sums(lane, data, indices, indptr, y):
    """With ``stats="train"`` the row joins the frozen class sums (as ``run`` does)."""
    if lane.mid[1].stats == STATS_TRAIN:
        spam_lazy_add_rows(lane.head[0].pack, lane.head[0].lazy, data, indices, indptr, y)


@njit(cache=True, nogil=True)
def spam_lazy_row(lane, data, indices, indptr, y, t, scale):
    """SPAM's lazy step; with ``stats="train"`` the row first joins the frozen class sums
    (``spam_lazy_add_rows``, as ``run`` does)."""
    return fused(spam_epoch_lazy, _spam_train_sums, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def spam_row(lane, data, indices, indptr, y, t, scale):
    """SPAM's plain step (the elastic net)."""
    return fused(spam_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def ftrl_auc_row(lane, data, indices, indptr, y, t, scale):
    """FTRL-AUC's step."""
    return fused(ftrl_auc_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def univariate_row(lane, data, indices, indptr, y, t, scale):
    """The online univariate step."""
    return fused(univariate_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def solam_lazy_row(lane, data, indices, indptr, y, t, scale):
    """SOLAM's lazy step (l2 ball)."""
    return fused(solam_epoch_lazy, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def solam_row(lane, data, indices, indptr, y, t, scale):
    """SOLAM's plain step (l1 ball)."""
    return fused(solam_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def fifo_lazy_row(lane, data, indices, indptr, y, t, scale):
    """OGD-FIFO's lazy step."""
    return fused(fifo_epoch_lazy, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def adaoam_row(lane, data, indices, indptr, y, t, scale):
    """AdaOAM's step."""
    return fused(adaoam_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def opauc_row(lane, data, indices, indptr, y, t, scale):
    """OPAUC's step (full, or on reduced rows)."""
    return fused(opauc_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def fsauc_row(lane, data, indices, indptr, y, t, scale):
    """FSAUC's step within a stage."""
    return fused(fsauc_epoch, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def pauc_fused_row(lane, data, indices, indptr, y, t, scale):
    """1PMB's row (the buffers, and the step a completed batch makes)."""
    return fused(pauc_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def dro_fused_row(lane, data, indices, indptr, y, t, scale):
    """SOPA's, SOPA-s's or SOTA-s's row (the buffers, and the step a completed batch
    makes)."""
    return fused(dro_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def oam_fused_row(lane, data, indices, indptr, y, t, scale):
    """OAM_seq's or OAM_gra's row (the reservoir, and the step against the other one)."""
    return fused(oam_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def kar_fused_row(lane, data, indices, indptr, y, t, scale):
    """Kar's OLP step on the RS-x buffer (lazy form, sparse slots)."""
    return fused(kar_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def opauc_sketch_fused_row(lane, data, indices, indptr, y, t, scale):
    """OPAUC's step on the randomised sketches (``opauc-r``)."""
    return fused(opauc_sketch_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def aogd_fused_row(lane, data, indices, indptr, y, t, scale):
    """AOGD's step on the row's random features."""
    return fused(aogd_row, _no_pre, lane, data, indices, indptr, y, t, scale)


@njit(cache=True, nogil=True)
def projection_pp_fused_row(lane, data, indices, indptr, y, t, scale):
    """KOIL's step on its budget of support vectors (``projection-pp``)."""
    return fused(projection_pp_row, _no_pre, lane, data, indices, indptr, y, t, scale)


# family kernel -> its fused wrapper (a kernel not listed takes RowPath's two calls)
FUSED = {spam_epoch_lazy: spam_lazy_row, spam_epoch: spam_row, ftrl_auc_epoch: ftrl_auc_row,
         univariate_epoch: univariate_row, solam_epoch_lazy: solam_lazy_row,
         solam_epoch: solam_row, fifo_epoch_lazy: fifo_lazy_row, adaoam_epoch: adaoam_row,
         opauc_epoch: opauc_row, fsauc_epoch: fsauc_row, pauc_row: pauc_fused_row,
         dro_row: dro_fused_row, oam_row: oam_fused_row, kar_row: kar_fused_row,
         opauc_sketch_row: opauc_sketch_fused_row, aogd_row: aogd_fused_row,
         projection_pp_row: projection_pp_fused_row}
