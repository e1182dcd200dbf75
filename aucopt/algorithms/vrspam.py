"""VRSPAM-L2 and VRSPAM-NET: proximal SVRG on SPAM's finite sum (Dan & Sahoo, Algorithm 1)."""

from __future__ import annotations

import numpy as np

from .._kernels._checks import OK
from .._kernels._state import zeros
from .._kernels.spam import ClassStats
from .._kernels.vrspam import Snapshot, VrspamState, vrspam_inner, vrspam_stage
from ..utils._param_validation import Options
from . import spam
from ._batch import (
    BATCH,
    batch_common,
    class_totals,
    pair_spread,
    run_stages,
    spread_rule,
    stage_tol,
)
from ._calibrate import StepCalibration, regularised
from ._cutting_plane import as_matrix
from ._fast import select
from ._params import AUTO, COUNT, POSITIVE, KernelScalars, Param, auto_step, precondition
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._time_budget import deadline_of
from .batch_pairwise import LS_SPREAD

__all__ = ["AUTO_ETA", "BETA", "CALIBRATION_STAGES", "CALIBRATION_TOLERANCE", "START_T0",
           "PARAMS", "NET_PARAMS", "VrspamHyper", "VRSPAM_L2", "VRSPAM_NET", "auto_beta", "hyper",
           "inner_steps", "resolve_beta"]

PAPER = (
    "S. Dan, D. Sahoo. Variance reduced stochastic proximal algorithm for AUC maximization "
    "(VRSPAM), 2020; M. Natole Jr., PhD thesis, SUNY Albany 2020, Algorithm 17."
)

# eta="lipschitz": eta = AUTO_ETA / M^2 = 1/(4L) with the Lipschitz constant L = 8 M^2 of the
# component gradients (Dan & Sahoo, Lemma 2), the usual Prox-SVRG condition
# (notes.md#vrspam-defaults). eta="auto" is calibrated on the data
# (aucopt.algorithms._calibrate) on a ladder centred on AUTO_ETA / m2, m2 the mean squared
# row norm of the sample; with no sample to calibrate on, the Lipschitz rule applies.
AUTO_ETA = 1.0 / 32.0
# The SPAM start runs the papers' schedule eta0 / sqrt(t) (SPAM's offset t0 = 0): VRSPAM's
# results do not move with SPAM's default offset (aucopt.linear_model.SPAML2Classifier).
START_T0 = 0.0
# stages of each brief run of the "auto" calibration (a stage is 2n inner steps on the sample)
CALIBRATION_STAGES = 2
# VRSPAM converges to the minimiser whatever the stable step, so after one stage the
# objectives of several steps are alike; the smallest of those within 1 % (not the 5 % of the
# stochastic methods) is chosen, which keeps the faster steps (notes.md#vrspam-defaults)
CALIBRATION_TOLERANCE = 0.01


def _beta_number(value) -> float:
    """``beta`` as the kernel reads it: :func:`resolve_beta` replaces ``"auto"`` before any
    kernel call (NaN, which trips the divergence check, if it ever did not)."""
    return float("nan") if isinstance(value, str) else float(value)


BETA = spam.PARAMS[0].replace(default="auto", constraints=(POSITIVE, AUTO),
                              type='float or "auto"', kernel=_beta_number, doc=r"""
    l2 weight :math:`\beta`. ``"auto"`` (default): :math:`E\|x_i - x_j\|^2 / W`, the
    mean squared distance of the positive-negative pairs over the total sample weight
    (:math:`n` unweighted). This is B-LS-SVM's data-size rule (notes.md#spread-lam) in
    SPAM's scaling of the objective (notes.md#vrspam-defaults): strong for few rows,
    vanishing for many, in the units of the data. The value used is ``beta_``; a
    number is used as given.""")

