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

Three bodies compute the same iterates:

* :func:`solam_epoch_dense`: dense rows, one sweep over ``w`` per step (averaging,
  shrinkage, gradient step, the norm for the projection and the score of the next
  row); the l2 projection is kept as a pending scale applied in the next sweep.
* :func:`solam_epoch_lazy`: CSR rows with the l2 ball (SOLAM, regSOLAM), O(nnz) per
  step: ``w = sigma v``, ``||v||^2`` and the weighted sum of the iterates maintained
  lazily (the technique of :func:`aucopt._kernels.spam.spam_epoch_lazy`).
* :func:`solam_epoch`: any rows, O(d) per step (CSR with the l1 ball, whose
  projection needs every coordinate).
"""

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._lanes import abs4, add4, lane, load4, mul4, prefetch, splat4, store4, sub4
from ._prox import clip, project_l2_ball
from ._prox_l1l2 import project_l1_ball_warm
from ._reduce import combine4
from ._rows import row_axpy, row_dot

__all__ = ["BALL_L2", "BALL_L1", "NEEDS_FOLD", "saddle_partials", "solam_epoch",
           "solam_epoch_dense", "solam_epoch_lazy", "solam_lazy_iterates"]

BALL_L2 = 0  # ||w||_2 <= R (SOLAM, regSOLAM)
BALL_L1 = 1  # ||w||_1 <= R (SOLAM-l1)


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


@njit(cache=True, nogil=True)
def _scalar_step(s, a, b, al, p, positive, t, hp):
    """Return ``g``, ``gamma_{t+1}`` and the projected ``(a, b, alpha)`` of one step (scalars)."""
    g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
    gamma = hp.eta0 / np.sqrt(t + 1)
    box_ab = hp.radius * hp.kappa
    box_alpha = 2.0 * box_ab
    a_new = clip(a - gamma * da, -box_ab, box_ab)
    b_new = clip(b - gamma * db, -box_ab, box_ab)
    al_new = clip(al + gamma * dal, -box_alpha, box_alpha)  # ascent (notes.md#solam-dual-sign)
    return g, gamma, a_new, b_new, al_new


@njit(cache=True, nogil=True)
def _l1_project(w, radius, theta):
    """Project ``w`` onto the l1 ball; return the threshold to start the next search from."""
    found = project_l1_ball_warm(w, radius, theta)
    return found if 0.0 < found < np.inf else theta


@njit(cache=True, nogil=True)
def _finite(w):
    for j in range(w.shape[0]):
        if not np.isfinite(w[j]):
            return False
    return True


@njit(cache=True, nogil=True)
def solam_epoch(w, ab, alpha, w_avg, ab_avg, alpha_avg, gamma_sum, seen, data, indices, indptr,
                y, order, hp, t, learn):
    """Run SOLAM over the rows in ``order``; update the state in place (O(d) per step).

    Parameters
    ----------
    w : ndarray of shape (d,)
        Primal iterate ``w_t``.
    ab : ndarray of shape (2,)
        ``(a_t, b_t)``.
    alpha : ndarray of shape (1,)
        Dual iterate ``alpha_t``.
    w_avg, ab_avg, alpha_avg : arrays of shapes (d,), (2,), (1,)
        ``gamma``-weighted averages of the iterates ``v_1 .. v_t``.
    gamma_sum : ndarray of shape (1,)
        Sum of the step sizes so far.
    seen : ndarray of shape (2,), int64
        Examples received per class (negatives first), for ``p_hat``.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    order : ndarray of shape (m,), int64
        Rows to visit, in this order.
    hp : SolamHyper
        Named tuple ``(radius, kappa, eta0, lam, ball)``; ``eta0`` is the scale
        ``zeta`` of ``gamma_t = zeta / sqrt(t)``.
    t : int
        Number of steps done before this call.
    learn : bool
        Unused: every received example is one step (kept for the common
        kernel signature).

    Returns
    -------
    t : int
        Number of steps done after this call.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    d = w.shape[0]
    theta = 0.0  # l1 threshold of the last projection (warm start of the next)
    for i in order:
        positive = y[i] > 0
        seen[1 if positive else 0] += 1
        p = seen[1] / (seen[0] + seen[1])  # p_hat_t includes the current example
        s = row_dot(w, data, indices, indptr, i)
        a, b, al = ab[0], ab[1], alpha[0]
        g, gamma, a_new, b_new, al_new = _scalar_step(s, a, b, al, p, positive, t, hp)
        if exploding(g):
            return t, DIVERGED
        ab[0], ab[1], alpha[0] = a_new, b_new, al_new
        t += 1
        gamma_sum[0] += gamma
        c = gamma / gamma_sum[0]  # weighted average of v_1 .. v_t: add v_t before its update
        shrink = 1.0 - gamma * hp.lam  # regSOLAM: dF_lam/dw = dF/dw + lam w
        for j in range(d):
            wj = w[j]
            w_avg[j] += c * (wj - w_avg[j])
            w[j] = shrink * wj
        ab_avg[0] += c * (a - ab_avg[0])
        ab_avg[1] += c * (b - ab_avg[1])
        alpha_avg[0] += c * (al - alpha_avg[0])
        row_axpy(-gamma * g, w, data, indices, indptr, i)
        if hp.ball == BALL_L1:
            theta = _l1_project(w, hp.radius, theta)
        else:
            project_l2_ball(w, hp.radius)
    return t, OK if _finite(w) else DIVERGED


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


