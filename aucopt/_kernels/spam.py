"""SPAM kernel: stochastic proximal AUC maximisation (Natole 2020, Algorithm 20).

Natole, Ying, Lyu, "Stochastic proximal algorithms for AUC maximization",
ICML 2018; M. Natole Jr., PhD thesis (SUNY Albany 2020), chapter 4,
Algorithm 20.

Objective: ``min_w p(1-p) E[(1 - w.(x - x'))^2 | y=+1, y'=-1] + Omega(w)``
with ``Omega(w) = (beta/2)||w||^2 + beta1 ||w||_1`` (SPAM-L2: ``beta1 = 0``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._lanes import add4, lane, load4, mul4, prefetch, splat4, store4, sub4
from ._reduce import combine4, dot_unrolled
from ._rows import (
    fetch_rows_ahead,
    inline_row_function,
    row_axpy,
    row_dot,
    row_dot3,
    row_dot3_unrolled,
)
from ._schedules import INV_LINEAR, INV_POWER, INV_SQRT, step_size
from ._state import F64, I64, D
from ._stats import add_weighted_to_class_sums, forget_class_sums
from ._twins import specialises

__all__ = ["STATS_TRAIN", "STATS_ONLINE", "STATS_WARMUP", "NEEDS_FOLD", "SpamState",
           "SpamLazyState", "spam_epoch", "spam_epoch_lazy", "spam_gradient_coef",
           "spam_lazy_fold", "lazy_iterates"]

STATS_TRAIN = 0  # class statistics of the data given so far, frozen during a pass
STATS_ONLINE = 1  # running statistics, updated with z_t before its step
STATS_WARMUP = 2  # the first n_warmup samples only estimate the statistics


class SpamState(NamedTuple):
    """SPAM's state in its plain form (dense rows, or ``beta1 > 0``)."""

    w: F64[D]  # last iterate w_t
    w_avg: F64[D]  # uniform running average of the iterates w_2 .. w_{t+1}
    dots: F64[2]  # w . sums[0], w . sums[1] of the statistics in use, carried between calls
    run_count: F64[2]  # running class weight sums (with decay)
    run_sum: F64[2, D]  # running class sums
    run_sqmax: F64[1]  # largest squared row norm of the running statistics
    n_warmup: I64[1]  # rows that only estimate the statistics (stats="warmup")


class SpamLazyState(NamedTuple):
    """SPAM-L2's lazy form on CSR rows, kept between calls (:func:`spam_epoch_lazy`)."""

    pack: F64[D, 4]  # v, b, stored negative and positive class sums, interleaved
    acc: F64[D]  # base of the running sum of the iterates
    lazy: F64[6]  # s, S, v . sums[0], v . sums[1], sigma, t
    run_count: F64[2]
    run_sqmax: F64[1]
    n_warmup: I64[1]


class ClassStats(NamedTuple):
    """Class statistics a step reads: the training data's or the running ones."""

    count: F64[2]  # class weight sums (row counts when unweighted)
    sum: F64[2, D]  # class sums
    sqmax: F64[1]  # largest squared row norm


@njit(cache=True, nogil=True)
def spam_gradient_coef(s, a, b, p, positive):
    """Return ``g`` with ``G(w; z) = g x`` (Natole 2020, Algorithm 20, Lemma 4.1).

    Parameters
    ----------
    s : float
        Score ``w.x``.
    a, b : float
        ``w.m+`` and ``w.m-``.
    p : float
        Positive-class probability.
    positive : bool
        Whether ``y = +1``.

    Returns
    -------
    float
        ``2(1-p)(s - a) - 2(1 + alpha)(1-p)`` for ``y = +1`` and
        ``2p(s - b) + 2(1 + alpha)p`` for ``y = -1``, ``alpha = b - a``.
    """
    alpha = b - a
    if positive:
        return 2.0 * (1.0 - p) * (s - a) - 2.0 * (1.0 + alpha) * (1.0 - p)
    return 2.0 * p * (s - b) + 2.0 * (1.0 + alpha) * p


@njit(cache=True, nogil=True)
def _step_scale(hp, sqmax):
    """Return the schedule multiplier for the current largest squared norm."""
    m2 = max(sqmax, 1e-300)
    if hp.schedule == INV_POWER:  # Theorem 4.1: C = beta / (128 M^4)
        return hp.beta / (128.0 * m2 * m2)
    if hp.schedule == INV_LINEAR:  # Theorem 4.2: 1 / C~, C~ = beta / (1 + beta^2/(128 M^4))^2
        c = 1.0 + hp.beta * hp.beta / (128.0 * m2 * m2)
        return c * c / hp.beta
    if hp.auto_eta0:
        return hp.eta0 / m2
    return hp.eta0


