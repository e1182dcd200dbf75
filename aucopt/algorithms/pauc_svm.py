"""The structural SVM for the partial AUC over FPR in [min_fpr, max_fpr] (Narasimhan &
Agarwal, ICML 2013) and its tight variant SVMpAUC-tight (KDD 2013), solved by the 1-slack
cutting-plane method of ``svm-perf``.

The papers' problem (ICML 2013; the one-slack structural SVM of Joachims 2005) is
``min (1/2)||u||^2 + C xi`` subject to ``xi >= Delta(pi*, pi) - u.(phi(pi*) - phi(pi))``
for every output ``pi``: an m x n matrix of 0/1 entries, 1 where positive i is ranked below
negative j, with ``phi(pi) = sum (1 - pi_ij)(x_i - x_j)`` over the same normaliser as
Delta, so a swapped pair moves the feature map by ``x_i - x_j``. ``Delta`` is the empirical
``1 - pAUC(alpha, beta)``: over ``m n (beta - alpha)``, each positive counts the negatives
of rank ``j_alpha + 1 .. j_beta`` above it (``j_alpha = ceil(n alpha)``,
``j_beta = floor(n beta)``) and the two boundary negatives with the fractions
``j_alpha - n alpha`` and ``n beta - j_beta``.

This module minimises ``P(w) = (lam/2) ||w||^2 + R(w)`` with ``R`` the same 1-slack risk
written with the margin on ``kappa w.(x_i - x_j)``, ``kappa = 2`` (svm-perf's feature map,
``+-1`` entries): the papers' problem at ``C = 4/lam`` with ``u = 2 w`` (same ranking;
tests/algorithms/test_pauc_svm_range.py checks it against the papers' form solved by a
generic QP). The stop, ``P(w) - D <= tol``, is the papers' test of the 1-slack loop (ICML
2013 supplement, Algorithm 2), a new constraint exceeding the working-set slack by at most
epsilon: with the working-set QP solved exactly the two quantities are equal. The
papers' experiments use ``epsilon = 1e-4``; the default ``tol`` here is svm-perf's
``1e-3``.

[0, beta] (``min_fpr = 0``; :func:`pauc_cut`): the output space is a set Z of ``beta n``
negatives and an ordering of P x Z, so

    R(w) = max_{q} 1/(W+ beta W-) sum_{i in P, j in N} v_i q_j max(0, 1 - 2 w.(x_i - x_j)),
    over 0 <= q_j <= v_j, sum_j q_j = beta W-

(with unit weights and ``beta n`` an integer: every set of that many negatives; else the
last one counts a fraction). The most violated constraint takes for Z the negatives with
the highest scores (the negatives separated by a positive keep their score order: ICML
2013, Theorem 1) and then Joachims' ROC-area labeling on P x Z: one sort, O(n log n), no
pair enumerated. ``v_i`` are sample weights (a pair weighs ``v_i v_j``; integer weights
equal duplicated rows). SVMpAUC-tight coincides with this for ``alpha = 0``.

[alpha, beta] with alpha > 0 (:func:`range_cut`; notes.md#pauc-svm-range): the negatives,
highest score first, are laid on [0, W-) by their weights (a negative of weight v_j fills
an interval of length v_j); the loss counts the part of that line inside [alpha W-, beta
W-). A positive i chooses the negative mass T_i ranked above it (a prefix of that line) and
the risk is

    R(w) = 1/(W+ (beta - alpha) W-) sum_i v_i max_{T_i} int_0^{T_i}
           ( 1[t in [alpha W-, beta W-)] + kappa q(t) (s(t) - s_i) ) dt,

s(t) the score of the negative at t, q(t) = 1 for the structural surrogate of ICML 2013
(its output space orders the positives against all n negatives) and q(t) = 1[t < beta W-]
for the tight one of KDD 2013 (the output space is a set of ``beta n`` negatives, the
top-scored ones in the most violated constraint, and an ordering of the positives against
them, so the pairs with the negatives below the range drop out; never larger). With unit
weights and integer ``alpha n, beta n`` the T_i are counts of negatives and this is the
papers' max over orderings: by Theorem 1 the score order of the negatives is the best for
every positive at once, and each positive's row is then optimised on its own, its best
prefix ending in one of three zones (above the range, inside, below it), one binary search
each: O(n log n) per cut, the cost the paper states for its most violated constraint
routine (ICML 2013, Algorithm 1). With a fractional ``beta n`` a positive may stop inside
the negative straddling ``beta W-``, where the papers' positives sit between whole
negatives: the risk is then slightly above theirs (notes.md#pauc-svm-range).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels._state import zeros
from ..utils._param_validation import Interval, Options
from ._batch import BATCH, ORDER_FREE_PRECONDITIONED, batch_common, spread_lam
from ._params import POSITIVE, KernelScalars, Param, precondition
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from .batch_pairwise import (
    SVM_PERF_SPREAD,
    BatchPairwiseState,
    coef,
    run_cutting_plane,
    upgrade_state,
    zero_minimiser,
)
from .pauc import max_fpr_param

__all__ = ["PARAMS", "SvmPaucHyper", "SVM_PAUC", "top_share", "pauc_cut", "range_cut",
           "check_params", "hyper"]

PAPER = (
    "H. Narasimhan, S. Agarwal. A structural SVM based approach for optimizing partial AUC. "
    "ICML 2013; SVMpAUC-tight: a new support vector method for optimizing partial AUC based "
    "on a tight convex upper bound. KDD 2013."
)

PARAMS = (
    spread_lam(SVM_PERF_SPREAD, r"""Regularisation :math:`\lambda`. Narasimhan & Agarwal
        write :math:`\frac12\|u\|^2 + C\xi` with the margin on :math:`u\cdot(x_i - x_j)`;
        here it is on :math:`2 w\cdot(x_i - x_j)` (svm-perf's feature map), so their
        :math:`C` is :math:`4/\lambda` and :math:`u = 2w` (the same ranking)."""),
    max_fpr_param(),
    Param("min_fpr", 0.0, (Interval(Real, 0, 1, closed="left"),), "float", r"""
        Lower end :math:`\alpha` of the false-positive range :math:`[\alpha, \beta]`
        (``max_fpr`` is :math:`\beta`); must be below ``max_fpr``. 0 gives the range
        :math:`[0, \beta]`, where both surrogates coincide."""),
    Param("surrogate", "structural", (Options(str, {"structural", "tight"}),),
          '{"structural", "tight"}', r"""
        Which convex upper bound of :math:`1 - \mathrm{pAUC}(\alpha, \beta)` is
        minimised when ``min_fpr > 0``: ``"structural"``, the structural SVM of Narasimhan
        & Agarwal (ICML 2013), whose hinge terms cover the positives against every
        negative, or ``"tight"``, SVMpAUC-tight (KDD 2013), whose terms stop at the
        negatives that can lie in :math:`[0, \beta]` (never larger). Same solver."""),
    Param("tol", 1e-3, (POSITIVE,), "float", r"""
        Stop when the certified duality gap :math:`P(w) - D(\alpha)` is at most ``tol``
        (the most violated constraint exceeds :math:`\xi` by at most ``tol``: the
        :math:`\varepsilon` of the papers' cutting-plane loop, ICML 2013 supplement,
        Algorithm 2; their experiments use :math:`10^{-4}`).""",
          kernel=float),
    *batch_common(max_iter=1000, max_iter_doc="Maximum number of cutting planes (QP solves).",
                  shuffle_default=False,
                  warm_start="Take the first cut at the previous solution instead of at zero.",
                  shuffle=ORDER_FREE_PRECONDITIONED,
                  random_state="Unused (deterministic); kept for the common estimator API.",
                  verbose="Log one line when the solve is done."),
)

hyper = KernelScalars("SvmPaucHyper", __name__, PARAMS)
SvmPaucHyper = hyper.type


def top_share(scores: np.ndarray, y: np.ndarray, max_fpr: float) -> np.ndarray:
    """Return the weights ``q_j`` of the negatives in the most violated constraint.

    The negatives, highest score first (ties: the earlier row), take their whole weight
    ``v_j`` until ``max_fpr W-`` is reached, the last one a fraction (0 for the positives).
    With unit weights and ``max_fpr n-`` an integer k these are the k top-scored negatives,
    the set Z of the [0, beta] most violated constraint (ICML 2013, Theorem 1: the
    negatives keep their score order); in general the top ``max_fpr`` share of the
    negative weight, which keeps the risk convex and integer weights equal to duplicated
    rows (a negative straddling ``max_fpr W-`` counts the fraction ``n beta - j_beta`` of
    the papers' empirical pAUC).
    """
    neg = np.flatnonzero(y < 0)
    v = np.abs(y[neg])
    order = np.argsort(-scores[neg], kind="stable")
    budget = max_fpr * v.sum()
    before = np.cumsum(v[order]) - v[order]
    q = np.zeros(y.shape[0])
    q[neg[order]] = np.clip(budget - before, 0.0, v[order])
    return q


def _active_weights(s_from, s_to, w_to, shift):
    """For each ``s_from``, the weight sum of the ``s_to`` with ``s_to > s_from + shift``."""
    order = np.argsort(s_to, kind="stable")
    suffix = np.concatenate([np.cumsum(w_to[order][::-1])[::-1], [0.0]])
    return suffix[np.searchsorted(s_to[order], s_from + shift, side="right")]


def pauc_cut(X, y, w, kappa, max_fpr):
    """Return ``(delta, g, risk)``: the most violated pAUC cut at w and the exact R(w).

    The [0, beta] case of ICML 2013 (module docstring): Joachims' ROC-area labeling on the
    positives against the top-scored negatives. A pair (i+, j-) is violated when
    ``1 - kappa (s_i - s_j) > 0``; with the negatives' weights ``q_j`` of
    :func:`top_share`, ``delta`` (the papers' ``Delta(pi*, pi)``) is the weight
    ``v_i q_j`` of the violated pairs over ``W+ max_fpr W-`` and
    ``g = kappa/(W+ max_fpr W-) sum v_i q_j (x_i - x_j)`` (``phi(pi*) - phi(pi)`` with
    ``kappa = 2`` for ``kappa = 1``, module docstring) over them, computed as ``X^T e``
    from per-row sums (two sorts).
    """
    scores = np.asarray(X @ w).ravel()
    pos = y > 0
    q = top_share(scores, y, max_fpr)
    zmask = q > 0
    sp, vp = scores[pos], np.abs(y[pos])
    sz, qz = scores[zmask], q[zmask]
    norm = vp.sum() * max_fpr * np.abs(y[~pos]).sum()
    # positive i: the q-weight of the negatives above s_i - 1/kappa; negative j: the
    # positive weight below s_j + 1/kappa
    e = np.zeros(y.shape[0])
    e[pos] = vp * _active_weights(sp, sz, qz, -1.0 / kappa)
    e[zmask] = -qz * _active_weights(-sz, -sp, vp, -1.0 / kappa)
    swapped = float(e[pos].sum())
    g_scores = float(e @ scores)  # sum over violated pairs of v_i q_j (s_i - s_j)
    e *= kappa / norm
    g = np.asarray(X.T @ e).ravel()
    delta = swapped / norm
    return delta, g, delta - kappa * g_scores / norm


def _zones(scores, y, min_fpr, max_fpr):
    """The negatives, highest score first (ties: the earlier row), cut at the masses
    ``min_fpr W-`` and ``max_fpr W-``: for each zone (above the range, inside, below),
    ``(rows, scores, masses)`` of its pieces in order (a negative straddling a boundary
    gives a piece to each side)."""
    neg = np.flatnonzero(y < 0)
    order = np.argsort(-scores[neg], kind="stable")
    rows, mass = neg[order], np.abs(y[neg[order]])
    total = mass.sum()
    end = np.cumsum(mass)
    start = end - mass
    lo, hi = min_fpr * total, max_fpr * total
    parts = (np.minimum(end, lo) - start,
             np.minimum(end, hi) - np.maximum(start, lo),
             end - np.maximum(start, hi))
    zones = []
    for part in parts:
        keep = part > 0
        zones.append((rows[keep], scores[rows[keep]], part[keep]))
    return zones


def _prefix(t, m, at):
    """For each ``at``, over the pieces (scores ``t`` decreasing, masses ``m``) with
    ``t > at``: their count, mass and mass-weighted score sum."""
    r = np.searchsorted(-t, -at, side="left")
    cm = np.concatenate([[0.0], np.cumsum(m)])
    cs = np.concatenate([[0.0], np.cumsum(m * t)])
    return r, cm[r], cs[r]


def _covered(r, weight, size):
    """Weight of the positives covering piece p (those with prefix length ``r > p``)."""
    counts = np.bincount(r, weights=weight, minlength=size + 1)
    return np.cumsum(counts[::-1])[::-1][1:]


def range_cut(X, y, w, kappa, min_fpr, max_fpr, tight):
    """Return ``(delta, g, risk)``: the most violated cut at w for the range
    ``[min_fpr, max_fpr]`` and the exact R(w) (module docstring).

    Each positive's best prefix of the score-sorted negative mass ends in one of three
    zones: above the range (its pieces scoring above s_i, no loss term), inside it (the
    whole first zone, then the pieces scoring above s_i - 1/kappa) or, for the structural
    surrogate, below it (the first two zones whole, then the pieces scoring above s_i);
    the best of the three is taken (the tight surrogate has no third zone). As in the
    papers' routine (ICML 2013, Theorem 1 and Algorithm 1; KDD 2013 for the tight one),
    once the negatives are in score order each positive is placed on its own; here the
    places are pieces of weighted mass, and ``delta`` is the papers' ``Delta`` with its
    fractional end terms.
    """
    scores = np.asarray(X @ w).ravel()
    pos = np.flatnonzero(y > 0)
    sp, vp = scores[pos], y[pos]
    zones = _zones(scores, y, min_fpr, max_fpr)
    if tight:
        zones[2] = tuple(a[:0] for a in zones[2])
    (r1, t1, m1), (r2, t2, m2), (r3, t3, m3) = zones
    full1 = kappa * (m1 @ t1 - sp * m1.sum())          # every piece above the range
    full2 = m2.sum() + kappa * (m2 @ t2 - sp * m2.sum())
    c1, mass1, sum1 = _prefix(t1, m1, sp)
    c2, mass2, sum2 = _prefix(t2, m2, sp - 1.0 / kappa)
    c3, mass3, sum3 = _prefix(t3, m3, sp)
    gains = np.stack([kappa * (sum1 - sp * mass1),
                      full1 + mass2 + kappa * (sum2 - sp * mass2),
                      full1 + full2 + kappa * (sum3 - sp * mass3)])
    best = np.argmax(gains, axis=0)  # first of equal gains (tight: zone 3 is empty)
    # prefix length in each zone for each positive
    n1 = np.where(best == 0, c1, len(t1))
    n2 = np.where(best == 0, 0, np.where(best == 1, c2, len(t2)))
    n3 = np.where(best == 2, c3, 0)
    norm = vp.sum() * (max_fpr - min_fpr) * np.abs(y[y < 0]).sum()
    e = np.zeros(y.shape[0])
    e[pos] = vp * (np.concatenate([[0.0], np.cumsum(m1)])[n1]
                   + np.concatenate([[0.0], np.cumsum(m2)])[n2]
                   + np.concatenate([[0.0], np.cumsum(m3)])[n3])
    for rows, mass, n in ((r1, m1, n1), (r2, m2, n2), (r3, m3, n3)):
        np.subtract.at(e, rows, mass * _covered(n, vp, len(rows)))
    swapped = float(vp @ np.concatenate([[0.0], np.cumsum(m2)])[n2])
    g_scores = float(e @ scores)  # sum over the pairs taken of v_i q_j (s_i - s_j)
    e *= kappa / norm
    g = np.asarray(X.T @ e).ravel()
    delta = swapped / norm
    return delta, g, delta - kappa * g_scores / norm


def check_params(params: dict) -> None:
    """Raise ValueError unless ``min_fpr < max_fpr``."""
    if not params["min_fpr"] < params["max_fpr"]:
        raise ValueError(
            f"The false-positive range [min_fpr, max_fpr] must have min_fpr < max_fpr, got "
            f"min_fpr={params['min_fpr']!r}, max_fpr={params['max_fpr']!r}.")


def zero_reason(state: dict, params: dict) -> str | None:
    """Why a fit ended with ``w = 0``: certified as the minimiser (None: not certified)."""
    if not zero_minimiser(state, params):
        return None
    return (f"w = 0 minimises the objective to within tol={float(params['tol']):g} "
            "(certified by the duality gap): either the penalty at "
            f"lam_={float(state['lam'][0]):.3g} outweighs what any direction gains, or the "
            f"hinge over the top max_fpr={float(params['max_fpr']):g} share of the negatives "
            "grows in every direction from a constant score, where no lam helps (when the "
            "positives' mean lies among the means of such shares of negatives: classes that "
            "overlap at the top of the ranking). Lower lam; if that does not help, raise "
            "max_fpr (e.g. 0.3) or use a learner with a smoothed top-share loss (pauc-sopa-s, "
            "pauc-sota-s).")


def _init_state(n_features, n_samples, params, rng=None):
    return zeros(BatchPairwiseState, n_features)


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """The whole solve on the data given (``order`` unused): the 1-slack cutting planes
    (ICML 2013 supplement, Algorithm 2, as svm-perf) with the pAUC cut (:func:`pauc_cut`
    for ``min_fpr = 0``, else :func:`range_cut`), margin scale ``kappa = 2``: the papers'
    ``C`` is ``4/lam`` (module docstring)."""
    max_fpr, min_fpr = float(params["max_fpr"]), float(params["min_fpr"])
    tight = params["surrogate"] == "tight"

    def cut(X, y, w, kappa):
        if min_fpr == 0.0:
            return pauc_cut(X, y, w, kappa, max_fpr)
        return range_cut(X, y, w, kappa, min_fpr, max_fpr, tight)

    return run_cutting_plane(state, rows, params, y, t, kappa=2.0, spread=SVM_PERF_SPREAD,
                             cut=cut)


SVM_PAUC = register(AlgorithmSpec(
    id="svm-pauc",
    name="SVM-pAUC (structural or tight, [min_fpr, max_fpr])",
    family="pauc_svm",
    paper=PAPER,
    source="Narasimhan & Agarwal, ICML 2013 and KDD 2013",
    params=(*PARAMS, precondition()),
    clip_rows=False,  # the loss is on the top-scored negatives, the rows a bound would shorten
    memory="O(k d) (k cutting planes) + data",
    cost="O(nnz + n log n + k d) per cut, k cuts",
    init_state=_init_state,
    run=run,
    check_params=check_params,
    zero_reason=zero_reason,
    coef=coef,
    state=(BatchPairwiseState,),
    upgrade_state=upgrade_state,
    warm_keys=("w",),
    step_param=None,
    equivalence_params={},
    weights="statistics",
    grid={"lam": tuple(2.0**k for k in range(-10, 11))},
    quick_grid={"lam": ("auto", 2.0**-8, 2.0**-5, 2.0**-2)},
    notes="Structural SVM for pAUC over FPR in [0, max_fpr] (Narasimhan & Agarwal, ICML 2013): "
    "the svm-perf surrogate on the positives against the top max_fpr share of the negatives; "
    "1-slack cutting planes (ICML 2013 supplement, Algorithm 2) with an O(n log n) most "
    "violated constraint (Theorem 1, Algorithm 1), stops at a certified duality gap <= tol "
    "(the papers' epsilon; they use 1e-4). The papers' C is 4/lam (their margin is on "
    "w.(x_i - x_j), svm-perf's on 2 w.(x_i - x_j)). With max_fpr=1 it is svm-perf. "
    "min_fpr > 0: the range "
    "[min_fpr, max_fpr], with the structural surrogate of ICML 2013 (hinge terms on every "
    "negative) or, surrogate=\"tight\", SVMpAUC-tight of KDD 2013 (terms on the top max_fpr "
    "share only; never larger); weighted and fractional ranges in notes.md#pauc-svm-range. "
    "Default lam=\"auto\" as svm-perf. Where no direction puts the positives' mean above "
    "the mean of the top max_fpr share of the negatives (classes that overlap at the top), "
    "w = 0 minimises the objective whatever lam: the fit returns zeros and warns (raise "
    "max_fpr).",
    **BATCH,
))
