"""SOLAM kernel: stochastic online AUC maximisation (notes.md#saddle-function; Natole 2020,
Algorithm 10; Natole 2020, Algorithm 18).

Ying, Wen, Lyu, "Stochastic online AUC maximization", NIPS 2016; M. Natole
Jr., PhD thesis (SUNY Albany 2020), Algorithm 10 (SOLAM) and Algorithm 18
(regSOLAM). One kernel serves SOLAM (l2 ball), SOLAM-l1 (l1 ball, Liu et al. 2018 section
5) and regSOLAM (l2 ball, ``+ lam w`` in the primal gradient), chosen by an
integer constraint code and the value of ``lam``.

Saddle problem: ``min_{(w,a,b) in Omega_1} max_{alpha in Omega_2} E F(w,a,b,alpha; z)``
with ``Omega_1 = {||w|| <= R, |a| <= R kappa, |b| <= R kappa}`` and
``Omega_2 = {|alpha| <= 2 R kappa}``.

Three bodies compute the same iterates; they share the scalar part of a step
(:func:`_advance`) and differ in the sweep over ``w``:

* :func:`solam_epoch`: any rows, O(d) per step (CSR with the l1 ball, whose
  projection needs every coordinate).
* :func:`solam_epoch_dense`: dense rows, one sweep over ``w`` per step (averaging,
  shrinkage, gradient step, the norm for the projection and the score of the next
  row); the l2 projection is kept as a pending scale applied in the next sweep.
* :func:`solam_epoch_lazy`: CSR rows with the l2 ball (SOLAM, regSOLAM), O(nnz) per
  step: ``w = sigma v``, ``||v||^2`` and the weighted sum of the iterates maintained
  lazily (the technique of :func:`aucopt._kernels.spam.spam_epoch_lazy`).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import all_finite
from ._checks import DIVERGED, OK, exploding
from ._lanes import abs4, add4, lane, load4, mul4, prefetch, splat4, store4, sub4
from ._prox import clip, project_l2_ball
from ._prox_l1l2 import project_l1_ball_warm
from ._reduce import combine4
from ._rows import row_axpy, row_dot
from ._state import F64, D
from ._twins import specialises

__all__ = ["BALL_L2", "BALL_L1", "NEEDS_FOLD", "SolamState", "SolamLazyState", "SolamScales",
           "saddle_partials", "solam_epoch", "solam_epoch_dense", "solam_epoch_lazy",
           "solam_lazy_iterates"]

BALL_L2 = 0  # ||w||_2 <= R (SOLAM, regSOLAM)
BALL_L1 = 1  # ||w||_1 <= R (SOLAM-l1)


class SolamState(NamedTuple):
    """SOLAM's state in its plain form (dense rows, or the l1 ball)."""

    w: F64[D]  # primal iterate w_t
    ab: F64[2]  # (a_t, b_t)
    alpha: F64[1]  # dual iterate alpha_t
    w_avg: F64[D]  # gamma-weighted average of the iterates w_1 .. w_t
    ab_avg: F64[2]  # gamma-weighted average of (a, b)
    alpha_avg: F64[1]  # gamma-weighted average of alpha
    gamma_sum: F64[1]  # sum of the step sizes so far
    seen: F64[2]  # sample weight received per class (negatives first), for p_hat


class SolamLazyState(NamedTuple):
    """The lazy form of the l2 ball on CSR rows, kept between calls (:func:`solam_epoch_lazy`)."""

    vb: F64[D, 2]  # v (w = sigma v) and b (the S dv of the touched coordinates), interleaved
    acc: F64[D]  # base of the weighted sum of the iterates acc + S v - b; changed by folds only
    sigma: F64[1]  # scale of the iterate, w = sigma v
    s_sum: F64[1]  # S, the sum of gamma sigma since the last fold
    vsq: F64[1]  # ||v||^2
    ab: F64[2]
    alpha: F64[1]
    ab_avg: F64[2]
    alpha_avg: F64[1]
    gamma_sum: F64[1]
    seen: F64[2]


class SolamScales(NamedTuple):
    """Values of one call derived from the hyperparameters and the data seen."""

    radius: float  # R of the ball (regSOLAM: sqrt(2 / lam))
    kappa: float  # bound of the row norms (the largest seen for kappa="auto")
    eta0: float  # zeta of gamma_t = zeta / sqrt(t) (for eta0="auto": the data's scale)
    ball: int  # BALL_L2 or BALL_L1


