"""Online pairwise gradient descent against a buffer of past examples (Yang et al. 2021; Kar et al.
2013).

* ``FIFO``: the buffer holds only the previous example (Z. Yang, Y. Lei,
  P. Wang, T. Yang, Y. Ying, "Simple stochastic and online gradient descent
  algorithms for pairwise learning", NeurIPS 2021).
* ``RSX``: a buffer of s examples kept by RS-x, reservoir sampling with
  replacement (P. Kar, B. K. Sriperumbudur, P. Jain, H. Karnick, "On the
  generalization ability of online learning algorithms for pairwise loss
  functions", ICML 2013, OLP).

Step on example ``z_t`` with the buffer B of earlier examples:
``w <- Pi_R(prox_{eta_t (lam/2)||.||^2}(w - eta_t/|B| sum_{z in B, y != y_t}
grad phi(y_t w.(x_t - x))))``; then z_t enters the buffer.
"""

import numpy as np
from numba import njit

from ._buffers import (
    all_finite,
    pair_derivatives,
    pair_loss_derivative,
    pair_step,
    rsx_update,
)
from ._checks import DIVERGED, OK, exploding
from ._lanes import add4, lane, load4, mul4, splat4, store4, sub4
from ._prox import project_l2_ball, prox_l2
from ._reduce import combine4
from ._rows import row_dot
from ._schedules import step_size
from ._slots import slot_store

__all__ = ["FIFO", "RSX", "NEEDS_FOLD", "pairwise_buffer_epoch", "fifo_epoch_dense",
           "fifo_epoch_lazy", "fifo_lazy_fold", "rsx_epoch_lazy"]

FIFO = 0
RSX = 1


@njit(cache=True, nogil=True)
def pairwise_buffer_epoch(w, w_avg, buf, buf_sq, buf_y, size, seen, g, acc, scratch, scratch_sq,
                          scratch_y, data, indices, indptr, y, order, draws, hp, t):
    """Run the buffered online pairwise gradient descent over ``order`` (dense slots).

    Costs O(s d) per visit (s = 1 for FIFO). For CSR rows,
    :func:`fifo_epoch_lazy` and :func:`rsx_epoch_lazy` give the same result at
    O(s nnz) per visit. OGD-FIFO on dense rows runs :func:`fifo_epoch_dense`
    (two sweeps per step); the FIFO policy here is what its test compares it with.

    Parameters
    ----------
    w, w_avg : ndarray of shape (d,)
        Iterate and uniform average of the iterates after each step.
    buf : ndarray of shape (s, d)
        Buffer rows (s = 1 for FIFO).
    buf_sq, buf_y : ndarray of shape (s,)
        Squared norms and labels of the buffer rows.
    size, seen : ndarray of shape (1,), int64
        Rows stored; examples received.
    g : ndarray of shape (s,)
        Scratch (derivatives of the pair losses).
    acc : ndarray of shape (d,)
        Scratch vector.
    scratch, scratch_sq, scratch_y : arrays
        Scratch copies of ``buf``, ``buf_sq``, ``buf_y`` for the RS-x
        repopulation step (see :func:`aucopt._kernels._buffers.rsx_update`).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    order : ndarray of shape (m,), int64
        Rows to visit, in this order.
    draws : ndarray of shape (m, s)
        Uniforms in [0, 1) for RS-x (unused by FIFO; may have zero columns).
    hp : PairwiseHyper
        Named tuple ``(eta, schedule, lam, radius, loss, policy)``;
        ``radius <= 0`` means no projection.
    t : int
        Steps done before this call.

    Returns
    -------
    t : int
        Steps done after this call (visits with an opposite-class example in
        the buffer).
    status : int
        ``OK`` or ``DIVERGED``.
    """
    for r in range(order.shape[0]):
        i = order[r]
        yt = y[i]
        seen[0] += 1
        if size[0] > 0:
            score = row_dot(w, data, indices, indptr, i)
            if exploding(score):
                return t, DIVERGED
            a, pairs = pair_derivatives(w, score, 1.0, buf_y, size[0], True, yt, hp.loss, g,
                                        buf, None, None)
            if pairs > 0:  # same-label pairs carry no AUC loss: no step
                t += 1
                eta = step_size(hp.schedule, hp.eta, 0.5, t)
                pair_step(eta * yt / size[0], a, g, w, acc, data, indices, indptr, i, buf, None,
                          None, size[0])
                if hp.lam > 0.0:
                    prox_l2(w, eta, hp.lam)
                if hp.radius > 0.0:
                    project_l2_ball(w, hp.radius)
                inv_t = 1.0 / t
                for k in range(w.shape[0]):
                    w_avg[k] += (w[k] - w_avg[k]) * inv_t
        if hp.policy == FIFO:
            buf_sq[0] = slot_store(data, indices, indptr, i, buf, None, None, 0)
            buf_y[0] = yt
            size[0] = 1
        else:
            size[0] = rsx_update(buf_sq, buf_y, size[0], seen[0], draws[r], yt, scratch_sq,
                                 scratch_y, data, indices, indptr, i, scratch, None, None, buf,
                                 None, None)
    if not all_finite(w):
        return t, DIVERGED
    return t, OK


