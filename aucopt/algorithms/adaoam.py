"""AdaOAM: state, hyperparameters and the kernel call (Natole 2020, Algorithm 9)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._checks import DIVERGED, OK
from .._kernels.adaoam import adaoam_epoch
from ._calibrate import StepCalibration, regularised
from ._fast import select
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status
from .opauc import _blas_pools, check_state, coef, covariance_state

__all__ = ["AdaoamHyper", "AUTO_ETA", "ADAOAM"]

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


class AdaoamHyper(NamedTuple):
    """Scalar hyperparameters of :func:`aucopt._kernels.adaoam.adaoam_epoch`."""

    eta: float
    auto_eta: bool
    lam: float
    delta: float


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh AdaOAM state: OPAUC statistics (deferred scatter form) plus ``G`` and
    the ``H`` scratch."""
    state = covariance_state(n_features, params, deferred=True)
    state["gsq"] = np.zeros(n_features)
    state["h"] = np.zeros(n_features)
    return state


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One AdaOAM pass (see :func:`aucopt._kernels.adaoam.adaoam_epoch`)."""
    auto = params["eta"] == "auto"
    hp = AdaoamHyper(eta=AUTO_ETA if auto else float(params["eta"]), auto_eta=auto,
                     lam=float(params["lam"]), delta=float(params["delta"]))
    if not auto and step_status(hp.eta, np.sqrt(state["data_sqmax"][0]), MAX_STEP_SCALE) != OK:
        return t, DIVERGED
    with _blas_pools().limit(limits=1):  # one BLAS call per sample, as OPAUC
        return select(adaoam_epoch)(
            state["w"], state["gsq"], state["h"], state["count"], state["mean"],
            state["scatter"], state["pending"], state["n_pending"], state["sqmax"],
            state["xbuf"], state["g"], rows.data, rows.indices, rows.indptr, y, order, hp, t,
            learn,
        )


ADAOAM = register(AlgorithmSpec(
    id="adaoam",
    name="AdaOAM",
    estimator="aucopt.linear_model:AdaOAMClassifier",
    family="adaoam",
    paper=PAPER,
    source="Ding et al., AAAI 2015 (thesis Alg. 9)",
    streaming=True,
    sparse=True,
    memory="O(d^2) (OPAUC class covariances; refused above max_memory_gb)",
    cost="O(d^2) per sample (+ O(d) per Newton step of the H-norm projection)",
    init_state=init_state,
    run=run,
    coef=coef,
    check_state=check_state,
    step_param="eta",
    calibration=StepCalibration(regularised("square", l2="lam"), unit=AUTO_ETA, power=0.5),
    warm_keys=("w",),
    equivalence_params={},
    grid={"eta": tuple(2.0**k for k in range(-12, 11)),
          "lam": tuple(2.0**k for k in range(-10, 3))},
    quick_grid={"eta": ("auto", 2.0**-6, 2.0**-4), "lam": (1e-4, 1e-2)},
    notes="Not run in the five documents; grid as OPAUC (Gao et al. 2013). eta='auto' is "
    "calibrated on "
    "the data.",
))
