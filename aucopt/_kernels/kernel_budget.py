"""Budgeted Gaussian-kernel AUC learners: the shared expansion and Projection++ (KOIL RS++/FIFO++).

Both models are kernel expansions ``f(x) = sum_j alpha_j k(x, s_j)`` over at most a
fixed number of stored points ``s_j`` (dense rows of ``sv``), with
``k(x, s) = exp(-||x - s||^2 / (2 sigma^2))``.

* ``projection_pp_epoch``: Hu, Yang, King, Lyu, So, "Kernelized online imbalanced learning with
  fixed budgets", AAAI 2015 (KOIL, the "Projection++" of AlQuabeh et al. 2024),
  transcribed from the authors' MATLAB code (nUpdateKernel4.m, nUpdateBudgetRSC.m,
  nUpdateBudgetFIFOC.m); ``projection_pp_row``, the same on one row for ``learn_one``'s row
  path, which writes the row into its slot only once the step has finished.
* ``sparse_kernel_fit`` (:mod:`aucopt._kernels.sparse_kernel`): Kakkar, Shevade,
  Sundararajan, Garg, "A sparse non-linear classifier design using AUC optimization",
  SDM 2017: greedy basis addition for the kernel pairwise squared-hinge (rankSVM) objective.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import label_sign
from ._checks import DIVERGED, OK, exploding
from ._rows import row_dot, row_sqnorm, row_to_dense
from ._state import BOOL, F64, I64, D, Dim
from .row_keep import keep_whole

__all__ = ["FIFO", "RESERVOIR", "ProjectionPPState", "kernel_row", "kernel_scores",
           "support_mean_sums",
           "projection_pp_epoch", "projection_pp_row"]

RESERVOIR = 0  # KOIL_RS++: reservoir sampling replacement, then compensation
FIFO = 1  # KOIL_FIFO++: the oldest support vector is replaced, then compensation

SLOTS = Dim("slots")  # 2 budget: positives in [0, budget), negatives in [budget, 2 budget)


class ProjectionPPState(NamedTuple):
    """KOIL's state: two buffers of ``budget`` support vectors (positives first)."""

    alpha: F64[SLOTS]  # coefficients of the support vectors
    sv_w: F64[SLOTS]  # their sample weights (1 in files saved before weights)
    sv: F64[SLOTS, D]  # support vectors (dense rows)
    sv_sq: F64[SLOTS]  # their squared norms
    gram: F64[SLOTS, SLOTS]  # kernel matrix of the occupied slots
    used: BOOL[SLOTS]  # occupied slots
    size: I64[2]  # per class (0 negative, 1 positive): buffer size
    head: I64[2]  # per class: oldest slot (FIFO)
    seen: I64[2]  # per class: examples seen (reservoir probability budget / seen)
    bandwidth: F64[1]  # Gaussian width sigma, 0 until the first pass fixes it


@njit(cache=True, nogil=True)
def _gauss(sqdist, inv2s2):
    return np.exp(-max(sqdist, 0.0) * inv2s2)


@njit(cache=True, nogil=True)
def kernel_row(out, sv, sv_sq, alpha, active, inv2s2, data, indices, indptr, i):
    """Write ``k(x_i, s_j)`` into ``out[j]`` for every ``j`` with ``active[j]``.

    Other entries are set to 0. Returns ``f(x_i) = sum_j alpha_j k(x_i, s_j)``.
    """
    xx = row_sqnorm(data, indices, indptr, i)
    f = 0.0
    for j in range(sv.shape[0]):
        if not active[j]:
            out[j] = 0.0
            continue
        kij = _gauss(xx + sv_sq[j] - 2.0 * row_dot(sv[j], data, indices, indptr, i), inv2s2)
        out[j] = kij
        f += alpha[j] * kij
    return f


@njit(cache=True, nogil=True)
def kernel_scores(out, sv, sv_sq, alpha, active, inv2s2, scratch, data, indices, indptr):
    """Write ``f(x_i)`` for every row into ``out`` (``scratch`` of length ``len(alpha)``)."""
    for i in range(out.shape[0]):
        out[i] = kernel_row(scratch, sv, sv_sq, alpha, active, inv2s2, data, indices, indptr, i)


# ----------------------------------------------------------------------------- KOIL


@njit(cache=True, nogil=True)
def _store(sv, sv_sq, gram, used, kt, slot, data, indices, indptr, i):
    """Write row ``i`` into ``sv[slot]`` and its kernel values ``kt`` into the Gram matrix."""
    row_to_dense(sv[slot], data, indices, indptr, i)
    sv_sq[slot] = row_sqnorm(data, indices, indptr, i)
    for j in range(gram.shape[0]):
        value = kt[j] if used[j] else 0.0
        gram[slot, j] = value
        gram[j, slot] = value
    gram[slot, slot] = 1.0
    used[slot] = True