@njit(inline="always")
def _fifo_dots(w, w_avg, x, b, scale, inv_t, finish):
    """Return ``(w . x, w . b)`` in one sweep (four partial sums each).

    With ``finish``, the pending end of the previous step is done in the same
    sweep first: ``w <- scale w`` (the l2-ball projection) and the running
    average ``w_avg += (w - w_avg) inv_t``.
    """
    d = w.shape[0]
    end = d - d % 4
    sx = sb = splat4(0.0)
    if finish:
        s4, i4 = splat4(scale), splat4(inv_t)
        for j in range(0, end, 4):
            u = mul4(load4(w, j), s4)
            store4(w, j, u)
            avg = load4(w_avg, j)
            store4(w_avg, j, add4(avg, mul4(sub4(u, avg), i4)))
            sx = add4(sx, mul4(u, load4(x, j)))
            sb = add4(sb, mul4(u, load4(b, j)))
    else:
        for j in range(0, end, 4):
            u = load4(w, j)
            sx = add4(sx, mul4(u, load4(x, j)))
            sb = add4(sb, mul4(u, load4(b, j)))
    sx0, sb0 = lane(sx, 0), lane(sb, 0)
    for j in range(end, d):
        u = w[j]
        if finish:
            u *= scale
            w[j] = u
            w_avg[j] += (u - w_avg[j]) * inv_t
        sx0 += u * x[j]
        sb0 += u * b[j]
    return combine4(sx, sx0), combine4(sb, sb0)


@njit(inline="always")
def _fifo_move(w, x, b, coef, shrink):
    """``w <- shrink (w + coef (x - b))`` in one sweep; return the new ``||w||^2``."""
    d = w.shape[0]
    end = d - d % 4
    c4, h4 = splat4(coef), splat4(shrink)
    sq = splat4(0.0)
    for j in range(0, end, 4):
        u = mul4(add4(load4(w, j), mul4(c4, sub4(load4(x, j), load4(b, j)))), h4)
        store4(w, j, u)
        sq = add4(sq, mul4(u, u))
    sq0 = lane(sq, 0)
    for j in range(end, d):
        u = (w[j] + coef * (x[j] - b[j])) * shrink
        w[j] = u
        sq0 += u * u
    return combine4(sq, sq0)