@njit(cache=True, nogil=True)
def solam_epoch_dense(w, ab, alpha, w_avg, ab_avg, alpha_avg, gamma_sum, seen, X, y, order, hp,
                      t, learn):
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
    d = w.shape[0]
    m = order.shape[0]
    l2 = hp.ball != BALL_L1
    a, b, al = ab[0], ab[1], alpha[0]
    a_avg, b_avg, al_avg = ab_avg[0], ab_avg[1], alpha_avg[0]
    gsum = gamma_sum[0]
    n_neg, n_pos = seen[0], seen[1]
    scale = 1.0  # pending l2 projection: the iterate is scale * w
    theta = 0.0  # l1 threshold of the last projection (warm start of the next)
    s = row_dot(w, X, None, None, order[0]) if m > 0 else 0.0
    status = OK
    for idx in range(m):
        i = order[idx]
        nxt = order[idx + 1] if idx + 1 < m else i
        positive = y[i] > 0
        if positive:
            n_pos += 1
        else:
            n_neg += 1
        p = n_pos / (n_neg + n_pos)  # p_hat_t includes the current example
        g, gamma, a_new, b_new, al_new = _scalar_step(s, a, b, al, p, positive, t, hp)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        gsum += gamma
        c = gamma / gsum  # weighted average of v_1 .. v_t: add v_t before its update
        a_avg += c * (a - a_avg)
        b_avg += c * (b - b_avg)
        al_avg += c * (al - al_avg)
        a, b, al = a_new, b_new, al_new
        shrink = 1.0 - gamma * hp.lam  # regSOLAM: dF_lam/dw = dF/dw + lam w
        coef = -gamma * g
        ahead = order[min(idx + _AHEAD, m - 1)]
        norm, s_next = _dense_sweep(w, w_avg, scale, c, shrink, coef, X[i], X[nxt], X[ahead], l2)
        if l2:
            norm = np.sqrt(norm)
            scale = hp.radius / norm if norm > hp.radius else 1.0
            s = scale * s_next
        else:
            s = s_next
            if not norm <= hp.radius:  # the test of project_l1_ball_warm
                theta = _l1_project(w, hp.radius, theta)
                s = row_dot(w, X, None, None, nxt)
    if scale != 1.0:
        for j in range(d):
            w[j] *= scale
    ab[0], ab[1], alpha[0] = a, b, al
    ab_avg[0], ab_avg[1], alpha_avg[0] = a_avg, b_avg, al_avg
    gamma_sum[0] = gsum
    seen[0], seen[1] = n_neg, n_pos
    if status == OK and not _finite(w):
        status = DIVERGED
    return t, status


