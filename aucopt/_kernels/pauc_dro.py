"""Stochastic optimisation of the DRO partial-AUC objectives of D. Zhu, G. Li, B. Wang,
X. Wu, T. Yang, "When AUC meets DRO: Optimizing partial AUC for deep learning with
non-convex convergence guarantee", ICML 2022: SOPA (one-way, section 4, Algorithm 1, the
CVaR over the negatives of each positive), SOPA-s (one-way, section 4, the KL-regularised
DRO over the negatives of each positive) and SOTA-s (two-way, section 5, a second
KL-regularised DRO over the positives), for a linear scorer ``h(x) = w.x``. The three
differ only in the weight ``p_ij`` of a pair in the gradient and in the per-positive
variable that sets it (the threshold ``s_i`` or the moving average ``u_i``).

One-way CVaR objective (SOPA, ``max_fpr`` = beta), exactly the mean over the positives
of the mean of the top beta-fraction of each positive's losses:

    F(w, s) = 1/n+ sum_i ( s_i + 1/(beta n-) sum_j (L_ij(w) - s_i)_+ ),

minimised over ``w`` and the thresholds ``s``. Step: ``p_ij = [L_ij > s_i]``,
``s_i <- s_i - eta_s (1 - sum_j p_ij / (beta |B-|))`` (the paper writes the step of
``s_i`` as ``eta_2 / n+``; ``n+`` is unknown in a stream, ``eta_s`` stands for it),
``G = 1/(beta |B+| |B-|) sum_{i, j} p_ij grad L_ij``, then the momentum step below.

One-way objective (temperature ``lam`` = lambda):

    F(w) = 1/n+ sum_i lambda log( 1/n- sum_j exp(L_ij(w) / lambda) ),

two-way objective (``lam_pos`` = lambda'):

    F(w) = lambda' log( 1/n+ sum_i ( 1/n- sum_j exp(L_ij(w) / lambda) )^(lambda/lambda') ),

``L_ij(w) = max(0, m - w.(x_i - x_j))^2`` (squared hinge, margin ``m``), ``x_i`` positive,
``x_j`` negative. Step on a batch (positives B+, negatives B-), the paper's estimators:

* ``u_i <- (1 - gamma) u_i + gamma mean_{j in B-} exp(L_ij / lambda)`` for ``i`` in B+
  (``u_i = 0`` before the first update of positive ``i``);
* two-way only: ``v <- (1 - gamma') v + gamma' mean_{i in B+} u_i^(lambda/lambda')``
  (``v = 0`` before its first update);
* ``p_ij = exp(L_ij / lambda) / u_i`` (one-way) or
  ``u_i^(lambda/lambda' - 1) exp(L_ij / lambda) / v`` (two-way);
* ``G = mean_{i, j} p_ij grad L_ij``, ``m <- beta m + (1 - beta) G``, ``w <- w - eta m``
  (momentum ``beta``, constant step ``eta``).

SOPA's ``s_i`` (0 before the first update of positive ``i``) is kept in ``log_u``.
``u_i`` and ``v`` are kept as logarithms (``log_u``, ``log_v``; a visit count of zero
stands for the value 0), so that ``exp(L / lambda)`` never overflows: the same numbers,
rounded differently.

Streaming form with bounded memory, as :mod:`.pauc` (1PMB): a batch is the next
negatives of the stream (1, 2, 4, ... then ``buffer_size``), its positives are the last
``buffer_size`` positives (a ring), and ``u_i`` (``s_i``) lives with the ring slot of
positive ``i`` (a new positive in a slot starts from ``u_i = 0``, ``s_i = 0``).

Sample weights (notes.md#sample-weights) arrive as signed labels ``+-w``: the means over
B- and B+ are weighted, a pair weighs ``w_i w_j``; SOPA's threshold step counts the
negatives above ``s_i`` by weight and is not scaled by the positive's weight (the minimiser
over ``s_i`` of the positive's term does not depend on it).

Sparse rows: the momentum decays at every step on every coordinate; it is applied lazily.
Coordinate ``k`` holds ``w_k`` and ``m_k`` as of step ``last_k``; before a row's
coordinates are read they catch up the steps since then, in which their gradient was zero:
``w_k -= eta m_k (beta + ... + beta^D)``, ``m_k *= beta^D`` (D steps). A step therefore costs
O(B nnz) on CSR rows, never O(d); ``coef`` catches every coordinate up.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding, unit_power
from ._slots import class_slots, slot_axpy, slot_dot, with_sparse_twin
from ._state import ANY, F64, I64, D, Dim
from .pauc import NEG, POS, batch_length, store_row

__all__ = ["PaucDroState", "dro_epoch", "lazy_factor", "settled_weights"]

N = Dim("buffer_size")


class PaucDroState(NamedTuple):
    """The state: the lazily updated iterate and momentum, two buffers (negatives at index
    0), the logarithms of the moving averages ``u_i`` (per ring slot; SOPA: the thresholds
    ``s_i``) and ``v``."""

    w: F64[D]  # iterate, coordinate k as of step last[k]
    mom: F64[D]  # momentum, coordinate k as of step last[k]
    last: I64[D]
    steps: I64[1]  # steps taken (the clock of ``last``)
    lazy: F64[2]  # the (eta, beta) that the pending catch-up steps were taken with
    buf: F64[2, N, ANY]
    buf_idx: I64[2, N, ANY]
    buf_nnz: I64[2, N]
    buf_w: F64[2, N]
    size: I64[2]
    ring: I64[1]
    seen: I64[2]
    batches: I64[1]
    log_u: F64[N]  # log u_i (SOPA: s_i) of the positive in ring slot i (if u_visits[i] > 0)
    u_visits: I64[N]
    log_v: F64[1]  # two-way: log v (when v_visits[0] > 0)
    v_visits: I64[1]


@njit(cache=True, nogil=True)
def lazy_factor(beta, steps):
    """Return ``beta + beta^2 + ... + beta^steps`` (0 for no step)."""
    if steps <= 0 or beta == 0.0:
        return 0.0
    if steps == 1:  # the common case (rows read at every step): no power
        return beta
    return beta * (1.0 - beta**steps) / (1.0 - beta)


@njit(cache=True, nogil=True)
def settled_weights(w, mom, last, steps, eta, beta, out):
    """Write to ``out`` every coordinate of ``w`` caught up with the ``steps`` taken:
    ``w_k - eta m_k (beta + ... + beta^gap_k)``, ``gap_k = steps - last_k``, without writing
    the state (the weights a score or ``coef_`` reads). The powers take a real exponent
    (the C library's ``pow``, as Python's and numba's float power: the same bits with the
    JIT on and off, and those of the NumPy expression this replaced up to NumPy's vector
    ``power``); :func:`lazy_factor`, the kernels' catch-up, takes an integer one."""
    for k in range(w.shape[0]):
        gap = steps - last[k]
        pending = 0.0
        if beta != 0.0:
            if gap > 1:
                pending = beta * (1.0 - beta ** float(gap)) / (1.0 - beta)
            elif gap == 1:
                pending = beta
        out[k] = w[k] - eta * mom[k] * pending


def _sparse_slot_catch_up(w, mom, last, target, eta, beta, bval, bidx, bnnz, j):
    # the body of the dense twin over the row's indices: a call per coordinate would cost
    # more than its work
    for q in range(bnnz[j]):
        k = bidx[j, q]
        gap = target - last[k]
        if gap > 0:
            if mom[k] != 0.0:
                w[k] -= eta * mom[k] * lazy_factor(beta, gap)
                mom[k] *= beta if gap == 1 else beta**gap
            last[k] = target


@with_sparse_twin(_sparse_slot_catch_up)
def slot_catch_up(w, mom, last, target, eta, beta, bval, bidx, bnnz, j):
    """Bring the coordinates of stored row ``j`` (all of them, dense) to step ``target``:
    ``w_k -= eta m_k (beta + ... + beta^gap)``, ``m_k *= beta^gap``."""
    for k in range(w.shape[0]):
        gap = target - last[k]
        if gap > 0:
            if mom[k] != 0.0:
                w[k] -= eta * mom[k] * lazy_factor(beta, gap)
                mom[k] *= beta if gap == 1 else beta**gap
            last[k] = target


@njit(cache=True, nogil=True)
def _log_add(a, b):
    """Return ``log(exp(a) + exp(b))`` (either may be ``-inf``)."""
    hi, lo = (a, b) if a >= b else (b, a)
    if hi == -np.inf:
        return hi
    return hi + np.log1p(np.exp(lo - hi))


@njit(cache=True, nogil=True)
def _moving_log(log_old, visits, gamma, log_new):
    """Return ``log((1 - gamma) exp(log_old) + gamma exp(log_new))``; ``exp(log_old)`` is 0
    when ``visits`` is 0."""
    if visits == 0:
        return np.log(gamma) + log_new
    if gamma == 1.0:
        return log_new
    return _log_add(np.log1p(-gamma) + log_old, np.log(gamma) + log_new)


