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
next row); :func:`fsauc_epoch` (any rows, used for CSR) needs two O(d) sweeps.
"""

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._prox import clip
from ._prox_l1l2 import EXACT, project_l1l2
from ._rows import row_axpy, row_dot
from ._stats import add_to_class_sums
from .solam import saddle_partials

__all__ = [
    "DECAY_PAPER",
    "DECAY_CAPPED",
    "DECAY_HALVE",
    "F_RADIUS",
    "F_DUAL_RADIUS",
    "F_BETA",
    "F_ETA",
    "F_KAPPA",
    "I_N0",
    "I_STAGE",
    "I_T_STAGE",
    "I_ROOT_STEPS",
    "lemma1",
    "fsauc_epoch",
    "fsauc_epoch_dense",
]

DECAY_PAPER = 0  # eta_{k+1} = eta_k sqrt(beta_k / beta_{k-1}) / 2 (Liu et al. 2018, Section 5)
DECAY_CAPPED = 1  # the same, capped at eta_k
DECAY_HALVE = 2  # eta_{k+1} = eta_k / 2

# layout of the float stage vector ``sched``
F_RADIUS, F_DUAL_RADIUS, F_BETA, F_ETA, F_KAPPA = 0, 1, 2, 3, 4
# layout of the integer counter vector ``counters``
I_N0, I_STAGE, I_T_STAGE, I_ROOT_STEPS = 0, 1, 2, 3


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
def _end_stage(v, alpha, v1, alpha1, v_sum, v_hat, alpha_hat, counts, sums, sched, counters,
               hp):
    """Close a PDSG call: average, alpha_hat, new radii, step; start the next stage."""
    d = v.shape[0] - 2
    n0 = counters[I_N0]
    inv = 1.0 / n0
    for j in range(v.shape[0]):
        v_hat[j] = v_sum[j] * inv
    ahat = 0.0  # w_bar . (A-/T- - A+/T+) (Liu et al. 2018, Alg. 2 line 8); a missing class gives 0
    if counts[0] > 0:
        ahat += row_dot(v_hat[:d], sums, None, None, 0) / counts[0]
    if counts[1] > 0:
        ahat -= row_dot(v_hat[:d], sums, None, None, 1) / counts[1]
    alpha_hat[0] = ahat
    seen = counts[0] + counts[1]
    p_hat = counts[1] / seen if seen > 0 else 0.0
    r = 0.5 * sched[F_RADIUS]
    beta, dual = lemma1(r, n0, p_hat, sched[F_KAPPA], hp.radius, hp.delta, sched[F_BETA])
    eta = sched[F_ETA]
    if hp.step_decay == DECAY_HALVE:
        eta_next = 0.5 * eta
    else:
        eta_next = 0.5 * eta * np.sqrt(beta / sched[F_BETA])
        if hp.step_decay == DECAY_CAPPED:
            eta_next = min(eta_next, eta)
    sched[F_RADIUS] = r
    sched[F_DUAL_RADIUS] = dual
    sched[F_BETA] = beta
    sched[F_ETA] = eta_next
    counters[I_STAGE] += 1
    counters[I_T_STAGE] = 0
    for j in range(v.shape[0]):
        v[j] = v_hat[j]
        v1[j] = v_hat[j]
        v_sum[j] = 0.0
    alpha[0] = ahat
    alpha1[0] = ahat
    if not hp.global_stats:
        counts[0] = 0
        counts[1] = 0
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
    if not l1 <= hp.radius:
        return False, a_c, b_c
    diff = a_c - ca
    dist2 += diff * diff
    diff = b_c - cb
    dist2 += diff * diff
    if not np.sqrt(dist2) <= r:
        return False, a_c, b_c
    return hp.projection == EXACT or (a_c == a_new and b_c == b_new), a_c, b_c


@njit(cache=True, nogil=True)
def _project(v, a_new, b_new, v1, sched, counters, scratch, work, hp):
    """Project ``(w, a_new, b_new)`` into ``v`` by ``hp.projection`` (the rare path)."""
    d = v.shape[0] - 2
    v[d] = a_new
    v[d + 1] = b_new
    box = hp.radius * sched[F_KAPPA]
    mu = project_l1l2(hp.projection, v, v1, sched[F_RADIUS], d, hp.radius, box, hp.rounds,
                      scratch, work)
    if hp.projection == EXACT and mu > 0.0:
        counters[I_ROOT_STEPS] += 1


@njit(cache=True, nogil=True)
def _dual_step(al, dal, eta, center, dual_radius, box_alpha):
    """Return the dual iterate after its ascent step, projected (scalars only)."""
    lo = max(-box_alpha, center - dual_radius)
    hi = min(box_alpha, center + dual_radius)
    if lo > hi:  # the centre left Omega_2 (kappa grew after the start): Omega_2 only
        lo, hi = -box_alpha, box_alpha
    return clip(al + eta * dal, lo, hi)  # ascent


@njit(cache=True, nogil=True)
def fsauc_epoch(v, alpha, v1, alpha1, v_sum, v_hat, alpha_hat, counts, sums, sqmax, sched,
                counters, scratch, work, data, indices, indptr, y, order, hp, t, learn):
    """Run FSAUC over the rows in ``order``; update the state in place.

    Parameters
    ----------
    v : ndarray of shape (d + 2,)
        Primal iterate ``(w, a, b)``.
    alpha : ndarray of shape (1,)
        Dual iterate.
    v1, alpha1 : arrays of shapes (d + 2,), (1,)
        Centre of the current stage.
    v_sum : ndarray of shape (d + 2,)
        Sum of the iterates ``v_1 .. v_t`` of the current stage.
    v_hat, alpha_hat : arrays of shapes (d + 2,), (1,)
        Output of the last completed stage (``v_hat_0 = 0``).
    counts, sums, sqmax : arrays of shapes (2,), (2, d), (1,)
        ``T-, T+``, ``A-, A+`` of the received examples (global or per stage)
        and their largest squared norm (unused).
    sched : ndarray of shape (5,)
        ``r, D, beta_{k-1}, eta_k, kappa`` (indices ``F_*``).
    counters : ndarray of shape (4,), int64
        ``n0``, stage ``k`` (from 1), steps done in the stage, and the number
        of exact projections that needed the root search (indices ``I_*``).
    scratch : ndarray of shape (4, d + 2)
        Scratch rows of the projection.
    work : ndarray of shape (1,)
        Warm start of the l1 projection (see
        :func:`aucopt._kernels._prox_l1l2.project_omega1`); 0 at the start of a call.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    order : ndarray of shape (m,), int64
        Rows to visit, in this order.
    hp : FsaucHyper
        Named tuple ``(radius, delta, projection, rounds, step_decay, global_stats)``.
    t : int
        Number of steps done before this call.
    learn : bool
        Unused: every received example is one step of the stream.

    Returns
    -------
    t : int
        Number of steps done after this call.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    d = v.shape[0] - 2
    box = hp.radius * sched[F_KAPPA]
    w = v[:d]
    for i in order:
        positive = y[i] > 0
        add_to_class_sums(counts, sums, sqmax, data, indices, indptr, i, 1 if positive else 0)
        p = counts[1] / (counts[0] + counts[1])
        s = row_dot(w, data, indices, indptr, i)
        a, b, al = v[d], v[d + 1], alpha[0]
        g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
        if exploding(g):
            return t, DIVERGED
        eta = sched[F_ETA]
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
                                         v1[d + 1], sched[F_RADIUS], box, hp)
        if not inside:
            _project(v, a - eta * da, b - eta * db, v1, sched, counters, scratch, work, hp)
        alpha[0] = _dual_step(al, dal, eta, alpha1[0], sched[F_DUAL_RADIUS], 2.0 * box)
        t += 1
        counters[I_T_STAGE] += 1
        if counters[I_T_STAGE] >= counters[I_N0]:
            _end_stage(v, alpha, v1, alpha1, v_sum, v_hat, alpha_hat, counts, sums, sched,
                       counters, hp)
    for j in range(d + 2):
        if not np.isfinite(v[j]):
            return t, DIVERGED
    return t, OK


