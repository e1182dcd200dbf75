"""AdaOAM: state, hyperparameters and the kernel call (Natole 2020, Algorithm 9)."""

from __future__ import annotations

import numpy as np

from .._kernels._checks import DIVERGED, OK
from .._kernels._state import view, zeros
from .._kernels.adaoam import AdaoamState, adaoam_epoch
from ._calibrate import StepCalibration, regularised
from ._fast import one_blas_thread, select
from ._params import NON_NEGATIVE, KernelScalars, Param, auto_step, common, precondition
from ._registry import register
from ._rowpath import BLAS_ROW_WIDTH, RowStep
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status
from .opauc import (
    LAM,
    MAX_MEMORY,
    check_covariance_memory,
    check_state,
    coef,
    coef_terms,
    upgrade_state,
)

__all__ = ["AdaoamHyper", "AUTO_ETA", "PARAMS", "hyper", "ADAOAM"]

PAPER = (
    "Y. Ding, P. Zhao, S. C. H. Hoi, Y.-S. Ong. An adaptive gradient method for online AUC "
    "maximization. AAAI 2015; M. Natole Jr., PhD thesis, SUNY Albany 2020, Alg. 9."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA / m, m the root mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA / M, M the largest row norm seen (AdaGrad steps scale with
# 1/||x||).
AUTO_ETA = 0.2
# Largest useful eta * M (see aucopt.algorithms._stability); measured after one pass: test AUC
# 0.81 at 0.5 and 0.64-0.69 from 1024 on german.numer scaled to [-1, 1] and a synthetic problem.
MAX_STEP_SCALE = 1024.0

PARAMS = (
    auto_step("eta", AUTO_ETA, r"""
        Step size :math:`\eta` (AdaGrad moves each coordinate by about
        :math:`\eta/\sqrt{t}`). ``"auto"`` calibrates it on the training data (a short run
        per step of a geometric ladder, the lowest objective wins;
        :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``eta_``."""),
    LAM.replace(doc=r"""
        l2 weight :math:`\lambda`; the radius of the ball is :math:`1/\sqrt\lambda`."""),
    Param("delta", 1e-8, (NON_NEGATIVE,), "float",
          r"Smoothing :math:`\delta \ge 0` of :math:`H_t`.", kernel=float),
    MAX_MEMORY.replace(doc="""
        Refuse (ValueError, before allocating) when the two d x d float64
        covariances need more than this many GB (1 GB = 1e9 bytes)."""),
    *common(max_iter=1, max_iter_doc="Passes over the data in ``fit`` (later passes take "
            "steps only).", warm_start="Start ``fit`` from the previous last iterate (the "
            "class statistics and :math:`G` restart)."),
)
hyper = KernelScalars("AdaoamHyper", __name__, PARAMS)
AdaoamHyper = hyper.type


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh AdaOAM state: OPAUC's statistics (deferred scatter form), ``G`` and
    the ``H`` scratch (raises before allocating if d x d is too large)."""
    check_covariance_memory(n_features, params)
    return zeros(AdaoamState, n_features, params, k=n_features)


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One AdaOAM pass (see :func:`aucopt._kernels.adaoam.adaoam_epoch`)."""
    hp = hyper(params)
    if not hp.auto_eta and step_status(hp.eta, np.sqrt(state["data_sqmax"][0]),
                                       MAX_STEP_SCALE) != OK:
        return t, DIVERGED
    with one_blas_thread():  # one BLAS call per sample, as OPAUC
        return select(adaoam_epoch)(view(AdaoamState, state), rows.data, rows.indices,
                                    rows.indptr, y, order, hp, t, learn)


def row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return the call of ``run`` on one row (see ``AlgorithmSpec.row_kernel``; None when
    ``run`` would stop, or for inputs wider than ``BLAS_ROW_WIDTH``)."""
    hp = hyper(params)
    if state["data_sum"].shape[1] > BLAS_ROW_WIDTH or (not hp.auto_eta and step_status(
            hp.eta, np.sqrt(state["data_sqmax"][0]), MAX_STEP_SCALE) != OK):
        return None
    return RowStep(adaoam_epoch, (view(AdaoamState, state),), (hp,), (True,),
                   watch=() if hp.auto_eta else ("data_sqmax",))


ADAOAM = register(AlgorithmSpec(
    id="adaoam",
    name="AdaOAM",
    family="adaoam",
    paper=PAPER,
    source="Ding et al., AAAI 2015 (thesis Alg. 9)",
    streaming=True,
    sparse=True,
    memory="O(d^2) (OPAUC class covariances; refused above max_memory_gb)",
    cost="O(d^2) per sample (+ O(d) per Newton step of the H-norm projection)",
    params=(*PARAMS, precondition()),
    init_state=init_state,
    run=run,
    row_kernel=row_kernel,
    coef=coef,
    coef_terms=coef_terms,
    state=(AdaoamState,),
    check_state=check_state,
    upgrade_state=upgrade_state,
    weights="steps",
    step_param="eta",
    calibration=StepCalibration(regularised("square", l2="lam"), unit=AUTO_ETA, power=0.5,
                                 weight_power=0.0),
    warm_keys=("w",),
    equivalence_params={"precondition": None},
    grid={"eta": tuple(2.0**k for k in range(-12, 11)),
          "lam": tuple(2.0**k for k in range(-10, 3))},
    quick_grid={"eta": ("auto", 2.0**-6, 2.0**-4), "lam": (1e-4, 1e-2)},
    notes="Not run in the five documents; grid as OPAUC (Gao et al. 2013). eta='auto' is "
    "calibrated on "
    "the data.",
))
