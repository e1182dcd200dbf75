"""SPAM-L2 and SPAM-NET: state layout, hyperparameters, kernel call (spec section 11)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._schedules import INV_LINEAR, INV_POWER, INV_SQRT
from .._kernels.spam import (
    STATS_ONLINE,
    STATS_TRAIN,
    STATS_WARMUP,
    spam_epoch,
    spam_epoch_lazy,
)
from ._calibrate import StepCalibration, regularised
from ._fast import select
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["BETAS", "SpamHyper", "AUTO_ETA0", "STATS_MODES", "SCHEDULES", "SPAM_L2", "SPAM_NET"]

PAPER = (
    "M. Natole Jr., Y. Ying, S. Lyu. Stochastic proximal algorithms for AUC "
    "maximization. ICML 2018; M. Natole Jr., PhD thesis, SUNY Albany 2020, ch. 4, Alg. 20."
)

# eta0="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred
# on AUTO_ETA0 / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA0 / M^2, M^2 the largest squared row norm seen.
AUTO_ETA0 = 4.0

STATS_MODES = {"train": STATS_TRAIN, "online": STATS_ONLINE, "warmup": STATS_WARMUP}
SCHEDULES = {"inv_sqrt": INV_SQRT, "theory_poly": INV_POWER, "theory_1_over_t": INV_LINEAR}


class SpamHyper(NamedTuple):
    """Scalar hyperparameters of the SPAM kernel."""

    beta: float
    beta1: float
    eta0: float
    auto_eta: bool
    schedule: int
    power_t: float
    stats: int
    n_warmup: int


def _hyper(params: dict, state: dict) -> SpamHyper:
    auto = params["eta0"] == "auto"
    return SpamHyper(
        beta=float(params["beta"]),
        beta1=float(params.get("beta1", 0.0)),
        eta0=AUTO_ETA0 if auto else float(params["eta0"]),
        auto_eta=auto,
        schedule=SCHEDULES[params["schedule"]],
        power_t=float(params["power_t"]),
        stats=STATS_MODES[params["stats"]],
        n_warmup=int(state["n_warmup"][0]),
    )


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh SPAM state.

    Parameters
    ----------
    n_features : int
        Number of features ``d``.
    n_samples : int
        Rows of the first chunk (used to turn a warm-up fraction into a count).
    params : dict
        Estimator hyperparameters.
    rng : numpy.random.Generator, optional
        Unused (SPAM draws nothing).

    Returns
    -------
    dict
        ``w``, ``w_avg`` (d,); running statistics ``run_count`` (2,),
        ``run_sum`` (2, d), ``run_sqmax`` (1,) for the online and warm-up
        modes; ``n_warmup`` (1,).
    """
    warmup = params["warmup"]
    if params["stats"] != "warmup":
        n_warmup = 0
    elif isinstance(warmup, int | np.integer):
        n_warmup = int(warmup)
    else:
        n_warmup = int(np.ceil(warmup * n_samples))
    return {
        "w": np.zeros(n_features),
        "w_avg": np.zeros(n_features),
        "run_count": np.zeros(2, dtype=np.int64),
        "run_sum": np.zeros((2, n_features)),
        "run_sqmax": np.zeros(1),
        "n_warmup": np.array([n_warmup], dtype=np.int64),
    }


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One SPAM pass over ``order`` (see :func:`aucopt._kernels.spam.spam_epoch`).

    In ``stats="train"`` mode the statistics are those of all the training data
    given so far (kept by the estimator in ``data_*``); otherwise the running
    ``run_*`` statistics are used and updated.
    """
    prefix = "data" if params["stats"] == "train" else "run"
    stats = (state[f"{prefix}_count"], state[f"{prefix}_sum"], state[f"{prefix}_sqmax"])
    hp = _hyper(params, state)
    if rows.is_sparse and hp.beta1 == 0.0:  # exact O(nnz) steps (lazy l2 shrinkage)
        pack = np.empty((rows.n_features, 4))
        return select(spam_epoch_lazy)(state["w"], state["w_avg"], pack, *stats, rows.data,
                               rows.indices, rows.indptr, y, order, hp, t, learn)
    return select(spam_epoch)(state["w"], state["w_avg"], *stats, rows.data, rows.indices,
                      rows.indptr, y, order, hp, t, learn)


def coef(state, params) -> np.ndarray:
    """Return the averaged iterate (``output="average"``) or the last one."""
    return state["w_avg"] if params["output"] == "average" else state["w"]


BETAS = tuple(10.0**k for k in range(-5, 6))
_COMMON = dict(
    family="spam",
    paper=PAPER,
    source="Natole, Ying, Lyu, ICML 2018 (thesis ch. 4)",
    streaming=True,
    sparse=True,
    memory="O(d)",
    cost="O(nnz) per sample on CSR input with beta1=0 (lazy scaling; O(d) once per call), "
    "otherwise O(d) per sample (dense rows, or the elastic-net prox)",
    init_state=init_state,
    run=run,
    coef=coef,
    step_param="eta0",
    calibration=StepCalibration(regularised("square", l2="beta", l1="beta1"),
                                unit=AUTO_ETA0),
    warm_keys=("w",),
    equivalence_params={"stats": "online"},
)

SPAM_L2 = register(
    AlgorithmSpec(
        id="spam-l2",
        name="SPAM-L2",
        estimator="aucopt.linear_model:SPAML2Classifier",
        grid={"beta": BETAS},
        quick_grid={"beta": (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)},
        notes="Thesis grid: beta in 10^[-5:5] by 5-fold CV; the step schedule is not "
        "stated in the thesis (spec A-20): eta_t = eta0/sqrt(t) with averaging.",
        **_COMMON,
    )
)

SPAM_NET = register(
    AlgorithmSpec(
        id="spam-net",
        name="SPAM-NET",
        estimator="aucopt.linear_model:SPAMNetClassifier",
        grid={"beta": BETAS, "beta1": BETAS},
        quick_grid={"beta": (1e-4, 1e-2), "beta1": (1e-5, 1e-4, 1e-3, 1e-2)},
        notes="Thesis grid: beta1 in 10^[-5:5]; the beta grid is not stated (spec A-21), "
        "both are tuned on 10^[-5:5].",
        **_COMMON,
    )
)
