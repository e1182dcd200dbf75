"""Two-way KL-DRO partial-AUC learner ``pauc-sota-s``: SOTA-s of D. Zhu, G. Li, B. Wang, X. Wu,
T. Yang, "When AUC meets DRO: Optimizing partial AUC for deep learning with non-convex
convergence guarantee", ICML 2022 (section 5), for a linear scorer, streaming; state,
kernel and the shared declarations of SOPA-s (:mod:`.pauc_dro`).
"""

from __future__ import annotations

from ._params import KernelScalars, precondition
from ._registry import register
from ._spec import AlgorithmSpec
from .pauc import ETA_GRID
from .pauc_dro import (
    ETA,
    GAMMA,
    KL_COMMON_PARAMS,
    LAM,
    LAM_GRID,
    SHARED,
    dro_calls,
    gamma_param,
    kl_dro,
    temperature,
)

__all__ = ["SOTA_PARAMS", "PAUC_SOTA_S", "hyper"]

SOTA_PARAMS = (
    ETA,
    LAM,
    temperature("lam_pos", r"""
        Temperature :math:`\lambda'` of the KL-regularised DRO over the positives: positive
        :math:`i` weighs :math:`\propto u_i^{\lambda/\lambda'}`, :math:`\lambda \log u_i` its
        soft-max loss against the negatives. Small: the weight goes to the few worst-ranked
        positives (a large ``min_tpr``); large: all positives weigh alike (SOPA-s's
        objective). Useful range: about 0.1 to 10."""),
    GAMMA,
    gamma_param("gamma_pos", r"\gamma'", ":math:`v` of the mean over the\n        "
                r"positives of :math:`u_i^{\lambda/\lambda'}`"),
    *KL_COMMON_PARAMS,
)

hyper = KernelScalars("SotaHyper", __name__, SOTA_PARAMS)


def _scalars(params) -> tuple:
    """Return SOTA-s's kernel scalars and ``dro`` tuple (two-way)."""
    hp = hyper(params)
    return hp, kl_dro(hp, hp.lam_pos, hp.gamma_pos)


PAUC_SOTA_S = register(
    AlgorithmSpec(
        id="pauc-sota-s",
        name="pAUC SOTA-s (KL-DRO, two-way, streaming)",
        **dro_calls(_scalars, "SOTA-s"),
        params=(*SOTA_PARAMS, precondition()),
        grid={"eta": ETA_GRID, "lam": LAM_GRID, "lam_pos": LAM_GRID},
        quick_grid={"eta": ("auto",), "lam": LAM_GRID, "lam_pos": LAM_GRID},
        notes="Zhu et al. 2022: two-way partial AUC (FPR <= max_fpr, TPR >= min_tpr) through "
        "two KL temperatures: lam for the negatives (the part of max_fpr), lam_pos for the "
        "positives (the part of min_tpr: smaller focuses on the lowest-scored positives).",
        **SHARED,
    )
)
