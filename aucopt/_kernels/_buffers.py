"""Example buffers of the online pairwise learners (spec P10, P11) and their gradient sums.

Buffers are dense float64 arrays ``buf`` of shape (capacity, d) with the
squared norm of every stored row in ``buf_sq``; a CSR row is densified only
when it is stored. Every random decision reads pre-drawn uniforms in [0, 1)
passed in by the caller (the kernels draw nothing themselves).

Used by OAM (two reservoirs, one per class), Kar et al.'s OLP (one RS-x
buffer) and the OGD of Yang et al. (a FIFO buffer holding one example).
"""

import numpy as np
from numba import njit

from ._rows import row_dot, row_sqnorm, row_to_dense

__all__ = [
    "SQUARE",
    "HINGE",
    "LOSS_CODES",
    "store_row",
    "reservoir_update",
    "rsx_update",
    "pair_loss_derivative",
    "buffer_gradient_sum",
    "row_buffer_dot",
    "all_finite",
]

SQUARE = 0  # phi(m) = (1 - m)^2
HINGE = 1  # phi(m) = max(0, 1 - m)
LOSS_CODES = {"square": SQUARE, "hinge": HINGE}


@njit(cache=True, nogil=True)
def store_row(buf, buf_sq, slot, data, indices, indptr, i):
    """Write row ``i`` densely into ``buf[slot]`` and its squared norm into ``buf_sq[slot]``.

    Parameters
    ----------
    buf : ndarray of shape (capacity, d)
        Buffer rows.
    buf_sq : ndarray of shape (capacity,)
        Squared norms of the buffer rows.
    slot : int
        Row of the buffer to overwrite.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    i : int
        Row to store.
    """
    row_to_dense(buf[slot], data, indices, indptr, i)
    buf_sq[slot] = row_sqnorm(data, indices, indptr, i)


@njit(cache=True, nogil=True)
def _store_labelled(buf, buf_sq, buf_y, slot, label, data, indices, indptr, i):
    store_row(buf, buf_sq, slot, data, indices, indptr, i)
    buf_y[slot] = label


@njit(cache=True, nogil=True)
def reservoir_update(buf, buf_sq, size, seen, u_coin, u_slot, data, indices, indptr, i):
    """Offer row ``i`` to a reservoir of capacity N (spec P10); return the new size.

    ``seen`` counts the items offered so far, including this one. While the
    reservoir is not full the row is appended; otherwise, with probability
    ``N / seen`` (``u_coin < N / seen``), it replaces the slot
    ``floor(u_slot * N)``. Every item offered is then kept with probability
    ``N / seen`` (Vitter's algorithm R).

    Parameters
    ----------
    buf, buf_sq : arrays
        The reservoir (see :func:`store_row`).
    size : int
        Items stored before this call.
    seen : int
        Items offered so far, including row ``i``.
    u_coin, u_slot : float
        Uniforms in [0, 1): the coin flip and the slot.
    data, indices, indptr, i
        The offered row.

    Returns
    -------
    int
        Items stored after this call.
    """
    capacity = buf.shape[0]
    if size < capacity:
        store_row(buf, buf_sq, size, data, indices, indptr, i)
        return size + 1
    if u_coin * seen < capacity:
        slot = min(int(u_slot * capacity), capacity - 1)
        store_row(buf, buf_sq, slot, data, indices, indptr, i)
    return size


@njit(cache=True, nogil=True)
def rsx_update(buf, buf_sq, buf_y, size, seen, draws, label, scratch, scratch_sq, scratch_y,
               data, indices, indptr, i):
    """Offer row ``i`` to an RS-x buffer of capacity s (Kar et al. 2013; spec P11).

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
    buf, buf_sq : arrays
        Buffer rows and squared norms.
    buf_y : ndarray of shape (s,)
        Labels of the buffer rows.
    size : int
        Points stored before this call.
    seen : int
        Points offered so far, including row ``i``.
    draws : ndarray of shape (s,)
        Uniforms in [0, 1), one per slot.
    label : float
        Label of row ``i``.
    scratch, scratch_sq, scratch_y : arrays
        Copies of the buffer for the repopulation step (shapes as ``buf``,
        ``buf_sq``, ``buf_y``); may have zero rows when ``seen != s + 1``.
    data, indices, indptr, i
        The offered row.

    Returns
    -------
    int
        Points stored after this call.
    """
    capacity = buf.shape[0]
    if size < capacity:
        _store_labelled(buf, buf_sq, buf_y, size, label, data, indices, indptr, i)
        return size + 1
    if seen == capacity + 1:  # repopulation: s draws with replacement from the s + 1 points
        for k in range(capacity):
            scratch[k, :] = buf[k, :]
            scratch_sq[k] = buf_sq[k]
            scratch_y[k] = buf_y[k]
        for k in range(capacity):
            src = min(int(draws[k] * (capacity + 1)), capacity)
            if src == capacity:
                _store_labelled(buf, buf_sq, buf_y, k, label, data, indices, indptr, i)
            else:
                buf[k, :] = scratch[src, :]
                buf_sq[k] = scratch_sq[src]
                buf_y[k] = scratch_y[src]
        return size
    for k in range(capacity):
        if draws[k] * seen < 1.0:
            _store_labelled(buf, buf_sq, buf_y, k, label, data, indices, indptr, i)
    return size


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
def buffer_gradient_sum(w, buf, buf_y, size, opposite_only, y, score, loss, acc):
    """Accumulate the pairwise gradient of the current example against a buffer.

    For each stored row ``b_j`` (``j < size``; with ``opposite_only`` only the
    rows with ``buf_y[j] != y``) the margin is ``m_j = y (score - w.b_j)``,
    ``score = w.x_t``, all with the incoming ``w``. The gradient of
    ``sum_j phi(m_j)`` is ``y (a x_t - acc)`` with ``a = sum_j phi'(m_j)``
    and ``acc = sum_j phi'(m_j) b_j``; ``acc`` is overwritten.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Current iterate.
    buf : ndarray of shape (capacity, d)
        Buffer rows.
    buf_y : ndarray
        Buffer labels (read only with ``opposite_only``).
    size : int
        Stored rows.
    opposite_only : bool
        Skip rows with the label ``y``.
    y : float
        Label of the current example.
    score : float
        ``w.x_t``.
    loss : int
        ``SQUARE`` or ``HINGE``.
    acc : ndarray of shape (d,)
        Output ``sum_j phi'(m_j) b_j``.

    Returns
    -------
    a : float
        ``sum_j phi'(m_j)``.
    pairs : int
        Number of rows compared.
    """
    for k in range(acc.shape[0]):
        acc[k] = 0.0
    a = 0.0
    pairs = 0
    for j in range(size):
        if opposite_only and buf_y[j] == y:
            continue
        pairs += 1
        margin = y * (score - row_dot(w, buf, None, None, j))
        g = pair_loss_derivative(loss, margin)
        if g != 0.0:
            a += g
            for k in range(acc.shape[0]):
                acc[k] += g * buf[j, k]
    return a, pairs


@njit(cache=True, nogil=True)
def row_buffer_dot(buf, j, data, indices, indptr, i):
    """Return ``x_i . buf[j]`` (O(nnz) for CSR rows)."""
    return row_dot(buf[j], data, indices, indptr, i)


@njit(cache=True, nogil=True)
def all_finite(w):
    """Return True if every entry of ``w`` is finite."""
    for j in range(w.shape[0]):
        if not np.isfinite(w[j]):
            return False
    return True