@njit(cache=True, nogil=True)
def saddle_partials(s, a, b, alpha, p, positive):
    """Return the partial derivatives of ``F`` at one example (notes.md#saddle-function).

    Parameters
    ----------
    s : float
        Score ``w.x``.
    a, b, alpha : float
        The auxiliary primal variables and the dual variable.
    p : float
        (Estimated) positive-class probability.
    positive : bool
        Whether ``y = +1``.

    Returns
    -------
    g : float
        ``dF/dw = g x``.
    da, db, dalpha : float
        ``dF/da``, ``dF/db`` and ``dF/dalpha``.
    """
    if positive:
        q = 1.0 - p
        g = 2.0 * q * (s - a) - 2.0 * (1.0 + alpha) * q
        return g, -2.0 * q * (s - a), 0.0, -2.0 * q * s - 2.0 * p * q * alpha
    g = 2.0 * p * (s - b) + 2.0 * (1.0 + alpha) * p
    return g, 0.0, -2.0 * p * (s - b), 2.0 * p * s - 2.0 * p * (1.0 - p) * alpha


@njit(inline="always")
def _load(st):
    """Return the scalars of a state (either form) as one tuple, as :func:`_advance` takes it."""
    return (st.ab[0], st.ab[1], st.alpha[0], st.ab_avg[0], st.ab_avg[1], st.alpha_avg[0],
            st.gamma_sum[0], st.seen[0], st.seen[1])


@njit(inline="always")
def _store(st, sc):
    """Write the scalars ``sc`` (as :func:`_load` returns them) back into the state."""
    st.ab[0], st.ab[1], st.alpha[0] = sc[0], sc[1], sc[2]
    st.ab_avg[0], st.ab_avg[1], st.alpha_avg[0] = sc[3], sc[4], sc[5]
    st.gamma_sum[0] = sc[6]
    st.seen[0], st.seen[1] = sc[7], sc[8]


@njit(inline="always")
def _advance(sc, s, label, t, sk):
    """Count the example and take the scalar part of step ``t + 1`` (all three kernels).

    A weighted example (notes.md#sample-weights) adds its weight to the class
    weight that gives ``p_hat``, and its partial derivatives are scaled by it.

    Parameters
    ----------
    sc : tuple
        ``(a, b, alpha, a_avg, b_avg, alpha_avg, sum gamma, W_neg, W_pos)``, ``W`` the
        weight received per class.
    s : float
        Score ``w_t . x``.
    label : float
        Signed weight ``y``: the sign is the class, the magnitude the sample weight.
    t : int
        Steps done before this one.
    sk : SolamScales

    Returns
    -------
    g : float
        ``dF/dw = g x``; if it explodes, only the class count of ``sc`` changed.
    gamma : float
        ``gamma_{t+1}``.
    c : float
        Weight of ``w_t`` in the running weighted average (``gamma / sum gamma``).
    sc : tuple
        The scalars after the step: projected ``(a, b, alpha)``, their averages with
        the iterate before the step added, ``sum gamma`` and the counts.
    """
    a, b, al, a_avg, b_avg, al_avg, gsum, n_neg, n_pos = sc
    positive = label > 0
    weight = abs(label)
    if positive:
        n_pos += weight
    else:
        n_neg += weight
    p = n_pos / (n_neg + n_pos)  # p_hat_t includes the current example
    g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
    g, da, db, dal = weight * g, weight * da, weight * db, weight * dal
    if exploding(g):
        return g, 0.0, 0.0, (a, b, al, a_avg, b_avg, al_avg, gsum, n_neg, n_pos)
    gamma = sk.eta0 / np.sqrt(t + 1)
    box_ab = sk.radius * sk.kappa
    box_alpha = 2.0 * box_ab
    a_new = clip(a - gamma * da, -box_ab, box_ab)
    b_new = clip(b - gamma * db, -box_ab, box_ab)
    al_new = clip(al + gamma * dal, -box_alpha, box_alpha)  # ascent (notes.md#solam-dual-sign)
    gsum += gamma
    c = gamma / gsum  # weighted average of v_1 .. v_t: add v_t before its update
    a_avg += c * (a - a_avg)
    b_avg += c * (b - b_avg)
    al_avg += c * (al - al_avg)
    return g, gamma, c, (a_new, b_new, al_new, a_avg, b_avg, al_avg, gsum, n_neg, n_pos)


