"""The buffered pairwise learners on CSR rows in O(s nnz) per step: a lazy form of the iterate.

The specialised twins of :func:`aucopt._kernels.pairwise_buffer.pairwise_buffer_epoch`
for CSR rows (Yang et al. 2021's OGD with the previous example; Kar et al. 2013's OLP
with an RS-x buffer). The iterate is kept as ``w = s v``: the l2 prox and the
l2-ball projection only change the scalar ``s`` (``||v||^2`` is maintained), and
the running sum of the iterates is ``acc + S v - b`` (``S`` the sum of the scales,
``b`` collecting ``S dv`` on the touched coordinates).
"""

import numpy as np
from numba import njit

from ._buffers import all_finite, label_sign, pair_loss_derivative, rsx_update
from ._checks import DIVERGED, OK, exploding
from ._twins import specialises
from .pairwise_buffer import arrival, buffer_derivatives, eta_at, pairwise_buffer_epoch

__all__ = ["FOLD_BELOW", "NEEDS_FOLD", "LAZY_T", "fifo_epoch_lazy", "fifo_lazy_fold",
           "rsx_epoch_lazy"]

# The lazy running sum acc + S v - b loses about eps / s of relative accuracy (v grows like
# 1/s): the scale is folded into v (O(d), rare) before s falls below this.
_FOLD_BELOW = 1e-4

# The lazy kernels keep w = s v with v and the lazy-average correction b interleaved in one
# scratch array pack (d, 2): pack[j, 0] = v_j, pack[j, 1] = b_j (one cache line per feature
# touched; Kar at d = 10^6 ran 1.3-1.4x faster than with two arrays).


@njit(cache=True, nogil=True)
def _lazy_move(pack, j, dv, s_sum, vsq):
    """``v[j] += dv`` recording ``s_sum dv`` for the lazy average; return the new ``||v||^2``."""
    vsq += dv * (2.0 * pack[j, 0] + dv)
    pack[j, 1] += s_sum * dv
    pack[j, 0] += dv
    return vsq


@njit(cache=True, nogil=True)
def _lazy_row_dot(pack, data, indices, indptr, i):
    """Return ``v . x_i`` for a CSR row."""
    vx = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        vx += pack[indices[k], 0] * data[k]
    return vx


@njit(cache=True, nogil=True)
def _lazy_begin(pack, w, acc, t_start):
    """Open a lazy pass: ``v = w``, ``b = 0``, ``acc`` (the average) becomes the running sum;
    return ``||v||^2``."""
    vsq = 0.0
    for j in range(w.shape[0]):
        acc[j] *= t_start
        pack[j, 0] = w[j]
        pack[j, 1] = 0.0
        vsq += w[j] * w[j]
    return vsq


@njit(cache=True, nogil=True)
def _shrink_scale(s, s_sum, vsq, eta, hp):
    """l2 prox and ball projection of ``w = s v`` on the scale; add it to ``S``."""
    s /= 1.0 + eta * hp.lam
    if hp.radius > 0.0:
        norm = s * np.sqrt(max(vsq, 0.0))
        if norm > hp.radius:
            s *= hp.radius / norm
    return s, s_sum + s


@njit(cache=True, nogil=True)
def _lazy_shrink(pack, acc, s, s_sum, vsq, eta, hp):
    """Close a step on ``w = s v``: l2 prox and ball projection on ``s``, then add ``w`` to the
    running sum; fold ``s`` into ``v`` (O(d), rare) when it gets small.

    Returns
    -------
    s, s_sum, vsq : float
    """
    s, s_sum = _shrink_scale(s, s_sum, vsq, eta, hp)
    if s < _FOLD_BELOW:
        for j in range(acc.shape[0]):
            acc[j] += s_sum * pack[j, 0] - pack[j, 1]
            pack[j, 1] = 0.0
            pack[j, 0] *= s
        s_sum = 0.0
        vsq *= s * s
        s = 1.0
    return s, s_sum, vsq


@njit(cache=True, nogil=True)
def _lazy_end(pack, w, acc, s, s_sum, t, t_start, status):
    """Close a lazy pass: ``acc`` becomes the average again and ``w`` the iterate ``s v``."""
    if t > t_start:
        inv_t = 1.0 / t
        for j in range(w.shape[0]):
            acc[j] = (acc[j] + s_sum * pack[j, 0] - pack[j, 1]) * inv_t
    elif t_start > 0:
        for j in range(w.shape[0]):
            acc[j] /= t_start
    for j in range(w.shape[0]):
        w[j] = pack[j, 0] * s
    if status == OK and not all_finite(w):
        return DIVERGED
    return status