@njit(inline="always")
def _joins_statistics(hp, learn, counts, n_warmup):
    """Whether the row joins the running class statistics before its step (the warm-up
    lasts until both classes have joined: frozen on one class, no step could follow)."""
    if not learn or hp.stats == STATS_TRAIN:
        return False
    return (hp.stats == STATS_ONLINE or counts[0] + counts[1] < n_warmup
            or counts[0] == 0.0 or counts[1] == 0.0)


@njit(inline="always")
def _step(hp, sqmax, t):
    """Return ``(eta_t, 1/(1 + eta_t beta))`` of update ``t`` (``"inv_sqrt"``: at ``t + t0``)."""
    at = t + hp.t0 if hp.schedule == INV_SQRT else float(t)
    eta = step_size(hp.schedule, _step_scale(hp, sqmax[0]), hp.power_t, at)
    return eta, 1.0 / (1.0 + eta * hp.beta)


def _dense_l2_step(coef, shrink, inv_t, w, w_avg, data, indices, indptr, i):
    """``w <- shrink (w + coef x_i)`` and the running average, in one sweep (dense rows)."""
    x = data[i]
    for j in range(w.shape[0]):
        u = (w[j] + coef * x[j]) * shrink
        w[j] = u
        w_avg[j] += (u - w_avg[j]) * inv_t


def _csr_l2_step(coef, shrink, inv_t, w, w_avg, data, indices, indptr, i):
    row_axpy(coef, w, data, indices, indptr, i)
    for j in range(w.shape[0]):
        u = w[j] * shrink
        w[j] = u
        w_avg[j] += (u - w_avg[j]) * inv_t


row_l2_step = inline_row_function(_dense_l2_step, _csr_l2_step, "row_l2_step")


def _dense_l2_sweep(pending, prev, w, w_avg, a, b, nxt, data, indices, indptr, i):
    """Finish the step of row ``prev`` and return the three dot products of row ``i``.

    ``pending = (coef, shrink, inv_t)`` is the step of row ``prev``. One sweep:
    ``w <- shrink (w + coef x_prev)`` and the running average (as
    :func:`row_l2_step`), then ``(w . x_i, a . x_i, b . x_i)`` with the new ``w``
    in four partial sums each (as :func:`aucopt._kernels._reduce.dot3_unrolled`),
    so the results equal the two separate sweeps bit for bit. Row ``prev`` is
    still in L1; the cache lines of row ``nxt`` are prefetched on the way (a
    separate prefetch loop, or none, was 15% slower at d = 100).
    """
    coef, shrink, inv_t = pending
    x, xp, ahead = data[i], data[prev], data[nxt]
    d = x.shape[0]
    end = d - d % 4
    c4, shrink4, inv4 = splat4(coef), splat4(shrink), splat4(inv_t)
    s = p = q = splat4(0.0)
    for j in range(0, end, 4):
        if j % 8 == 0:  # one 64-byte line per 8 doubles
            prefetch(ahead, j)
        u = mul4(add4(load4(w, j), mul4(c4, load4(xp, j))), shrink4)
        store4(w, j, u)
        avg = load4(w_avg, j)
        store4(w_avg, j, add4(avg, mul4(sub4(u, avg), inv4)))
        xj = load4(x, j)
        s = add4(s, mul4(u, xj))
        p = add4(p, mul4(load4(a, j), xj))
        q = add4(q, mul4(load4(b, j), xj))
    s0, p0, q0 = lane(s, 0), lane(p, 0), lane(q, 0)
    for j in range(end, d):
        u = (w[j] + coef * xp[j]) * shrink
        w[j] = u
        w_avg[j] += (u - w_avg[j]) * inv_t
        s0 += u * x[j]
        p0 += a[j] * x[j]
        q0 += b[j] * x[j]
    return combine4(s, s0), combine4(p, p0), combine4(q, q0)


def _csr_l2_sweep(pending, prev, w, w_avg, a, b, nxt, data, indices, indptr, i):
    coef, shrink, inv_t = pending
    row_l2_step(coef, shrink, inv_t, w, w_avg, data, indices, indptr, prev)
    return row_dot3(w, a, b, data, indices, indptr, i)


row_l2_sweep = inline_row_function(_dense_l2_sweep, _csr_l2_sweep, "row_l2_sweep")
_AHEAD = 3  # rows between the one swept and the one prefetched (2 to 4 were best at d = 100)


