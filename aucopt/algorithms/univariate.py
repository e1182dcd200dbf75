"""Online Uni-Exp and Uni-Squ: state, hyperparameters, kernel call (Kotlowski et al. 2011)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._schedules import CONSTANT, INV_SQRT
from .._kernels.univariate import (
    EXPONENTIAL,
    NEEDS_FOLD,
    SQUARE,
    univariate_epoch,
    univariate_fold,
)
from ._calibrate import StepCalibration, regularised
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["UnivariateHyper", "AUTO_ETA", "UNI_EXP", "UNI_SQU"]

PAPER = (
    "W. Kotlowski, K. Dembczynski, E. Huellermeier. Bipartite ranking through minimization "
    "of univariate loss. ICML 2011; online variants as compared in W. Gao, R. Jin, S. Zhu, "
    "Z.-H. Zhou, One-pass AUC optimization (section 6.1)."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA[loss] / (m2 + 1), m2 the mean squared row norm of the sample; until partial_fit has a
# chunk to calibrate on, the kernel uses AUTO_ETA[loss] / (M^2 + 1), M^2 the largest squared row
# norm seen (+1: the bias).
AUTO_ETA = {"exp": 0.5, "squ": 1.0}
SCHEDULES = {"inv_sqrt": INV_SQRT, "constant": CONSTANT}
ETA_GRID = tuple(2.0**k for k in range(-12, 11))  # Gao et al. 2013: learning rates 2^[-12:10]


class UnivariateHyper(NamedTuple):
    """Scalar hyperparameters of :func:`aucopt._kernels.univariate.univariate_epoch`."""

    loss: int
    eta: float
    auto_eta: bool
    schedule: int
    lam: float
    online: bool


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh state: ``w`` (d,) and its ``scale`` (1,) (the weights are ``scale * w``),
    bias ``b`` (1,), ``run_count`` (2,), ``run_sqmax`` (1,)."""
    return {
        "w": np.zeros(n_features),
        "scale": np.ones(1),
        "b": np.zeros(1),
        "run_count": np.zeros(2, dtype=np.int64),
        "run_sqmax": np.zeros(1),
    }


def _runner(loss: str):
    auto, code = AUTO_ETA[loss], {"exp": EXPONENTIAL, "squ": SQUARE}[loss]

    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One pass (see :func:`aucopt._kernels.univariate.univariate_epoch`).

        ``weights="train"``: class counts and M^2 of all the training data given
        so far (the estimator's ``data_*``); ``"online"``: running ones.
        """
        online = params["weights"] == "online"
        prefix = "run" if online else "data"
        is_auto = params["eta"] == "auto"
        hp = UnivariateHyper(loss=code, eta=auto if is_auto else float(params["eta"]),
                             auto_eta=is_auto, schedule=SCHEDULES[params["schedule"]],
                             lam=float(params["lam"]), online=online)
        w, scale, position = state["w"], state["scale"], 0
        while True:
            t, status, position = univariate_epoch(
                w, scale, state["b"], state[f"{prefix}_count"], state[f"{prefix}_sqmax"],
                rows.data, rows.indices, rows.indptr, y, order, position, hp, t, learn)
            if status != NEEDS_FOLD:
                return t, status
            if before_dense is not None:
                before_dense()
            univariate_fold(w, scale)

    return run


def coef(state, params) -> np.ndarray:
    """Return the last iterate ``scale * w`` (the bias does not change the ranking)."""
    return state["w"] * state["scale"][0]


def warm_values(state: dict) -> dict:
    """Return the entries ``warm_start=True`` reuses: the weights and the bias."""
    return {"w": coef(state, None), "b": state["b"]}


_COMMON = dict(
    family="univariate",
    paper=PAPER,
    source="Kotlowski, Dembczynski, Huellermeier, ICML 2011 (online, as in Gao et al.)",
    streaming=True,
    sparse=True,
    memory="O(d)",
    cost="O(nnz) per sample (lazy l2 shrinkage kept between calls)",
    init_state=init_state,
    coef=coef,
    grid={"eta": ETA_GRID},
    step_param="eta",
    warm_keys=("w", "b"),
    warm_values=warm_values,
    column_keys=("w",),
    equivalence_params={"weights": "online"},
)

UNI_EXP = register(
    AlgorithmSpec(
        id="uni-exp",
        name="online Uni-Exp",
        estimator="aucopt.linear_model._univariate:UniExpClassifier",
        run=_runner("exp"),
        calibration=StepCalibration(regularised("exp", kind="univariate", l2="lam"),
                                    unit=AUTO_ETA["exp"], offset=1.0),
        # no 2^-3: with a constant-scale step the exponential loss diverges on minmax-scaled
        # german.numer (M^2 ~ 24) at 2^-3 (benchmarks/auc_vs_ls.py)
        quick_grid={"eta": ("auto", 2.0**-8, 2.0**-6)},
        notes="Gao et al. 2013: online learning rate in 2^[-12:10] by 5-fold CV; weights as "
        "Kotlowski "
        "et al. (balanced). eta='auto' is calibrated on the data.",
        **_COMMON,
    )
)

UNI_SQU = register(
    AlgorithmSpec(
        id="uni-squ",
        name="online Uni-Squ",
        estimator="aucopt.linear_model._univariate:UniSquClassifier",
        run=_runner("squ"),
        calibration=StepCalibration(regularised("square", kind="univariate", l2="lam"),
                                    unit=AUTO_ETA["squ"], offset=1.0),
        quick_grid={"eta": ("auto", 2.0**-7, 2.0**-5, 2.0**-3)},
        notes="Gao et al. 2013: online learning rate in 2^[-12:10] by 5-fold CV; weights as "
        "Kotlowski "
        "et al. (balanced). eta='auto' is calibrated on the data.",
        **_COMMON,
    )
)
