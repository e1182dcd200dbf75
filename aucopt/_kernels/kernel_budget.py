"""Budgeted Gaussian-kernel AUC learners: the shared expansion and Projection++ (KOIL RS++/FIFO++).

Both models are kernel expansions ``f(x) = sum_j alpha_j k(x, s_j)`` over at most a
fixed number of stored points ``s_j`` (dense rows of ``sv``), with
``k(x, s) = exp(-||x - s||^2 / (2 sigma^2))``.

* ``projection_pp_epoch``: Hu, Yang, King, Lyu, So, "Kernelized online imbalanced learning with
  fixed budgets", AAAI 2015 (KOIL, the "Projection++" of AlQuabeh et al. 2024),
  transcribed from the authors' MATLAB code (nUpdateKernel4.m, nUpdateBudgetRSC.m,
  nUpdateBudgetFIFOC.m).
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

__all__ = ["FIFO", "RESERVOIR", "ProjectionPPState", "kernel_row", "kernel_scores",
           "projection_pp_epoch"]

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
    alpha, sv_w, sv, sv_sq, gram, used = st.alpha, st.sv_w, st.sv, st.sv_sq, st.gram, st.used
    size, head, seen = st.size, st.head, st.seen
    slots = alpha.shape[0]
    kt = np.zeros(slots)  # kernel values of the new row
    fsv = np.zeros(slots)  # scores of the support vectors
    picked = np.zeros(slots, dtype=np.int64)  # the violated opposite support vectors
    budget = hp.budget
    n_slots = 2 * budget
    for pos in range(order.shape[0]):
        i = order[pos]
        yi = y[i]
        sign = label_sign(yi)
        own = 1 if yi > 0 else 0
        opp = 1 - own
        own0, opp0 = (budget if own == 0 else 0), (budget if opp == 0 else 0)
        seen[own] += 1
        f_x = kernel_row(kt, sv, sv_sq, alpha, used, inv2s2, data, indices, indptr, i)
        # 1. violated pairs with the opposite buffer: 1 - y (f(x) - f(s)) > 0
        n_viol = 0
        for j in range(opp0, opp0 + budget):
            if not used[j]:
                continue
            f_s = 0.0
            for k in range(n_slots):
                if used[k]:
                    f_s += alpha[k] * gram[j, k]
            fsv[j] = f_s
            if 1.0 - sign * (f_x - f_s) > 0.0:
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
        t += 1
        if exploding(a_t):
            return t, DIVERGED
        if a_t == 0.0:
            continue
        # 3. budget maintenance with compensation (the "++")
        if size[own] < budget:
            slot = own0 + size[own]
            _store(sv, sv_sq, gram, used, kt, slot, data, indices, indptr, i)
            alpha[slot] = a_t
            sv_w[slot] = abs(yi)
            size[own] += 1
            continue
        if hp.replacement == FIFO:
            replace = True
            slot = own0 + head[own]
            head[own] = (head[own] + 1) % budget
        else:
            replace = draws[pos, 0] < budget / seen[own]
            slot = own0 + min(int(draws[pos, 1] * budget), budget - 1)
        if replace:  # the removed vector's weight goes to its most similar survivor
            removed = alpha[slot]
            for k in range(n_slots):  # k(s_removed, .) before the slot is overwritten
                fsv[k] = gram[slot, k]
            fsv[slot] = kt[slot]  # the new row now sits in that slot
            _store(sv, sv_sq, gram, used, kt, slot, data, indices, indptr, i)
            alpha[slot] = a_t
            sv_w[slot] = abs(yi)
            sim = fsv
        else:  # the new row is not stored: its weight goes to its most similar vector
            removed = a_t
            sim = kt
        best = own0
        for k in range(own0 + 1, own0 + budget):
            if sim[k] > sim[best]:
                best = k
        alpha[best] += removed
    for k in range(n_slots):
        if not np.isfinite(alpha[k]):
            return t, DIVERGED
    return t, OK