@njit(cache=True, nogil=True)
def spam_epoch(st, stats, data, indices, indptr, y, order, hp, t, learn):
    """Run SPAM over the rows in ``order``; update the state in place.

    Parameters
    ----------
    st : SpamState
        The state; ``dots`` (``w . sums[c]``) is carried from call to call (so that a
        stream cut into calls gives the bits of one pass) and recomputed on entry with
        the frozen statistics of ``STATS_TRAIN``, which change between calls.
    stats : ClassStats
        The statistics used for ``p``, the class means and ``M^2``: the running ones of
        ``st`` (online and warm-up modes, updated here) or the training data's.
    data, indices, indptr, y, order
        Rows, labels and visiting order: the common kernel arguments (:mod:`aucopt._kernels`).
        ``|y_i|`` is the row's sample weight (notes.md#sample-weights): it weighs the row
        in the running statistics and scales its step.
    hp : SpamHyper
        The kernel scalars (:data:`aucopt.algorithms.spam.PARAMS`). With ``decay > 0``
        (``STATS_ONLINE`` only) the counts and sums are multiplied by ``1 - decay``
        before each new row is added.
    t : int
        Number of updates done before this call.
    learn : bool
        Whether the rows are new data whose statistics must be added (online
        and warm-up modes, first pass over a chunk).

    Returns
    -------
    t, status : int
        The number of updates done after this call, and ``OK`` or ``DIVERGED``.
    """
    w, w_avg, dots = st.w, st.w_avg, st.dots
    counts, sums, sqmax = stats.count, stats.sum, stats.sqmax
    n_warmup = st.n_warmup[0]
    d = w.shape[0]
    m = order.shape[0]
    # w . sums[c] is carried from step to step. With beta1 = 0 the proximal step is a scaling,
    # so the new values follow from x . sums[c], summed in the same sweep over the row as
    # w . x; the elastic-net prox recomputes them after its sweep. The l2 step of a row is
    # left pending and done in the sweep of the next row (row_l2_sweep): one pass over w per
    # step. Reductions use four partial sums (one running sum is a latency chain).
    scaling = hp.beta1 == 0.0
    if hp.stats == STATS_TRAIN:
        dots[0] = dot_unrolled(w, sums[0])
        dots[1] = dot_unrolled(w, sums[1])
    dot_neg, dot_pos = dots[0], dots[1]
    keep = 1.0 - hp.decay
    prev = -1  # row whose l2 step is pending (-1: none)
    p_coef = p_shrink = p_inv = 0.0
    for idx in range(m):
        i = order[idx]
        positive = y[i] > 0
        c = 1 if positive else 0
        weight = abs(y[i])
        added = _joins_statistics(hp, learn, counts, n_warmup)
        if added:
            if hp.decay > 0.0:  # (the pending l2 step, if any, reads no sums)
                forget_class_sums(keep, counts, sums)
                dot_neg *= keep
                dot_pos *= keep
            add_weighted_to_class_sums(counts, sums, sqmax, data, indices, indptr, i, c, weight)
        xs_neg = xs_pos = 0.0
        if not scaling:
            s = row_dot(w, data, indices, indptr, i)
        elif prev >= 0:
            nxt = order[min(idx + _AHEAD, m - 1)]
            s, xs_neg, xs_pos = row_l2_sweep((p_coef, p_shrink, p_inv), prev, w, w_avg,
                                             sums[0], sums[1], nxt, data, indices, indptr, i)
            prev = -1
        else:
            s, xs_neg, xs_pos = row_dot3_unrolled(w, sums[0], sums[1], data, indices, indptr, i)
        if added:
            if positive:
                dot_pos += weight * s
            else:
                dot_neg += weight * s
            if hp.stats == STATS_WARMUP:
                continue  # a warm-up sample only estimates the statistics
        if counts[0] == 0 or counts[1] == 0:
            continue  # no pair of opposite classes yet: the loss is zero
        n_seen = counts[0] + counts[1]
        p = counts[1] / n_seen
        g = weight * spam_gradient_coef(s, dot_pos / counts[1], dot_neg / counts[0], p, positive)
        if exploding(g):
            dots[0], dots[1] = dot_neg, dot_pos
            return t, DIVERGED  # the pending step, if any, was done by this row's sweep
        t += 1
        eta, shrink = _step(hp, sqmax, t)
        coef = -eta * g
        inv_t = 1.0 / t
        if scaling:
            prev, p_coef, p_shrink, p_inv = i, coef, shrink, inv_t
            dot_neg = shrink * (dot_neg + coef * xs_neg)
            dot_pos = shrink * (dot_pos + coef * xs_pos)
            continue
        row_axpy(coef, w, data, indices, indptr, i)
        thr = eta * hp.beta1  # elastic-net prox (notes.md#prox), written out in the sweep
        for j in range(d):
            u = w[j]
            if u > thr:
                u = (u - thr) * shrink
            elif u < -thr:
                u = (u + thr) * shrink
            else:
                u = 0.0
            w[j] = u
            w_avg[j] += (u - w_avg[j]) * inv_t
        dot_neg = dot_unrolled(w, sums[0])
        dot_pos = dot_unrolled(w, sums[1])
    if prev >= 0:
        row_l2_step(p_coef, p_shrink, p_inv, w, w_avg, data, indices, indptr, prev)
    dots[0], dots[1] = dot_neg, dot_pos
    for j in range(d):
        if not np.isfinite(w[j]):
            return t, DIVERGED
    return t, OK


