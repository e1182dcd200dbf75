"""FSAUC kernel: multi-stage primal-dual stochastic gradient (Liu et al. 2018, Algorithms 1-3).

M. Liu, X. Zhang, Z. Chen, X. Wang, T. Yang, "Fast stochastic AUC maximization
with O(1/n)-convergence rate", ICML 2018, Algorithms 1-3 and Lemma 1.

Stage ``k`` runs ``n0`` steps of PDSG from the centre ``(v_1, alpha_1)``:
``v <- Pi_{Omega_1 cap B(v_1, r)}(v - eta dF/dv)`` and
``alpha <- Pi_{Omega_2 cap B(alpha_1, D)}(alpha + eta dF/dalpha)``, with
``v = (w, a, b)`` in R^(d+2), ``Omega_1 = {||w||_1 <= R, |a|, |b| <= R kappa}``
and ``Omega_2 = {|alpha| <= 2 R kappa}``. At the end of a stage the centre
becomes the average of the stage iterates, ``alpha_hat = w_bar.(A-/T- - A+/T+)``,
``r`` halves and ``beta, D, eta`` follow Lemma 1 and the step recursion.

Most steps stay inside ``Omega_1 cap B(v_1, r)`` up to the box of ``a, b``; the
kernels recognise them from the l1 norm and the distance to the centre, which the
step's sweep accumulates, and skip the projection routine (whose answer would be the
same point, bit for bit). :func:`fsauc_epoch_dense` does a whole step in one sweep
over ``w`` (iterate sum, class sums, gradient step, l1 norm, distance, score of the
next row); :func:`fsauc_epoch` (any rows, used for CSR) needs two O(d) sweeps. Both
share the rest of a step (:func:`_partials`, :func:`_inside` and :func:`_project`,
:func:`_dual_and_count`).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import all_finite
from ._checks import DIVERGED, OK, exploding
from ._prox import clip
from ._prox_l1l2 import EXACT, project_l1l2
from ._rows import row_axpy, row_dot
from ._state import F64, I64, D, Dim
from ._stats import add_weighted_to_class_sums
from ._twins import specialises
from .solam import saddle_partials

__all__ = ["DECAY_PAPER", "DECAY_CAPPED", "DECAY_HALVE", "V", "FsaucState", "lemma1",
           "fsauc_epoch", "fsauc_epoch_dense"]

DECAY_PAPER = 0  # eta_{k+1} = eta_k sqrt(beta_k / beta_{k-1}) / 2 (Liu et al. 2018, Section 5)
DECAY_CAPPED = 1  # the same, capped at eta_k
DECAY_HALVE = 2  # eta_{k+1} = eta_k / 2

V = Dim("d+2")  # length of the primal variable v = (w, a, b)


class FsaucState(NamedTuple):
    """FSAUC's state: iterates, stage centre and output, statistics, stage constants."""

    v: F64[V]  # primal iterate (w, a, b)
    v1: F64[V]  # centre of the current stage
    v_sum: F64[V]  # sum of the iterates of the current stage
    v_hat: F64[V]  # output of the last completed stage (v_hat_0 = 0)
    alpha: F64[1]  # dual iterate
    alpha1: F64[1]  # dual centre of the current stage
    alpha_hat: F64[1]  # dual output of the last completed stage
    run_count: F64[2]  # T-, T+: weight of the received examples (all stages, or the current one)
    run_sum: F64[2, D]  # A-, A+: their weighted class sums
    run_sqmax: F64[1]  # their largest squared row norm (not used by the steps)
    radius: F64[1]  # primal radius r_k of the stage
    dual_radius: F64[1]  # dual radius D_k
    beta: F64[1]  # beta_{k-1} of Lemma 1
    eta: F64[1]  # step eta_k
    kappa: F64[1]  # kappa, fixed when the first stage starts
    n0: I64[1]  # stage length
    stage: I64[1]  # stage k, from 1 (0: not started)
    stage_steps: I64[1]  # steps done in the stage
    root_steps: I64[1]  # exact projections that needed the root search
    n_total: I64[1]  # examples n the stage schedule is planned for
    n_stages: I64[1]  # stages m of the schedule