@njit(cache=True, nogil=True)
def _scores(st, cls, n, now, out):
    """Catch the stored rows ``cls[:n]`` up to step ``now`` and write their scores in
    ``out``; return False if one explodes."""
    val, idx, nnz = cls
    eta, beta = st.lazy[0], st.lazy[1]
    for j in range(n):
        slot_catch_up(st.w, st.mom, st.last, now, eta, beta, val, idx, nnz, j)
        out[j] = slot_dot(st.w, val, idx, nnz, j)
        if exploding(out[j]):
            return False
    return True


@njit(cache=True, nogil=True)
def _apply(st, cls, n, now, coefs):
    """Catch the rows ``cls[:n]`` up to step ``now + 1`` (the momentum's decay) and add the
    gradient ``sum_j coefs[j] x_j`` to the momentum and its step to the iterate."""
    val, idx, nnz = cls
    eta, beta = st.lazy[0], st.lazy[1]
    for j in range(n):
        slot_catch_up(st.w, st.mom, st.last, now + 1, eta, beta, val, idx, nnz, j)
    for j in range(n):
        if coefs[j] != 0.0:
            slot_axpy((1.0 - beta) * coefs[j], st.mom, val, idx, nnz, j)
            slot_axpy(-eta * (1.0 - beta) * coefs[j], st.w, val, idx, nnz, j)


@njit(cache=True, nogil=True)
def _update_u(st, sp, sn, n_pos, n_neg, lam, margin, gamma, total_n, scaled, top):
    """Move ``log u_i`` of the ring's positives towards the batch's log-mean of
    ``exp(L_ij / lambda)``; leave ``exp(L_ij / lambda - top_i)`` in ``scaled[i, j]`` and
    ``top_i = max_j L_ij / lambda`` in ``top[i]``."""
    wn = st.buf_w[NEG]
    for i in range(n_pos):
        top[i] = -np.inf
        for j in range(n_neg):
            h = max(0.0, margin - (sp[i] - sn[j]))
            scaled[i, j] = h * h / lam
            top[i] = max(top[i], scaled[i, j])
        acc = 0.0
        for j in range(n_neg):
            scaled[i, j] = np.exp(scaled[i, j] - top[i])
            acc += wn[j] * scaled[i, j]
        st.log_u[i] = _moving_log(st.log_u[i], st.u_visits[i], gamma,
                                  top[i] + np.log(acc / total_n))
        st.u_visits[i] += 1


@njit(cache=True, nogil=True)
def _update_v(st, n_pos, ratio, gamma_pos, total_p):
    """Two-way: move ``log v`` towards the batch's log-mean of ``u_i^ratio``."""
    wp = st.buf_w[POS]
    top = -np.inf
    for i in range(n_pos):
        top = max(top, ratio * st.log_u[i])
    acc = 0.0
    for i in range(n_pos):
        acc += wp[i] * np.exp(ratio * st.log_u[i] - top)
    st.log_v[0] = _moving_log(st.log_v[0], st.v_visits[0], gamma_pos,
                              top + np.log(acc / total_p))
    st.v_visits[0] += 1


@njit(cache=True, nogil=True)
def _kl_weights(st, sp, sn, n_pos, n_neg, dro, total_n, total_p, scaled, top):
    """SOPA-s / SOTA-s: update ``u_i`` (and ``v``); leave ``p_ij`` in
    ``scaled[i, j] * top[i]``."""
    lam, margin, gamma, ratio, gamma_pos = dro[0], dro[1], dro[2], dro[3], dro[4]
    _update_u(st, sp, sn, n_pos, n_neg, lam, margin, gamma, total_n, scaled, top)
    if ratio > 0.0:
        _update_v(st, n_pos, ratio, gamma_pos, total_p)
    for i in range(n_pos):
        # p_ij = exp(L_ij / lambda) / u_i (one-way) or u_i^(ratio - 1) exp(L_ij / lambda) / v
        shift = (ratio - 1.0) * st.log_u[i] - st.log_v[0] if ratio > 0.0 else -st.log_u[i]
        top[i] = np.exp(top[i] + shift)


@njit(cache=True, nogil=True)
def _cvar_weights(st, sp, sn, n_pos, n_neg, dro, total_n, scaled, top):
    """SOPA (Algorithm 1): ``p_ij = [L_ij > s_i]`` with the thresholds before the step, left
    in ``scaled[i, j] * top[i]`` (``top[i] = 1 / beta``); then
    ``s_i <- s_i - eta_s (1 - sum_j w_j p_ij / (beta sum_j w_j))``."""
    margin, max_fpr, eta_s = dro[1], dro[5], dro[6]
    wn = st.buf_w[NEG]
    for i in range(n_pos):
        s = st.log_u[i] if st.u_visits[i] > 0 else 0.0  # a new positive: s_i = 0
        above = 0.0
        for j in range(n_neg):
            h = max(0.0, margin - (sp[i] - sn[j]))
            scaled[i, j] = 1.0 if h * h > s else 0.0
            above += wn[j] * scaled[i, j]
        top[i] = 1.0 / max_fpr
        st.log_u[i] = s - eta_s * (1.0 - above / (max_fpr * total_n))
        st.u_visits[i] += 1