@njit(cache=True, nogil=True)
def fifo_epoch_dense(w, w_avg, buf, buf_sq, buf_y, size, seen, data, indices, indptr, y, order,
                     hp, t):
    """OGD with the previous example over the dense rows ``X[order]``: two sweeps per step.

    The same method as :func:`pairwise_buffer_epoch` with ``hp.policy == FIFO``
    (Yang et al. 2021), arranged for speed: within a call the previous example
    is a row of ``X`` (no copy per visit; it is stored in ``buf`` at the end),
    the dot products ``w . x_t`` and ``w . x_prev`` share one sweep, the step,
    the l2 prox and the squared norm share a second one, and the l2-ball
    scaling and the average of a step are done in the first sweep of the next
    step (or at the end of the call). Results equal the generic kernel's up to
    rounding (different summation order).

    Parameters
    ----------
    w, w_avg, buf, buf_sq, buf_y, size, seen
        As :func:`pairwise_buffer_epoch` (``buf`` of shape (1, d)).
    data, indices, indptr
        Dense rows (``data`` C-contiguous of shape (n, d); see
        :mod:`aucopt._kernels._rows`).
    y, order, hp, t
        As :func:`pairwise_buffer_epoch`.

    Returns
    -------
    t : int
    status : int
        ``OK`` or ``DIVERGED``.
    """
    X = data
    prev = -1  # row of X holding the previous example (-1: it is buf[0])
    finish = False  # a step awaits its ball scaling and average
    scale = inv_t = 0.0
    status = OK
    for r in range(order.shape[0]):
        i = order[r]
        yt = y[i]
        seen[0] += 1
        if size[0] > 0 or prev >= 0:
            b = buf[0] if prev < 0 else X[prev]
            b_y = buf_y[0] if prev < 0 else y[prev]
            sx, sb = _fifo_dots(w, w_avg, X[i], b, scale, inv_t, finish)
            finish = False
            if exploding(sx):
                status = DIVERGED
                break
            if b_y != yt:  # same-label pairs carry no AUC loss: no step
                g = pair_loss_derivative(hp.loss, yt * (sx - sb))
                t += 1
                eta = step_size(hp.schedule, hp.eta, 0.5, t)
                shrink = 1.0 / (1.0 + eta * hp.lam) if hp.lam > 0.0 else 1.0
                sq = _fifo_move(w, X[i], b, -eta * yt * g, shrink)
                norm = np.sqrt(sq)
                scale = hp.radius / norm if 0.0 < hp.radius < norm else 1.0
                inv_t = 1.0 / t
                finish = True
        prev = i
    if finish:  # the last step's scaling and average
        for j in range(w.shape[0]):
            u = w[j] * scale
            w[j] = u
            w_avg[j] += (u - w_avg[j]) * inv_t
    if prev >= 0:
        buf_sq[0] = slot_store(data, indices, indptr, prev, buf, None, None, 0)
        buf_y[0] = y[prev]
        size[0] = 1
    if status == OK and not all_finite(w):
        status = DIVERGED
    return t, status


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
LAZY_S, LAZY_S_SUM, LAZY_VSQ = 0, 1, 2


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


@njit(cache=True, nogil=True)
def fifo_epoch_lazy(pack, acc, lazy, buf, buf_sq, buf_y, size, seen, prev_idx, prev_nnz, data,
                    indices, indptr, y, order, start, hp, t):
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
    pack : ndarray of shape (d, 2)
        ``v`` and ``b``; updated.
    acc : ndarray of shape (d,)
        Base of the running sum of the iterates; updated by folds only.
    lazy : ndarray of shape (3,)
        ``s``, ``S`` and ``||v||^2``; updated.
    buf, buf_sq, buf_y, size, seen
        As in :func:`pairwise_buffer_epoch` (``buf`` has one row); updated.
    prev_idx : ndarray of shape (K,), int64
        Indices of the stored previous row; K must hold the longest row of ``order``.
    prev_nnz : ndarray of shape (1,), int64
        Their number, or -1 if unknown.
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
    prev = buf[0]
    s, s_sum, vsq = lazy[LAZY_S], lazy[LAZY_S_SUM], lazy[LAZY_VSQ]
    status = OK
    m = order.shape[0]
    idx = start
    while idx < m:
        if s < _FOLD_BELOW:
            status = NEEDS_FOLD
            break
        i = order[idx]
        idx += 1
        yt = y[i]
        seen[0] += 1
        if size[0] > 0 and buf_y[0] != yt:
            vx = _lazy_row_dot(pack, data, indices, indptr, i)
            vp = 0.0
            if prev_nnz[0] >= 0:
                for k in range(prev_nnz[0]):
                    vp += pack[prev_idx[k], 0] * prev[prev_idx[k]]
            else:
                for j in range(prev.shape[0]):
                    vp += pack[j, 0] * prev[j]
            if exploding(s * vx):
                status = DIVERGED
                break
            g = pair_loss_derivative(hp.loss, yt * s * (vx - vp))
            t += 1
            eta = step_size(hp.schedule, hp.eta, 0.5, t)
            if g != 0.0:  # w -= eta y g (x_t - x_prev)
                coef = eta * yt * g / s
                for k in range(indptr[i], indptr[i + 1]):
                    vsq = _lazy_move(pack, indices[k], -coef * data[k], s_sum, vsq)
                if prev_nnz[0] >= 0:
                    for k in range(prev_nnz[0]):
                        j = prev_idx[k]
                        vsq = _lazy_move(pack, j, coef * prev[j], s_sum, vsq)
                else:
                    for j in range(prev.shape[0]):
                        if prev[j] != 0.0:
                            vsq = _lazy_move(pack, j, coef * prev[j], s_sum, vsq)
            s, s_sum = _shrink_scale(s, s_sum, vsq, eta, hp)
            if not (np.isfinite(vsq) and np.isfinite(s_sum)):
                status = DIVERGED
                break
        # the current row becomes the previous one: clear the old entries, write the new
        if prev_nnz[0] >= 0:
            for k in range(prev_nnz[0]):
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
        prev_nnz[0] = nnz
        buf_sq[0] = sq
        buf_y[0] = yt
        size[0] = 1
    lazy[LAZY_S], lazy[LAZY_S_SUM], lazy[LAZY_VSQ] = s, s_sum, vsq
    return t, status, idx