@njit(inline="always")
def _scores(out, alpha, gram, used, lo, hi):
    """Write ``out[j] = sum_k alpha[k] gram[j, k]``, summed over the occupied slots ``k`` in
    increasing order, for every ``j`` in ``[lo, hi)`` (unoccupied ones too).

    The Gram matrix is symmetric (:func:`_store` writes both halves), so the sums run along
    its rows ``gram[k, lo:hi]``: one vector operation serves many ``j``, each sum taking
    its terms in the same order (the bits of one ``j`` at a time).
    """
    part = out[lo:hi]
    part[:] = 0.0
    for k in range(gram.shape[0]):
        if used[k]:
            a = alpha[k]
            row = gram[k, lo:hi]
            for j in range(part.shape[0]):
                part[j] += a * row[j]


@njit(cache=True, nogil=True)
def support_mean_sums(gram, alpha, used, weight, budget):
    """Return ``(sum of w f, sum of w, count)`` over the occupied positive slots
    ``[0, budget)`` and then over the negative ones, ``f`` the score of each stored support
    vector (:func:`_scores`: ``sum_k alpha_k gram[j, k]`` over the occupied slots ``k``) and
    ``w`` its sample weight: the weighted mean scores of each class's support vectors, in
    O(slots^2) without copying the Gram matrix."""
    n = gram.shape[0]
    f = np.empty(n)
    _scores(f, alpha, gram, used, 0, n)
    pos = np.zeros(3)
    neg = np.zeros(3)
    for j in range(n):
        if used[j]:
            part = pos if j < budget else neg
            part[0] += weight[j] * f[j]
            part[1] += weight[j]
            part[2] += 1.0
    return pos[0], pos[1], pos[2], neg[0], neg[1], neg[2]


@njit(inline="always")
def _koil_update(st, work, inv2s2, data, indices, indptr, i, yi, draw, hp):
    """KOIL's update of row ``i`` (Hu et al. 2015, KOIL_RS++ / KOIL_FIFO++ as in the
    authors' nUpdateKernel4.m; signed weight ``yi``, uniforms ``draw``) but for the
    writing of the row into its slot, which the caller makes afterwards (:func:`_store`:
    ``sv``, ``sv_sq``, ``gram`` and ``used`` at that slot, which nothing here reads).

    Returns ``(a_t, slot)``: the row's coefficient (exploding: the step diverged, and the
    budget was not maintained) and the slot the row goes to (-1: none); ``alpha``,
    ``sv_w`` and the counters are updated. ``work = (kt, fsv, picked)`` is scratch of
    ``2 budget`` entries, each entry written before it is read.
    """
    alpha, sv_w, sv, sv_sq, gram, used = st.alpha, st.sv_w, st.sv, st.sv_sq, st.gram, st.used
    size, head, seen = st.size, st.head, st.seen
    # the row's kernel values, the support vectors' scores, the violated opposite ones
    kt, fsv, picked = work
    budget = hp.budget
    n_slots = 2 * budget
    sign = label_sign(yi)
    own = 1 if yi > 0 else 0
    opp = 1 - own
    own0, opp0 = (budget if own == 0 else 0), (budget if opp == 0 else 0)
    seen[own] += 1
    f_x = kernel_row(kt, sv, sv_sq, alpha, used, inv2s2, data, indices, indptr, i)
    # 1. violated pairs with the opposite buffer: 1 - y (f(x) - f(s)) > 0
    _scores(fsv, alpha, gram, used, opp0, opp0 + budget)
    n_viol = 0
    for j in range(opp0, opp0 + budget):
        if used[j] and 1.0 - sign * (f_x - fsv[j]) > 0.0:
            picked[n_viol] = j
            n_viol += 1
    # 2. gradient step: shrink, then the new weight and the k nearest violators
    shrink = 1.0 - hp.eta * hp.lam
    for k in range(n_slots):
        alpha[k] *= shrink
    if size[opp] == 0 or (size[own] == 0 and n_viol == 0):
        a_t = hp.eta * yi
    elif n_viol == 0:
        a_t = 0.0
    else:
        if n_viol > hp.n_neighbors:  # keep the k most similar (largest kernel value)
            for a in range(hp.n_neighbors):
                best = a
                for b in range(a + 1, n_viol):
                    if kt[picked[b]] > kt[picked[best]]:
                        best = b
                picked[a], picked[best] = picked[best], picked[a]
            n_viol = hp.n_neighbors
        pair_weight = 0.0  # n_viol with unit weights
        for a in range(n_viol):
            pair_weight += sv_w[picked[a]]
            alpha[picked[a]] -= hp.eta * yi * sv_w[picked[a]]
        a_t = hp.eta * pair_weight * yi
    if exploding(a_t) or a_t == 0.0:
        return a_t, -1
    # 3. budget maintenance with compensation (the "++")
    if size[own] < budget:
        slot = own0 + size[own]
        alpha[slot] = a_t
        sv_w[slot] = abs(yi)
        size[own] += 1
        return a_t, slot
    if hp.replacement == FIFO:
        replace = True
        slot = own0 + head[own]
        head[own] = (head[own] + 1) % budget
    else:
        replace = draw[0] < budget / seen[own]
        slot = own0 + min(int(draw[1] * budget), budget - 1)
    if replace:  # the removed vector's weight goes to its most similar survivor
        removed = alpha[slot]
        for k in range(n_slots):  # k(s_removed, .): the slot is overwritten after the step
            fsv[k] = gram[slot, k]
        fsv[slot] = kt[slot]  # the new row then sits in that slot
        alpha[slot] = a_t
        sv_w[slot] = abs(yi)
        sim = fsv
    else:  # the new row is not stored: its weight goes to its most similar vector
        removed = a_t
        sim = kt
        slot = -1
    best = own0
    for k in range(own0 + 1, own0 + budget):
        if sim[k] > sim[best]:
            best = k
    alpha[best] += removed
    return a_t, slot


