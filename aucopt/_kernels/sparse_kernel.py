"""Sparse Kernel: greedy basis selection for the kernel pairwise squared-hinge objective.

Kakkar, Shevade, Sundararajan, Garg, "A sparse non-linear classifier design
using AUC optimization", SDM 2017: the model is a Gaussian expansion over a basis
of training points (:mod:`aucopt._kernels.kernel_budget`), grown one point at a
time, with the coefficients refitted by Newton steps on the rankSVM objective.

Sample weights (notes.md#sample-weights) arrive as signed labels ``y = +-w``: the pair
of a positive ``i`` and a negative ``j`` counts with ``w_i w_j`` and the mean over the
pairs divides by ``sum w_i w_j``. The rows are passed around as ``classes =
(pos_idx, neg_idx, weight)``, ``weight`` the ``|y|`` of every row.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding, unit_power
from ._clock import past
from ._rows import row_dot, row_to_dense
from ._state import BOOL, F64, I64, D, Dim
from .kernel_budget import _gauss

__all__ = ["SparseKernelState", "sparse_kernel_fit", "OUT_OF_TIME"]

OUT_OF_TIME = 2  # status: the deadline passed, the basis chosen so far is the model

BASIS = Dim("budget")


class SparseKernelState(NamedTuple):
    """The Sparse Kernel model, filled by one fit (:func:`sparse_kernel_fit` and its spec)."""

    basis: F64[BASIS, D]  # basis points (dense rows)
    basis_sq: F64[BASIS]  # their squared norms
    beta: F64[BASIS]  # their coefficients
    active: BOOL[BASIS]  # basis points in use (the first n_iter)
    mean_score: F64[2]  # mean training score of the negatives and of the positives
    bandwidth: F64[1]  # Gaussian width sigma
    n_iter: I64[1]  # basis points added


@njit(cache=True, nogil=True)
def _pair_terms(s, classes, grad_s, count, first):
    """Squared-hinge pair loss ``sum_{i+, j-} w_i w_j max(0, 1 - s_i + s_j)^2`` in O(n log n).

    Writes ``dL/ds`` into ``grad_s`` and, for every row ``k``, the weight of its active
    pairs ``w_k sum_{active partners} w`` into ``count`` (with unit weights: the number
    of active partners); returns the loss. ``first[i]`` receives, for a positive ``i``,
    the position of its first active negative in the order of the negatives' scores
    (its active negatives are the ones from there on; used by the Hessian).
    """
    pos_idx, neg_idx, weight = classes
    n_neg = neg_idx.shape[0]
    n_pos = pos_idx.shape[0]
    s_neg = np.empty(n_neg)
    for a in range(n_neg):
        s_neg[a] = s[neg_idx[a]]
    neg_sorted = np.argsort(s_neg)  # ascending
    suffix_cnt = np.zeros(n_neg + 1)
    suffix_sum = np.zeros(n_neg + 1)
    for a in range(n_neg - 1, -1, -1):
        wj = weight[neg_idx[neg_sorted[a]]]
        suffix_cnt[a] = suffix_cnt[a + 1] + wj
        suffix_sum[a] = suffix_sum[a + 1] + wj * s_neg[neg_sorted[a]]
    loss = 0.0
    for k in range(s.shape[0]):
        grad_s[k] = 0.0
        count[k] = 0.0
    for a in range(n_pos):
        i = pos_idx[a]
        thr = s[i] - 1.0  # active negatives: s_j > s_i - 1
        lo, hi = 0, n_neg
        while lo < hi:
            mid = (lo + hi) // 2
            if s_neg[neg_sorted[mid]] > thr:
                hi = mid
            else:
                lo = mid + 1
        c = suffix_cnt[lo]
        ssum = suffix_sum[lo]
        wi = weight[i]
        count[i] = wi * c
        first[i] = lo
        m = 1.0 - s[i]
        # sum_j w_j (m + s_j)^2 = c m^2 + 2 m S1 + S2 (c, S1 weighted sums); S2 is
        # accumulated on the negatives' side
        loss += wi * (c * m * m + 2.0 * m * ssum)
        grad_s[i] = -2.0 * wi * (c * m + ssum)
    s_pos = np.empty(n_pos)
    for a in range(n_pos):
        s_pos[a] = s[pos_idx[a]]
    pos_sorted = np.argsort(s_pos)
    prefix_cnt = np.zeros(n_pos + 1)
    prefix_sum = np.zeros(n_pos + 1)
    for a in range(n_pos):
        wi = weight[pos_idx[pos_sorted[a]]]
        prefix_cnt[a + 1] = prefix_cnt[a] + wi
        prefix_sum[a + 1] = prefix_sum[a] + wi * s_pos[pos_sorted[a]]
    for a in range(n_neg):
        j = neg_idx[a]
        thr = s[j] + 1.0  # active positives: s_i < s_j + 1
        lo, hi = 0, n_pos
        while lo < hi:
            mid = (lo + hi) // 2
            if s_pos[pos_sorted[mid]] < thr:
                lo = mid + 1
            else:
                hi = mid
        c = prefix_cnt[lo]
        m = 1.0 + s[j]
        psum = prefix_sum[lo]
        wj = weight[j]
        count[j] = wj * c
        first[j] = lo
        loss += wj * c * s[j] * s[j]
        grad_s[j] = 2.0 * wj * (c * m - psum)
    return loss


@njit(cache=True, nogil=True)
def _objective(beta, m, kb, gram, s, classes, grad_s, count, first, lam, scale):
    """Return ``lam/2 b'Kb + scale * loss(K_nJ b)`` and fill ``s``, ``grad_s``, ``count``,
    ``first`` (see :func:`_pair_terms`)."""
    n = s.shape[0]
    for i in range(n):
        v = 0.0
        for j in range(m):
            v += kb[i, j] * beta[j]
        s[i] = v
    reg = 0.0
    for a in range(m):
        for b in range(m):
            reg += beta[a] * gram[a, b] * beta[b]
    return 0.5 * lam * reg + scale * _pair_terms(s, classes, grad_s, count, first)


@njit(cache=True, nogil=True)
def _cholesky_solve(h, g, out):
    """Solve ``h out = g`` for symmetric positive definite ``h`` (overwrites ``h``)."""
    m = g.shape[0]
    for j in range(m):
        d = h[j, j]
        for k in range(j):
            d -= h[j, k] * h[j, k]
        d = max(d, 1e-300)
        h[j, j] = np.sqrt(d)
        for i in range(j + 1, m):
            v = h[i, j]
            for k in range(j):
                v -= h[i, k] * h[j, k]
            h[i, j] = v / h[j, j]
    for i in range(m):
        v = g[i]
        for k in range(i):
            v -= h[i, k] * out[k]
        out[i] = v / h[i, i]
    for i in range(m - 1, -1, -1):
        v = out[i]
        for k in range(i + 1, m):
            v -= h[k, i] * out[k]
        out[i] = v / h[i, i]


@njit(cache=True, nogil=True)
def _newton(beta, m, kb, gram, classes, lam, scale, max_newton, tol):
    """Minimise the objective over ``beta[:m]`` by Newton steps with backtracking."""
    n = kb.shape[0]
    s = np.empty(n)
    grad_s = np.empty(n)
    count = np.empty(n)
    first = np.zeros(n, dtype=np.int64)
    g = np.empty(m)
    h = np.empty((m, m))
    step = np.empty(m)
    trial = np.empty(m)
    obj = _objective(beta, m, kb, gram, s, classes, grad_s, count, first, lam, scale)
    it = 0
    while it < max_newton:
        it += 1
        # gradient: lam K_JJ b + scale K_nJ' dL/ds
        for a in range(m):
            v = 0.0
            for b in range(m):
                v += lam * gram[a, b] * beta[b]
            for i in range(n):
                v += scale * kb[i, a] * grad_s[i]
            g[a] = v
        # Hessian: lam K_JJ + 2 scale sum_active w_i w_j (k_i - k_j)(k_i - k_j)'
        _pair_hessian(h, m, kb, s, classes, count, first)
        for a in range(m):
            for b in range(m):
                h[a, b] = lam * gram[a, b] + 2.0 * scale * h[a, b]
            h[a, a] += 1e-12 * (1.0 + h[a, a])
        _cholesky_solve(h, g, step)
        decrease = 0.0
        for a in range(m):
            decrease += g[a] * step[a]
        if decrease <= tol * max(abs(obj), 1e-300):
            break
        lr = 1.0
        while True:
            for a in range(m):
                trial[a] = beta[a] - lr * step[a]
            new = _objective(trial, m, kb, gram, s, classes, grad_s, count, first, lam, scale)
            if new <= obj - 0.25 * lr * decrease or lr < 1e-10:
                break
            lr *= 0.5
        for a in range(m):
            beta[a] = trial[a]
        obj = new
    _objective(beta, m, kb, gram, s, classes, grad_s, count, first, lam, scale)
    return obj, s, grad_s, count, first, it


@njit(cache=True, nogil=True)
def _negatives_by_score(s, neg_idx):
    """Return the positions in ``neg_idx`` ordered by the score ``s`` (ascending)."""
    s_neg = np.empty(neg_idx.shape[0])
    for a in range(neg_idx.shape[0]):
        s_neg[a] = s[neg_idx[a]]
    return np.argsort(s_neg)


@njit(cache=True, nogil=True)
def _pair_hessian(h, m, kb, s, classes, count, first):
    """``h = sum_active w_i w_j (k_i - k_j)(k_i - k_j)'`` over active pairs, O(n m^2 + n log n).

    ``count`` and ``first`` are those of :func:`_pair_terms` at the current scores.
    """
    pos_idx, neg_idx, weight = classes
    n_neg = neg_idx.shape[0]
    neg_sorted = _negatives_by_score(s, neg_idx)
    suffix = np.zeros((n_neg + 1, m))  # suffix sums of w_j k_j over negatives sorted by score
    for a in range(n_neg - 1, -1, -1):
        j = neg_idx[neg_sorted[a]]
        wj = weight[j]
        for b in range(m):
            suffix[a, b] = suffix[a + 1, b] + wj * kb[j, b]
    for a in range(m):
        for b in range(m):
            h[a, b] = 0.0
    for k in range(kb.shape[0]):  # diagonal part: sum_k count_k k_k k_k'
        c = count[k]
        if c == 0.0:
            continue
        for a in range(m):
            v = c * kb[k, a]
            for b in range(m):
                h[a, b] += v * kb[k, b]
    for a_pos in range(pos_idx.shape[0]):  # cross: - w_i k_i (sum_active w_j k_j)' - transpose
        i = pos_idx[a_pos]
        if count[i] == 0.0:
            continue
        lo = first[i]
        wi = weight[i]
        for a in range(m):
            for b in range(m):
                cross = wi * kb[i, a] * suffix[lo, b]
                h[a, b] -= cross
                h[b, a] -= cross


@njit(cache=True, nogil=True)
def sparse_kernel_fit(basis_idx, beta, sq, xrow, inv2s2, data, indices, indptr, y, candidates,
                      hp, end):
    """Greedy basis addition with Newton refits (Sparse Kernel, Kakkar et al. 2017).

    Parameters
    ----------
    basis_idx : ndarray of shape (B,), int64
        Output: training rows chosen as basis points, in order (-1 unused).
    beta : ndarray of shape (B,)
        Output: their coefficients.
    sq : ndarray of shape (n,)
        Squared row norms.
    xrow : ndarray of shape (d,)
        Scratch for one dense row.
    inv2s2 : float
        ``1 / (2 sigma^2)``.
    data, indices, indptr, y
        Training rows and signed weights ``+-w`` (unweighted: labels in {-1, +1}).
    candidates : ndarray of shape (B, kappa), int64
        Random candidate rows for each addition (drawn by the caller).
    hp : SparseKernelHyper
        ``(lam, tol, max_newton)``.
    end : float
        Deadline (``time.perf_counter()`` seconds, inf for none; :mod:`._clock`), looked
        at before each addition after the first.

    Returns
    -------
    n_basis : int
        Number of basis points chosen.
    n_newton : int
        Total Newton iterations.
    status : int
        ``OK``, ``DIVERGED`` or ``OUT_OF_TIME`` (the basis so far, refitted, is the model).
    """
    n = y.shape[0]
    budget = basis_idx.shape[0]
    gram = np.zeros((budget, budget))  # kernel matrix of the basis
    kb = np.zeros((n, budget))  # kernel columns k(x_i, s_j)
    n_pos = 0
    for i in range(n):
        if y[i] > 0:
            n_pos += 1
    pos_idx = np.empty(n_pos, dtype=np.int64)
    neg_idx = np.empty(n - n_pos, dtype=np.int64)
    a = b = 0
    for i in range(n):
        if y[i] > 0:
            pos_idx[a] = i
            a += 1
        else:
            neg_idx[b] = i
            b += 1
    weight = np.abs(y)
    w_pos = w_neg = 0.0  # class weight sums (unweighted: the class sizes)
    for i in range(n):
        if y[i] > 0:
            w_pos += weight[i]
        else:
            w_neg += weight[i]
    # each class's weights brought to a sum in [1, 2) (every term below is a product with
    # ``scale``: the same bits, with no overflow of w_i w_j whatever their scale)
    f_pos, f_neg = unit_power(w_pos), unit_power(w_neg)
    for i in range(n):
        weight[i] *= f_pos if y[i] > 0 else f_neg
    w_pos, w_neg = w_pos * f_pos, w_neg * f_neg
    classes = (pos_idx, neg_idx, weight)
    scale = 1.0 / (w_pos * w_neg)  # mean over the pairs, weighted by w_i w_j
    is_basis = np.zeros(n, dtype=np.bool_)
    col = np.empty(n)
    s = np.zeros(n)
    grad_s = np.empty(n)
    count = np.empty(n)
    first = np.zeros(n, dtype=np.int64)
    _pair_terms(s, classes, grad_s, count, first)
    total_newton = 0
    m = 0
    for stage in range(budget):
        if stage and past(end):
            return m, total_newton, OUT_OF_TIME
        best, best_gain = -1, 0.0
        for c in range(candidates.shape[1]):
            cand = candidates[stage, c]
            if is_basis[cand]:
                continue
            # one-dimensional Newton gain g^2 / (2 h) of adding k(., x_cand) at beta = 0
            g = 0.0
            row_to_dense(xrow, data, indices, indptr, cand)
            for i in range(n):
                kv = _gauss(sq[i] + sq[cand] - 2.0 * row_dot(xrow, data, indices, indptr, i),
                            inv2s2)
                col[i] = kv
                g += grad_s[i] * kv
            g *= scale
            for j in range(m):  # regulariser cross term lam sum_j beta_j k(s_j, x_cand)
                g += hp.lam * beta[j] * col[basis_idx[j]]
            hh = hp.lam + 2.0 * scale * _quad_form(col, s, classes, count, first)  # k(x,x)=1
            gain = g * g / (2.0 * hh)
            if gain > best_gain:
                best, best_gain = cand, gain
        if best < 0:
            break
        is_basis[best] = True
        basis_idx[m] = best
        row_to_dense(xrow, data, indices, indptr, best)
        for i in range(n):
            kb[i, m] = _gauss(sq[i] + sq[best] - 2.0 * row_dot(xrow, data, indices, indptr, i),
                              inv2s2)
        for j in range(m + 1):
            value = kb[basis_idx[j], m]
            gram[m, j] = value
            gram[j, m] = value
        gram[m, m] = 1.0
        beta[m] = 0.0
        m += 1
        obj, s, grad_s, count, first, it = _newton(beta, m, kb, gram, classes, hp.lam, scale,
                                                   hp.max_newton, hp.tol)
        total_newton += it
        if exploding(obj):
            return m, total_newton, DIVERGED
    return m, total_newton, OK


@njit(cache=True, nogil=True)
def _quad_form(col, s, classes, count, first):
    """Return ``sum_active w_i w_j (c_i - c_j)^2`` over the active pairs of the scores ``s``.

    ``count`` and ``first`` are those of :func:`_pair_terms` at the scores ``s``.
    """
    pos_idx, neg_idx, weight = classes
    n_neg = neg_idx.shape[0]
    neg_sorted = _negatives_by_score(s, neg_idx)
    suffix = np.zeros(n_neg + 1)  # suffix sums of w_j c_j over the negatives sorted by score
    for a in range(n_neg - 1, -1, -1):
        j = neg_idx[neg_sorted[a]]
        suffix[a] = suffix[a + 1] + weight[j] * col[j]
    total = 0.0
    for k in range(col.shape[0]):
        total += count[k] * col[k] * col[k]
    for a in range(pos_idx.shape[0]):
        i = pos_idx[a]
        if count[i] > 0.0:
            total -= 2.0 * weight[i] * col[i] * suffix[first[i]]
    return total
