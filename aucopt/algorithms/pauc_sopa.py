"""CVaR partial-AUC learner ``pauc-sopa``: SOPA of D. Zhu, G. Li, B. Wang, X. Wu, T. Yang,
"When AUC meets DRO: Optimizing partial AUC for deep learning with non-convex convergence
guarantee", ICML 2022 (section 4, Algorithm 1), the exact one-way partial AUC over FPR in
[0, max_fpr] through the CVaR of each positive's pairwise losses, for a linear scorer,
streaming; state, kernel and the shared declarations of SOPA-s (:mod:`.pauc_dro`).
"""

from __future__ import annotations

import numpy as np

from ._calibrate import StepCalibration
from ._params import POSITIVE, KernelScalars, Param, precondition
from ._registry import register
from ._spec import AlgorithmSpec
from .pauc import ETA_GRID, max_fpr_param, partial_auc_objective
from .pauc_dro import AUTO_ETA, COMMON_PARAMS, SHARED, dro_calls, eta_param

__all__ = ["PARAMS", "PAUC_SOPA", "cvar_objective", "hyper", "tiny_range", "ETA_S_GRID"]

ETA_S_GRID = (0.01, 0.1, 1.0)
_BLOCK = 2**20  # pairs per block of the exact objective

PARAMS = (
    eta_param("partial-AUC"),
    max_fpr_param(0.1, r"""each positive's loss is the conditional value at risk
        (CVaR) of its pairwise losses against the negatives at level :math:`\beta`, the
        mean of its :math:`\beta n_-` largest losses (the negatives that the model scores
        highest)"""),
    Param("eta_s", 0.1, (POSITIVE,), "float", r"""
        Step :math:`\eta_s` of the thresholds :math:`s_i` (one per stored positive, the
        paper's :math:`\eta_2 / n_+`): :math:`s_i \leftarrow s_i - \eta_s (1 -
        \sum_j p_{ij} / (\beta |B_-|))`, in units of the loss (:math:`m^2` for the
        margin :math:`m`). Larger: the thresholds reach the :math:`(1-\beta)`-quantile of
        a new positive's losses in fewer steps but jitter more around it.""", kernel=float),
    *COMMON_PARAMS,
)

hyper = KernelScalars("SopaCvarHyper", __name__, PARAMS)


def cvar_objective(scores, y, max_fpr, margin=1.0) -> float:
    """Return SOPA's objective at the best thresholds: the (weighted) mean over the
    positives of the CVaR at level ``max_fpr`` of their squared-hinge losses against the
    negatives, ``min_s s + 1/(beta W-) sum_j w_j (L_ij - s)_+``.

    ``L_ij`` grows with the negative's score, so every positive's worst ``beta``-fraction
    of negatives is the same: the highest-scored negatives up to the weight
    ``beta W-`` (the last one in part). ``y`` are signed weights ``+-w``.
    """
    pos = y > 0
    weights = np.abs(y).astype(np.float64)
    sn, wn = scores[~pos], weights[~pos]
    order = np.argsort(-sn, kind="stable")
    sn, wn = sn[order], wn[order]
    budget = max_fpr * np.sum(wn)
    share = np.clip(budget - (np.cumsum(wn) - wn), 0.0, wn)  # each one's weight in the top
    sn, share = sn[share > 0], share[share > 0]
    sp, wp = scores[pos], weights[pos]
    total = 0.0
    step = max(1, _BLOCK // max(1, sn.shape[0]))
    for start in range(0, sp.shape[0], step):
        hinge = np.maximum(0.0, margin - (sp[start:start + step, None] - sn[None, :]))
        total += wp[start:start + step] @ ((hinge * hinge) @ share)
    return float(total / (budget * np.sum(wp)))


def _scalars(params) -> tuple:
    """Return SOPA's kernel scalars and ``dro`` tuple (the CVaR objective at ``max_fpr``,
    :func:`aucopt._kernels.pauc_dro.dro_epoch`)."""
    hp = hyper(params)
    return hp, (0.0, hp.margin, 0.0, 0.0, 0.0, hp.max_fpr, hp.eta_s)


def tiny_range(params) -> str | None:
    """The divergence hint of a small ``max_fpr``: it multiplies the steps on the top
    negatives by ``1 / max_fpr`` (the CVaR's weights)."""
    beta = params.get("max_fpr")
    if isinstance(beta, float) and beta < 0.01:
        return (f"max_fpr={beta:g} multiplies the steps on the highest-scored negatives by "
                f"1/max_fpr = {1.0 / beta:.3g}; if lowering the step does not help, raise "
                "max_fpr (a range below one negative of the data has nothing to learn).")
    return None


PAUC_SOPA = register(
    AlgorithmSpec(
        id="pauc-sopa",
        name="pAUC SOPA (CVaR, one-way, streaming)",
        **dro_calls(_scalars, "SOPA"),
        params=(*PARAMS, precondition()),
        grid={"eta": ETA_GRID, "eta_s": ETA_S_GRID},
        quick_grid={"eta": ("auto",), "eta_s": ETA_S_GRID},
        notes="Zhu et al. 2022 train deep models with SOPA (momentum or Adam) and tune the "
        "steps. Streaming form: the last buffer_size positives (a ring, each with its "
        "threshold s_i, from 0 when it arrives) meet every batch of buffer_size negatives. "
        "max_fpr is the paper's beta: the objective is exactly the pAUC surrogate over FPR "
        "in [0, max_fpr].",
        # the step: judged by the partial AUC of the brief runs (as pauc-1pmb's), given one
        # rung below (the KL-DRO siblings' safety). SOPA's own CVaR objective at the scores
        # grows with their norm where the classes overlap (the top max_fpr of the negatives
        # outscore most positives in every direction), so it ranked the smallest step of
        # the ladder first on every case of benchmarks/robustness.py, 0.02-0.04 short of
        # the least-squares optimum's partial AUC on counts and german.numer
        divergence_hint=tiny_range,
        **{**SHARED, "calibration": StepCalibration(partial_auc_objective, unit=AUTO_ETA,
                                                    share=0.8, safety=1,
                                                    weight_power=0.0)},
    )
)
