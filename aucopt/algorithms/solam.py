"""SOLAM, SOLAM-l1, regSOLAM: state, hyperparameters, kernel call (Natole 2020, Algs. 10, 18)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._checks import OK
from .._kernels.solam import (
    BALL_L1,
    BALL_L2,
    NEEDS_FOLD,
    solam_epoch,
    solam_epoch_dense,
    solam_epoch_lazy,
    solam_lazy_iterates,
)
from ._calibrate import StepCalibration, regularised
from ._data import drop_lazy_form
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status

__all__ = ["SolamHyper", "AUTO_ETA0", "kappa_of", "iterates", "SOLAM", "SOLAM_L1", "REG_SOLAM"]

PAPER_SOLAM = (
    "Y. Ying, L. Wen, S. Lyu. Stochastic online AUC maximization. NIPS 2016; described in "
    "M. Natole Jr., PhD thesis, SUNY Albany 2020, Alg. 10; SOLAM-l1 in M. Liu et al., "
    "Fast stochastic AUC maximization with O(1/n)-convergence rate, ICML 2018, section 5."
)
PAPER_REG = (
    "M. Natole Jr. Fast Optimization Algorithms for AUC Maximization. PhD thesis, SUNY "
    "Albany 2020, ch. 3, Alg. 18 (regularised SOLAM)."
)

# eta0="auto" is calibrated on the data (aucopt.algorithms._calibrate), on a ladder centred
# on AUTO_ETA0 / m2 (m2 the mean squared row norm): the gradient of F in w grows like
# kappa^2 ||w||. Until partial_fit has a chunk to calibrate on, AUTO_ETA0 / kappa^2 is used,
# kappa^2 the largest squared row norm seen.
AUTO_ETA0 = 4.0
_NO_SCALE_STEP = 1e-12


class SolamHyper(NamedTuple):
    """Scalar hyperparameters of the SOLAM kernel."""

    radius: float
    kappa: float
    eta0: float
    lam: float
    ball: int


def kappa_of(params: dict, state: dict) -> float:
    """Return ``kappa``: the ``kappa`` parameter, or the largest row norm of the data seen."""
    if params["kappa"] == "auto":
        return float(np.sqrt(state["data_sqmax"][0]))
    return float(params["kappa"])


def _hyper(params: dict, state: dict, ball: int, lam: float, radius: float) -> SolamHyper:
    kappa = kappa_of(params, state)
    eta0 = params["eta0"]
    if eta0 == "auto":  # partial_fit before calibration: the scale of the data seen so far;
        # only zero rows so far (kappa = 0): a negligible step, so that they carry no weight in
        # the gamma-weighted average (a step of AUTO_ETA0 / 1e-300 froze it at 0)
        eta0 = AUTO_ETA0 / (kappa * kappa) if kappa > 0 else _NO_SCALE_STEP
    return SolamHyper(radius=float(radius), kappa=kappa, eta0=float(eta0), lam=float(lam),
                      ball=ball)


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh SOLAM state (all iterates at the feasible point 0).

    Returns
    -------
    dict
        ``w``, ``w_avg`` (d,); ``ab``, ``ab_avg`` (2,) = ``(a, b)``; ``alpha``,
        ``alpha_avg`` (1,); ``gamma_sum`` (1,); ``seen`` (2,) int64 class
        counts of the stream (for ``p_hat``).
    """
    return {
        "w": np.zeros(n_features),
        "ab": np.zeros(2),
        "alpha": np.zeros(1),
        "w_avg": np.zeros(n_features),
        "ab_avg": np.zeros(2),
        "alpha_avg": np.zeros(1),
        "gamma_sum": np.zeros(1),
        "seen": np.zeros(2, dtype=np.int64),
    }


def _to_lazy(state: dict) -> None:
    """Switch ``state`` to the lazy form of the CSR kernel (O(d), once: the first CSR call)."""
    w = state.pop("w")
    vb = np.zeros((w.shape[0], 2))
    vb[:, 0] = w
    state.update(vb=vb, acc=state.pop("w_avg") * state["gamma_sum"][0],
                 lazy=np.array([1.0, 0.0, w @ w]))


