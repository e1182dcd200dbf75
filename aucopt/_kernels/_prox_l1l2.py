"""Projection onto an l1 ball (with a box) intersected with a Euclidean ball
(notes.md#exact-projection).

FSAUC (Liu et al. 2018, Algorithm 2) projects ``v = (w, a, b)`` onto
``Omega_1 cap B(c, r)`` with ``Omega_1 = {||w||_1 <= R, |a| <= B, |b| <= B}``
(``B = R kappa``) and a centre ``c`` in ``Omega_1``. Three methods, chosen by
an integer code:

* ``EXACT`` (default, notes.md#exact-projection): ``x(mu) = Pi_C((v + mu c)/(1 + mu))``; if
  ``||Pi_C(v) - c|| <= r`` the answer is ``Pi_C(v)``, otherwise the unique
  ``mu > 0`` with ``||x(mu) - c|| = r`` is bracketed by doubling and found by
  the Illinois variant of regula falsi to full precision (the bracket end on the
  feasible side is returned).
* ``DYKSTRA``: Dykstra's alternating projections with correction terms, which
  converge to the projection; ``rounds`` iterations at most.
* ``ALTERNATING``: plain alternating projections ``x <- Pi_B(Pi_C(x))`` as
  suggested in Liu et al. 2018, Section 3.2. Because ``c`` is in ``C``, ``Pi_B`` of a point
  of ``C`` stays in ``C`` (it lies on the segment to ``c``), so the first round
  already gives a feasible point and later rounds leave it unchanged: a
  feasible point that is in general *not* the projection (notes.md#exact-projection).

Everything works in place on 1-D float64 arrays and allocates nothing; scratch
rows come from the caller. The l1-ball projection inside ``Pi_C`` is
:func:`project_l1_ball_warm` (Newton's method on the threshold, warm-started from
the previous call's threshold kept in ``work[0]``), which gives the same point as the
sort-based :func:`aucopt._kernels._prox.project_l1_ball` without its O(d log d) sort.
"""

import numpy as np
from numba import njit

from ._prox import clip, project_l2_ball_centered, prox_elastic_net

__all__ = [
    "EXACT",
    "DYKSTRA",
    "ALTERNATING",
    "PROJECTION_CODES",
    "project_l1_ball_warm",
    "project_omega1",
    "project_l1l2_exact",
    "project_l1l2_dykstra",
    "project_l1l2_alternating",
    "project_l1l2",
]

EXACT = 0
DYKSTRA = 1
ALTERNATING = 2
PROJECTION_CODES = {"exact": EXACT, "dykstra": DYKSTRA, "alternating": ALTERNATING}

_MAX_DOUBLINGS = 1100  # 2**1100 overflows: the bracket search always ends
_MAX_ROOT_STEPS = 200
_MAX_NEWTON_STEPS = 100  # the l1 threshold search ends after at most d steps; rounding guard


@njit(cache=True, nogil=True)
def project_l1_ball_warm(w, radius, theta0):
    """Project ``w`` onto ``{||w||_1 <= radius}`` in place (notes.md#projections), from a guessed
    threshold.

    The threshold ``theta`` solves ``h(theta) = sum_j max(|w_j| - theta, 0) = radius``;
    ``h`` is convex, decreasing and piecewise linear, so Newton's step
    ``theta <- (sum_{|w_j| > theta} |w_j| - radius) / #{|w_j| > theta}`` (Michelot's
    iteration) started left of the root increases to it and stops at the exact active
    set after finitely many steps, and one step from the right lands left of the root.
    Any start is valid; consecutive projections of an online method change ``w``
    little, so the previous threshold usually ends the search in two or three
    branch-free sweeps (the sort-based :func:`aucopt._kernels._prox.project_l1_ball`
    costs O(d log d) with a mispredicted branch per comparison). The threshold of the
    final set is ``(sum - radius) / size``, the sort-based formula, so both give the
    same point up to rounding. No scratch memory.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point to project, overwritten.
    radius : float
        Ball radius (>= 0); ``radius == 0`` gives the zero vector.
    theta0 : float
        Guess of the threshold (e.g. the previous one); non-positive or NaN: 0.

    Returns
    -------
    theta : float
        The soft threshold that was applied (0 when ``w`` was inside the ball).
    """
    d = w.shape[0]
    l1 = 0.0
    for j in range(d):
        l1 += abs(w[j])
    if l1 <= radius:
        return 0.0
    if radius <= 0.0:
        for j in range(d):
            w[j] = 0.0
        return np.inf
    theta = theta0 if theta0 > 0.0 else 0.0
    size_prev = -1
    for _ in range(_MAX_NEWTON_STEPS):
        total = 0.0
        size = 0
        for j in range(d):
            u = abs(w[j])
            above = u > theta
            total += u if above else 0.0
            size += above
        if size == 0:  # the guess is above every |w_j|: start from the left
            theta = 0.0
            continue
        new = (total - radius) / size
        if size == size_prev or new == theta:  # the active set is stable: new == theta
            theta = new
            break
        theta = new
        size_prev = size
    prox_elastic_net(w, 1.0, 0.0, theta)  # soft thresholding at theta (scale 1: exact)
    return theta