@njit(cache=True, nogil=True)
def lemma1(r, n0, p_hat, kappa, radius, delta, beta_prev):
    """Return ``(beta, D)`` of Liu et al. 2018, Lemma 1 with the guards of notes.md#fsauc-unstated.

    Parameters
    ----------
    r : float
        The (already halved) primal radius.
    n0 : int
        Stage length ``T``.
    p_hat : float
        Estimated positive ratio.
    kappa, radius, delta : float
        ``kappa``, ``R`` and ``delta``.
    beta_prev : float
        ``beta`` of the previous stage, kept when its denominator is <= 0.

    Returns
    -------
    beta, D : float
    """
    q = min(p_hat, 1.0 - p_hat)
    log_term = np.log(12.0 / delta)
    c = 2.0 + np.sqrt(2.0 * log_term)
    den_d = q * n0 - np.sqrt(2.0 * n0 * log_term)
    if den_d > 0.0:
        dual = (2.0 * np.sqrt(2.0) * kappa * r
                + 4.0 * np.sqrt(2.0) * kappa * c * (1.0 + 2.0 * kappa) * radius / np.sqrt(den_d))
    else:
        dual = 4.0 * radius * kappa  # the diameter of Omega_2: no extra restriction
    den_b = q - np.sqrt(2.0 * log_term / n0)
    if den_b > 0.0:
        beta = (1.0 + 8.0 * kappa * kappa
                + 32.0 * kappa * kappa * (1.0 + 2.0 * kappa) ** 2 * c * c / den_b)
    else:
        beta = beta_prev
    return beta, dual


@njit(cache=True, nogil=True)
def _end_stage(st, hp):
    """Close a PDSG call: average, alpha_hat, new radii, step; start the next stage."""
    v, v_hat, v_sum, counts, sums = st.v, st.v_hat, st.v_sum, st.run_count, st.run_sum
    d = v.shape[0] - 2
    n0 = st.n0[0]
    inv = 1.0 / n0
    for j in range(v.shape[0]):
        v_hat[j] = v_sum[j] * inv
    ahat = 0.0  # w_bar . (A-/T- - A+/T+) (Liu et al. 2018, Alg. 2 line 8); a missing class gives 0
    if counts[0] > 0:
        ahat += row_dot(v_hat[:d], sums, None, None, 0) / counts[0]
    if counts[1] > 0:
        ahat -= row_dot(v_hat[:d], sums, None, None, 1) / counts[1]
    st.alpha_hat[0] = ahat
    seen = counts[0] + counts[1]
    p_hat = counts[1] / seen if seen > 0 else 0.0
    r = 0.5 * st.radius[0]
    beta_prev = st.beta[0]
    beta, dual = lemma1(r, n0, p_hat, st.kappa[0], hp.R, hp.delta, beta_prev)
    eta = st.eta[0]
    if hp.step_decay == DECAY_HALVE:
        eta_next = 0.5 * eta
    else:
        eta_next = 0.5 * eta * np.sqrt(beta / beta_prev)
        if hp.step_decay == DECAY_CAPPED:
            eta_next = min(eta_next, eta)
    st.radius[0] = r
    st.dual_radius[0] = dual
    st.beta[0] = beta
    st.eta[0] = eta_next
    st.stage[0] += 1
    st.stage_steps[0] = 0
    for j in range(v.shape[0]):
        v[j] = v_hat[j]
        st.v1[j] = v_hat[j]
        v_sum[j] = 0.0
    st.alpha[0] = ahat
    st.alpha1[0] = ahat
    if not hp.global_stats:
        counts[0] = 0.0
        counts[1] = 0.0
        for c in range(2):
            for j in range(d):
                sums[c, j] = 0.0


@njit(cache=True, nogil=True)
def _inside(l1, dist2, a_new, b_new, ca, cb, r, box, hp):
    """Whether a step's point needs no projection routine (scalars only).

    ``l1`` and ``dist2`` are ``||w||_1`` and ``||w - c_w||^2`` of the new ``w``,
    summed in coordinate order. If ``||w||_1 <= R`` and ``(w, clip(a), clip(b))``
    lies in ``B(c, r)`` (the same tests, on the same sums, as
    :func:`aucopt._kernels._prox_l1l2.project_l1l2_exact`), that point is the
    exact projection; for the iterative methods it is their answer only when no
    clipping was needed (then every method returns the point unchanged).

    Returns
    -------
    inside : bool
    a, b : float
        ``clip(a_new)`` and ``clip(b_new)``.
    """
    a_c = clip(a_new, -box, box)
    b_c = clip(b_new, -box, box)
    if not l1 <= hp.R:
        return False, a_c, b_c
    diff = a_c - ca
    dist2 += diff * diff
    diff = b_c - cb
    dist2 += diff * diff
    if not np.sqrt(dist2) <= r:
        return False, a_c, b_c
    return hp.projection == EXACT or (a_c == a_new and b_c == b_new), a_c, b_c


