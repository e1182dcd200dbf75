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

Sample weights (notes.md#sample-weights) arrive as signed labels ``+-w``: the pair of
``z_t`` with a stored ``z`` is weighted by ``w_t w_z`` (``|B|`` still counts rows), a
stored row keeps its signed weight in ``buf_y``, and the buffer policies do not look
at the weights (FIFO keeps the previous row, RS-x draws uniformly over the rows seen).

The generic kernel :func:`pairwise_buffer_epoch` serves every input; its specialised
twins are :func:`fifo_epoch_dense` here and the O(s nnz) kernels on CSR rows of
:mod:`aucopt._kernels.pairwise_buffer_lazy`.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import (
    Buffer,
    all_finite,
    label_sign,
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
from ._state import ANY, F64, I64, SIGNED_I64, D, Dim
from ._twins import specialises

__all__ = ["FIFO", "RSX", "FifoState", "FifoLazyState", "KarState", "PairWork",
           "pairwise_buffer_epoch", "fifo_epoch_dense"]

FIFO = 0
RSX = 1

S = Dim("buffer_size")


class FifoState(NamedTuple):
    """OGD-FIFO's state in its plain form (dense rows)."""

    w: F64[D]  # last iterate
    w_avg: F64[D]  # uniform average of the iterates after each step
    buf_sq: F64[1]  # squared norm of the previous example
    buf_y: F64[1]  # its signed weight +-w (the sign is its label)
    size: I64[1]  # examples stored (0 or 1)
    seen: I64[1]  # examples received
    buf: F64[1, D]  # the previous example, dense
    prev_idx: I64[ANY]  # its indices (CSR rows), grown to the longest row seen
    prev_nnz: SIGNED_I64[1]  # their number; -1: unknown (a dense row is stored)


class FifoLazyState(NamedTuple):
    """OGD-FIFO's lazy form on CSR rows (:func:`fifo_epoch_lazy`), kept between calls."""

    pack: F64[D, 2]  # v and b, interleaved: w = s v, sum of the iterates = acc + S v - b
    acc: F64[D]  # base of the running sum of the iterates
    lazy: F64[4]  # s, S, ||v||^2, t
    buf_sq: F64[1]
    buf_y: F64[1]
    size: I64[1]
    seen: I64[1]
    buf: F64[1, D]
    prev_idx: I64[ANY]
    prev_nnz: SIGNED_I64[1]


class KarState(NamedTuple):
    """The state of Kar et al.'s OLP: iterates and an RS-x buffer of s slots."""

    w: F64[D]  # last iterate
    w_avg: F64[D]  # uniform average of the iterates after each step
    buf_sq: F64[S]  # squared norms of the stored rows
    buf_y: F64[S]  # their signed weights +-w (the sign is the label)
    size: I64[1]  # rows stored
    seen: I64[1]  # examples received
    buf: F64[S, ANY]  # slot values (sparse: width K, the longest row; dense: width d)
    buf_idx: I64[S, ANY]  # slot feature indices (sparse slots; width 0 when dense)
    buf_nnz: I64[S]  # slot row lengths (sparse slots)


class PairWork(NamedTuple):
    """Scratch of a buffered step."""

    g: np.ndarray  # (s,): derivatives of the pair losses
    acc: np.ndarray  # (d,) vector of the dense slots' sum, or the lazy (d, 2) pack
    spare: Buffer  # s slots for the RS-x repopulation step (0 when not in this call)


@njit(inline="always")
def eta_at(hp, t):
    """Return the step size ``eta_t`` of step ``t`` (every kernel of the family)."""
    return step_size(hp.schedule, hp.eta, 0.5, t)


@njit(inline="always")
def arrival(order, r, y, seen):
    """Return row ``order[r]`` and its signed weight ``+-w``; count it as received."""
    i = order[r]
    seen[0] += 1
    return i, y[i]


@njit(inline="always")
def buffer_derivatives(v, vx, scale, buf, size, yt, hp, g):
    """Derivatives ``g`` of the pair losses of ``x_t`` against the buffer rows of the other
    label (``w = scale v``, ``vx = v . x_t``); return ``(sum g, pairs compared)``."""
    return pair_derivatives(v, vx, scale, buf.y, size, True, yt, hp.loss, g, buf.val, buf.idx,
                            buf.nnz)


@njit(inline="always")
def _keep_as_previous(buf, size, data, indices, indptr, i, label):
    """FIFO: row ``i`` replaces the example held in the buffer of one slot."""
    buf.sq[0] = slot_store(data, indices, indptr, i, buf.val, buf.idx, buf.nnz, 0)
    buf.y[0] = label
    size[0] = 1


@njit(cache=True, nogil=True)
def pairwise_buffer_epoch(st, buf, work, data, indices, indptr, y, order, draws, hp, t, policy):
    """Run the buffered online pairwise gradient descent over ``order``.

    Costs O(s d) per visit (s = 1 for FIFO). Its specialised twins give the same
    result faster: :func:`fifo_epoch_dense` (FIFO, dense rows), :func:`fifo_epoch_lazy`
    and :func:`rsx_epoch_lazy` (CSR rows, O(s nnz) per visit).

    Parameters
    ----------
    st : FifoState or KarState
        The state; ``w``, ``w_avg``, ``size`` and ``seen`` are read here.
    buf : Buffer
        The buffer: dense slots (FIFO: the dense ``buf`` of one row), or sparse slots
        with CSR rows (:mod:`aucopt._kernels._slots`).
    work : PairWork
        Scratch: ``g`` (s,), ``acc`` (d,) and the ``spare`` slots of the RS-x
        repopulation step (see :func:`aucopt._kernels._buffers.rsx_update`).
    data, indices, indptr, y, order
        Rows, labels and visiting order: the common kernel arguments (:mod:`aucopt._kernels`).
    draws : ndarray of shape (m, s)
        Uniforms in [0, 1) for RS-x (unused by FIFO; may have zero columns).
    hp : PairwiseHyper
        The kernel scalars (:data:`aucopt.algorithms.pairwise_buffer.PARAMS`);
        ``radius <= 0`` means no projection.
    t : int
        Steps done before this call.
    policy : int
        ``FIFO`` or ``RSX``.

    Returns
    -------
    t : int
        Steps done after this call (visits with an opposite-class example in
        the buffer).
    status : int
        ``OK`` or ``DIVERGED``.
    """
    w, w_avg, size, seen = st.w, st.w_avg, st.size, st.seen
    g, acc, spare = work
    for r in range(order.shape[0]):
        i, yt = arrival(order, r, y, seen)
        if size[0] > 0:
            score = row_dot(w, data, indices, indptr, i)
            if exploding(score):
                return t, DIVERGED
            a, pairs = buffer_derivatives(w, score, 1.0, buf, size[0], yt, hp, g)
            if pairs > 0:  # same-label pairs carry no AUC loss: no step
                t += 1
                eta = eta_at(hp, t)
                pair_step(eta * yt / size[0], a, w, acc, data, indices, indptr, i, buf.val,
                          buf.idx, buf.nnz, g[:size[0]])
                if hp.lam > 0.0:
                    prox_l2(w, eta, hp.lam)
                if hp.radius > 0.0:
                    project_l2_ball(w, hp.radius)
                inv_t = 1.0 / t
                for k in range(w.shape[0]):
                    w_avg[k] += (w[k] - w_avg[k]) * inv_t
        if policy == FIFO:
            _keep_as_previous(buf, size, data, indices, indptr, i, yt)
        else:
            size[0] = rsx_update(buf, spare, size[0], seen[0], draws[r], yt, data, indices,
                                 indptr, i)
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


@specialises(pairwise_buffer_epoch)
@njit(cache=True, nogil=True)
def fifo_epoch_dense(st, data, indices, indptr, y, order, hp, t):
    """OGD with the previous example over the dense rows ``X[order]``: two sweeps per step.

    The same method as :func:`pairwise_buffer_epoch` with the ``FIFO`` policy
    (Yang et al. 2021), arranged for speed: within a call the previous example
    is a row of ``X`` (no copy per visit; it is stored in ``buf`` at the end),
    the dot products ``w . x_t`` and ``w . x_prev`` share one sweep, the step,
    the l2 prox and the squared norm share a second one, and the l2-ball
    scaling and the average of a step are done in the first sweep of the next
    step (or at the end of the call). Results equal the generic kernel's up to
    rounding (different summation order).

    Parameters
    ----------
    st : FifoState
        The state (``buf`` of shape (1, d)); updated.
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
    w, w_avg, buf, buf_y, size, seen = st.w, st.w_avg, st.buf, st.buf_y, st.size, st.seen
    X = data
    prev = -1  # row of X holding the previous example (-1: it is buf[0])
    finish = False  # a step awaits its ball scaling and average
    scale = inv_t = 0.0
    status = OK
    for r in range(order.shape[0]):
        i, yt = arrival(order, r, y, seen)
        if size[0] > 0 or prev >= 0:
            b = buf[0] if prev < 0 else X[prev]
            b_y = buf_y[0] if prev < 0 else y[prev]
            sx, sb = _fifo_dots(w, w_avg, X[i], b, scale, inv_t, finish)
            finish = False
            if exploding(sx):
                status = DIVERGED
                break
            if (b_y > 0) != (yt > 0):  # same-label pairs carry no AUC loss: no step
                g = pair_loss_derivative(hp.loss, label_sign(yt) * (sx - sb))
                t += 1
                eta = eta_at(hp, t)
                shrink = 1.0 / (1.0 + eta * hp.lam) if hp.lam > 0.0 else 1.0
                sq = _fifo_move(w, X[i], b, -eta * yt * g * abs(b_y), shrink)
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
        _keep_as_previous(Buffer(buf, None, None, st.buf_sq, buf_y), size, data, indices, indptr,
                          prev, y[prev])
    if status == OK and not all_finite(w):
        status = DIVERGED
    return t, status