@njit(cache=True, nogil=True)
def project_omega1(v, n_l1, radius, box, work):
    """Project ``v`` onto ``{||v[:n_l1]||_1 <= radius, |v[j]| <= box for j >= n_l1}`` in place.

    Parameters
    ----------
    v : ndarray of shape (k,)
        Point, overwritten (l1 ball on the first ``n_l1`` entries, P2; the
        interval ``[-box, box]`` on the others, P3/P4).
    n_l1 : int
        Number of leading entries constrained by the l1 ball.
    radius : float
        l1 radius ``R``.
    box : float
        Half-width of the interval of the trailing entries.
    work : ndarray of shape (>= 1,)
        ``work[0]``: a guess of the l1 threshold, replaced by the threshold found
        (a warm start for the next call; any value is valid, see
        :func:`project_l1_ball_warm`).
    """
    theta = project_l1_ball_warm(v[:n_l1], radius, work[0])
    if theta > 0.0 and np.isfinite(theta):
        work[0] = theta
    for j in range(n_l1, v.shape[0]):
        v[j] = clip(v[j], -box, box)


@njit(cache=True, nogil=True)
def _distance(u, center):
    sq = 0.0
    for j in range(u.shape[0]):
        diff = u[j] - center[j]
        sq += diff * diff
    return np.sqrt(sq)


@njit(cache=True, nogil=True)
def _x_of_mu(mu, v, center, u, n_l1, radius, box, work):
    """Write ``x(mu) = Pi_C((v + mu c)/(1 + mu))`` into ``u``; return ``||x(mu) - c||``."""
    inv = 1.0 / (1.0 + mu)
    for j in range(v.shape[0]):
        u[j] = (v[j] + mu * center[j]) * inv
    project_omega1(u, n_l1, radius, box, work)
    return _distance(u, center)


@njit(cache=True, nogil=True)
def project_l1l2_exact(v, center, r, n_l1, radius, box, u, work):
    """Exact projection of ``v`` onto ``C cap B(center, r)`` in place (notes.md#exact-projection).

    Parameters
    ----------
    v : ndarray of shape (k,)
        Point, overwritten by its projection.
    center : ndarray of shape (k,)
        Ball centre, a point of ``C``.
    r : float
        Ball radius (>= 0).
    n_l1, radius, box : int, float, float
        The set ``C`` (see :func:`project_omega1`).
    u : ndarray of shape (k,)
        Scratch buffer.
    work : ndarray of shape (>= 1,)
        Warm start of the l1 threshold (see :func:`project_omega1`).

    Returns
    -------
    mu : float
        The multiplier of the ball constraint (0 when ``Pi_C(v)`` is already
        in the ball, i.e. no root search was needed).
    """
    k = v.shape[0]
    dist = _x_of_mu(0.0, v, center, u, n_l1, radius, box, work)
    if dist <= r:
        for j in range(k):
            v[j] = u[j]
        return 0.0
    lo, f_lo = 0.0, dist - r  # f(mu) = ||x(mu) - c|| - r is non-increasing in mu
    hi = 1.0
    f_hi = _x_of_mu(hi, v, center, u, n_l1, radius, box, work) - r
    for _ in range(_MAX_DOUBLINGS):
        if f_hi <= 0.0:
            break
        lo, f_lo = hi, f_hi
        hi *= 2.0
        f_hi = _x_of_mu(hi, v, center, u, n_l1, radius, box, work) - r
    if f_hi < 0.0:
        # Illinois regula falsi on [lo, hi]: f(lo) > 0 > f(hi)
        g_lo, g_hi = f_lo, f_hi
        side = 0
        for _ in range(_MAX_ROOT_STEPS):
            mu = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)
            if not (lo < mu < hi):
                mu = 0.5 * (lo + hi)
            if not (lo < mu < hi):
                break  # the bracket holds two neighbouring floats
            f = _x_of_mu(mu, v, center, u, n_l1, radius, box, work) - r
            if f > 0.0:
                lo, g_lo = mu, f
                if side == 1:
                    g_hi *= 0.5
                side = 1
            elif f < 0.0:
                hi, g_hi = mu, f
                if side == -1:
                    g_lo *= 0.5
                side = -1
            else:
                hi = mu
                break
    _x_of_mu(hi, v, center, u, n_l1, radius, box, work)
    for j in range(k):
        v[j] = u[j]
    return hi