@njit(inline="always")
def _finite(alpha, n_slots):
    """Return whether ``alpha[:n_slots]`` is finite."""
    for k in range(n_slots):
        if not np.isfinite(alpha[k]):
            return False
    return True


@njit(cache=True, nogil=True)
def projection_pp_epoch(st, inv2s2, data, indices, indptr, y, order, draws, hp, t):
    """Run KOIL (RS++ or FIFO++) over the rows in ``order``; update the state in place.

    Slots ``[0, budget)`` hold positive support vectors, ``[budget, 2 budget)``
    negative ones (``used`` marks the occupied slots).

    Sample weights (notes.md#sample-weights) arrive as signed labels ``y = +-w``: the
    pair of row ``t`` with a violated support vector ``j`` moves ``alpha_j`` by
    ``-eta y_t w_j`` and adds ``eta y_t w_j`` to the new coefficient (the loss of that pair
    weighted by ``w_t w_j``); a step without pairs is ``eta y_t``. A stored vector keeps
    its row's weight in ``sv_w``, also when it absorbs a removed vector's coefficient;
    the nearest-neighbour choice, admission and replacement ignore the weights.

    Parameters
    ----------
    st : ProjectionPPState
        The buffers, their Gram matrix and counters (updated in place).
    inv2s2 : float
        ``1 / (2 sigma^2)``.
    data, indices, indptr, y, order
        Rows, signed weights ``+-w`` and visiting order: the common kernel arguments
        (:mod:`aucopt._kernels`).
    draws : ndarray of shape (m, 2)
        Uniforms per visited row: ``draws[k, 0] < B / seen`` admits the row to
        a full reservoir, ``floor(draws[k, 1] B)`` is the slot it replaces.
    hp : ProjectionPPHyper
        Named tuple ``(budget, n_neighbors, eta, lam, replacement)``.
    t : int
        Number of examples processed before this call.

    Returns
    -------
    t, status : int
        The number of examples processed after this call, and ``OK`` or ``DIVERGED``.
    """
    slots = st.alpha.shape[0]
    work = (np.zeros(slots), np.zeros(slots), np.zeros(slots, dtype=np.int64))
    for pos in range(order.shape[0]):
        i = order[pos]
        a_t, slot = _koil_update(st, work, inv2s2, data, indices, indptr, i, y[i], draws[pos],
                                 hp)
        t += 1
        if exploding(a_t):
            return t, DIVERGED
        if slot >= 0:
            _store(st.sv, st.sv_sq, st.gram, st.used, work[0], slot, data, indices, indptr, i)
    if not _finite(st.alpha, 2 * hp.budget):
        return t, DIVERGED
    return t, OK


@njit(cache=True, nogil=True)
def projection_pp_row(st, inv2s2, work, data, indices, indptr, y, order, draws, hp, t, keep):
    """KOIL on one row (:func:`projection_pp_epoch` with ``order = [0]``, ``draws`` of shape
    (1, 2), ``work = (kt, fsv, picked)`` scratch of ``2 budget`` entries) for the row path
    of ``learn_one`` (:mod:`aucopt.algorithms._rowpath`).

    ``alpha`` and ``sv_w`` are copied into ``keep`` (``4 budget`` values) first and put
    back if the step stops; the epoch's checks are made before the row is written into
    its slot, so that a step that stops leaves ``sv``, ``sv_sq``, ``gram`` and ``used`` as
    they were (the row path's transaction puts back the counters), and one that finishes
    gives the epoch's bits. Returns ``(t, status)``.
    """
    i = order[0]
    entries = (st.alpha, st.sv_w)
    keep_whole(entries, keep, False)
    a_t, slot = _koil_update(st, work, inv2s2, data, indices, indptr, i, y[i], draws[0], hp)
    t += 1
    if exploding(a_t) or not _finite(st.alpha, 2 * hp.budget):
        keep_whole(entries, keep, True)
        return t, DIVERGED
    if slot >= 0:
        _store(st.sv, st.sv_sq, st.gram, st.used, work[0], slot, data, indices, indptr, i)
    return t, OK
