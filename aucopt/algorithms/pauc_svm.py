"""The structural SVM for the partial AUC over FPR in [0, max_fpr] (Narasimhan & Agarwal,
ICML 2013), solved by the 1-slack cutting-plane method of ``svm-perf``.

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
"""

from __future__ import annotations

import numpy as np

from .._kernels._state import zeros
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

__all__ = ["PARAMS", "SvmPaucHyper", "SVM_PAUC", "top_share", "pauc_cut", "hyper"]

PAPER = (
    "H. Narasimhan, S. Agarwal. A structural SVM based approach for optimizing partial AUC. "
    "ICML 2013; SVMpAUC-tight: a new support vector method for optimizing partial AUC based "
    "on a tight convex upper bound. KDD 2013."
)

PARAMS = (
    spread_lam(SVM_PERF_SPREAD, r"Regularisation :math:`\lambda = 1/C` of the structural SVM."),
    max_fpr_param(),
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


def _init_state(n_features, n_samples, params, rng=None):
    return zeros(BatchPairwiseState, n_features)


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """The whole solve on the data given (``order`` unused): svm-perf's cutting planes
    with the pAUC cut."""
    max_fpr = float(params["max_fpr"])

    def cut(X, y, w, kappa):
        return pauc_cut(X, y, w, kappa, max_fpr)

    return run_cutting_plane(state, rows, params, y, t, kappa=2.0, spread=SVM_PERF_SPREAD,
                             cut=cut)


SVM_PAUC = register(AlgorithmSpec(
    id="svm-pauc",
    name="SVM-pAUC (structural, [0, max_fpr])",
    family="pauc_svm",
    paper=PAPER,
    source="Narasimhan & Agarwal, ICML 2013",
    params=PARAMS,
    memory="O(k d) (k cutting planes) + data",
    cost="O(nnz + n log n + k d) per cut, k cuts",
    init_state=_init_state,
    run=run,
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
    "a certified duality gap <= tol. With max_fpr=1 it is svm-perf. Default lam=\"auto\" as "
    "svm-perf.",
    **BATCH,
))