@njit(cache=True, nogil=True)
def _dro_step(st, slots, work, dro, t):
    """One SOPA, SOPA-s or SOTA-s step on the stored batch; return ``(t, status)``."""
    bval, bidx, bnnz = slots
    sp, sn, cp, cn, scaled, top = work
    margin = dro[1]
    n_neg, n_pos = st.size[NEG], st.size[POS]
    neg = class_slots(bval, bidx, bnnz, NEG)
    pos = class_slots(bval, bidx, bnnz, POS)
    now = st.steps[0]
    if not (_scores(st, neg, n_neg, now, sn) and _scores(st, pos, n_pos, now, sp)):
        return t, DIVERGED
    wn, wp = st.buf_w[NEG], st.buf_w[POS]
    total_n = 0.0
    for j in range(n_neg):
        total_n += wn[j]
        cn[j] = 0.0
    total_p = 0.0
    for i in range(n_pos):
        total_p += wp[i]
        cp[i] = 0.0
    if dro[5] > 0.0:
        _cvar_weights(st, sp, sn, n_pos, n_neg, dro, total_n, scaled, top)
    else:
        _kl_weights(st, sp, sn, n_pos, n_neg, dro, total_n, total_p, scaled, top)
    # the weighted pair mean with each class's weight sum brought into [1, 2) (the same bits;
    # beyond 1e154 the product of the sums overflowed, and no step was made)
    f_pos, f_neg = unit_power(total_p), unit_power(total_n)
    norm = 1.0 / ((total_p * f_pos) * (total_n * f_neg))
    for i in range(n_pos):
        factor = top[i] * (wp[i] * f_pos) * norm
        for j in range(n_neg):
            h = margin - (sp[i] - sn[j])
            if h > 0.0:  # grad L_ij = -2 h (x_i - x_j)
                g = -2.0 * h * scaled[i, j] * factor * (wn[j] * f_neg)
                cp[i] += g
                cn[j] -= g
    _apply(st, neg, n_neg, now, cn)
    _apply(st, pos, n_pos, now, cp)
    st.steps[0] = now + 1
    return t + 1, OK


@njit(cache=True, nogil=True)
def dro_epoch(st, slots, work, data, indices, indptr, y, order, dro, t):
    """Stream the rows ``order`` through the buffers, one step per full negative batch.

    Parameters
    ----------
    st : PaucDroState
        The state; updated. ``st.lazy`` holds the step and momentum of this call.
    slots : tuple
        ``(buf, buf_idx, buf_nnz)`` (sparse slots) or ``(buf, None, None)`` (dense).
    work : tuple
        Scratch ``(sp, sn, cp, cn, scaled, top)``: ``buffer_size`` entries each, ``scaled``
        of shape (buffer_size, buffer_size).
    data, indices, indptr, y, order
        Rows, signed weights and visiting order (:mod:`aucopt._kernels`).
    dro : tuple
        ``(lam, margin, gamma, ratio, gamma_pos, max_fpr, eta_s)``: lambda, m, gamma,
        ``lambda / lambda'``, ``gamma'``, beta and the threshold step
        (:mod:`aucopt.algorithms.pauc_dro`). ``max_fpr = 0``: the KL-DRO objectives
        (``ratio = 0`` the one-way one, ``lambda' = inf``); ``max_fpr`` in (0, 1]: the
        CVaR objective of SOPA (lambda, gamma, ratio and gamma' unused).
    t : int
        Steps done before this call.

    Returns
    -------
    t : int
        Steps done after this call.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    capacity = st.buf_w.shape[1]
    for r in range(order.shape[0]):
        label, slot = store_row(st, slots, data, indices, indptr, y, order[r])
        if label == POS:
            st.u_visits[slot] = 0  # a new positive: u_i = 0
        if st.size[NEG] == batch_length(st.batches[0], capacity):
            if st.size[POS] > 0:
                t, status = _dro_step(st, slots, work, dro, t)
                if status != OK:
                    return t, status
            st.size[NEG] = 0
            st.batches[0] += 1
    return t, OK
