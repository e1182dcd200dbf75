"""The structural SVM for the partial AUC over FPR in [min_fpr, max_fpr] (Narasimhan &
Agarwal, ICML 2013) and its tight variant (KDD 2013), solved by the 1-slack cutting-plane
method of ``svm-perf``.

Objective (ICML 2013, section 4, the [0, beta] case; it is also the "tight" surrogate of
their KDD 2013 paper, which coincides with it when the range starts at 0):

    P(w) = (lam/2) ||w||^2 + R(w),
    R(w) = max_{q} 1/(W+ beta W-) sum_{i in P, j in N} v_i q_j max(0, 1 - 2 w.(x_i - x_j)),
    over 0 <= q_j <= v_j, sum_j q_j = beta W-,

the structural ROC-area surrogate of Joachims (2005) restricted to the positives against
the negatives of a set Z of weight beta W-, maximised over Z (with unit weights and
beta n- = k an integer: every set of k negatives; otherwise the last negative counts a
fraction). The most violated constraint (ICML 2013, section 4.2) takes for Z the
negatives with the highest scores ``w.x_j`` and then the ROC-area labeling of Joachims on
P x Z, so one cut costs a sort, O(n log n), and no pair is enumerated. ``v_i`` are sample
weights (a pair weighs ``v_i v_j``, integer weights equal duplicated rows).

The range [alpha, beta] with alpha > 0 (:func:`range_cut`; notes.md#pauc-svm-range): the
negatives, highest score first, are laid on [0, W-) by their weights (a negative of weight
v_j fills an interval of length v_j); the loss counts the part of that line inside
[alpha W-, beta W-). A positive i chooses the negative mass T_i ranked above it (a prefix of
that line) and the risk is

    R(w) = 1/(W+ (beta - alpha) W-) sum_i v_i max_{T_i} int_0^{T_i}
           ( 1[t in [alpha W-, beta W-)] + kappa q(t) (s(t) - s_i) ) dt,

s(t) the score of the negative at t, q(t) = 1 for the structural surrogate of ICML 2013
(its general-range formulation: the joint feature map covers every negative) and
q(t) = 1[t < beta W-] for the tight one of KDD 2013 (the feature map covers only the
negatives that can lie in [0, beta], so the pairs with the negatives below the range do
not count). With unit weights and integer alpha n-, beta n- the T_i are counts of
negatives and this is the papers' max over orderings: the highest-scored negatives
first is the best order for every positive at once (an exchange argument), and each
positive's best prefix ends in one of three zones (above the range, inside, below it),
found by one binary search each: O(n log n) per cut. With ``alpha = 0`` the tight
surrogate is the [0, beta] one above; the structural one is too, since ICML 2013 treats
[0, beta] with the top-beta output space (both call :func:`pauc_cut`).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels._state import zeros
from ..utils._param_validation import Interval, Options
from ._batch import BATCH, batch_common, spread_lam
from ._params import POSITIVE, KernelScalars, Param
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from .batch_pairwise import (
    SVM_PERF_SPREAD,
    BatchPairwiseState,
    coef,
    run_cutting_plane,
    upgrade_state,
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
    spread_lam(SVM_PERF_SPREAD, r"Regularisation :math:`\lambda = 1/C` of the structural SVM."),
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
        (the most violated constraint exceeds :math:`\xi` by at most ``tol``).""",
          kernel=float),
    *batch_common(max_iter=1000, max_iter_doc="Maximum number of cutting planes (QP solves).",
                  shuffle_default=False,
                  warm_start="Take the first cut at the previous solution instead of at zero.",
                  shuffle="Ignored (the solution does not depend on the sample order).",
                  random_state="Unused (deterministic); kept for the common estimator API.",
                  verbose="Log one line when the solve is done."),
)

hyper = KernelScalars("SvmPaucHyper", __name__, PARAMS)
SvmPaucHyper = hyper.type


def top_share(scores: np.ndarray, y: np.ndarray, max_fpr: float) -> np.ndarray:
    """Return the weights ``q_j`` of the negatives in the most violated constraint.

    The negatives, highest score first (ties: the earlier row), take their whole weight
    ``v_j`` until ``max_fpr W-`` is reached, the last one a fraction (0 for the positives).
    With unit weights and ``max_fpr n-`` an integer k these are the k top-scored negatives
    of ICML 2013, section 4.2; in general the top ``max_fpr`` share of the negative
    weight, which keeps the risk convex and integer weights equal to duplicated rows.
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

    A pair (i+, j-) is violated when ``1 - kappa (s_i - s_j) > 0``; with the negatives'
    weights ``q_j`` of :func:`top_share`, ``delta`` is the weight ``v_i q_j`` of the violated
    pairs over ``W+ max_fpr W-`` and ``g = kappa/(W+ max_fpr W-) sum v_i q_j (x_i - x_j)``
    over them, computed as ``X^T e`` from per-row sums (two sorts).
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
    the best of the three is taken (the split by the position of the positive of ICML
    2013's and KDD 2013's most violated constraint algorithms, here over weighted pieces).
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


def _init_state(n_features, n_samples, params, rng=None):
    return zeros(BatchPairwiseState, n_features)


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """The whole solve on the data given (``order`` unused): svm-perf's cutting planes
    with the pAUC cut (:func:`pauc_cut` for ``min_fpr = 0``, else :func:`range_cut`)."""
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
    params=PARAMS,
    memory="O(k d) (k cutting planes) + data",
    cost="O(nnz + n log n + k d) per cut, k cuts",
    init_state=_init_state,
    run=run,
    check_params=check_params,
    coef=coef,
    state=(BatchPairwiseState,),
    upgrade_state=upgrade_state,
    warm_keys=("w",),
    step_param=None,
    equivalence_params={},
    weights="statistics",
    grid={"lam": tuple(2.0**k for k in range(-10, 11))},
    quick_grid={"lam": ("auto", 2.0**-8, 2.0**-5, 2.0**-2)},
    notes="Structural SVM for pAUC over FPR in [0, max_fpr] (Narasimhan & Agarwal, ICML 2013, "
    "section 4): the svm-perf surrogate on the positives against the top max_fpr share of "
    "the negatives; 1-slack cutting planes with an O(n log n) most violated constraint, stops at "
    "a certified duality gap <= tol. With max_fpr=1 it is svm-perf. min_fpr > 0: the range "
    "[min_fpr, max_fpr], with the structural surrogate of ICML 2013 (hinge terms on every "
    "negative) or, surrogate=\"tight\", SVMpAUC-tight of KDD 2013 (terms on the top max_fpr "
    "share only; never larger); weighted and fractional ranges in notes.md#pauc-svm-range. "
    "Default lam=\"auto\" as svm-perf.",
    **BATCH,
))
