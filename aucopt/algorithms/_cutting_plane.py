"""1-slack cutting-plane solver for the pairwise hinge (ROC-area) SVMs, without pair enumeration.

Shared by ``b-svm-or`` (Joachims 2006) and ``svm-perf`` (Joachims 2005;
Natole 2020, Algorithms 13 and 15). Both minimise

    P(w) = (lam/2) ||w||^2 + R(w),
    R(w) = 1/(W+ W-) sum_{i in +, j in -} v_i v_j max(0, 1 - kappa w.(x_i - x_j)),

``kappa = 1`` for the ordinal-regression form (RankSVM) and ``kappa = 2`` for the
structural form of Joachims (2005), whose joint feature map
``Psi(x, y') = sum_ij y'_ij (x_i - x_j)`` changes by ``2 (x_i - x_j)`` per swapped pair
while the loss changes by 1.

R is the maximum of the affine functions ``delta(S) - g(S).w`` over the swap sets S
(one per "labeling" y'): ``delta(S) = v(S)/(W+ W-)``, ``g(S) = kappa/(W+ W-) sum_{(i,j) in S}
v_i v_j (x_i - x_j)``, with the sample weights ``v_i`` (1 unweighted), their class sums
``W+-`` (``n+-`` unweighted) and ``v(S)`` the weight of the pairs in S
(notes.md#sample-weights: a pair counts with the product of its weights). The most
violated S at w is found in O(n log n) by one sort (thesis Algorithm 15,
:func:`most_violated_roc`), and ``g(S) = X^T e`` with a per-sample
coefficient vector e, so neither the loss, nor its subgradient, nor a cut ever
enumerates the n+ n- pairs.

The working-set problem ``min_w (lam/2)||w||^2 + max_k (delta_k - g_k.w)`` is solved in
the dual, a quadratic programme over the simplex,

    max_{alpha in simplex} delta.alpha - ||A^T alpha||^2 / (2 lam),   w = A^T alpha / lam,

by an exact primal active-set method (:func:`simplex_qp`). Stopping rule: the
certified duality gap ``P(w) - D(alpha) <= tol``; since ``D(alpha) <= min P``, the
returned w is within ``tol`` of the optimal objective (absolute; ``P(0) = 1``, so this
is also relative to the objective at zero). This is the same test as Joachims'
"stop when the most violated constraint is violated by at most xi + epsilon".
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._batch import class_totals
from ._spec import RowData

__all__ = ["as_matrix", "most_violated_roc", "pairwise_hinge", "simplex_qp", "cutting_plane"]


def as_matrix(rows: RowData):
    """Return the rows as a dense ndarray or a scipy CSR matrix (no copy of the data)."""
    if rows.is_sparse:
        return sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                             shape=(rows.n_samples, rows.n_features))
    return rows.data


def most_violated_roc(scores: np.ndarray, y: np.ndarray, kappa: float = 2.0):
    """Most violated ROC-area labeling for the scores ``w.x_i`` (thesis Algorithm 15).

    Positives get ``kappa s_i - 1/2``, negatives ``kappa s_i + 1/2`` (for ``kappa = 2``
    this is Alg. 15's ``(s_i -+ 1/4)`` up to the factor 2); the examples are scanned in
    *decreasing* order (notes.md#svm-perf-order: the counters only give the right coefficients for a
    decreasing scan; Joachims' svm_perf sorts the same way), with ``s_p`` counting the
    positives not yet scanned and ``s_n`` the negatives already scanned.

    With sample weights every pair (i, j) counts ``v_i v_j`` times
    (notes.md#sample-weights): the counters become weight sums, so an integer weight
    ``k`` gives the coefficients of ``k`` copies of the row.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        ``X w``.
    y : ndarray of shape (n,)
        Signed weights ``±v_i`` (the sign is the class; ``±1`` unweighted).
    kappa : float
        Scale of w in the margin (2: structural form, 1: RankSVM).

    Returns
    -------
    swapped : float
        Weight ``sum v_i v_j`` of the pairs (i+, j-) with ``1 - kappa w.(x_i - x_j) > 0``
        (Delta; their number for unit weights).
    c : ndarray of shape (n,)
        Coefficients of ``Psi(x, y') = sum_i c_i x_i`` of the most violated labeling:
        ``v_i (W- - 2 s_n)`` for a positive, ``v_i (-W+ + 2 s_p)`` for a negative, with
        ``W+-`` the class weight sums and ``s_p, s_n`` the scan's counters as weight sums.
    """
    pos = y > 0
    v = np.abs(y)
    w_pos, w_neg = class_totals(y)
    adjusted = kappa * scores + np.where(pos, -0.5, 0.5)
    order = np.argsort(-adjusted, kind="stable")
    pos_sorted = pos[order]
    v_sorted = v[order]
    v_neg = np.where(pos_sorted, 0.0, v_sorted)
    v_pos = v_sorted - v_neg
    neg_before = np.cumsum(v_neg) - v_neg                  # s_n when the item is reached
    pos_after = w_pos - np.cumsum(v_pos)                   # s_p after the item (positives)
    c_sorted = v_sorted * np.where(pos_sorted, w_neg - 2.0 * neg_before,
                                   -w_pos + 2.0 * pos_after)
    c = np.empty(len(y))
    c[order] = c_sorted
    swapped = float(v_pos @ neg_before)
    return swapped, c


def _cut(X, y, w, kappa):
    """Return ``(delta, g, risk)``: the most violated cut at w and the exact R(w)."""
    w_pos, w_neg = class_totals(y)
    pairs = w_pos * w_neg
    swapped, c = most_violated_roc(np.asarray(X @ w).ravel(), y, kappa)
    c_true = y * np.where(y > 0, w_neg, w_pos)             # Psi(x, y) of the true ranking
    e = (c_true - c) * (kappa / (2.0 * pairs))
    g = np.asarray(X.T @ e).ravel()
    delta = swapped / pairs
    return delta, g, delta - g @ w


def pairwise_hinge(X, y, w, kappa: float = 1.0) -> float:
    """Return ``R(w)``, the mean over (i+, j-) of ``max(0, 1 - kappa w.(x_i - x_j))`` weighted
    by ``v_i v_j`` (``y = ±v``), in O(n log n)."""
    return _cut(X, y, np.asarray(w, dtype=np.float64), kappa)[2]


def simplex_qp(Q, b, alpha0, max_steps=None):
    """Minimise ``a^T Q a / 2 - b^T a`` over the simplex by a primal active-set method.

    Parameters
    ----------
    Q : ndarray of shape (k, k)
        Symmetric positive semidefinite (a tiny ridge is added for a unique solution).
    b : ndarray of shape (k,)
    alpha0 : ndarray of shape (k,)
        A feasible start (non-negative, sums to 1); its support is the first working set.
    max_steps : int, optional
        Cap on active-set changes (default ``20 k + 100``).

    Returns
    -------
    ndarray of shape (k,)
        A feasible point (exactly on the simplex).
    """
    k = len(b)
    scale = max(float(np.max(np.diag(Q))), 1e-300)
    Qr = Q + (1e-12 * scale) * np.eye(k)
    alpha = np.asarray(alpha0, dtype=np.float64).copy()
    free = alpha > 0
    tol = 1e-13 * max(scale, float(np.max(np.abs(b))), 1.0)
    for _ in range(max_steps or 20 * k + 100):
        idx = np.flatnonzero(free)
        m = len(idx)
        kkt = np.zeros((m + 1, m + 1))
        kkt[:m, :m] = Qr[np.ix_(idx, idx)]
        kkt[:m, m] = kkt[m, :m] = 1.0
        rhs = np.append(b[idx], 1.0)
        try:
            sol = np.linalg.solve(kkt, rhs)
        except np.linalg.LinAlgError:
            sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
        z, nu = sol[:m], sol[m]
        if np.all(z > 0):
            alpha[:] = 0.0
            alpha[idx] = z
            mult = Qr @ alpha - b + nu          # >= 0 at inactive indices at the optimum
            mult[free] = np.inf
            j = int(np.argmin(mult))
            if mult[j] >= -tol:
                break
            free[j] = True
            continue
        # move towards z until the first coordinate hits zero, and drop it
        step = z - alpha[idx]
        shrink = step < 0
        ratios = np.full(m, np.inf)
        ratios[shrink] = alpha[idx][shrink] / -step[shrink]
        t = min(1.0, float(ratios.min()))
        # a singular system (all cuts zero: X = 0) gives infinite z and t = 0; the NaN of
        # 0 * inf leaves the working set below and the restart at a vertex follows
        with np.errstate(invalid="ignore"):
            alpha[idx] += t * step
        hit = idx[ratios <= t]
        alpha[hit] = 0.0
        alpha[alpha < 0] = 0.0
        free = alpha > 0
        if not free.any():                      # numerical corner: restart at a vertex
            alpha[int(np.argmax(b))] = 1.0
            free = alpha > 0
    alpha = np.maximum(alpha, 0.0)
    return alpha / alpha.sum()


def cutting_plane(X, y, lam, *, kappa, tol, max_iter, w0=None, deadline=None, cut=None):
    """Solve ``min_w (lam/2)||w||^2 + R(w)`` by the 1-slack cutting-plane method.

    Parameters
    ----------
    X : ndarray or scipy CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Signed sample weights ``±v_i`` (``±1`` unweighted), both classes present.
    lam : float
        l2 weight.
    kappa : float
        Margin scale of R (see the module docstring).
    tol : float
        Stop when the certified duality gap ``P(w) - D(alpha)`` is at most ``tol``.
    max_iter : int
        Maximum number of cuts (working-set QPs).
    w0 : ndarray of shape (d,), optional
        Where the first cut is taken (warm start); zero by default.
    deadline : Deadline, optional
        Stop adding cuts once it has passed (:mod:`aucopt.algorithms._time_budget`).
    cut : callable, optional
        ``cut(X, y, w, kappa) -> (delta, g, risk)``: the most violated cut at w and the
        exact risk R(w), for another structured risk (the partial-AUC SVM); default the
        ROC area's.

    Returns
    -------
    w : ndarray of shape (d,)
        The last iterate, or the start ``w0`` if its ``P`` is lower (the objective at
        the working set's solutions need not decrease: where ``w = 0`` minimises ``P``
        to within ``tol``, the last solution can end above it, with a direction that only
        the order of the cuts chose).
    n_iter : int
        Number of cuts added.
    gap : float
        ``P(w) - D(alpha)`` at the returned w (an upper bound of its suboptimality).
    """
    d = X.shape[1]
    w = np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    cuts = np.zeros((8, d))           # row 0: the cut xi >= 0 (delta = 0, g = 0)
    gram = np.zeros((8, 8))
    deltas = [0.0]
    alpha = np.ones(1)
    dual = 0.0
    n_iter = 0
    start = None  # (P, w) at the start
    while True:
        delta, g, risk = (cut or _cut)(X, y, w, kappa)
        primal = 0.5 * lam * (w @ w) + risk
        if start is None:
            start = (primal, w)
        if primal - dual <= tol or n_iter >= max_iter or (n_iter and deadline is not None
                                                           and deadline.passed()):
            if start[0] < primal:
                return start[1], n_iter, start[0] - dual
            return w, n_iter, primal - dual
        k = len(deltas)
        if k == cuts.shape[0]:        # grow the working set storage geometrically
            cuts = np.vstack([cuts, np.zeros_like(cuts)])
            bigger = np.zeros((2 * k, 2 * k))
            bigger[:k, :k] = gram
            gram = bigger
        cuts[k] = g
        gram[k, : k + 1] = gram[: k + 1, k] = cuts[: k + 1] @ g
        deltas.append(delta)
        n_iter += 1
        alpha = simplex_qp(gram[: k + 1, : k + 1] / lam, np.asarray(deltas),
                           np.append(alpha, 0.0))
        w = alpha @ cuts[: k + 1] / lam
        dual = float(np.asarray(deltas) @ alpha) - 0.5 * lam * (w @ w)
