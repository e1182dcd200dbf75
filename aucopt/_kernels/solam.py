"""SOLAM kernel: stochastic online AUC maximisation (spec sections 0.5, 8, 9).

Ying, Wen, Lyu, "Stochastic online AUC maximization", NIPS 2016; M. Natole
Jr., PhD thesis (SUNY Albany 2020), Algorithm 10 (SOLAM) and Algorithm 18
(regSOLAM). One kernel serves SOLAM (l2 ball), SOLAM-l1 (l1 ball, [D1] section
5) and regSOLAM (l2 ball, ``+ lam w`` in the primal gradient), chosen by an
integer constraint code and the value of ``lam``.

Saddle problem: ``min_{(w,a,b) in Omega_1} max_{alpha in Omega_2} E F(w,a,b,alpha; z)``
with ``Omega_1 = {||w|| <= R, |a| <= R kappa, |b| <= R kappa}`` and
``Omega_2 = {|alpha| <= 2 R kappa}``.
"""

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._prox import clip, project_l1_ball, project_l2_ball
from ._rows import row_axpy, row_dot

__all__ = ["BALL_L2", "BALL_L1", "saddle_partials", "solam_epoch"]

BALL_L2 = 0  # ||w||_2 <= R (SOLAM, regSOLAM)
BALL_L1 = 1  # ||w||_1 <= R (SOLAM-l1)


@njit(cache=True, nogil=True)
def saddle_partials(s, a, b, alpha, p, positive):
    """Return the partial derivatives of ``F`` at one example (spec section 0.5).

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
def solam_epoch(w, ab, alpha, w_avg, ab_avg, alpha_avg, gamma_sum, seen, work,
                data, indices, indptr, y, order, hp, t, learn):
    """Run SOLAM over the rows in ``order``; update the state in place.

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
    work : ndarray of shape (d,)
        Scratch buffer of the l1 projection.
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
    box_ab = hp.radius * hp.kappa
    box_alpha = 2.0 * hp.radius * hp.kappa
    d = w.shape[0]
    for i in order:
        positive = y[i] > 0
        seen[1 if positive else 0] += 1
        p = seen[1] / (seen[0] + seen[1])  # p_hat_t includes the current example
        s = row_dot(w, data, indices, indptr, i)
        a, b, al = ab[0], ab[1], alpha[0]
        g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
        if exploding(g):
            return t, DIVERGED
        t += 1
        gamma = hp.eta0 / np.sqrt(t)
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
            project_l1_ball(w, hp.radius, work)
        else:
            project_l2_ball(w, hp.radius)
        ab[0] = clip(a - gamma * da, -box_ab, box_ab)
        ab[1] = clip(b - gamma * db, -box_ab, box_ab)
        alpha[0] = clip(al + gamma * dal, -box_alpha, box_alpha)  # ascent (spec A-10)
    for j in range(d):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK
