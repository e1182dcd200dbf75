"""SOLAM, SOLAM-l1, regSOLAM: state, hyperparameters, kernel call (Natole 2020, Algs. 10, 18)."""

from __future__ import annotations

import math

import numpy as np

from .._kernels._checks import OK
from .._kernels._state import view, zeros
from .._kernels.solam import (
    BALL_L1,
    BALL_L2,
    NEEDS_FOLD,
    SolamLazyState,
    SolamScales,
    SolamState,
    solam_epoch,
    solam_epoch_dense,
    solam_epoch_lazy,
    solam_lazy_iterates,
)
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights, drop_lazy_form, split_packed
from ._fast import specialised
from ._params import AUTO, POSITIVE, KernelScalars, Param, auto_step, common, precondition
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status, weight_scale

__all__ = ["PARAMS", "L1_PARAMS", "REG_PARAMS", "R", "ETA0", "KAPPA", "SolamHyper", "AUTO_ETA0",
           "kappa_of", "iterates", "hyper", "SOLAM", "SOLAM_L1",
           "REG_SOLAM"]

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


def _auto_or_float(value):
    auto = isinstance(value, str) and value == "auto"
    return (0.0 if auto else float(value), auto)


R = Param("R", 10.0, (POSITIVE,), "float", r"Radius of the l2 ball of :math:`w`.", kernel=float)
ETA0 = auto_step("eta0", AUTO_ETA0, r"""
    Step scale :math:`\zeta` of :math:`\gamma_t = \zeta/\sqrt{t}`.
    ``"auto"`` calibrates it on the training data (a short run per step of a
    geometric ladder, the lowest objective wins; :mod:`aucopt.algorithms._calibrate`)
    and stores the value used in ``eta0_``.""")
KAPPA = Param("kappa", "auto", (POSITIVE, AUTO), 'float or "auto"', r"""
    :math:`\kappa = \max_i \|x_i\|`, which bounds :math:`a, b, \alpha`.
    ``"auto"`` computes it from the training data given so far (all of
    ``X`` in ``fit``; the chunks seen so far in ``partial_fit``).""",
              kernel=_auto_or_float, fields=("kappa", "auto_kappa"))
LAM = Param("lam", 1e-4, (POSITIVE,), "float", r"""
    l2 weight :math:`\lambda`; also sets :math:`R = \sqrt{2/\lambda}`.""", kernel=float)
_COMMON_PARAMS = common(max_iter=5, max_iter_doc="""
    Passes over the data in ``fit`` (SOLAM is a one-pass method; further
    passes continue the same stream, step counter and averages).""", warm_start=r"""
    Start ``fit`` from the previous last iterate :math:`(w, a, b, \alpha)` (the
    counters and averages restart).""")
PARAMS = (R, ETA0, KAPPA, *_COMMON_PARAMS)
L1_PARAMS = (R.replace(doc=r"Radius of the l1 ball of :math:`w`."), ETA0, KAPPA, *_COMMON_PARAMS)
REG_PARAMS = (LAM, ETA0, KAPPA, *_COMMON_PARAMS)

# The kernel scalars; lam = 0 for SOLAM and SOLAM-l1, which do not declare it.
hyper = KernelScalars("SolamHyper", __name__, (R, LAM, ETA0, KAPPA), missing={"lam": 0.0})
SolamHyper = hyper.type


def kappa_of(hp, state: dict) -> float:
    """Return ``kappa``: the ``kappa`` parameter, or the largest row norm of the data seen.

    ``hp`` is a tuple of kernel scalars with the fields ``kappa`` and ``auto_kappa``.
    """
    if hp.auto_kappa:
        return float(np.sqrt(state["data_sqmax"][0]))
    return hp.kappa


