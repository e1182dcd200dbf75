"""One compiled call per streaming row: each family's one-pass kernel inside the row's
transaction (:mod:`aucopt._kernels.row_step`).

:class:`aucopt.algorithms._rowpath.RowPath` learns a row with two compiled calls (the
transaction's start, then the family's kernel) for any spec with a ``row_kernel``; a
kernel listed in :data:`FUSED` has a wrapper here that makes both (and the undo, when the
step cannot finish) in one call, so the arguments cross from Python once. Each wrapper is
the same line around another kernel (:func:`fused`): the update loop stays the family's
own.
"""

from numba import njit

from ._checks import OK
from .adaoam import adaoam_epoch
from .fsauc import fsauc_epoch
from .ftrl_auc import ftrl_auc_epoch
from .opauc import opauc_epoch
from .pairwise_buffer_lazy import fifo_epoch_lazy
from .pauc_rows import dro_row, pauc_row
from .reservoir_rows import kar_row, oam_row
from .row_step import begin_row, end_row
from .solam import solam_epoch, solam_epoch_lazy
from .spam import STATS_TRAIN, spam_epoch, spam_epoch_lazy, spam_lazy_add_rows
from .univariate import univariate_epoch

__all__ = ["FUSED", "fused"]


@njit(inline="always")
def fused(kernel, stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """Learn one row: :func:`begin_row`, ``kernel(*head, data, indices, indptr, y, order,
    *mid, t, *tail)``, and :func:`end_row`; returns ``(t, status)`` as ``RowPath`` does."""
    status = begin_row(stats, undo, data, indices, indptr, y)
    if status != OK:
        return t, status
    return end_row(kernel(*head, data, indices, indptr, y, order, *mid, t, *tail), undo,
                   indices, indptr, t)


@njit(cache=True, nogil=True)
def spam_lazy_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """SPAM's lazy step; with ``stats="train"`` the row first joins the frozen class sums
    (``spam_lazy_add_rows``, as ``run`` does)."""
    status = begin_row(stats, undo, data, indices, indptr, y)
    if status != OK:
        return t, status
    if mid[1].stats == STATS_TRAIN:
        spam_lazy_add_rows(head[0].pack, head[0].lazy, data, indices, indptr, y)
    return end_row(spam_epoch_lazy(*head, data, indices, indptr, y, order, *mid, t, *tail),
                   undo, indices, indptr, t)


@njit(cache=True, nogil=True)
def spam_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """SPAM's plain step (the elastic net)."""
    return fused(spam_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def ftrl_auc_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """FTRL-AUC's step."""
    return fused(ftrl_auc_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order,
                 t)


@njit(cache=True, nogil=True)
def univariate_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """The online univariate step."""
    return fused(univariate_epoch, stats, undo, head, mid, tail, data, indices, indptr, y,
                 order, t)


@njit(cache=True, nogil=True)
def solam_lazy_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """SOLAM's lazy step (l2 ball)."""
    return fused(solam_epoch_lazy, stats, undo, head, mid, tail, data, indices, indptr, y,
                 order, t)


@njit(cache=True, nogil=True)
def solam_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """SOLAM's plain step (l1 ball)."""
    return fused(solam_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def fifo_lazy_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """OGD-FIFO's lazy step."""
    return fused(fifo_epoch_lazy, stats, undo, head, mid, tail, data, indices, indptr, y,
                 order, t)


@njit(cache=True, nogil=True)
def adaoam_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """AdaOAM's step."""
    return fused(adaoam_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order,
                 t)


@njit(cache=True, nogil=True)
def opauc_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """OPAUC's step (full, or on reduced rows)."""
    return fused(opauc_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def fsauc_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """FSAUC's step within a stage."""
    return fused(fsauc_epoch, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def pauc_fused_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """1PMB's row (the buffers, and the step a completed batch makes)."""
    return fused(pauc_row, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def dro_fused_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """SOPA's, SOPA-s's or SOTA-s's row (the buffers, and the step a completed batch
    makes)."""
    return fused(dro_row, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def oam_fused_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """OAM_seq's or OAM_gra's row (the reservoir, and the step against the other one)."""
    return fused(oam_row, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


@njit(cache=True, nogil=True)
def kar_fused_row(stats, undo, head, mid, tail, data, indices, indptr, y, order, t):
    """Kar's OLP step on the RS-x buffer (lazy form, sparse slots)."""
    return fused(kar_row, stats, undo, head, mid, tail, data, indices, indptr, y, order, t)


# family kernel -> its fused wrapper (a kernel not listed takes RowPath's two calls)
FUSED = {spam_epoch_lazy: spam_lazy_row, spam_epoch: spam_row, ftrl_auc_epoch: ftrl_auc_row,
         univariate_epoch: univariate_row, solam_epoch_lazy: solam_lazy_row,
         solam_epoch: solam_row, fifo_epoch_lazy: fifo_lazy_row, adaoam_epoch: adaoam_row,
         opauc_epoch: opauc_row, fsauc_epoch: fsauc_row, pauc_row: pauc_fused_row,
         dro_row: dro_fused_row, oam_row: oam_fused_row, kar_row: kar_fused_row}