# The running sum acc + S v - b loses about eps / s of relative accuracy (v grows like 1/s):
# folding at s < 1e-4 keeps it near 1e-12. With the usual small beta it never triggers. The
# scale of the forgetting class sums (``decay``) is folded at the same bound.
FOLD_BELOW = 1e-4
NEEDS_FOLD = 2  # status of spam_epoch_lazy: stopped before an O(d) fold


# Columns of the interleaved per-feature state of the lazy kernel: one cache line per touched
# feature instead of four separate d-arrays (the random accesses dominate at d = 10^6).
_V, _B, _SUM_NEG, _SUM_POS = 0, 1, 2, 3
# Entries of the lazy scalars: w = s v, sum of the iterates = acc + S v - b, class sums =
# sigma * pack[:, 2:4], and v . pack[:, 2 + c].
S, S_SUM, DOT_NEG, DOT_POS, SIGMA, T = 0, 1, 2, 3, 4, 5


@njit(cache=True, nogil=True)
def spam_lazy_fold(pack, acc, lazy):
    """Fold the scales into the stored vectors (O(d), rare): ``s = sigma = 1``, ``S = 0``."""
    s, s_sum, sigma = lazy[S], lazy[S_SUM], lazy[SIGMA]
    if s < FOLD_BELOW:
        for j in range(acc.shape[0]):
            acc[j] += s_sum * pack[j, _V] - pack[j, _B]
            pack[j, _B] = 0.0
            pack[j, _V] *= s
        lazy[DOT_NEG] *= s
        lazy[DOT_POS] *= s
        lazy[S], lazy[S_SUM] = 1.0, 0.0
    if sigma < FOLD_BELOW:
        for j in range(acc.shape[0]):
            pack[j, _SUM_NEG] *= sigma
            pack[j, _SUM_POS] *= sigma
        lazy[DOT_NEG] *= sigma
        lazy[DOT_POS] *= sigma
        lazy[SIGMA] = 1.0


@njit(cache=True, nogil=True)
def spam_lazy_add_rows(pack, lazy, data, indices, indptr, y):
    """Add every row to the class sums of ``pack`` (frozen statistics of ``STATS_TRAIN``, O(nnz)).

    The sums then hold the same bits as the estimator's data statistics; ``v . sums`` follows.
    """
    for i in range(y.shape[0]):
        c = 1 if y[i] > 0 else 0
        weight = abs(y[i])  # notes.md#sample-weights
        vx = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            pack[j, _SUM_NEG + c] += weight * data[k]
            vx += pack[j, _V] * data[k]
        lazy[DOT_NEG + c] += weight * vx