@njit(cache=True, nogil=True)
def project_l1l2_dykstra(v, center, r, n_l1, radius, box, rounds, tol, scratch, work):
    """Dykstra's projection of ``v`` onto ``C cap B(center, r)`` in place.

    Parameters
    ----------
    v : ndarray of shape (k,)
        Point, overwritten by the last ball iterate.
    center, r, n_l1, radius, box
        As in :func:`project_l1l2_exact`.
    rounds : int
        Maximal number of rounds (one projection onto each set per round).
    tol : float
        Stop when a round moves the iterate and both correction terms by at
        most ``tol * (1 + ||v||)`` together.
    scratch : ndarray of shape (4, k)
        Scratch rows: the iterate on ``C``, the two correction terms and the
        previous ball iterate.
    work : ndarray of shape (>= 1,)
        Warm start of the l1 threshold (see :func:`project_omega1`).

    Returns
    -------
    int
        Rounds done.
    """
    k = v.shape[0]
    x, p, q, old = scratch[0], scratch[1], scratch[2], scratch[3]
    for j in range(k):
        p[j] = 0.0
        q[j] = 0.0
    done = 0
    for _ in range(rounds):
        done += 1
        for j in range(k):
            x[j] = v[j] + p[j]
        project_omega1(x, n_l1, radius, box, work)
        for j in range(k):
            p[j] = v[j] + p[j] - x[j]
            old[j] = v[j]
            v[j] = x[j] + q[j]
            q[j] = v[j]
        project_l2_ball_centered(v, center, r)
        change = 0.0
        size = 0.0
        for j in range(k):
            q[j] -= v[j]
            # the round moved y by v - old, p by old - x and q by x - v: stop when all
            # three are tiny (y alone can stall for a round while p, q still move)
            d_y = v[j] - old[j]
            d_p = old[j] - x[j]
            d_q = x[j] - v[j]
            change += d_y * d_y + d_p * d_p + d_q * d_q
            size += v[j] * v[j]
        if np.sqrt(change) <= tol * (1.0 + np.sqrt(size)):
            break
    return done


@njit(cache=True, nogil=True)
def project_l1l2_alternating(v, center, r, n_l1, radius, box, rounds, work):
    """Alternating projections ``v <- Pi_B(Pi_C(v))`` in place (Liu et al. 2018, Section 3.2).

    Parameters
    ----------
    v : ndarray of shape (k,)
        Point, overwritten by a feasible point of ``C cap B(center, r)``.
    center, r, n_l1, radius, box
        As in :func:`project_l1l2_exact`.
    rounds : int
        Number of rounds (a fixed point is reached after the first one, since
        ``center`` is in ``C``; the loop stops there).
    work : ndarray of shape (>= 1,)
        Warm start of the l1 threshold (see :func:`project_omega1`).

    Returns
    -------
    int
        Rounds done.
    """
    done = 0
    for _ in range(rounds):
        done += 1
        project_omega1(v, n_l1, radius, box, work)
        if _distance(v, center) <= r * (1.0 + 1e-12):  # rounding must not cycle
            break
        project_l2_ball_centered(v, center, r)
    return done


@njit(cache=True, nogil=True)
def project_l1l2(code, v, center, r, n_l1, radius, box, rounds, scratch, work):
    """Project ``v`` onto ``C cap B(center, r)`` with method ``code``, in place.

    Parameters
    ----------
    code : int
        ``EXACT``, ``DYKSTRA`` or ``ALTERNATING``.
    v, center, r, n_l1, radius, box
        As in :func:`project_l1l2_exact`.
    rounds : int
        Rounds of the iterative methods.
    scratch : ndarray of shape (4, k)
        Scratch rows.
    work : ndarray of shape (>= 1,)
        Warm start of the l1 threshold (see :func:`project_omega1`).

    Returns
    -------
    float
        ``EXACT``: the multiplier ``mu`` (0 if no root search was needed);
        otherwise the number of rounds done.
    """
    if code == DYKSTRA:
        return float(project_l1l2_dykstra(v, center, r, n_l1, radius, box, rounds, 1e-13,
                                          scratch, work))
    if code == ALTERNATING:
        return float(project_l1l2_alternating(v, center, r, n_l1, radius, box, rounds, work))
    return project_l1l2_exact(v, center, r, n_l1, radius, box, scratch[0], work)
