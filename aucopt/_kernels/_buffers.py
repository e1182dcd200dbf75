"""Example buffers of the online pairwise learners (notes.md#reservoir, P11) and their gradient
sums.

A buffer is a triple of slots ``(bval, bidx, bnnz)``, dense or sparse (see
:mod:`aucopt._kernels._slots`), with the squared norm of every stored row in
``buf_sq``; a labelled buffer (RS-x, FIFO) reaches a kernel as one :class:`Buffer`
of the slots, norms and labels. Every random decision reads pre-drawn uniforms in [0, 1) passed in
by the caller (the kernels draw nothing themselves), and does not depend on
the layout of the slots.

Used by OAM (two reservoirs, one per class), Kar et al.'s OLP (one RS-x
buffer) and the OGD of Yang et al. (a FIFO buffer holding one example).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._rows import row_axpy
from ._slots import slot_axpy, slot_copy, slot_dot, slot_store, with_sparse_twin

__all__ = [
    "Buffer",
    "SQUARE",
    "HINGE",
    "LOSS_CODES",
    "reservoir_update",
    "reservoir_slot",
    "rsx_update",
    "rsx_writes",
    "pair_loss_derivative",
    "pair_derivatives",
    "pair_step",
    "all_finite",
    "label_sign",
]

SQUARE = 0  # phi(m) = (1 - m)^2
HINGE = 1  # phi(m) = max(0, 1 - m)
LOSS_CODES = {"square": SQUARE, "hinge": HINGE}


class Buffer(NamedTuple):
    """A labelled buffer as the kernels take it: its slots and its rows' norms and labels."""

    val: np.ndarray  # slot values (see aucopt._kernels._slots)
    idx: np.ndarray | None  # slot indices (None: dense slots)
    nnz: np.ndarray | None  # slot lengths (None: dense slots)
    sq: np.ndarray  # squared norms of the stored rows
    y: np.ndarray  # signed weights of the stored rows, +-w (the sign is the label)


@njit(cache=True, nogil=True)
def reservoir_update(buf_sq, size, seen, u_coin, u_slot, data, indices, indptr, i, bval, bidx,
                     bnnz):
    """Offer row ``i`` to a reservoir of capacity N (notes.md#reservoir).

    ``seen`` counts the items offered so far, including this one. While the
    reservoir is not full the row is appended; otherwise, with probability
    ``N / seen`` (``u_coin < N / seen``), it replaces the slot
    ``floor(u_slot * N)``. Every item offered is then kept with probability
    ``N / seen`` (Vitter's algorithm R). Admission counts rows: a sample weight
    does not change it (the caller stores the weight in the returned slot).

    Parameters
    ----------
    buf_sq : ndarray of shape (N,)
        Squared norms of the stored rows.
    size : int
        Items stored before this call.
    seen : int
        Items offered so far, including row ``i``.
    u_coin, u_slot : float
        Uniforms in [0, 1): the coin flip and the slot.
    data, indices, indptr, i
        The offered row (see :mod:`aucopt._kernels._rows`).
    bval, bidx, bnnz
        The reservoir's slots (see :mod:`aucopt._kernels._slots`).

    Returns
    -------
    size : int
        Items stored after this call.
    slot : int
        The slot row ``i`` was written to, -1 if it was not kept.
    """
    capacity = bval.shape[0]
    slot = reservoir_slot(size, seen, u_coin, u_slot, capacity)
    if slot >= 0:
        buf_sq[slot] = slot_store(data, indices, indptr, i, bval, bidx, bnnz, slot)
    return (size + 1 if size < capacity else size), slot


@njit(inline="always")
def reservoir_slot(size, seen, u_coin, u_slot, capacity):
    """Return the slot :func:`reservoir_update` writes the offered row to (-1: none).

    The next free slot while the reservoir is not full; otherwise, if
    ``u_coin < N / seen``, the slot ``floor(u_slot * N)``.
    """
    if size < capacity:
        return size
    if u_coin * seen < capacity:
        return min(int(u_slot * capacity), capacity - 1)
    return -1