FOLD_BELOW = _FOLD_BELOW
NEEDS_FOLD = 2  # status of fifo_epoch_lazy: stopped before an O(d) fold
# Entries of the lazy scalars of fifo_epoch_lazy: w = s v, sum of the iterates = acc + S v - b.
LAZY_S, LAZY_S_SUM, LAZY_VSQ, LAZY_T = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def fifo_lazy_fold(pack, acc, lazy):
    """Fold the scale ``s`` into ``v`` and ``S v - b`` into ``acc`` (O(d), rare)."""
    s, s_sum = lazy[LAZY_S], lazy[LAZY_S_SUM]
    for j in range(acc.shape[0]):
        acc[j] += s_sum * pack[j, 0] - pack[j, 1]
        pack[j, 1] = 0.0
        pack[j, 0] *= s
    lazy[LAZY_VSQ] *= s * s
    lazy[LAZY_S], lazy[LAZY_S_SUM] = 1.0, 0.0


@njit(inline="always")
def _prev_dot(pack, prev, prev_idx, nnz):
    """Return ``v . x_prev``: over its ``nnz`` indices, or all of ``prev`` if ``nnz < 0``."""
    vp = 0.0
    if nnz >= 0:
        for k in range(nnz):
            vp += pack[prev_idx[k], 0] * prev[prev_idx[k]]
    else:
        for j in range(prev.shape[0]):
            vp += pack[j, 0] * prev[j]
    return vp


@njit(inline="always")
def _prev_move(pack, prev, prev_idx, nnz, coef, s_sum, vsq):
    """``v += coef x_prev`` (lazily averaged); return the new ``||v||^2``."""
    if nnz >= 0:
        for k in range(nnz):
            j = prev_idx[k]
            vsq = _lazy_move(pack, j, coef * prev[j], s_sum, vsq)
    else:
        for j in range(prev.shape[0]):
            if prev[j] != 0.0:
                vsq = _lazy_move(pack, j, coef * prev[j], s_sum, vsq)
    return vsq


@njit(inline="always")
def _store_prev(st, data, indices, indptr, i, yt):
    """The current CSR row becomes the previous one: clear the old entries, write the new."""
    prev, prev_idx, nnz = st.buf[0], st.prev_idx, st.prev_nnz[0]
    if nnz >= 0:
        for k in range(nnz):
            prev[prev_idx[k]] = 0.0
    else:
        for j in range(prev.shape[0]):
            prev[j] = 0.0
    sq = 0.0
    nnz = 0
    for k in range(indptr[i], indptr[i + 1]):
        prev[indices[k]] = data[k]
        prev_idx[nnz] = indices[k]
        nnz += 1
        sq += data[k] * data[k]
    st.prev_nnz[0] = nnz
    st.buf_sq[0] = sq
    st.buf_y[0] = yt
    st.size[0] = 1


@specialises(pairwise_buffer_epoch)
@njit(cache=True, nogil=True)
def fifo_epoch_lazy(st, data, indices, indptr, y, order, start, hp, t):
    """FIFO OGD over CSR rows at O(nnz) per step, in a lazy form kept between calls (same
    result as :func:`pairwise_buffer_epoch`).

    The iterate is kept as ``w = s v``: the l2 prox and the ball projection
    only change the scalar ``s`` (``||v||^2`` is maintained); the running sum
    of the iterates is ``acc + S v - b`` (``S`` the sum of the scales, ``b``
    collecting ``S dv`` on the touched coordinates; ``v`` and ``b`` live in
    ``pack``); the previous example is dense in ``buf[0]`` with its indices
    in ``prev_idx[:prev_nnz]`` (``prev_nnz < 0``: unknown, cleared in O(d)
    once). When ``s`` falls below ``FOLD_BELOW`` the kernel stops at the start
    of the next row (``NEEDS_FOLD``); the caller folds it with
    :func:`fifo_lazy_fold` (O(d), rare) and continues from the returned
    position, so a stream cut into calls runs the operations of one pass.

    Parameters
    ----------
    st : FifoLazyState
        The state; ``prev_idx`` must hold the longest row of ``order``. Updated
        (``acc`` by folds only; ``lazy[3]`` receives ``t``).
    data, indices, indptr : arrays
        CSR rows (``indices`` must not be None).
    y, order, hp, t
        As in :func:`pairwise_buffer_epoch`.
    start : int
        Position in ``order`` to start at.

    Returns
    -------
    t : int
    status : int
        ``OK``, ``DIVERGED`` or ``NEEDS_FOLD``.
    position : int
        Position in ``order`` after the last row handled.
    """
    pack, lazy, prev, prev_idx = st.pack, st.lazy, st.buf[0], st.prev_idx
    s, s_sum, vsq = lazy[LAZY_S], lazy[LAZY_S_SUM], lazy[LAZY_VSQ]
    status = OK
    m = order.shape[0]
    idx = start
    while idx < m:
        if s < _FOLD_BELOW:
            status = NEEDS_FOLD
            break
        i, yt = arrival(order, idx, y, st.seen)
        idx += 1
        b_y = st.buf_y[0]
        if st.size[0] > 0 and (b_y > 0) != (yt > 0):
            vx = _lazy_row_dot(pack, data, indices, indptr, i)
            vp = _prev_dot(pack, prev, prev_idx, st.prev_nnz[0])
            if exploding(s * vx):
                status = DIVERGED
                break
            g = pair_loss_derivative(hp.loss, label_sign(yt) * s * (vx - vp))
            t += 1
            eta = eta_at(hp, t)
            if g != 0.0:  # w -= eta y |y_prev| g (x_t - x_prev), y = +-w (signed weights)
                coef = eta * yt * g * abs(b_y) / s
                for k in range(indptr[i], indptr[i + 1]):
                    vsq = _lazy_move(pack, indices[k], -coef * data[k], s_sum, vsq)
                vsq = _prev_move(pack, prev, prev_idx, st.prev_nnz[0], coef, s_sum, vsq)
            s, s_sum = _shrink_scale(s, s_sum, vsq, eta, hp)
            if not (np.isfinite(vsq) and np.isfinite(s_sum)):
                status = DIVERGED
                break
        _store_prev(st, data, indices, indptr, i, yt)
    lazy[LAZY_S], lazy[LAZY_S_SUM], lazy[LAZY_VSQ] = s, s_sum, vsq
    lazy[LAZY_T] = t
    return t, status, idx