@njit(cache=True, nogil=True)
def _project(v, a_new, b_new, v1, r, box, root_steps, scratch, work, hp):
    """Project ``(w, a_new, b_new)`` into ``v`` by ``hp.projection`` (the rare path).

    Takes arrays rather than the state: passing the whole state to a function that is
    not inlined costs about a microsecond per call.
    """
    d = v.shape[0] - 2
    v[d] = a_new
    v[d + 1] = b_new
    mu = project_l1l2(hp.projection, v, v1, r, d, hp.R, box, hp.projection_rounds, scratch,
                      work)
    if hp.projection == EXACT and mu > 0.0:
        root_steps[0] += 1


@njit(cache=True, nogil=True)
def _dual_step(al, dal, eta, center, dual_radius, box_alpha):
    """Return the dual iterate after its ascent step, projected (scalars only)."""
    lo = max(-box_alpha, center - dual_radius)
    hi = min(box_alpha, center + dual_radius)
    if lo > hi:  # the centre left Omega_2 (kappa grew after the start): Omega_2 only
        lo, hi = -box_alpha, box_alpha
    return clip(al + eta * dal, lo, hi)  # ascent


@njit(inline="always")
def _partials(counts, v, alpha, s, positive, weight):
    """Return ``g, da, db, dalpha`` at the current iterate and ``(a, b, alpha)`` (both kernels).

    The class weights already include the example (``p_hat = T+ / (T+ + T-)``); the
    partials are scaled by its sample weight (notes.md#sample-weights).
    """
    d = v.shape[0] - 2
    p = counts[1] / (counts[0] + counts[1])
    a, b, al = v[d], v[d + 1], alpha[0]
    g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
    return weight * g, weight * da, weight * db, weight * dal, a, b, al


@njit(inline="always")
def _dual_and_count(alpha, alpha1, dual_radius, stage_steps, n0, al, dal, eta, box):
    """Take the projected dual step and count the step; return whether the stage is full."""
    alpha[0] = _dual_step(al, dal, eta, alpha1[0], dual_radius[0], 2.0 * box)
    stage_steps[0] += 1
    return stage_steps[0] >= n0[0]


# The kernels read the fields of the state once, before their loop (a field read in the loop
# made the dense kernel 2-4 times slower), and call _inside/_project themselves (inlined into
# a helper, the same lines cost the dense kernel a fifth more time per step at d = 100).


@njit(cache=True, nogil=True)
def fsauc_epoch(st, scratch, work, data, indices, indptr, y, order, hp, t, learn):
    """Run FSAUC over the rows in ``order``; update the state in place.

    Parameters
    ----------
    st : FsaucState
        The state; updated. ``run_count``, ``run_sum`` hold ``T-, T+`` and ``A-, A+``
        (weight and weighted sums) of the received examples (global or per stage).
    scratch : ndarray of shape (4, d + 2)
        Scratch rows of the projection.
    work : ndarray of shape (1,)
        Warm start of the l1 projection (see
        :func:`aucopt._kernels._prox_l1l2.project_omega1`); 0 at the start of a call.
    data, indices, indptr, y, order
        Rows, labels and visiting order: the common kernel arguments (:mod:`aucopt._kernels`).
    hp : FsaucHyper
        The kernel scalars of the hyperparameters (:mod:`aucopt.algorithms.fsauc`).
    t : int
        Number of steps done before this call.
    learn : bool
        Unused: every received example is one step of the stream.

    Returns
    -------
    t, status : int
        The number of steps done after this call, and ``OK`` or ``DIVERGED``.
    """
    v, v1, v_sum, alpha, alpha1 = st.v, st.v1, st.v_sum, st.alpha, st.alpha1
    counts, sums, sqmax = st.run_count, st.run_sum, st.run_sqmax
    radius, dual_radius, eta_k = st.radius, st.dual_radius, st.eta
    stage_steps, n0, root_steps = st.stage_steps, st.n0, st.root_steps
    d = v.shape[0] - 2
    box = hp.R * st.kappa[0]
    w = v[:d]
    for i in order:
        positive = y[i] > 0
        weight = abs(y[i])
        add_weighted_to_class_sums(counts, sums, sqmax, data, indices, indptr, i,
                                   1 if positive else 0, weight)
        s = row_dot(w, data, indices, indptr, i)
        g, da, db, dal, a, b, al = _partials(counts, v, alpha, s, positive, weight)
        if exploding(g):
            return t, DIVERGED
        eta = eta_k[0]
        for j in range(d + 2):
            v_sum[j] += v[j]
        row_axpy(-eta * g, w, data, indices, indptr, i)
        l1 = 0.0
        dist2 = 0.0
        for j in range(d):
            wj = w[j]
            l1 += abs(wj)
            diff = wj - v1[j]
            dist2 += diff * diff
        inside, v[d], v[d + 1] = _inside(l1, dist2, a - eta * da, b - eta * db, v1[d],
                                         v1[d + 1], radius[0], box, hp)
        if not inside:
            _project(v, a - eta * da, b - eta * db, v1, radius[0], box, root_steps, scratch,
                     work, hp)
        t += 1
        if _dual_and_count(alpha, alpha1, dual_radius, stage_steps, n0, al, dal, eta, box):
            _end_stage(st, hp)
    return t, OK if all_finite(v) else DIVERGED