@njit(cache=True, nogil=True)
def _store_labelled(buf, label, data, indices, indptr, i, slot):
    buf.sq[slot] = slot_store(data, indices, indptr, i, buf.val, buf.idx, buf.nnz, slot)
    buf.y[slot] = label


@njit(cache=True, nogil=True)
def rsx_update(buf, spare, size, seen, draws, label, data, indices, indptr, i):
    """Offer row ``i`` to an RS-x buffer of capacity s (Kar et al. 2013; notes.md#reservoir).

    ``seen`` counts the points offered so far, including this one (``t``).
    While ``t <= s`` the row is appended. At ``t = s + 1`` (the repopulation
    step) every slot is refilled independently with a uniform draw, with
    replacement, from the s stored points and the new one:
    ``floor(draws[k] * (s + 1))``, the value ``s`` naming the new point.
    Afterwards every slot is independently replaced by the new point with
    probability ``1/t`` (``draws[k] < 1/t``). Each slot then holds a uniform
    draw from all the points seen.

    Parameters
    ----------
    buf : Buffer
        The buffer (s slots); updated.
    spare : Buffer
        Scratch of the buffer's layout and width for the repopulation step (s
        rows; may have zero rows when ``seen != s + 1``).
    size : int
        Points stored before this call.
    seen : int
        Points offered so far, including row ``i``.
    draws : ndarray of shape (s,)
        Uniforms in [0, 1), one per slot.
    label : float
        Signed weight of row ``i`` (``+-w``, the sign is the label); it travels with the
        row. The draws do not depend on the weights: every slot holds a uniform draw
        from the rows seen (notes.md#sample-weights).
    data, indices, indptr, i
        The offered row.

    Returns
    -------
    int
        Points stored after this call.
    """
    capacity = buf.val.shape[0]
    if size < capacity:
        _store_labelled(buf, label, data, indices, indptr, i, size)
        return size + 1
    if seen == capacity + 1:  # repopulation: s draws with replacement from the s + 1 points
        for k in range(capacity):
            slot_copy(buf.val, buf.idx, buf.nnz, k, spare.val, spare.idx, spare.nnz, k)
            spare.sq[k] = buf.sq[k]
            spare.y[k] = buf.y[k]
        for k in range(capacity):
            src = min(int(draws[k] * (capacity + 1)), capacity)
            if src == capacity:
                _store_labelled(buf, label, data, indices, indptr, i, k)
            else:
                slot_copy(spare.val, spare.idx, spare.nnz, src, buf.val, buf.idx, buf.nnz, k)
                buf.sq[k] = spare.sq[src]
                buf.y[k] = spare.y[src]
        return size
    for k in range(capacity):
        if rsx_writes(k, size, seen, draws[k], capacity):
            _store_labelled(buf, label, data, indices, indptr, i, k)
    return size


@njit(inline="always")
def rsx_writes(k, size, seen, u, capacity):
    """Whether :func:`rsx_update` writes slot ``k`` when offered a row (``seen`` counting
    it, ``size`` points stored before it) with the slot's uniform ``u``: the next free slot
    while the buffer fills, every slot at the repopulation (``seen = s + 1``), afterwards
    each slot whose uniform is below ``1 / seen``."""
    if size < capacity:
        return k == size
    return seen == capacity + 1 or u * seen < 1.0


@njit(inline="always")
def label_sign(y):
    """Return the class of a signed weight ``y = +-w`` as +-1.0 (notes.md#sample-weights)."""
    return 1.0 if y > 0 else -1.0


@njit(cache=True, nogil=True)
def pair_loss_derivative(loss, margin):
    """Return ``phi'(margin)`` of the pairwise surrogate ``phi`` (code ``loss``).

    ``SQUARE``: ``-2 (1 - m)``; ``HINGE``: ``-1`` if ``m <= 1`` else 0 (the
    subgradient used by OAM_gra, active pairs including ``m = 1``).
    """
    if loss == SQUARE:
        return -2.0 * (1.0 - margin)
    if margin <= 1.0:
        return -1.0
    return 0.0