@njit(inline="always")
def _shrinkage(gamma, label, lam):
    """Return regSOLAM's factor ``1 - gamma w_i lam`` of ``w`` (``dF_lam/dw = dF/dw + lam w``).

    The whole ``F_lam`` of a row, the thesis' ``lam/2 ||w||^2`` included, is scaled by its
    sample weight ``w_i = |label|`` (notes.md#sample-weights); 1 for SOLAM (``lam = 0``).
    """
    return 1.0 - gamma * (abs(label) * lam)


@njit(cache=True, nogil=True)
def _l1_project(w, radius, theta):
    """Project ``w`` onto the l1 ball; return the threshold to start the next search from."""
    found = project_l1_ball_warm(w, radius, theta)
    return found if 0.0 < found < np.inf else theta


@njit(cache=True, nogil=True)
def solam_epoch(st, data, indices, indptr, y, order, hp, sk, t, learn):
    """Run SOLAM over the rows in ``order``; update the state in place (O(d) per step).

    Parameters
    ----------
    st : SolamState
        The state; updated.
    data, indices, indptr, y, order
        Rows, labels and visiting order: the common kernel arguments (:mod:`aucopt._kernels`).
    hp : SolamHyper
        The kernel scalars of the hyperparameters (:mod:`aucopt.algorithms.solam`);
        ``lam`` is the l2 weight of regSOLAM (0 otherwise).
    sk : SolamScales
        Radius, ``kappa``, the scale ``zeta`` of ``gamma_t = zeta / sqrt(t)`` and the ball.
    t : int
        Number of steps done before this call.
    learn : bool
        Unused: every received example is one step (kept for the common
        kernel signature).

    Returns
    -------
    t, status : int
        The number of steps done after this call, and ``OK`` or ``DIVERGED``.
    """
    w, w_avg = st.w, st.w_avg
    d = w.shape[0]
    sc = _load(st)
    status = OK
    theta = 0.0  # l1 threshold of the last projection (warm start of the next)
    for i in order:
        s = row_dot(w, data, indices, indptr, i)
        g, gamma, c, sc = _advance(sc, s, y[i], t, sk)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        shrink = _shrinkage(gamma, y[i], hp.lam)
        for j in range(d):
            wj = w[j]
            w_avg[j] += c * (wj - w_avg[j])
            w[j] = shrink * wj
        row_axpy(-gamma * g, w, data, indices, indptr, i)
        if sk.ball == BALL_L1:
            theta = _l1_project(w, sk.radius, theta)
        else:
            project_l2_ball(w, sk.radius)
    _store(st, sc)
    if status == OK and not all_finite(w):
        status = DIVERGED
    return t, status


@njit(inline="always")
def _dense_sweep(w, w_avg, scale, c, shrink, coef, x, xn, ahead, l2):
    """One step of :func:`solam_epoch_dense` on ``w``; return ``(norm, w . xn)``.

    ``w <- shrink scale w + coef x`` after adding ``scale w`` to the weighted
    average (``w_avg += c (scale w - w_avg)``); the norm of the new ``w``
    (``||.||_2^2`` if ``l2``, else ``||.||_1``) and its dot product with the next
    row ``xn`` are summed in four partial sums each (vector lanes), and the
    cache lines of row ``ahead`` are prefetched on the way.
    """
    d = w.shape[0]
    end = d - d % 4
    scale4, c4, shrink4, coef4 = splat4(scale), splat4(c), splat4(shrink), splat4(coef)
    norm = dot = splat4(0.0)
    for j in range(0, end, 4):
        if j % 8 == 0:  # one 64-byte line per 8 doubles
            prefetch(ahead, j)
        wj = mul4(scale4, load4(w, j))
        avg = load4(w_avg, j)
        store4(w_avg, j, add4(avg, mul4(c4, sub4(wj, avg))))
        nw = add4(mul4(shrink4, wj), mul4(coef4, load4(x, j)))
        store4(w, j, nw)
        norm = add4(norm, mul4(nw, nw) if l2 else abs4(nw))
        dot = add4(dot, mul4(nw, load4(xn, j)))
    norm0, dot0 = lane(norm, 0), lane(dot, 0)
    for j in range(end, d):
        wj = scale * w[j]
        w_avg[j] += c * (wj - w_avg[j])
        nw = shrink * wj + coef * x[j]
        w[j] = nw
        norm0 += nw * nw if l2 else abs(nw)
        dot0 += nw * xn[j]
    return combine4(norm, norm0), combine4(dot, dot0)