@specialises(spam_epoch)
@njit(cache=True, nogil=True)
def spam_epoch_lazy(st, counts, sqmax, data, indices, indptr, y, order, start, hp, t, learn):
    """SPAM-L2 over CSR rows at O(nnz) per step, in a lazy form kept between calls.

    Exact lazy form of the l2 proximal step (``beta1`` must be 0): the iterate
    is kept as ``w = s v`` so the shrinkage ``1/(1 + eta beta)`` only changes
    the scalar ``s``; ``v . sums[c]`` are maintained incrementally, so the
    class-mean terms cost O(nnz); and the running sum of the iterates is kept
    as ``acc + S v - b`` (``S`` the sum of the scales), with ``b`` collecting
    ``S dv`` on the touched coordinates. The class sums are ``sigma`` times the
    stored ones (``sigma`` < 1 only with ``decay``). ``v``, ``b`` and both class
    sums live interleaved in ``pack`` so that a touched feature costs one cache
    line. Nothing here is O(d): the scales are folded into the vectors by
    :func:`spam_lazy_fold`, which the caller runs when this returns
    ``NEEDS_FOLD`` (then it continues at the returned position). A stream cut
    into calls therefore runs the same operations as one pass.

    Parameters
    ----------
    st : SpamLazyState
        ``pack``: ``v``, ``b``, and the stored negative and positive class sums;
        ``acc``: base of the running sum of the iterates (changed by folds only);
        ``lazy``: ``s``, ``S``, ``v . sums[0]``, ``v . sums[1]`` (stored sums),
        ``sigma``, ``t``. Updated.
    counts, sqmax : ndarray
        Class counts and ``M^2`` of the statistics in use (as ``stats`` of
        :func:`spam_epoch`; their sums are in ``pack``).
    data, indices, indptr, y, order, hp, t, learn
        As in :func:`spam_epoch`; ``indices`` must not be None.
    start : int
        Position in ``order`` to start at.

    Returns
    -------
    t : int
        Number of updates done after this call.
    status : int
        ``OK``, ``DIVERGED`` or ``NEEDS_FOLD``.
    position : int
        Position in ``order`` after the last row handled.
    """
    pack, lazy = st.pack, st.lazy
    flat = pack.reshape(-1)
    n_warmup = st.n_warmup[0]
    s, s_sum, sigma = lazy[S], lazy[S_SUM], lazy[SIGMA]
    dot_neg, dot_pos = lazy[DOT_NEG], lazy[DOT_POS]
    keep = 1.0 - hp.decay
    status = OK
    m = order.shape[0]
    idx = start
    while idx < m:
        i = order[idx]
        fetch_rows_ahead(flat, 4, order, y, data, indices, indptr, idx)
        idx += 1
        positive = y[i] > 0
        c = 1 if positive else 0
        weight = abs(y[i])  # the sample weight (notes.md#sample-weights)
        if _joins_statistics(hp, learn, counts, n_warmup):
            if hp.decay > 0.0:
                counts[0] *= keep
                counts[1] *= keep
                sigma *= keep
            counts[c] += weight
            sq = 0.0
            vx = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                x = data[k]
                pack[j, _SUM_NEG + c] += weight * x / sigma
                sq += x * x
                vx += pack[j, _V] * x
            if sq > sqmax[0]:
                sqmax[0] = sq
            if positive:
                dot_pos += weight * vx / sigma
            else:
                dot_neg += weight * vx / sigma
            if hp.stats == STATS_WARMUP:
                continue
        if counts[0] == 0 or counts[1] == 0:
            continue
        p = counts[1] / (counts[0] + counts[1])
        a = s * sigma * dot_pos / counts[1]
        bb = s * sigma * dot_neg / counts[0]
        vx = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            vx += pack[indices[k], _V] * data[k]
        g = weight * spam_gradient_coef(s * vx, a, bb, p, positive)
        if exploding(g):
            status = DIVERGED
            break
        t += 1
        eta = _step(hp, sqmax, t)[0]
        coef = -eta * g / s  # v moves by coef * x; then s shrinks
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            dv = coef * data[k]
            pack[j, _B] += s_sum * dv
            pack[j, _V] += dv
            dot_neg += dv * pack[j, _SUM_NEG]
            dot_pos += dv * pack[j, _SUM_POS]
        s /= 1.0 + eta * hp.beta
        s_sum += s
        if not (np.isfinite(dot_neg) and np.isfinite(dot_pos) and np.isfinite(s_sum)):
            status = DIVERGED
            break
        if s < FOLD_BELOW or sigma < FOLD_BELOW:
            status = NEEDS_FOLD
            break
    lazy[S], lazy[S_SUM], lazy[SIGMA] = s, s_sum, sigma
    lazy[DOT_NEG], lazy[DOT_POS] = dot_neg, dot_pos
    lazy[T] = t
    return t, status, idx


@njit(cache=True, nogil=True)
def lazy_iterates(pack, acc, lazy, t, w, w_avg):
    """Write the last iterate ``s v`` and the average ``(acc + S v - b) / t`` (O(d)).

    For the lazy forms that keep ``v`` and ``b`` in columns 0 and 1 of ``pack`` and
    ``s``, ``S`` in entries 0 and 1 of ``lazy`` (SPAM-L2, OGD-FIFO).
    """
    s, s_sum = lazy[S], lazy[S_SUM]
    inv_t = 1.0 / t if t > 0 else 1.0
    for j in range(w.shape[0]):
        w[j] = pack[j, _V] * s
        w_avg[j] = (acc[j] + s_sum * pack[j, _V] - pack[j, _B]) * inv_t