def _scales(hp, state: dict, ball: int, regularised: bool) -> SolamScales:
    """Return the radius, ``kappa``, step scale and ball of one call."""
    kappa = kappa_of(hp, state)
    eta0 = hp.eta0
    if hp.auto_eta0:  # partial_fit before calibration: the scale of the data seen so far;
        # only zero rows so far (kappa = 0): a negligible step, so that they carry no weight in
        # the gamma-weighted average (a step of AUTO_ETA0 / 1e-300 froze it at 0)
        eta0 = eta0 / (kappa * kappa) if kappa > 0 else _NO_SCALE_STEP
    radius = math.sqrt(2.0 / hp.lam) if regularised else hp.R  # thesis section 3.3
    return SolamScales(radius=radius, kappa=kappa, eta0=eta0, ball=ball)


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh SOLAM state (all iterates at the feasible point 0).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.solam.SolamState`. CSR rows with the l2
        ball switch it to :class:`~aucopt._kernels.solam.SolamLazyState`.
    """
    return zeros(SolamState, n_features)


_LAZY_ONLY = tuple(f for f in SolamLazyState._fields if f not in SolamState._fields)


def _to_lazy(state: dict) -> None:
    """Switch ``state`` to the lazy form of the CSR kernel (O(d), once: the first CSR call)."""
    w = state.pop("w")
    vb = np.zeros((w.shape[0], 2))
    vb[:, 0] = w
    state.update(vb=vb, acc=state.pop("w_avg") * state["gamma_sum"][0], sigma=np.ones(1),
                 s_sum=np.zeros(1), vsq=np.array([w @ w]))


def upgrade_state(state: dict) -> None:
    """Unpack the ``lazy`` array of lazy-form files saved before it was split; class counts
    saved as rows become weights."""
    split_packed(state, "lazy", ("sigma", "s_sum", "vsq"))
    counts_as_weights(state, "seen")


def _fresh_lazy(state: dict, params: dict) -> None:
    """Switch a fresh state to the lazy form (the reference layout of a saved lazy state)."""
    _to_lazy(state)


def plain_form(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` to the plain form if it is in the lazy one (see ``AlgorithmSpec``)."""
    if "vb" in state:  # O(d), once: dense rows after CSR ones
        drop_lazy_form(state, iterates, _LAZY_ONLY)


def iterates(state: dict) -> tuple[np.ndarray, np.ndarray]:
    """Return the iterate ``w`` and the weighted average ``w_avg`` of a state in either form."""
    if "vb" not in state:
        return state["w"], state["w_avg"]
    d = state["vb"].shape[0]
    w, w_avg = np.empty(d), np.empty(d)
    solam_lazy_iterates(view(SolamLazyState, state), w, w_avg)
    return w, w_avg


def _run_lazy(state, rows: RowData, y, order, hp, sk, t, learn, before_dense):
    """The O(nnz) kernel on the lazy form, kept between calls (``before_dense``: see ``run``)."""
    if "vb" not in state:
        if before_dense is not None:
            before_dense()
        _to_lazy(state)
    st, position, may_fold = view(SolamLazyState, state), 0, before_dense is None
    while True:
        t, status, position = solam_epoch_lazy(st, rows.data, rows.indices, rows.indptr, y,
                                               order, position, hp, sk, t, learn, may_fold)
        if status != NEEDS_FOLD:
            return t, status
        before_dense()
        may_fold = True


def _runner(ball: int, regularised: bool):
    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One SOLAM pass over ``order`` (see :mod:`aucopt._kernels.solam`).

        Dense rows: the fused one-sweep kernel; CSR rows: the O(nnz) lazy kernel
        with the l2 ball (its lazy form kept between calls; ``before_dense`` is called
        before the O(d) steps), the O(d) kernel with the l1 ball.
        """
        hp = hyper(params)
        sk = _scales(hp, state, ball, regularised)
        # a row's step is eta0 times its weight (notes.md#sample-weights): :func:`weight_scale`
        status = step_status(sk.eta0 * weight_scale(y, order), sk.kappa * sk.kappa,
                             MAX_STEP_CURVATURE)
        if status != OK:
            return t, status
        if rows.is_sparse and ball == BALL_L2 and specialised(solam_epoch_lazy):
            return _run_lazy(state, rows, y, order, hp, sk, t, learn, before_dense)
        if "vb" in state:
            if before_dense is not None:
                before_dense()
            plain_form(state, params, t)
        st = view(SolamState, state)
        if not rows.is_sparse and specialised(solam_epoch_dense):
            return solam_epoch_dense(st, rows.data, y, order, hp, sk, t, learn)
        return solam_epoch(st, rows.data, rows.indices, rows.indptr, y, order, hp, sk, t, learn)

    def row_kernel(state: dict, params: dict) -> RowStep | None:
        """Return the call of ``run`` on one CSR row in the state's present form (see
        ``AlgorithmSpec.row_kernel``; None when ``run`` would change forms or stop)."""
        hp = hyper(params)
        sk = _scales(hp, state, ball, regularised)
        if step_status(sk.eta0, sk.kappa * sk.kappa, MAX_STEP_CURVATURE) != OK:
            return None
        watch = ("data_sqmax",) if hp.auto_kappa else ()
        lazy = ball == BALL_L2 and specialised(solam_epoch_lazy)
        if lazy and "vb" in state:  # may_fold False: a fold takes the general path
            return RowStep(solam_epoch_lazy, (view(SolamLazyState, state),), (0, hp, sk),
                           (True, False), watch=watch)
        if not lazy and "vb" not in state:
            return RowStep(solam_epoch, (view(SolamState, state),), (hp, sk), (True,),
                           watch=watch)
        return None

    return {"run": run, "row_kernel": row_kernel}