@specialises(pairwise_buffer_epoch)
@njit(cache=True, nogil=True)
def rsx_epoch_lazy(st, buf, work, data, indices, indptr, y, order, draws, hp, t):
    """Kar's OLP over CSR rows at O(s nnz) per step (same result as :func:`pairwise_buffer_epoch`).

    The buffer holds sparse slots (:mod:`aucopt._kernels._slots`); the
    iterate is kept as ``w = s v`` with the running sum of the iterates
    ``acc + S v - b``, as in :func:`fifo_epoch_lazy`. A step moves ``v`` on
    the entries of ``x_t`` and of the buffer rows with a non-zero pair
    derivative; the l2 prox and the ball projection only change ``s``. O(d)
    work happens once per call and on rare rescalings.

    Parameters
    ----------
    st : KarState
        ``w`` and ``w_avg`` (updated), ``size`` and ``seen``.
    buf : Buffer
        Sparse slots of the RS-x buffer (width K: the longest row of ``order``).
    work : PairWork
        Scratch; ``acc`` is the ``pack`` of shape (d, 2) (overwritten) and ``spare``
        has sparse slots of width K.
    data, indices, indptr : arrays
        CSR rows.
    y, order, draws, hp, t
        As in :func:`pairwise_buffer_epoch`.

    Returns
    -------
    t : int
    status : int
    """
    w, size, seen = st.w, st.size, st.seen
    g, pack, spare = work
    acc = st.w_avg  # running sum of the iterates = acc + s_sum v - b
    t_start = t
    vsq = _lazy_begin(pack, w, acc, t_start)
    v = pack[:, 0]
    s = 1.0
    s_sum = 0.0
    status = OK
    for r in range(order.shape[0]):
        i, yt = arrival(order, r, y, seen)
        if size[0] > 0:
            vx = _lazy_row_dot(pack, data, indices, indptr, i)
            if exploding(s * vx):
                status = DIVERGED
                break
            a, pairs = buffer_derivatives(v, vx, s, buf, size[0], yt, hp, g)
            if pairs > 0:  # w <- w - coef (a x_t - sum_j g_j b_j), on v: coef / s
                t += 1
                eta = eta_at(hp, t)
                coef = eta * yt / size[0] / s
                for k in range(indptr[i], indptr[i + 1]):
                    vsq = _lazy_move(pack, indices[k], -coef * a * data[k], s_sum, vsq)
                for j in range(size[0]):
                    if g[j] != 0.0:
                        for k in range(buf.nnz[j]):
                            vsq = _lazy_move(pack, buf.idx[j, k], coef * g[j] * buf.val[j, k],
                                             s_sum, vsq)
                s, s_sum, vsq = _lazy_shrink(pack, acc, s, s_sum, vsq, eta, hp)
        size[0] = rsx_update(buf, spare, size[0], seen[0], draws[r], yt, data, indices, indptr,
                             i)
    return t, _lazy_end(pack, w, acc, s, s_sum, t, t_start, status)
