"""SPAM-L2 and SPAM-NET: state layout, hyperparameters, kernel call (Natole 2020, Algorithm 20)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._schedules import INV_LINEAR, INV_POWER, INV_SQRT
from .._kernels.spam import (
    NEEDS_FOLD,
    SIGMA,
    STATS_ONLINE,
    STATS_TRAIN,
    STATS_WARMUP,
    S,
    spam_epoch,
    spam_epoch_lazy,
    spam_lazy_add_rows,
    spam_lazy_fold,
)
from ._calibrate import StepCalibration, regularised
from ._data import scaled_iterates
from ._fast import select
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["BETAS", "SpamHyper", "AUTO_ETA0", "STATS_MODES", "SCHEDULES", "SPAM_L2", "SPAM_NET",
           "iterates"]

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
    decay: float


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
        decay=float(params.get("decay", 0.0)),
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
        The plain form: ``w``, ``w_avg`` (d,); running statistics ``run_count`` (2,)
        float64 (weights with ``decay``), ``run_sum`` (2, d), ``run_sqmax`` (1,) for the
        online and warm-up modes; ``dots`` (2,) = ``w . sums[c]``; ``n_warmup`` (1,).
        CSR rows with ``beta1 = 0`` switch it to the lazy form of
        :func:`aucopt._kernels.spam.spam_epoch_lazy` (``pack``, ``acc``, ``lazy``).
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
        "dots": np.zeros(2),
        "run_count": np.zeros(2),
        "run_sum": np.zeros((2, n_features)),
        "run_sqmax": np.zeros(1),
        "n_warmup": np.array([n_warmup], dtype=np.int64),
    }


_LAZY_T = 5  # entry of state["lazy"] holding t (for the average)
_PLAIN = ("w", "w_avg", "dots", "run_sum")


def _to_lazy(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` to the lazy form (O(d), once: the first CSR call)."""
    train = params["stats"] == "train"
    w, sums = state["w"], state["data_sum" if train else "run_sum"]
    pack = np.empty((w.shape[0], 4))
    pack[:, 0], pack[:, 1], pack[:, 2:] = w, 0.0, sums.T
    dots = (w @ sums[0], w @ sums[1]) if train else state["dots"]
    lazy = np.array([1.0, 0.0, dots[0], dots[1], 1.0, t])
    state.update(pack=pack, acc=state["w_avg"] * t, lazy=lazy)
    for key in _PLAIN:
        del state[key]


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError if a loaded state holds negative running class counts."""
    if (state["run_count"] < 0).any():
        raise ValueError("the running class counts run_count are negative")


def _fresh_lazy(state: dict, params: dict) -> None:
    """Switch a fresh state to the lazy form (the reference layout of a saved lazy state)."""
    _to_lazy(state, params, 0)


def _to_plain(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` back to the plain form (O(d), once: dense rows after CSR ones)."""
    pack, lazy = state["pack"], state["lazy"]
    w, w_avg = iterates(state)
    scale = lazy[S] * lazy[SIGMA]
    run_sum = np.zeros((2, w.shape[0]))
    if params["stats"] != "train":
        run_sum[:] = pack[:, 2:].T * lazy[SIGMA]
    state.update(w=w, w_avg=w_avg, run_sum=run_sum, dots=lazy[2:4] * scale)
    for key in ("pack", "acc", "lazy"):
        del state[key]


def plain_form(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` to the plain form if it is in the lazy one (see ``AlgorithmSpec``)."""
    if "pack" in state:
        _to_plain(state, params, t)


def iterates(state: dict) -> tuple[np.ndarray, np.ndarray]:
    """Return the last iterate ``w`` and the average ``w_avg`` of a state in either form."""
    return scaled_iterates(state, _LAZY_T)


def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
    """One SPAM pass over ``order`` (see :func:`aucopt._kernels.spam.spam_epoch`).

    In ``stats="train"`` mode the statistics are those of all the training data
    given so far (kept by the estimator in ``data_*``); otherwise the running
    ``run_*`` statistics are used and updated. CSR rows with ``beta1 = 0`` run the
    O(nnz) lazy kernel on the lazy form of the state, kept between calls; the O(d)
    steps (switching forms, folding the scales) first call ``before_dense``.
    """
    prefix = "data" if params["stats"] == "train" else "run"
    hp = _hyper(params, state)
    counts, sqmax = state[f"{prefix}_count"], state[f"{prefix}_sqmax"]
    if rows.is_sparse and hp.beta1 == 0.0:  # exact O(nnz) steps (lazy l2 shrinkage)
        if "pack" not in state:
            if before_dense is not None:
                before_dense()
            _to_lazy(state, params, t)
        elif learn and hp.stats == STATS_TRAIN:  # the chunk joins the frozen statistics
            spam_lazy_add_rows(state["pack"], state["lazy"], rows.data, rows.indices,
                               rows.indptr, y)
        pack, acc, lazy = state["pack"], state["acc"], state["lazy"]
        kernel, position = select(spam_epoch_lazy), 0
        while True:
            t, status, position = kernel(pack, acc, lazy, counts, sqmax, rows.data,
                                         rows.indices, rows.indptr, y, order, position, hp, t,
                                         learn)
            lazy[_LAZY_T] = t
            if status != NEEDS_FOLD:
                return t, status
            if before_dense is not None:
                before_dense()
            spam_lazy_fold(pack, acc, lazy)
    if "pack" in state:
        if before_dense is not None:
            before_dense()
        _to_plain(state, params, t)
    return select(spam_epoch)(state["w"], state["w_avg"], state["dots"], counts,
                              state[f"{prefix}_sum"], sqmax, rows.data, rows.indices,
                              rows.indptr, y, order, hp, t, learn)


def warm_values(state: dict) -> dict:
    """Return the entries ``warm_start=True`` reuses: the last iterate ``w``."""
    return {"w": iterates(state)[0]}


def coef(state, params) -> np.ndarray:
    """Return the averaged iterate (``output="average"``) or the last one."""
    w, w_avg = iterates(state)
    return w_avg if params["output"] == "average" else w


BETAS = tuple(10.0**k for k in range(-5, 6))
_COMMON = dict(
    family="spam",
    paper=PAPER,
    source="Natole, Ying, Lyu, ICML 2018 (thesis ch. 4)",
    streaming=True,
    sparse=True,
    memory="O(d)",
    cost="O(nnz) per sample on CSR input with beta1=0 (lazy scaling kept between calls; O(d) "
    "only when the model is read), otherwise O(d) per sample (dense rows, or the elastic-net "
    "prox)",
    init_state=init_state,
    run=run,
    coef=coef,
    step_param="eta0",
    calibration=StepCalibration(regularised("square", l2="beta", l1="beta1"),
                                unit=AUTO_ETA0),
    warm_keys=("w",),
    warm_values=warm_values,
    column_keys=("pack", "acc"),
    lazy_form=_fresh_lazy,
    plain_form=plain_form,
    check_state=check_state,
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
        "stated in the thesis (notes.md#spam-step): eta_t = eta0/sqrt(t) with averaging.",
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
        notes="Thesis grid: beta1 in 10^[-5:5]; the beta grid is not stated "
              "(notes.md#spam-net-names), "
        "both are tuned on 10^[-5:5].",
        **_COMMON,
    )
)