@njit(cache=True, nogil=True)
def fsauc_epoch_dense(v, alpha, v1, alpha1, v_sum, v_hat, alpha_hat, counts, sums, sqmax,
                      sched, counters, scratch, work, X, y, order, hp, t, learn):
    """:func:`fsauc_epoch` for dense rows ``X`` (n, d), one sweep over ``w`` per step.

    The sweep adds ``w`` to the stage sum and ``x`` to its class sum, takes the
    gradient step and accumulates ``||w||_1``, ``||w - c||^2``, ``||x||^2`` and
    the score of the next row, which is exact unless the step needed the
    projection routine or ended a stage (then it is recomputed). Parameters and
    returns as in :func:`fsauc_epoch`.
    """
    d = v.shape[0] - 2
    m = order.shape[0]
    box = hp.radius * sched[F_KAPPA]
    w = v[:d]
    s = row_dot(w, X, None, None, order[0]) if m > 0 else 0.0
    for idx in range(m):
        i = order[idx]
        nxt = order[idx + 1] if idx + 1 < m else i
        positive = y[i] > 0
        c = 1 if positive else 0
        counts[c] += 1
        p = counts[1] / (counts[0] + counts[1])
        a, b, al = v[d], v[d + 1], alpha[0]
        g, da, db, dal = saddle_partials(s, a, b, al, p, positive)
        if exploding(g):
            return t, DIVERGED
        eta = sched[F_ETA]
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
            sums[c, j] += xj
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
                                         v1[d + 1], sched[F_RADIUS], box, hp)
        if not inside:
            _project(v, a - eta * da, b - eta * db, v1, sched, counters, scratch, work, hp)
            s = row_dot(w, X, None, None, nxt)
        alpha[0] = _dual_step(al, dal, eta, alpha1[0], sched[F_DUAL_RADIUS], 2.0 * box)
        t += 1
        counters[I_T_STAGE] += 1
        if counters[I_T_STAGE] >= counters[I_N0]:
            _end_stage(v, alpha, v1, alpha1, v_sum, v_hat, alpha_hat, counts, sums, sched,
                       counters, hp)
            s = row_dot(w, X, None, None, nxt)
    for j in range(d + 2):
        if not np.isfinite(v[j]):
            return t, DIVERGED
    return t, OK