PARAMS = (
    BETA,
    auto_step("eta", AUTO_ETA, r"""
        Constant step of the inner loop. ``"auto"`` calibrates it on the training
        data (one stage per step of a ladder on a sample of at most 2,000 rows, keeping
        the lowest regularised objective; :mod:`aucopt.algorithms._calibrate`) and
        stores the value used in ``eta_``. ``"lipschitz"``: :math:`1/(32 M^2)` with
        :math:`M^2` the largest squared row norm, i.e. :math:`1/(4L)` for the
        components' Lipschitz constant :math:`L = 8M^2` (the Prox-SVRG condition;
        ``eta_`` is then None). One outlying row makes that rule's step small for all
        the others (notes.md#vrspam-defaults).""", rules=("lipschitz",)),
    Param("inner", "auto", (COUNT, AUTO), 'int or "auto"',
          r'Inner steps per stage; ``"auto"`` is :math:`2n`.'),
    Param("init", "spam", (Options(str, {"spam", "zeros"}),), '{"spam", "zeros"}', """
        Start from the averaged iterate of one SPAM pass (as the paper does; SPAM-NET for
        VRSPAM-NET) or from zero."""),
    spam.PARAMS[1].replace(kernel=None, fields=(), doc="""
        Step scale of the SPAM initialisation pass (see
        :class:`~aucopt.linear_model.SPAML2Classifier`)."""),
    stage_tol(1e-5, "stage"),
    *batch_common(max_iter=20, max_iter_doc="Maximal number of outer stages.",
                  shuffle="Shuffle the sample order of the SPAM initialisation pass.",
                  random_state="Seed of that order and of the inner samples.",
                  warm_start="Start ``fit`` from the previous snapshot (no SPAM pass)."),
)
NET_PARAMS = (PARAMS[0], spam.BETA1, *PARAMS[1:])

# The kernel scalars; beta1 = 0 for VRSPAM-L2, which does not declare it.
hyper = KernelScalars("VrspamHyper", __name__, NET_PARAMS, missing={"beta1": 0.0})
VrspamHyper = hyper.type


def auto_beta(spread: float, totals: tuple[float, float]) -> float:
    """Return ``beta="auto"``: B-LS-SVM's spread rule in SPAM's scaling (notes.md#vrspam-defaults).

    SPAM's objective is ``2 p (1 - p)`` times B-LS-SVM's with ``lam = beta / (2 p (1 - p))``,
    so the rule ``lam = LS_SPREAD * spread / n_eff`` (:func:`~aucopt.algorithms._batch.spread_rule`)
    becomes ``beta = spread / W``.

    Parameters
    ----------
    spread : float
        Mean squared distance of the positive-negative pairs
        (:func:`~aucopt.algorithms._batch.pair_spread`).
    totals : tuple of float
        Class weight sums ``(W+, W-)``.
    """
    w_pos, w_neg = totals
    p = w_pos / (w_pos + w_neg)
    return 2.0 * p * (1.0 - p) * spread_rule(spread, totals, LS_SPREAD)


def resolve_beta(params: dict, rows: RowData, y) -> dict:
    """Return ``params`` with ``beta`` as a number (:func:`auto_beta` of the rows for "auto")."""
    if not (isinstance(params["beta"], str) and params["beta"] == "auto"):
        return params
    beta = auto_beta(pair_spread(as_matrix(rows), y), class_totals(y))
    return {**params, "beta": beta}


INNER_PER_CHECK = 1 << 16  # inner steps between two looks at max_time


