"""Online Uni-Exp, Uni-Squ and Uni-Log: state, hyperparameters, kernel call (Kotlowski et al.
2011)."""

from __future__ import annotations

import numpy as np

from .._kernels._schedules import CONSTANT, INV_SQRT
from .._kernels._state import view, zeros
from .._kernels.univariate import (
    EXPONENTIAL,
    LOGISTIC,
    NEEDS_FOLD,
    SQUARE,
    UnivariateState,
    univariate_epoch,
    univariate_fold,
)
from ..utils._param_validation import Options
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights
from ._params import NON_NEGATIVE, KernelScalars, Param, auto_step, codes, common, precondition
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData

__all__ = ["PARAMS", "UnivariateHyper", "AUTO_ETA", "LOSSES", "UNI_EXP", "UNI_SQU", "UNI_LOG",
           "hyper"]

PAPER = (
    "W. Kotlowski, K. Dembczynski, E. Huellermeier. Bipartite ranking through minimization "
    "of univariate loss. ICML 2011; online variants as compared in W. Gao, R. Jin, S. Zhu, "
    "Z.-H. Zhou, One-pass AUC optimization (section 6.1)."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA[loss] / (m2 + 1), m2 the mean squared row norm of the sample; until partial_fit has a
# chunk to calibrate on, the kernel uses AUTO_ETA[loss] / (M^2 + 1), M^2 the largest squared row
# norm seen (+1: the bias).
AUTO_ETA = {"exp": 0.5, "squ": 1.0, "log": 1.0}
LOSSES = {"exp": EXPONENTIAL, "squ": SQUARE, "log": LOGISTIC}
SCHEDULES = {"inv_sqrt": INV_SQRT, "constant": CONSTANT}
ETA_GRID = tuple(2.0**k for k in range(-12, 11))  # Gao et al. 2013: learning rates 2^[-12:10]


def _online(weights: str) -> bool:
    return weights == "online"


PARAMS = (
    # unit 1: the run of each loss puts its AUTO_ETA in its place
    auto_step("eta", 1.0, r"""
        Step scale: :math:`\eta_t = \eta/\sqrt{t}` (``schedule="inv_sqrt"``) or :math:`\eta`
        (``"constant"``). ``"auto"`` calibrates it on the training data (a short run per step
        of a geometric ladder, the lowest objective wins; :mod:`aucopt.algorithms._calibrate`)
        and stores the value used in ``eta_``."""),
    Param("lam", 1e-6, (NON_NEGATIVE,), "float",
          r"l2 weight :math:`\lambda` on ``w`` (the bias is not penalised).", kernel=float),
    Param("schedule", "inv_sqrt", (Options(str, set(SCHEDULES)),), '{"inv_sqrt", "constant"}',
          "Step-size schedule.", kernel=codes(SCHEDULES)),
    Param("weights", "train", (Options(str, {"train", "online"}),), '{"train", "online"}', r"""
        Where the class counts :math:`n_\pm` of the weights (and
        :math:`M^2`) come from. ``"train"``: the training data given so far
        (all of ``X`` in ``fit``), the batch weights of Kotlowski et al.;
        ``"online"``: running counts including the current example (exactly
        equal across chunkings; the first examples of a rare class then get
        large weights).""", kernel=_online, fields=("online",)),
    *common(max_iter=10, warm_start="Start ``fit`` from the previous weights and bias (the "
            "counters restart)."),
)

hyper = KernelScalars("UnivariateHyper", __name__, PARAMS)
UnivariateHyper = hyper.type


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh state: the arrays of :class:`aucopt._kernels.univariate.UnivariateState`,
    zero but for ``scale`` = 1 (the weights are ``scale * w``)."""
    state = zeros(UnivariateState, n_features)
    state["scale"][0] = 1.0
    return state


def _call(loss: str, state: dict, params: dict):
    """Return the state, statistics and scalars a pass of ``loss`` gives its kernel.

    ``weights="train"``: class counts and M^2 of all the training data given so far (the
    estimator's ``data_*``); ``"online"``: running ones.
    """
    hp = hyper(params)
    if hp.auto_eta:  # not calibrated yet: the loss's unit over M^2 + 1
        hp = hp._replace(eta=AUTO_ETA[loss])
    prefix = "run" if hp.online else "data"
    return (view(UnivariateState, state), state[f"{prefix}_count"],
            state[f"{prefix}_sqmax"]), hp


def _runner(loss: str):
    code = LOSSES[loss]

    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One pass (see :func:`aucopt._kernels.univariate.univariate_epoch`)."""
        (st, counts, sqmax), hp = _call(loss, state, params)
        done = 0
        while True:
            t, status, position = univariate_epoch(st, counts, sqmax, rows.data, rows.indices,
                                                   rows.indptr, y, order[done:], hp, code, t,
                                                   learn)
            if status != NEEDS_FOLD:
                return t, status
            done += position
            if before_dense is not None:
                before_dense()
            univariate_fold(st.w, st.scale)

    def row_kernel(state: dict, params: dict) -> RowStep:
        """Return the call of ``run`` on one row (see ``AlgorithmSpec.row_kernel``)."""
        head, hp = _call(loss, state, params)
        return RowStep(univariate_epoch, head, (hp, code), (True,))

    return {"run": run, "row_kernel": row_kernel}


def coef(state, params) -> np.ndarray:
    """Return the last iterate ``scale * w`` (the bias does not change the ranking)."""
    return state["w"] * state["scale"][0]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as ``scale`` times ``w`` (see ``AlgorithmSpec.coef_terms``)."""
    return ((state["scale"][0], "w", 0),)


def upgrade_state(state: dict) -> None:
    """Running class counts of files saved before sample weights (int64 rows) become weights."""
    counts_as_weights(state, "run_count")


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
    coef_terms=coef_terms,
    params=(*PARAMS, precondition()),
    state=(UnivariateState,),
    grid={"eta": ETA_GRID},
    step_param="eta",
    warm_keys=("w", "b"),
    warm_values=warm_values,
    column_keys=("w",),
    equivalence_params={"weights": "online", "precondition": None},
    upgrade_state=upgrade_state,
    weights="steps",
    notes="Gao et al. 2013: online learning rate in 2^[-12:10] by 5-fold CV; weights as "
    "Kotlowski et al. (balanced). eta='auto' is calibrated on the data.",
)


def _register(loss: str, measure: str, **fields) -> AlgorithmSpec:
    """Register the online algorithm of ``loss`` (``measure``: the loss's name in
    :func:`aucopt.algorithms._calibrate.regularised`)."""
    return register(AlgorithmSpec(
        **_runner(loss),
        # narrow: a step moves the weights at its row's columns only (the l2 prox shrinks
        # one scalar), from zero: brief runs on a sparse sample's columns are exact
        calibration=StepCalibration(regularised(measure, kind="univariate", l2="lam"),
                                    unit=AUTO_ETA[loss], offset=1.0, narrow=True),
        **{**_COMMON, **fields},
    ))


UNI_EXP = _register(
    "exp", "exp",
    id="uni-exp",
    name="online Uni-Exp",
    # no 2^-3: with a constant-scale step the exponential loss diverges on minmax-scaled
    # german.numer (M^2 ~ 24) at 2^-3 (benchmarks/auc_vs_ls.py)
    quick_grid={"eta": ("auto", 2.0**-8, 2.0**-6)},
)

UNI_SQU = _register(
    "squ", "square",
    id="uni-squ",
    name="online Uni-Squ",
    quick_grid={"eta": ("auto", 2.0**-7, 2.0**-5, 2.0**-3)},
)

# the logistic loss of Kotlowski et al. (their batch form is ``uni-log-batch``) learnt online as
# the other two: its derivative is bounded by 1, so a large step or a mislabelled row moves the
# weights by at most the step times the row (the exponential loss's by e^-margin)
UNI_LOG = _register(
    "log", "logistic",
    id="uni-log",
    name="online Uni-Log",
    source="Kotlowski, Dembczynski, Huellermeier, ICML 2011 (online form of the batch Uni-Log "
    "of Gao et al.)",
    quick_grid={"eta": ("auto", 2.0**-6, 2.0**-4, 2.0**-2)},
)