_AHEAD = 3  # rows between the one swept and the one prefetched


@specialises(solam_epoch)
@njit(cache=True, nogil=True)
def solam_epoch_dense(st, X, y, order, hp, sk, t, learn):
    """:func:`solam_epoch` for dense rows ``X`` (n, d), fused into one sweep per step.

    The sweep of step ``t`` averages ``w_t``, applies the shrinkage and the
    gradient step, and accumulates the norm of the result (``||.||_2^2`` or
    ``||.||_1``) and its dot product with the next row, in vector lanes, while
    prefetching a row further on (:func:`_dense_sweep`). The l2 projection is a
    scaling: it is kept pending (``w = scale * stored``) and applied by the next
    sweep, so a step reads ``w`` once whether or not the ball is active. An
    active l1 ball costs the projection (a few sweeps, warm-started from the
    previous threshold) and one more dot product.
    Parameters and returns as in :func:`solam_epoch`.
    """
    w, w_avg = st.w, st.w_avg
    d = w.shape[0]
    m = order.shape[0]
    l2 = sk.ball != BALL_L1
    sc = _load(st)
    scale = 1.0  # pending l2 projection: the iterate is scale * w
    theta = 0.0  # l1 threshold of the last projection (warm start of the next)
    s = row_dot(w, X, None, None, order[0]) if m > 0 else 0.0
    status = OK
    for idx in range(m):
        i = order[idx]
        nxt = order[idx + 1] if idx + 1 < m else i
        g, gamma, c, sc = _advance(sc, s, y[i], t, sk)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        shrink = _shrinkage(gamma, y[i], hp.lam)
        ahead = order[min(idx + _AHEAD, m - 1)]
        norm, s_next = _dense_sweep(w, w_avg, scale, c, shrink, -gamma * g, X[i], X[nxt],
                                    X[ahead], l2)
        if l2:
            norm = np.sqrt(norm)
            scale = sk.radius / norm if norm > sk.radius else 1.0
            s = scale * s_next
        else:
            s = s_next
            if not norm <= sk.radius:  # the test of project_l1_ball_warm
                theta = _l1_project(w, sk.radius, theta)
                s = row_dot(w, X, None, None, nxt)
    if scale != 1.0:
        for j in range(d):
            w[j] *= scale
    _store(st, sc)
    if status == OK and not all_finite(w):
        status = DIVERGED
    return t, status


# The lazy sum acc + S v - b of the iterates loses about eps / sigma of relative accuracy (v
# grows like 1 / sigma): folding sigma into v when it leaves [1e-4, 1e4] keeps it near 1e-12.
FOLD_BELOW = 1e-4
NEEDS_FOLD = 2  # status of solam_epoch_lazy: stopped before an O(d) fold


@njit(cache=True, nogil=True)
def _fold(vb, acc, s_sum, sigma):
    """Fold ``s_sum v - b`` into ``acc``, reset ``b``, scale ``v`` by ``sigma``; return ``||v||^2``.

    ``vb`` holds ``v`` in column 0 and ``b`` in column 1.
    """
    sq = 0.0
    for j in range(vb.shape[0]):
        acc[j] += s_sum * vb[j, 0] - vb[j, 1]
        vb[j, 1] = 0.0
        vb[j, 0] *= sigma
        sq += vb[j, 0] * vb[j, 0]
    return sq


@njit(cache=True, nogil=True)
def _out_of_range(sigma):
    return not (FOLD_BELOW <= abs(sigma) <= 1.0 / FOLD_BELOW)  # also sigma = 0