@njit(cache=True, nogil=True)
def pair_derivatives(v, vx, scale, buf_y, size, opposite_only, y, loss, g, bval, bidx, bnnz):
    """Derivatives of the pairwise losses of the current example against a buffer.

    The iterate is ``w = scale * v``; ``y`` and ``buf_y`` are signed weights
    ``+-w`` (the sign is the label, notes.md#sample-weights). For each stored row
    ``b_j`` (``j < size``; with ``opposite_only`` only the rows of the other sign)
    the margin is ``m_j = sign(y) scale (v.x_t - v.b_j)`` and
    ``g[j] = |buf_y[j]| phi'(m_j)`` (0 for the rows skipped). The gradient of the
    weighted sum ``|y| sum_j |buf_y[j]| phi(m_j)`` in ``w`` is
    ``y (a x_t - sum_j g[j] b_j)`` with ``a = sum_j g[j]``. Unit weights give the
    unweighted bits.

    Parameters
    ----------
    v : ndarray of shape (d,)
        Iterate up to ``scale``.
    vx : float
        ``v.x_t``.
    scale : float
        ``w = scale * v``.
    buf_y : ndarray
        Signed weights of the stored rows (their labels are read only with
        ``opposite_only``; positive weights when all rows are compared).
    size : int
        Stored rows.
    opposite_only : bool
        Skip rows with the label ``y``.
    y : float
        Signed weight of the current example.
    loss : int
        ``SQUARE`` or ``HINGE``.
    g : ndarray of shape (capacity,)
        Output derivatives.
    bval, bidx, bnnz
        The buffer's slots.

    Returns
    -------
    a : float
        ``sum_j g[j]``.
    pairs : int
        Number of rows compared.
    """
    a = 0.0
    pairs = 0
    positive = y > 0
    sign = label_sign(y)
    for j in range(size):
        g[j] = 0.0
        if opposite_only and (buf_y[j] > 0) == positive:
            continue
        pairs += 1
        margin = sign * scale * (vx - slot_dot(v, bval, bidx, bnnz, j))
        g[j] = pair_loss_derivative(loss, margin) * abs(buf_y[j])
        a += g[j]
    return a, pairs


def _sparse_pair_step(coef, a, w, acc, data, indices, indptr, i, bval, bidx, bnnz, g):
    row_axpy(-coef * a, w, data, indices, indptr, i)  # O(nnz): acc is not used
    for j in range(g.shape[0]):
        if g[j] != 0.0:
            slot_axpy(coef * g[j], w, bval, bidx, bnnz, j)


@with_sparse_twin(_sparse_pair_step)
def pair_step(coef, a, w, acc, data, indices, indptr, i, bval, bidx, bnnz, g):
    """``w <- w - coef (a x_i - sum_j g[j] b_j)`` (see :func:`pair_derivatives`).

    ``g`` holds the derivatives of the first ``len(g)`` slots (a slice of those of
    :func:`pair_derivatives`). Dense slots sum the buffer rows in ``acc`` (d,)
    first; sparse slots move ``w`` row by row (``acc`` unused), O(nnz) per row.
    """
    for k in range(acc.shape[0]):
        acc[k] = 0.0
    for j in range(g.shape[0]):
        if g[j] != 0.0:
            slot_axpy(g[j], acc, bval, bidx, bnnz, j)
    row_axpy(-coef * a, w, data, indices, indptr, i)
    for k in range(w.shape[0]):
        w[k] += coef * acc[k]


@njit(cache=True, nogil=True)
def all_finite(w):
    """Return True if every entry of ``w`` is finite."""
    for j in range(w.shape[0]):
        if not np.isfinite(w[j]):
            return False
    return True