def coef(state, params) -> np.ndarray:
    """Return the ``gamma``-weighted average ``w_bar`` (the output of Natole 2020, Alg. 10/18)."""
    return iterates(state)[1]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as terms of the lazy form (see ``AlgorithmSpec.coef_terms``):
    ``(acc + S v - b) / sum gamma``, ``acc`` before the first step; in the plain form
    (SOLAM-l1's projection, dense rows) ``w_avg`` itself, which a step writes whole."""
    if "vb" not in state:
        return ((1.0, "w_avg", 0),)
    gsum = state["gamma_sum"][0]
    if not gsum > 0.0:
        return ((1.0, "acc", 0),)
    inv = 1.0 / gsum
    return ((inv, "acc", 0), (state["s_sum"][0] * inv, "vb", 0), (-inv, "vb", 1))


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
    coef_terms=coef_terms,
    step_param="eta0",
    state=(SolamState, SolamLazyState),
    warm_keys=("w", "ab", "alpha"),
    warm_values=warm_values,
    column_keys=("vb", "acc"),
    lazy_form=_fresh_lazy,
    upgrade_state=upgrade_state,
    plain_form=plain_form,
    equivalence_params={"kappa": 4.0, "precondition": None},
    weights="steps",
)

SOLAM = register(
    AlgorithmSpec(
        id="solam",
        name="SOLAM",
        paper=PAPER_SOLAM,
        source="Ying, Wen, Lyu, NIPS 2016",
        cost="O(d) per sample dense (one sweep); O(nnz) per sample on CSR (lazy scaling and "
        "averaging kept between calls)",
        **_runner(BALL_L2, regularised=False),
        params=(*PARAMS, precondition()),
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
        paper=PAPER_SOLAM,
        source="Ying et al. 2016; l1 ball as in Liu et al., ICML 2018",
        cost="O(d) per sample while the l1 ball is inactive (dense or CSR: the l1 norm needs "
        "every coordinate), O(d log d) when the sort-based projection (notes.md#projections) is "
        "active",
        **_runner(BALL_L1, regularised=False),
        params=(*L1_PARAMS, precondition()),
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA0, share=0.5),
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
        paper=PAPER_REG,
        source="Natole, thesis ch. 3 (2020)",
        cost="O(d) per sample dense (one sweep); O(nnz) per sample on CSR (lazy scaling and "
        "averaging kept between calls)",
        **_runner(BALL_L2, regularised=True),
        params=(*REG_PARAMS, precondition()),
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