@njit(cache=True, nogil=True)
def rsx_epoch_lazy(w, w_avg, buf, buf_idx, buf_nnz, buf_sq, buf_y, size, seen, g, scratch,
                   scratch_idx, scratch_nnz, scratch_sq, scratch_y, pack, data, indices, indptr,
                   y, order, draws, hp, t):
    """Kar's OLP over CSR rows at O(s nnz) per step (same result as :func:`pairwise_buffer_epoch`).

    The buffer holds sparse slots (:mod:`aucopt._kernels._slots`); the
    iterate is kept as ``w = s v`` with the running sum of the iterates
    ``acc + S v - b``, as in :func:`fifo_epoch_lazy`. A step moves ``v`` on
    the entries of ``x_t`` and of the buffer rows with a non-zero pair
    derivative; the l2 prox and the ball projection only change ``s``. O(d)
    work happens once per call and on rare rescalings.

    Parameters
    ----------
    w, w_avg : ndarray of shape (d,)
        Iterate and average (updated).
    buf, buf_idx, buf_nnz
        Sparse slots of the RS-x buffer: values and indices of shape (s, K),
        lengths of shape (s,); K must hold the longest row of ``order``.
    buf_sq, buf_y, size, seen
        As in :func:`pairwise_buffer_epoch`.
    g : ndarray of shape (s,)
        Scratch.
    scratch, scratch_idx, scratch_nnz, scratch_sq, scratch_y : arrays
        Scratch slots (width K) for the RS-x repopulation step.
    pack : ndarray of shape (d, 2)
        Scratch (overwritten).
    data, indices, indptr : arrays
        CSR rows.
    y, order, draws, hp, t
        As in :func:`pairwise_buffer_epoch`.

    Returns
    -------
    t : int
    status : int
    """
    acc = w_avg  # running sum of the iterates = acc + s_sum v - b
    t_start = t
    vsq = _lazy_begin(pack, w, acc, t_start)
    v = pack[:, 0]
    s = 1.0
    s_sum = 0.0
    status = OK
    for r in range(order.shape[0]):
        i = order[r]
        yt = y[i]
        seen[0] += 1
        if size[0] > 0:
            vx = _lazy_row_dot(pack, data, indices, indptr, i)
            if exploding(s * vx):
                status = DIVERGED
                break
            a, pairs = pair_derivatives(v, vx, s, buf_y, size[0], True, yt, hp.loss, g, buf,
                                        buf_idx, buf_nnz)
            if pairs > 0:  # w <- w - coef (a x_t - sum_j g_j b_j), on v: coef / s
                t += 1
                eta = step_size(hp.schedule, hp.eta, 0.5, t)
                coef = eta * yt / size[0] / s
                for k in range(indptr[i], indptr[i + 1]):
                    vsq = _lazy_move(pack, indices[k], -coef * a * data[k], s_sum, vsq)
                for j in range(size[0]):
                    if g[j] != 0.0:
                        for k in range(buf_nnz[j]):
                            vsq = _lazy_move(pack, buf_idx[j, k], coef * g[j] * buf[j, k],
                                             s_sum, vsq)
                s, s_sum, vsq = _lazy_shrink(pack, acc, s, s_sum, vsq, eta, hp)
        size[0] = rsx_update(buf_sq, buf_y, size[0], seen[0], draws[r], yt, scratch_sq,
                             scratch_y, data, indices, indptr, i, scratch, scratch_idx,
                             scratch_nnz, buf, buf_idx, buf_nnz)
    return t, _lazy_end(pack, w, acc, s, s_sum, t, t_start, status)