# The lazy sum acc + S v - b of the iterates loses about eps / sigma of relative accuracy (v
# grows like 1 / sigma): folding sigma into v when it leaves [1e-4, 1e4] keeps it near 1e-12.
FOLD_BELOW = 1e-4
NEEDS_FOLD = 2  # status of solam_epoch_lazy: stopped before an O(d) fold
SIGMA, S_SUM, VSQ = 0, 1, 2  # entries of the lazy scalars


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


@njit(cache=True, nogil=True)
def solam_epoch_lazy(vb, acc, lazy, ab, alpha, ab_avg, alpha_avg, gamma_sum, seen, data,
                     indices, indptr, y, order, start, hp, t, learn, may_fold):
    """SOLAM / regSOLAM (l2 ball) over CSR rows at O(nnz) per step, in a lazy form kept
    between calls.

    Exact lazy form of :func:`solam_epoch` with ``hp.ball == BALL_L2``: the
    iterate is kept as ``w = sigma v`` so that the shrinkage ``1 - gamma lam``
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
    vb : ndarray of shape (d, 2)
        ``v`` and ``b``; updated.
    acc : ndarray of shape (d,)
        Base of the weighted sum of the iterates; updated by folds only.
    lazy : ndarray of shape (3,)
        ``sigma``, ``S`` and ``||v||^2``; updated.
    ab, alpha, ab_avg, alpha_avg, gamma_sum, seen
        As in :func:`solam_epoch`; updated.
    data, indices, indptr, y, order, hp, t, learn
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
    sigma, s_sum, vsq = lazy[SIGMA], lazy[S_SUM], lazy[VSQ]
    gsum = gamma_sum[0]
    a, b, al = ab[0], ab[1], alpha[0]
    a_avg, b_avg, al_avg = ab_avg[0], ab_avg[1], alpha_avg[0]
    n_neg, n_pos = seen[0], seen[1]
    status = OK
    m = order.shape[0]
    idx = start
    while idx < m:
        pending = _out_of_range(sigma)
        if pending or _out_of_range(sigma * (1.0 - hp.eta0 / np.sqrt(t + 1) * hp.lam)):
            if not may_fold:
                status = NEEDS_FOLD
                break
            if pending:
                vsq = _fold(vb, acc, s_sum, sigma)
                s_sum, sigma = 0.0, 1.0
        i = order[idx]
        idx += 1
        positive = y[i] > 0
        if positive:
            n_pos += 1
        else:
            n_neg += 1
        p = n_pos / (n_neg + n_pos)
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += vb[indices[k], 0] * data[k]
        g, gamma, a_new, b_new, al_new = _scalar_step(sigma * s, a, b, al, p, positive, t, hp)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        gsum += gamma
        c = gamma / gsum
        a_avg += c * (a - a_avg)
        b_avg += c * (b - b_avg)
        al_avg += c * (al - al_avg)
        a, b, al = a_new, b_new, al_new
        s_sum += gamma * sigma  # add gamma_t w_t to the sum before the update
        sigma *= 1.0 - gamma * hp.lam
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
        if norm > hp.radius:
            sigma *= hp.radius / norm  # folded at the next row if it left the range
        if not (np.isfinite(vsq) and np.isfinite(s_sum)):
            status = DIVERGED
            break
    lazy[SIGMA], lazy[S_SUM], lazy[VSQ] = sigma, s_sum, vsq
    ab[0], ab[1], alpha[0] = a, b, al
    ab_avg[0], ab_avg[1], alpha_avg[0] = a_avg, b_avg, al_avg
    gamma_sum[0] = gsum
    seen[0], seen[1] = n_neg, n_pos
    return t, status, idx


@njit(cache=True, nogil=True)
def solam_lazy_iterates(vb, acc, lazy, gamma_sum, w, w_avg):
    """Write the iterate ``sigma v`` and the weighted average ``(acc + S v - b) / sum gamma``."""
    sigma, s_sum, gsum = lazy[SIGMA], lazy[S_SUM], gamma_sum[0]
    for j in range(w.shape[0]):
        w[j] = sigma * vb[j, 0]
        w_avg[j] = (acc[j] + s_sum * vb[j, 0] - vb[j, 1]) / gsum if gsum > 0.0 else acc[j]