@specialises(solam_epoch)
@njit(cache=True, nogil=True)
def solam_epoch_lazy(st, data, indices, indptr, y, order, start, hp, sk, t, learn, may_fold):
    """SOLAM / regSOLAM (l2 ball) over CSR rows at O(nnz) per step, in a lazy form kept
    between calls.

    Exact lazy form of :func:`solam_epoch` with ``sk.ball == BALL_L2``: the
    iterate is kept as ``w = sigma v`` so that the shrinkage (:func:`_shrinkage`)
    and the projection ``R / ||w||`` only change the scalar ``sigma``;
    ``||v||^2`` is updated on the touched coordinates; the ``gamma``-weighted
    sum of the iterates is kept as ``acc + S v - b`` (``S`` the sum of
    ``gamma sigma``, ``b`` collecting ``S dv`` on the touched coordinates), as in
    :func:`aucopt._kernels.spam.spam_epoch_lazy`. ``v`` and ``b`` are interleaved
    in one (d, 2) array, so a touched feature costs one cache line. When
    ``sigma`` leaves ``[1e-4, 1e4]`` it is folded into ``v`` (O(d)): after a
    projection, at the start of the next row; in the shrinkage, within the step.
    Without ``may_fold`` the kernel stops instead at the start of the row
    (``NEEDS_FOLD``): the caller prepares for an O(d) write and calls again with
    ``may_fold`` from the returned position, so a stream cut into calls runs
    the operations of one pass.

    Parameters
    ----------
    st : SolamLazyState
        The lazy form; updated.
    data, indices, indptr, y, order, hp, sk, t, learn
        As in :func:`solam_epoch`; ``indices`` must not be None.
    start : int
        Position in ``order`` to start at.
    may_fold : bool
        Whether O(d) folds may be done here.

    Returns
    -------
    t : int
        Number of steps done after this call.
    status : int
        ``OK``, ``DIVERGED`` or ``NEEDS_FOLD``.
    position : int
        Position in ``order`` after the last row handled.
    """
    vb, acc = st.vb, st.acc
    sigma, s_sum, vsq = st.sigma[0], st.s_sum[0], st.vsq[0]
    sc = _load(st)
    status = OK
    m = order.shape[0]
    idx = start
    while idx < m:
        pending = _out_of_range(sigma)
        shrink = _shrinkage(sk.eta0 / np.sqrt(t + 1), y[order[idx]], hp.lam)
        if pending or _out_of_range(sigma * shrink):
            if not may_fold:
                status = NEEDS_FOLD
                break
            if pending:
                vsq = _fold(vb, acc, s_sum, sigma)
                s_sum, sigma = 0.0, 1.0
        i = order[idx]
        idx += 1
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += vb[indices[k], 0] * data[k]
        g, gamma, c, sc = _advance(sc, sigma * s, y[i], t, sk)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        s_sum += gamma * sigma  # add gamma_t w_t to the sum before the update
        sigma *= shrink
        if _out_of_range(sigma):
            vsq = _fold(vb, acc, s_sum, sigma)
            s_sum, sigma = 0.0, 1.0
        coef = -gamma * g / sigma  # v moves by coef * x
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            dv = coef * data[k]
            vj = vb[j, 0]
            vb[j, 0] = vj + dv
            vb[j, 1] += s_sum * dv
            vsq += dv * (vj + vj + dv)
        vsq = max(vsq, 0.0)
        norm = abs(sigma) * np.sqrt(vsq)
        if norm > sk.radius:
            sigma *= sk.radius / norm  # folded at the next row if it left the range
        if not (np.isfinite(vsq) and np.isfinite(s_sum)):
            status = DIVERGED
            break
    st.sigma[0], st.s_sum[0], st.vsq[0] = sigma, s_sum, vsq
    _store(st, sc)
    return t, status, idx


@njit(cache=True, nogil=True)
def solam_lazy_iterates(st, w, w_avg):
    """Write the iterate ``sigma v`` and the weighted average ``(acc + S v - b) / sum gamma``.

    ``st`` is a :class:`SolamLazyState`.
    """
    vb, acc = st.vb, st.acc
    sigma, s_sum, gsum = st.sigma[0], st.s_sum[0], st.gamma_sum[0]
    for j in range(w.shape[0]):
        w[j] = sigma * vb[j, 0]
        w_avg[j] = (acc[j] + s_sum * vb[j, 0] - vb[j, 1]) / gsum if gsum > 0.0 else acc[j]