def inner_steps(params: dict, n_samples: int) -> int:
    """Return the inner-loop length: ``inner``, or ``2 n`` for ``"auto"``."""
    return 2 * n_samples if params["inner"] == "auto" else int(params["inner"])


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh VRSPAM state (:class:`~aucopt._kernels.vrspam.VrspamState`)."""
    state = zeros(VrspamState, n_features)
    state["change"][0] = np.inf
    return state


def _spam_start(state, rows: RowData, y, order, params) -> int:
    """Set ``state["w"]`` to the averaged iterate of one SPAM pass (Johnson-Zhang practice)."""
    spam_params = {"beta": params["beta"], "beta1": params.get("beta1", 0.0),
                   "eta0": params["eta0"], "t0": START_T0, "schedule": "inv_sqrt", "power_t": 0.5,
                   "stats": "train", "warmup": 0.1, "output": "average"}
    tmp = spam.init_state(rows.n_features, rows.n_samples, spam_params)
    tmp.update({key: state[key] for key in ("data_count", "data_sum", "data_sqmax")})
    # its steps scaled by n w_i / W, as VRSPAM's own (notes.md#sample-weights): weights
    # multiplied by a constant start from the same point (all-ones: y as given)
    mean = float(np.abs(y).mean())
    _, status = spam.run(tmp, rows, y if mean == 1.0 else y / mean, order, spam_params, 0, True)
    state["w"][...] = spam.iterates(tmp)[1]
    return status


def run(state, rows: RowData, y, order, params, t, learn, rng):
    """Run up to ``max_iter`` outer stages of VRSPAM (the whole ``fit``).

    ``order`` is the sample order of the SPAM initialisation pass
    (``init="spam"``); each stage draws its ``inner`` sample indices with
    replacement from ``rng``. Stops early when the relative change of the
    snapshot falls to ``tol`` or below.
    """
    n, d = rows.n_samples, rows.n_features
    params = resolve_beta(params, rows, y)
    state["beta"][0] = params["beta"]
    if not state["started"][0] and params["init"] == "spam":
        status = _spam_start(state, rows, y, order, params)
        if status != OK:
            return t, status
    state["started"][0] = 1
    hp, inner = hyper(params), inner_steps(params, n)
    stats = ClassStats(state["data_count"], state["data_sum"], state["data_sqmax"])
    snap = Snapshot(np.empty(d), np.empty(d), np.empty(n))
    w = state["w"]

    deadline = deadline_of(params)
    part = inner if deadline.end is None else INNER_PER_CHECK

    def stage(t):
        picks = rng.integers(0, n, size=inner)
        t, status = select(vrspam_stage)(w, snap, stats, rows.data, rows.indices, rows.indptr,
                                         y, picks[:part], hp, t)
        # under max_time, the rest of a long inner loop in parts: the inner loop carries
        # only w from step to step, so the parts are the loop bit for bit
        for start in range(part, inner, part):
            if status != OK or deadline.passed():
                break
            t, status = select(vrspam_inner)(w, snap, stats, rows.data, rows.indices,
                                             rows.indptr, y, picks[start:start + part], hp, t)
        return t, status

    return run_stages(state, t, params["max_iter"], params["tol"], stage, deadline=deadline)


def coef(state, params) -> np.ndarray:
    """Return the last snapshot ``w~_S``."""
    return state["w"]


def upgrade_state(state: dict) -> None:
    """Give files saved before ``beta_`` existed a ``beta`` entry of 0 (``beta_`` then reads
    the parameter, a number in those versions)."""
    state.setdefault("beta", np.zeros(1))


_COMMON = dict(
    family="vrspam",
    paper=PAPER,
    source="Dan & Sahoo (VRSPAM); thesis Alg. 17",
    memory="O(n + d) besides the stored training set",
    cost="O(n nnz + m d) per stage (full gradient plus m = inner dense proximal steps)",
    init_state=init_state,
    run=run,
    coef=coef,
    upgrade_state=upgrade_state,
    state=(VrspamState,),
    step_param="eta",
    other_steps=("eta0",),  # the step of the SPAM start (init="spam")
    calibration=StepCalibration(regularised("square", l2="beta", l1="beta1"), unit=AUTO_ETA,
                                brief={"max_iter": CALIBRATION_STAGES}, resolve=resolve_beta,
                                tolerance=CALIBRATION_TOLERANCE, weight_power=0.0),
    warm_keys=("w", "started"),
    weights="steps",
    **BATCH,
)

VRSPAM_L2 = register(
    AlgorithmSpec(
        id="vrspam-l2",
        name="VRSPAM-L2",
        params=(*PARAMS, precondition()),
        grid={"beta": spam.BETAS},
        quick_grid={"beta": ("auto", 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)},
        notes="Paper grid beta in 10^[-5:5] by 5-fold CV; eta, inner and the stage count are "
        "not given by the paper (notes.md#vrspam-defaults): eta calibrated (\"lipschitz\": "
        "1/(32 M^2)), inner = 2n, stop at tol.",
        **_COMMON,
    )
)

VRSPAM_NET = register(
    AlgorithmSpec(
        id="vrspam-net",
        name="VRSPAM-NET",
        params=(*NET_PARAMS, precondition()),
        grid={"beta": spam.BETAS, "beta1": spam.BETAS},
        quick_grid={"beta": ("auto", 1e-2), "beta1": (1e-5, 1e-4, 1e-3, 1e-2)},
        notes="Paper grid beta1 in 10^[-5:5] (beta on the same grid, "
              "notes.md#spam-net-names/notes.md#vrspam-defaults).",
        **_COMMON,
    )
)
