"""KL-DRO partial-AUC learners: state layout, hyperparameters, kernel call.

``pauc-sopa-s`` (here) and ``pauc-sota-s`` (:mod:`.pauc_sota`): the stochastic methods
SOPA-s (one-way partial AUC) and SOTA-s (two-way partial AUC) of D. Zhu, G. Li, B. Wang,
X. Wu, T. Yang, "When AUC meets DRO: Optimizing partial AUC for deep learning with
non-convex convergence guarantee", ICML 2022 (sections 4 and 5), for a linear scorer, in
the streaming form of ``pauc-1pmb`` with bounded memory (:mod:`aucopt._kernels.pauc_dro`).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.special import logsumexp

from .._kernels._state import view, zeros
from .._kernels.pauc_dro import PaucDroState, dro_epoch, settled_weights
from .._kernels.pauc_rows import dro_row
from ..utils._param_validation import Interval
from ._calibrate import StepCalibration
from ._memory import check_memory
from ._params import POSITIVE, KernelScalars, Param, auto_step, common, precondition
from ._pauc_rows import buffered_row_step
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from .oam import auto_scaled, buffer_size, match_slots, max_memory
from .pauc import ETA_GRID, check_buffers

__all__ = ["SOPA_PARAMS", "PAUC_SOPA_S", "AUTO_ETA", "SHARED", "kl_objective", "settled",
           "run_dro", "dro_calls", "kl_dro", "hyper", "eta_param", "temperature", "gamma_param",
           "COMMON_PARAMS", "KL_COMMON_PARAMS", "LAM_GRID", "ETA", "LAM", "GAMMA"]

PAPER = (
    "D. Zhu, G. Li, B. Wang, X. Wu, T. Yang. When AUC meets DRO: Optimizing partial AUC for "
    "deep learning with non-convex convergence guarantee. ICML 2022"
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA / M^2, M^2 the largest squared row norm seen.
AUTO_ETA = 0.25
# "auto" gives the fit the step one rung of the calibration ladder (a factor 4) below the one
# whose brief run scored best: the pair weights exp(L_ij / lam) feed back on the step, so the
# iterates blow up abruptly past a step, and a fit, which makes several times the steps of
# a brief run, crossed that edge at the step the brief runs chose. On docs/robustness.md's
# cases (median of three orders) the steps chosen left SOTA-s 0.22-0.26 short of the
# least-squares optimum's partial AUC (FPR <= 0.1) on 20 Gaussian columns and up to 0.18 on
# the word-count look-alike, SOPA-s 0.11 there and 0.02-0.03 on 351 x 34; one rung below,
# both were within 0.01 on those cases whatever the scaling.
SAFETY = 1
LAM_GRID = (0.1, 1.0, 10.0)  # the useful range of a temperature (unit margin)
GAMMA_GRID = (0.1, 0.5, 0.9)
UNIT_INTERVAL = Interval(Real, 0, 1, closed="right")


def eta_param(objective: str = "KL-DRO") -> Param:
    """Declare the step ``eta`` (calibrated for ``"auto"`` on the ``objective``)."""
    return auto_step("eta", AUTO_ETA, rf"""
        Constant step :math:`\eta` of the momentum update :math:`w \leftarrow w - \eta m`.
        ``"auto"`` calibrates it on the training data (a short run per step of a geometric
        ladder, the lowest {objective} objective on the sample wins;
        :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``eta_``.""")


def temperature(name: str, doc: str) -> Param:
    """Declare a KL temperature ``name`` (default 1) with its description."""
    return Param(name, 1.0, (POSITIVE,), "float", doc, kernel=float)


def gamma_param(name: str, symbol: str, what: str) -> Param:
    """Declare a moving-average weight ``name`` in (0, 1] of ``what``."""
    return Param(name, 0.9, (UNIT_INTERVAL,), "float", rf"""
        Weight :math:`{symbol}` in (0, 1] of the new batch (1: the batch's value alone) in
        the moving average {what}.""", kernel=float)


COMMON_PARAMS = (
    Param("margin", 1.0, (POSITIVE,), "float", r"""
        Margin :math:`m` of the squared hinge :math:`L_{ij} = \max(0, m - w^\top(x_i -
        x_j))^2` of a positive :math:`x_i` and a negative :math:`x_j`.""", kernel=float),
    Param("momentum", 0.9, (Interval(Real, 0, 1, closed="left"),), "float", r"""
        Momentum :math:`\beta`: :math:`m \leftarrow \beta m + (1 - \beta) G` before each
        step (0: plain stochastic gradient).""", kernel=float),
    buffer_size(r"""
        Size B of the negative batches (one step per B negatives, after first batches of
        1, 2, 4, ... negatives) and capacity of the ring of the last B positives (each with
        its moving average :math:`u_i`, or SOPA's threshold :math:`s_i`) used by every
        step.""").replace(default=32),
    max_memory("the two buffers"),
    *common(max_iter=5, max_iter_doc="""
        Passes over the data in ``fit`` (a later pass offers every row again, as new
        arrivals: a positive's :math:`u_i` or :math:`s_i` restarts when it re-enters the
        ring).""",
            warm_start="Start ``fit`` from the previous iterate (buffers, averages or "
                       "thresholds, and momentum restart)."),
)

ETA = eta_param()
LAM = temperature("lam", r"""
    Temperature :math:`\lambda` of the KL-regularised DRO over the negatives of each
    positive: the negatives weigh :math:`\propto \exp(L_{ij}/\lambda)`. Small: the weight
    goes to the few top-scored negatives (a small ``max_fpr``); large: all negatives weigh
    alike (the mean pairwise loss of the full AUC). Useful range with the unit margin:
    about 0.1 to 10.""")
GAMMA = gamma_param("gamma", r"\gamma", ":math:`u_i` of the mean over the\n        "
                    r"negatives of :math:`\exp(L_{ij}/\lambda)`")
# SOPA-s and SOTA-s make 10 passes by default (SOPA 5): their fit takes the step one rung
# below the calibration's best (SAFETY), and on docs/robustness.md's german.numer (700
# training rows) 5 passes at it left them 0.015-0.037 short of the least-squares optimum's
# partial AUC (FPR <= 0.1), their quick grids 0.036-0.042; with 10, within 0.025 and 0.033
# (SOTA-s unscaled), no case more than 0.01 worse (few-rows). SOPA, with its own step,
# then ends 0.05 short on few-rows.
KL_COMMON_PARAMS = tuple(p.replace(default=10) if p.name == "max_iter" else p
                         for p in COMMON_PARAMS)
SOPA_PARAMS = (ETA, LAM, GAMMA, *KL_COMMON_PARAMS)

hyper = KernelScalars("SopaHyper", __name__, SOPA_PARAMS)


def kl_objective(scores, y, lam, lam_pos=None) -> float:
    """Return the KL-DRO objective of the scores: one-way
    ``lam * mean_i log mean_j exp(L_ij / lam)`` or, with ``lam_pos``, two-way
    ``lam_pos * log mean_i (mean_j exp(L_ij / lam))^(lam / lam_pos)``, margin 1; weighted
    means (``y = +-w``)."""
    return _kl(scores, y, lam, lam_pos, 1.0)


def _kl(scores, y, lam, lam_pos, margin) -> float:
    pos = y > 0
    weights = np.abs(y).astype(np.float64)
    hinge = np.maximum(0.0, margin - (scores[pos][:, None] - scores[~pos][None, :]))
    wn, wp = weights[~pos], weights[pos]
    log_u = logsumexp(hinge * hinge / lam, axis=1, b=wn[None, :]) - np.log(np.sum(wn))
    if lam_pos is None:
        return float(lam * np.sum(wp * log_u) / np.sum(wp))
    return float(lam_pos * (logsumexp(lam / lam_pos * log_u, b=wp) - np.log(np.sum(wp))))


def _objective(scores, w, params, y) -> float:
    """The calibration objective: the method's own KL-DRO objective on the sample."""
    return _kl(scores, y, float(params["lam"]), params.get("lam_pos"), float(params["margin"]))


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict:
    """Return a fresh state: the arrays of :class:`aucopt._kernels.pauc_dro.PaucDroState`."""
    capacity = int(params["buffer_size"])
    check_memory(12.0 * capacity + float(capacity) ** 2, params,
                 f"two buffers of {capacity} rows and the weights of their pairs",
                 "Lower buffer_size")
    return zeros(PaucDroState, n_features, params)


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded state has consistent buffers, clock and averages."""
    check_buffers(state, params, n_features)
    eta, beta = state["lazy"]
    if not (np.isfinite(eta) and eta >= 0 and 0 <= beta < 1):
        raise ValueError(f"the lazy step and momentum ({eta}, {beta}) must be a finite "
                         "eta >= 0 and 0 <= beta < 1")
    if (state["last"] > state["steps"][0]).any():
        raise ValueError("a coordinate's clock 'last' is ahead of the steps taken")
    if not (np.isfinite(state["log_u"]).all() and np.isfinite(state["log_v"]).all()):
        raise ValueError("the moving averages log_u / log_v (pauc-sopa: the thresholds) "
                         "must be finite")


def settled(state: dict) -> np.ndarray:
    """Return the iterate with every coordinate caught up with the steps taken (O(d), one
    compiled pass: :func:`~aucopt._kernels.pauc_dro.settled_weights`)."""
    w = state["w"]
    out = np.empty_like(w)
    settled_weights(w, state["mom"], state["last"], int(state["steps"][0]),
                    float(state["lazy"][0]), float(state["lazy"][1]), out)
    return out


def _settle(state: dict, eta: float, beta: float) -> None:
    """Catch every coordinate up under the stored step and momentum if a call brings others
    (the pending steps were taken with the stored ones), then store the new ones."""
    lazy = state["lazy"]
    if lazy[0] == eta and lazy[1] == beta:
        return
    gap = state["steps"][0] - state["last"]
    state["w"][:] = settled(state)
    state["mom"] *= np.where(gap == 1, lazy[1], lazy[1] ** gap.astype(np.float64))
    state["last"][:] = state["steps"][0]
    lazy[:] = (eta, beta)


def kl_dro(hp, lam_pos=None, gamma_pos=1.0) -> tuple:
    """Return the kernel's ``dro`` tuple of the KL-DRO objectives: one-way, or two-way with
    ``lam_pos`` (:func:`aucopt._kernels.pauc_dro.dro_epoch`)."""
    ratio = 0.0 if lam_pos is None else hp.lam / lam_pos
    return (hp.lam, hp.margin, hp.gamma, ratio, gamma_pos, 0.0, 0.0)


def run_dro(state, rows: RowData, y, order, params, t, hp, dro: tuple):
    """One pass over ``order`` (:func:`aucopt._kernels.pauc_dro.dro_epoch`) with the kernel
    scalars ``hp`` (step and momentum) and the objective's tuple ``dro``. An
    ``eta="auto"`` not yet calibrated is ``AUTO_ETA / M^2``, M^2 the largest squared row
    norm given so far."""
    hp = auto_scaled(hp, "eta", AUTO_ETA, state)
    slots = match_slots(state, rows, params)
    _settle(state, hp.eta, hp.momentum)
    return dro_epoch(view(PaucDroState, state), slots, _work(int(params["buffer_size"])),
                     rows.data, rows.indices, rows.indptr, y, order, dro, t)


def _work(capacity: int) -> tuple:
    """Return the scratch arrays of one step for buffers of ``capacity`` slots."""
    return (*(np.empty(capacity) for _ in range(4)), np.empty((capacity, capacity)),
            np.empty(capacity))


def dro_calls(scalars, what: str) -> dict:
    """Return ``run`` and ``row_kernel`` of an id whose kernel scalars and ``dro`` tuple
    are ``scalars(params) -> (hp, dro)``; ``what`` names the method."""

    def run(state, rows: RowData, y, order, params, t, learn, rng=None):
        return run_dro(state, rows, y, order, params, t, *scalars(params))

    def row_kernel(state: dict, params: dict) -> RowStep | None:
        hp, dro = scalars(params)
        hp = auto_scaled(hp, "eta", AUTO_ETA, state)
        lazy = state["lazy"]
        if lazy[0] != hp.eta or lazy[1] != hp.momentum:
            return None  # run catches every coordinate up first (O(d))
        return buffered_row_step(dro_row, view(PaucDroState, state), state, dro,
                                 _work(int(params["buffer_size"])), hp.auto_eta,
                                 ("w", "mom"), ("last",))

    # the id's own module, where its kernel scalars (``hyper``) are declared
    run.__module__ = row_kernel.__module__ = scalars.__module__
    run.__doc__ = f"""One {what} pass over ``order`` (:func:`run_dro`); draws nothing."""
    row_kernel.__doc__ = f"""Return {what}'s call of ``run`` on one CSR row (see
        ``AlgorithmSpec.row_kernel``): :func:`aucopt._kernels.pauc_rows.dro_row`, which
        keeps ``w``, ``mom`` and ``last`` at the stored rows' columns before a step. None
        for dense slots, or when ``run`` would first catch every coordinate up (a step
        or momentum other than the stored one's)."""
    return {"run": run, "row_kernel": row_kernel}


def _sopa_s(params) -> tuple:
    """Return SOPA-s's kernel scalars and ``dro`` tuple."""
    hp = hyper(params)
    return hp, kl_dro(hp)


def coef(state, params) -> np.ndarray:
    """Return the last iterate, every coordinate caught up."""
    return settled(state)


def coef_terms(state, params) -> tuple | None:
    """Return ``coef`` as the entry ``w`` when the catch-up is nothing (the pending steps'
    momentum ``lazy[1]`` is 0: :func:`settled` is ``w``), else None: a coordinate ``g``
    steps behind is caught up by ``beta + ... + beta^g`` times its momentum, a factor of
    its own, not a combination of the state's columns (see ``AlgorithmSpec.coef_terms``)."""
    return ((1.0, "w", 0),) if state["lazy"][1] == 0.0 else None


def warm_values(state: dict) -> dict:
    """Return the entries ``warm_start=True`` reuses: the caught-up iterate."""
    return {"w": settled(state)}


SHARED = dict(
    family="pauc_dro",
    paper=PAPER,
    source="Zhu, Li, Wang, Wu, Yang, ICML 2022",
    streaming=True,
    sparse=True,
    memory="O(B K + d) on CSR rows (two buffers of B = buffer_size rows stored sparsely, K "
    "the longest row; iterate, momentum and a step clock per feature), O(B d) on dense "
    "rows; independent of n",
    cost="O(nnz + B) per sample amortised on CSR rows (one step per B negatives: scores of "
    "the 2B stored rows, B^2 pairs, the momentum applied lazily at their columns), "
    "O(d + B) per sample on dense rows",
    init_state=init_state,
    coef=coef,
    coef_terms=coef_terms,
    state=(PaucDroState,),
    check_state=check_state,
    step_param="eta",
    calibration=StepCalibration(_objective, unit=AUTO_ETA, share=0.8, held_out=0.3,
                                safety=SAFETY, weight_power=0.0),
    warm_keys=("w",),
    warm_values=warm_values,
    equivalence_params={"eta": 0.05, "precondition": None},
    weights="steps",
)

PAUC_SOPA_S = register(
    AlgorithmSpec(
        id="pauc-sopa-s",
        name="pAUC SOPA-s (KL-DRO, one-way, streaming)",
        **dro_calls(_sopa_s, "SOPA-s"),
        params=(*SOPA_PARAMS, precondition()),
        grid={"eta": ETA_GRID, "lam": LAM_GRID, "gamma": GAMMA_GRID},
        quick_grid={"eta": ("auto",), "lam": LAM_GRID},
        notes="Zhu et al. 2022 train deep models with SOPA-s (momentum or Adam) and tune "
        "lambda and the step. Streaming form: the last buffer_size "
        "positives (a ring, each with its u_i) meet every batch of buffer_size negatives. "
        "The temperature lam stands in for max_fpr: smaller focuses on the top negatives.",
        **SHARED,
    )
)