def _fresh_lazy(state: dict, params: dict) -> None:
    """Switch a fresh state to the lazy form (the reference layout of a saved lazy state)."""
    _to_lazy(state)


def _to_plain(state: dict) -> None:
    """Switch ``state`` back to ``w`` and ``w_avg`` (O(d), once: dense rows after CSR ones)."""
    drop_lazy_form(state, iterates, ("vb", "acc", "lazy"))


def plain_form(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` to the plain form if it is in the lazy one (see ``AlgorithmSpec``)."""
    if "vb" in state:
        _to_plain(state)


def iterates(state: dict) -> tuple[np.ndarray, np.ndarray]:
    """Return the iterate ``w`` and the weighted average ``w_avg`` of a state in either form."""
    if "vb" not in state:
        return state["w"], state["w_avg"]
    d = state["vb"].shape[0]
    w, w_avg = np.empty(d), np.empty(d)
    solam_lazy_iterates(state["vb"], state["acc"], state["lazy"], state["gamma_sum"], w, w_avg)
    return w, w_avg


def _runner(ball: int, regularised: bool):
    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One SOLAM pass over ``order`` (see :mod:`aucopt._kernels.solam`).

        Dense rows: the fused one-sweep kernel; CSR rows: the O(nnz) lazy kernel
        with the l2 ball (its lazy form kept between calls; ``before_dense`` is called
        before the O(d) steps), the O(d) kernel with the l1 ball.
        """
        if regularised:
            lam = float(params["lam"])
            radius = np.sqrt(2.0 / lam)  # thesis section 3.3 (notes.md#regsolam)
        else:
            lam, radius = 0.0, float(params["R"])
        hp = _hyper(params, state, ball, lam, radius)
        status = step_status(hp.eta0, hp.kappa * hp.kappa, MAX_STEP_CURVATURE)
        if status != OK:
            return t, status
        scalars = (state["ab"], state["alpha"], state["ab_avg"], state["alpha_avg"],
                   state["gamma_sum"], state["seen"])
        csr = (rows.data, rows.indices, rows.indptr, y, order)
        if rows.is_sparse and ball == BALL_L2:
            if "vb" not in state:
                if before_dense is not None:
                    before_dense()
                _to_lazy(state)
            lazy, position, may_fold = (state["vb"], state["acc"], state["lazy"]), 0, False
            while True:
                t, status, position = solam_epoch_lazy(*lazy, *scalars, *csr, position, hp, t,
                                                       learn, may_fold or before_dense is None)
                if status != NEEDS_FOLD:
                    return t, status
                before_dense()
                may_fold = True
        if "vb" in state:
            if before_dense is not None:
                before_dense()
            _to_plain(state)
        iterates_ = (state["w"], *scalars[:2], state["w_avg"], *scalars[2:])
        if not rows.is_sparse:
            return solam_epoch_dense(*iterates_, rows.data, y, order, hp, t, learn)
        return solam_epoch(*iterates_, *csr, hp, t, learn)

    return run


def coef(state, params) -> np.ndarray:
    """Return the ``gamma``-weighted average ``w_bar`` (the output of Natole 2020, Alg. 10/18)."""
    return iterates(state)[1]


def warm_values(state: dict) -> dict:
    """Return the entries ``warm_start=True`` reuses: the iterates ``w``, ``(a, b)``, ``alpha``."""
    return {"w": iterates(state)[0], "ab": state["ab"], "alpha": state["alpha"]}


# Largest useful eta0 * kappa^2 (see aucopt.algorithms._stability); measured after one pass:
# test AUC 0.80 at 8 and 0.46 at 256 on german.numer scaled to [-1, 1], 0.76 at 8 and 0.57 at
# 256 on a synthetic problem. The limit is kept at the paper grid's largest step (eta0 = 2^10
# on rows of norm <= 1), so poor steps between 256 and 1024 are still run as asked.
MAX_STEP_CURVATURE = 1024.0

RADII = tuple(10.0**k for k in range(-1, 6))  # Liu et al. 2018, Section 5: R in 10^[-1:1:5]
ZETAS = tuple(2.0**k for k in range(-10, 11))  # Liu et al. 2018, Section 5: 2^[-10:1:10]
_COMMON = dict(
    family="solam",
    streaming=True,
    sparse=True,
    memory="O(d)",
    init_state=init_state,
    coef=coef,
    step_param="eta0",
    warm_keys=("w", "ab", "alpha"),
    warm_values=warm_values,
    column_keys=("vb", "acc"),
    lazy_form=_fresh_lazy,
    plain_form=plain_form,
    equivalence_params={"kappa": 4.0},
)

SOLAM = register(
    AlgorithmSpec(
        id="solam",
        name="SOLAM",
        estimator="aucopt.linear_model._solam:SOLAMClassifier",
        paper=PAPER_SOLAM,
        source="Ying, Wen, Lyu, NIPS 2016",
        cost="O(d) per sample dense (one sweep); O(nnz) per sample on CSR (lazy scaling and "
        "averaging kept between calls)",
        run=_runner(BALL_L2, regularised=False),
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA0),
        grid={"R": RADII, "eta0": ZETAS},
        quick_grid={"R": (1.0, 10.0, 100.0), "eta0": ("auto", 2.0**-6, 2.0**-2)},
        notes="Liu et al. 2018 grid: R in 10^[-1:1:5], zeta in 2^[-10:1:10] on a validation set; "
        "kappa "
        "= max ||x|| from the data. Dual step is an ascent (notes.md#solam-dual-sign).",
        **_COMMON,
    )
)

SOLAM_L1 = register(
    AlgorithmSpec(
        id="solam-l1",
        name="SOLAM-l1",
        estimator="aucopt.linear_model._solam:SOLAML1Classifier",
        paper=PAPER_SOLAM,
        source="Ying et al. 2016; l1 ball as in Liu et al., ICML 2018",
        cost="O(d) per sample while the l1 ball is inactive (dense or CSR: the l1 norm needs "
        "every coordinate), O(d log d) when the sort-based projection (notes.md#projections) is "
        "active",
        run=_runner(BALL_L1, regularised=False),
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA0),
        grid={"R": RADII, "eta0": ZETAS},
        quick_grid={"R": (1.0, 10.0, 100.0), "eta0": ("auto", 2.0**-6, 2.0**-2)},
        notes="Liu et al. 2018 grid: R in 10^[-1:1:5], zeta in 2^[-10:1:10]; SOLAM with the l2 "
        "ball "
        "replaced by the l1 ball of radius R.",
        **_COMMON,
    )
)

REG_SOLAM = register(
    AlgorithmSpec(
        id="reg-solam",
        name="regSOLAM",
        estimator="aucopt.linear_model._solam:RegSOLAMClassifier",
        paper=PAPER_REG,
        source="Natole, thesis ch. 3 (2020)",
        cost="O(d) per sample dense (one sweep); O(nnz) per sample on CSR (lazy scaling and "
        "averaging kept between calls)",
        run=_runner(BALL_L2, regularised=True),
        # the step is judged on the loss at its best scale, as for SOLAM (see regularised)
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA0),
        grid={"eta0": tuple(float(z) for z in range(1, 101, 9)),
              "lam": tuple(10.0**k for k in range(-5, 6))},
        quick_grid={"lam": (1e-5, 1e-3, 1e-1), "eta0": ("auto", 2.0**-6, 2.0**-2)},
        notes="Thesis grid: zeta in [1:9:100], lam in 10^[-5:5] by 5-fold CV; R = sqrt(2/lam) "
        "(notes.md#regsolam); gamma_t = zeta/sqrt(t). The effective l2 weight relative to the "
        "pairwise loss is lam/(2p(1-p)).",
        **_COMMON,
    )
)