@specialises(fsauc_epoch)
@njit(cache=True, nogil=True)
def fsauc_epoch_dense(st, scratch, work, X, y, order, hp, t, learn):
    """:func:`fsauc_epoch` for dense rows ``X`` (n, d), one sweep over ``w`` per step.

    The sweep adds ``w`` to the stage sum and ``x`` (weighted) to its class sum, takes the
    gradient step and accumulates ``||w||_1``, ``||w - c||^2``, ``||x||^2`` and
    the score of the next row, which is exact unless the step needed the
    projection routine or ended a stage (then it is recomputed). Parameters and
    returns as in :func:`fsauc_epoch`.
    """
    v, v1, v_sum, alpha, alpha1 = st.v, st.v1, st.v_sum, st.alpha, st.alpha1
    counts, sums, sqmax = st.run_count, st.run_sum, st.run_sqmax
    radius, dual_radius, eta_k = st.radius, st.dual_radius, st.eta
    stage_steps, n0, root_steps = st.stage_steps, st.n0, st.root_steps
    d = v.shape[0] - 2
    m = order.shape[0]
    box = hp.R * st.kappa[0]
    w = v[:d]
    s = row_dot(w, X, None, None, order[0]) if m > 0 else 0.0
    for idx in range(m):
        i = order[idx]
        nxt = order[idx + 1] if idx + 1 < m else i
        positive = y[i] > 0
        c = 1 if positive else 0
        weight = abs(y[i])
        counts[c] += weight
        g, da, db, dal, a, b, al = _partials(counts, v, alpha, s, positive, weight)
        if exploding(g):
            return t, DIVERGED
        eta = eta_k[0]
        coef = -eta * g
        v_sum[d] += a
        v_sum[d + 1] += b
        l1 = 0.0
        dist2 = 0.0
        sq = 0.0
        s = 0.0
        for j in range(d):
            xj = X[i, j]
            wj = w[j]
            v_sum[j] += wj
            sums[c, j] += weight * xj
            sq += xj * xj
            wj += coef * xj
            w[j] = wj
            l1 += abs(wj)
            diff = wj - v1[j]
            dist2 += diff * diff
            s += wj * X[nxt, j]
        if sq > sqmax[0]:
            sqmax[0] = sq
        inside, v[d], v[d + 1] = _inside(l1, dist2, a - eta * da, b - eta * db, v1[d],
                                         v1[d + 1], radius[0], box, hp)
        if not inside:
            _project(v, a - eta * da, b - eta * db, v1, radius[0], box, root_steps, scratch,
                     work, hp)
            s = row_dot(w, X, None, None, nxt)  # the score summed in the sweep is stale
        t += 1
        if _dual_and_count(alpha, alpha1, dual_radius, stage_steps, n0, al, dal, eta, box):
            _end_stage(st, hp)
            s = row_dot(w, X, None, None, nxt)
    return t, OK if all_finite(v) else DIVERGED
