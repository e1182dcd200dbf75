"""Online pairwise gradient descent against a buffer of past examples (spec sections 16, 17).

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
    buffer_gradient_sum,
    pair_loss_derivative,
    rsx_update,
    store_row,
)
from ._checks import DIVERGED, OK, exploding
from ._prox import project_l2_ball, prox_l2
from ._rows import row_axpy, row_dot
from ._schedules import step_size

__all__ = ["FIFO", "RSX", "pairwise_buffer_epoch", "fifo_epoch_lazy"]

FIFO = 0
RSX = 1


@njit(cache=True, nogil=True)
def pairwise_buffer_epoch(w, w_avg, buf, buf_sq, buf_y, size, seen, acc, scratch, scratch_sq,
                          scratch_y, data, indices, indptr, y, order, draws, hp, t):
    """Run the buffered online pairwise gradient descent over ``order``.

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
    acc : ndarray of shape (d,)
        Scratch vector.
    scratch, scratch_sq, scratch_y : arrays
        Scratch copies for the RS-x repopulation step (see
        :func:`aucopt._kernels._buffers.rsx_update`).
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
            a, pairs = buffer_gradient_sum(w, buf, buf_y, size[0], True, yt, score, hp.loss,
                                           acc)
            if pairs > 0:  # same-label pairs carry no AUC loss: no step
                t += 1
                eta = step_size(hp.schedule, hp.eta, 0.5, t)
                coef = eta * yt / size[0]
                row_axpy(-coef * a, w, data, indices, indptr, i)
                for k in range(w.shape[0]):
                    w[k] += coef * acc[k]
                if hp.lam > 0.0:
                    prox_l2(w, eta, hp.lam)
                if hp.radius > 0.0:
                    project_l2_ball(w, hp.radius)
                inv_t = 1.0 / t
                for k in range(w.shape[0]):
                    w_avg[k] += (w[k] - w_avg[k]) * inv_t
        if hp.policy == FIFO:
            store_row(buf, buf_sq, 0, data, indices, indptr, i)
            buf_y[0] = yt
            size[0] = 1
        else:
            size[0] = rsx_update(buf, buf_sq, buf_y, size[0], seen[0], draws[r], yt, scratch,
                                 scratch_sq, scratch_y, data, indices, indptr, i)
    if not all_finite(w):
        return t, DIVERGED
    return t, OK


# The lazy running sum acc + S v - b loses about eps / s of relative accuracy (v grows like
# 1/s): the scale is folded into v (O(d), rare) before s falls below this.
_FOLD_BELOW = 1e-4


@njit(cache=True, nogil=True)
def _lazy_move(v, bsum, j, dv, s_sum, vsq):
    """``v[j] += dv`` recording ``s_sum dv`` for the lazy average; return the new ``||v||^2``."""
    vsq += dv * (2.0 * v[j] + dv)
    bsum[j] += s_sum * dv
    v[j] += dv
    return vsq


@njit(cache=True, nogil=True)
def fifo_epoch_lazy(w, w_avg, buf, buf_sq, buf_y, size, seen, prev_idx, prev_nnz, bsum, data,
                    indices, indptr, y, order, hp, t):
    """FIFO OGD over CSR rows at O(nnz) per step (same result as :func:`pairwise_buffer_epoch`).

    The iterate is kept as ``w = s v``: the l2 prox and the ball projection
    only change the scalar ``s`` (``||v||^2`` is maintained); the running sum
    of the iterates is ``acc + S v - b`` (``S`` the sum of the scales, ``b``
    collecting ``S dv`` on the touched coordinates); the previous example is
    dense in ``buf[0]`` with its indices in ``prev_idx[:prev_nnz]``
    (``prev_nnz < 0``: unknown, cleared in O(d) once). O(d) work happens once
    per call and on rare rescalings.

    Parameters
    ----------
    w, w_avg, buf, buf_sq, buf_y, size, seen
        As in :func:`pairwise_buffer_epoch` (``buf`` has one row); updated.
    prev_idx : ndarray of shape (d,), int64
        Indices of the stored previous row.
    prev_nnz : ndarray of shape (1,), int64
        Their number, or -1 if unknown.
    bsum : ndarray of shape (d,)
        Scratch (overwritten).
    data, indices, indptr : arrays
        CSR rows (``indices`` must not be None).
    y, order, hp, t
        As in :func:`pairwise_buffer_epoch`.

    Returns
    -------
    t : int
    status : int
    """
    v = w
    prev = buf[0]
    acc = w_avg  # running sum of the iterates = acc + s_sum v - bsum
    t_start = t
    vsq = 0.0
    for j in range(v.shape[0]):
        acc[j] *= t_start
        bsum[j] = 0.0
        vsq += v[j] * v[j]
    s = 1.0
    s_sum = 0.0
    status = OK
    for i in order:
        yt = y[i]
        seen[0] += 1
        if size[0] > 0 and buf_y[0] != yt:
            vx = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                vx += v[indices[k]] * data[k]
            vp = 0.0
            if prev_nnz[0] >= 0:
                for k in range(prev_nnz[0]):
                    vp += v[prev_idx[k]] * prev[prev_idx[k]]
            else:
                for j in range(v.shape[0]):
                    vp += v[j] * prev[j]
            if exploding(s * vx):
                status = DIVERGED
                break
            g = pair_loss_derivative(hp.loss, yt * s * (vx - vp))
            t += 1
            eta = step_size(hp.schedule, hp.eta, 0.5, t)
            if g != 0.0:  # w -= eta y g (x_t - x_prev)
                coef = eta * yt * g / s
                for k in range(indptr[i], indptr[i + 1]):
                    vsq = _lazy_move(v, bsum, indices[k], -coef * data[k], s_sum, vsq)
                if prev_nnz[0] >= 0:
                    for k in range(prev_nnz[0]):
                        j = prev_idx[k]
                        vsq = _lazy_move(v, bsum, j, coef * prev[j], s_sum, vsq)
                else:
                    for j in range(v.shape[0]):
                        if prev[j] != 0.0:
                            vsq = _lazy_move(v, bsum, j, coef * prev[j], s_sum, vsq)
            s /= 1.0 + eta * hp.lam
            if hp.radius > 0.0:
                norm = s * np.sqrt(max(vsq, 0.0))
                if norm > hp.radius:
                    s *= hp.radius / norm
            s_sum += s
            if s < _FOLD_BELOW:
                for j in range(v.shape[0]):
                    acc[j] += s_sum * v[j] - bsum[j]
                    bsum[j] = 0.0
                    v[j] *= s
                s_sum = 0.0
                vsq *= s * s
                s = 1.0
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
    if t > t_start:
        inv_t = 1.0 / t
        for j in range(v.shape[0]):
            acc[j] = (acc[j] + s_sum * v[j] - bsum[j]) * inv_t
    elif t_start > 0:
        for j in range(v.shape[0]):
            acc[j] /= t_start
    for j in range(v.shape[0]):
        v[j] *= s
    if status == OK and not all_finite(v):
        status = DIVERGED
    return t, status
