"""OPAUC, OPAUCr and the reduced OPAUC baselines: declarations, state, kernel calls.

Gao et al. 2013: Algorithm 1 (``opauc``), Eqs. 6-11 (``opauc-r``) and the baselines
of Section 6.2 (``opauc-f``, ``opauc-rp``, ``opauc-pca``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._kernels._state import view, zeros
from .._kernels.opauc import (
    CENTER_PAPER,
    CENTER_UNBIASED,
    DEFER,
    OpaucSketchState,
    OpaucState,
    RowMap,
    opauc_epoch,
    opauc_sketch_epoch,
)
from .._kernels.opauc_rows import opauc_sketch_row, sketch_keep
from ..utils._param_validation import Interval, Options
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights
from ._fast import one_blas_thread, select
from ._memory import check_memory
from ._params import POSITIVE, SIZE, KernelScalars, Param, auto_step, codes, common, precondition
from ._pca import pca_components
from ._registry import register
from ._rowpath import BLAS_ROW_WIDTH, RowStep
from ._spec import AlgorithmSpec, RowData

__all__ = [
    "OpaucHyper",
    "AUTO_ETA",
    "PARAMS",
    "R_PARAMS",
    "F_PARAMS",
    "RP_PARAMS",
    "PCA_PARAMS",
    "hyper",
    "check_covariance_memory",
    "covariance_state",
    "class_covariance",
    "upgrade_state",
    "DEFER",
    "OPAUC",
    "OPAUC_R",
    "OPAUC_F",
    "OPAUC_RP",
    "OPAUC_PCA",
]

PAPER = (
    "W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. One-pass AUC optimization. ICML 2013 "
    "(long version, Algorithm 1, Eqs. 2-11, section 6)."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred
# on AUTO_ETA / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA / (M^2 + lam), M^2 the largest squared row norm seen
# (+ lam: on rows of norm 1e-4, AUTO_ETA / M^2 times lam passed 2, and the shrinkage factor
# 1 - eta lam of every step fell below -1: River streams diverged at their eighth row)
AUTO_ETA = 0.1

CENTERINGS = {"unbiased": CENTER_UNBIASED, "paper": CENTER_PAPER}
SKETCH_BLOCK = 4096  # rows of Gaussian sketch drawn at a time (same stream as one draw)

ETA = auto_step("eta", AUTO_ETA, r"""
    Constant step size :math:`\eta`. ``"auto"`` calibrates it on the training data (a
    short run per step of a geometric ladder, the lowest objective wins;
    :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``eta_``.""")
LAM = Param("lam", 1e-4, (POSITIVE,), "float", r"l2 weight :math:`\lambda`.", kernel=float)
MAX_RANK = 10**5  # OPAUCr's sketch size: a row costs O(rank d); beyond it a pass never ends
MAX_MEMORY = Param("max_memory_gb", 2.0, (POSITIVE,), "float", """
    Refuse (ValueError, before allocating) when the two d x d float64
    covariances need more than this many GB (1 GB = 1e9 bytes); use
    :class:`~aucopt.linear_model.OPAUCrClassifier` for high-dimensional data.""")
ONE_PASS = common(max_iter=1, max_iter_doc="""
    Passes over the data in ``fit``. OPAUC is a one-pass method; later
    passes only take gradient steps (the class statistics are complete
    after the first pass).""",
                  warm_start="Start ``fit`` from the previous last iterate (the class "
                  "statistics restart).")
PARAMS = (ETA, LAM, MAX_MEMORY, *ONE_PASS)

CENTERING = Param("centering", "unbiased", (Options(str, set(CENTERINGS)),),
                  '{"unbiased", "paper"}', r"""
    ``"unbiased"``: :math:`\hat S w = \frac{1}{T}(Z - c s^\top)(Z - c s^\top)^\top w`
    (unbiased, positive semi-definite; notes.md#opaucr-sketch). ``"paper"``: the
    literal :math:`ZZ^\top/T - \|s/T\|^2 cc^\top` of the paper, biased by about
    :math:`cc^\top` on non-centred data.""", kernel=codes(CENTERINGS))
R_PARAMS = (ETA, LAM,
            Param("rank", 50, (Interval(Integral, 1, MAX_RANK, closed="both"),), "int",
                  r"Sketch size :math:`\tau` (50 in the paper; at most 10^5: each row costs "
                  r"O(:math:`\tau` d)).", structural=True),
            CENTERING,
            MAX_MEMORY.replace(doc="""
    Refuse (ValueError, before allocating) when the two ``rank`` x d sketches need
    more than this many GB (1 GB = 1e9 bytes)."""),
            *ONE_PASS)

N_COMPONENTS = Param("n_components", 1000, (SIZE, None),
                     "int or None", "Number of features kept (capped at n_features; None "
                     "keeps all).", structural=True)
REDUCED_MEMORY = MAX_MEMORY.replace(doc="""
    Refuse (ValueError, before allocating) when the two k x k covariances,
    k = n_components, need more than this many GB (1 GB = 1e9 bytes).""")
REDUCED_PASS = common(max_iter=1, warm_start="""
    Start ``fit`` from the previous reduced iterate (the same subset or
    projection only with a fixed ``random_state``).""")
F_PARAMS = (ETA, LAM, N_COMPONENTS, REDUCED_MEMORY, *REDUCED_PASS)
RP_PARAMS = (ETA, LAM, N_COMPONENTS.replace(doc="""
    Projected dimension k. When k >= n_features (or None) the data are
    not projected and the estimator is OPAUC on all features: a square
    Gaussian matrix reduces nothing and only worsens the conditioning."""),
             REDUCED_MEMORY.replace(doc="""
    Refuse (ValueError, before allocating) when the two k x k covariances or the
    k x d projection need more than this many GB (1 GB = 1e9 bytes)."""), *REDUCED_PASS)
PCA_PARAMS = (ETA, LAM, N_COMPONENTS.replace(doc="""
    Number of principal components (capped at n_features; None keeps all)."""),
              REDUCED_MEMORY.replace(doc="""
    Refuse (ValueError, before allocating) when the two k x k covariances or the
    d x d covariance of the PCA need more than this many GB (1 GB = 1e9 bytes)."""),
              *REDUCED_PASS)

# The kernel scalars of both kernels (opauc_epoch ignores centering).
hyper = KernelScalars("OpaucHyper", __name__, R_PARAMS)
OpaucHyper = hyper.type


def check_covariance_memory(k: int, params: dict, alternative: str = "opauc-r") -> None:
    """Raise ValueError if two k x k float64 covariances exceed ``max_memory_gb``.

    Parameters
    ----------
    k : int
        Dimension of the covariances.
    params : dict
        Estimator hyperparameters (``max_memory_gb``).
    alternative : str
        Registry id suggested in the message.
    """
    check_memory(2.0 * k * k, params, f"OPAUC's two {k} x {k} covariance matrices",
                 f"Use {alternative!r} (low-rank sketch, O(rank d) memory, e.g. "
                 "aucopt.make('opauc-r', rank=50)), reduce the dimension first (opauc-rp, "
                 "opauc-pca)")


def covariance_state(k: int, params: dict) -> dict[str, np.ndarray]:
    """Return empty OPAUC statistics in dimension ``k`` (checked against the limit first).

    Parameters
    ----------
    k : int
        Working dimension.
    params : dict
        Estimator hyperparameters (``max_memory_gb``).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.opauc.OpaucState`: the covariance of class
        ``c`` is ``(tril(scatter[c]) + P^T P) / count[c]`` with
        ``P = pending[c, :n_pending[c]]`` (:func:`class_covariance`).
    """
    check_covariance_memory(k, params)  # before any allocation
    return zeros(OpaucState, k, params, k=k)


def class_covariance(state: dict, c: int) -> np.ndarray:
    """Return the full covariance (1/T normalisation, T the class weight) of class index ``c``
    of an OPAUC state.

    Parameters
    ----------
    state : dict
        State made by :func:`covariance_state`.
    c : int
        0 for the negative class, 1 for the positive class.

    Returns
    -------
    ndarray of shape (k, k)
    """
    lower = np.tril(state["scatter"][c])
    pending = state["pending"][c, :state["n_pending"][c]]
    scatter = lower + np.tril(lower, -1).T + pending.T @ pending
    count = float(state["count"][c])
    return scatter / count if count > 0 else scatter


def upgrade_state(state: dict) -> None:
    """Convert the int64 class counts of files saved before sample weights to float64.

    ``count`` is now the total sample weight per class (notes.md#sample-weights), the
    same number for an unweighted fit.
    """
    counts_as_weights(state, "count")


# ----------------------------------------------------------------- opauc (full)
def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh OPAUC state (raises before allocating if d x d is too large)."""
    return covariance_state(n_features, params)


_EMPTY_ROW = np.zeros(0)
_EMPTY_FEATURES = np.zeros(0, dtype=np.int64)
_EMPTY_PROJ = np.zeros((0, 0))


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One pass of OPAUC or of a reduced variant (see :func:`aucopt._kernels.opauc.opauc_epoch`).

    The reduced variants work in the space of their column subset (``features``) or
    linear map (``proj``); OPAUC^pca fits its components on the first rows given,
    weighted by their sample weights ``|y|``.
    """
    if "pca_fitted" in state and not state["pca_fitted"][0]:
        state["proj"][...] = pca_components(rows, state["proj"].shape[0], np.abs(y))
        state["pca_fitted"][0] = 1
    with one_blas_thread():  # one BLAS call per sample
        return select(opauc_epoch)(view(OpaucState, state), _row_map(state), rows.data,
                                   rows.indices, rows.indptr, y, order, hyper(params), t, learn)


def _row_map(state: dict) -> RowMap:
    """Return the map of input rows to the learner's space (identity for full OPAUC)."""
    return RowMap(state.get("rowbuf", _EMPTY_ROW), state.get("features", _EMPTY_FEATURES),
                  state.get("proj", _EMPTY_PROJ))


def row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return the call of ``run`` on one row (see ``AlgorithmSpec.row_kernel``; None before
    OPAUC^pca has its components, or for inputs wider than ``BLAS_ROW_WIDTH``)."""
    if state["data_sum"].shape[1] > BLAS_ROW_WIDTH or (
            "pca_fitted" in state and not state["pca_fitted"][0]):
        return None
    return RowStep(opauc_epoch, (view(OpaucState, state), _row_map(state)), (hyper(params),),
                   (True,))


def coef(state, params) -> np.ndarray:
    """Return the last iterate (notes.md#opauc-output)."""
    return state["w"]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as the entry ``w`` (see ``AlgorithmSpec.coef_terms``; a step of
    OPAUC or OPAUCr writes it whole)."""
    return ((1.0, "w", 0),)


# ------------------------------------------------------------- opauc-r (sketch)
def init_sketch_state(n_features: int, n_samples: int, params: dict,
                      rng=None) -> dict[str, np.ndarray]:
    """Return a fresh OPAUCr state: O(rank d) memory, never d x d."""
    rank = int(params["rank"])
    check_memory(2.0 * rank * (n_features + 1), params, f"OPAUCr's two {rank} x "
                 f"{n_features} sketches", "Lower rank")
    return zeros(OpaucSketchState, n_features, params)


def run_sketch(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One OPAUCr pass; the Gaussian sketch rows ``r_t / sqrt(rank)`` come from ``rng``.

    On a pass over new rows (``learn``) one row of ``standard_normal`` per
    visited sample is drawn, in visiting order, in blocks of ``SKETCH_BLOCK``
    rows (the same stream as one ``(len(order), rank)`` draw). Later passes
    reuse the class statistics and draw nothing.
    """
    hp, st = hyper(params), view(OpaucSketchState, state)
    rank = int(params["rank"])
    order = np.asarray(order, dtype=np.int64)
    no_sketch = np.zeros((0, rank))
    status = 0
    for start in range(0, max(len(order), 1), SKETCH_BLOCK):
        block = order[start:start + SKETCH_BLOCK]
        sketch = rng.standard_normal((len(block), rank)) / np.sqrt(rank) if learn else no_sketch
        t, status = select(opauc_sketch_epoch)(st, sketch, rows.data, rows.indices,
                                               rows.indptr, y, block, hp, t, learn)
        if status:
            break
    return t, status


def _gaussian_rows(rank: int):
    def draw(rng, draws):
        """Fill ``draws`` with ``run_sketch``'s sketch row: ``standard_normal / sqrt(rank)``."""
        rng.standard_normal(out=draws)
        draws /= np.sqrt(rank)

    return draw


def sketch_row_kernel(state: dict, params: dict) -> RowStep:
    """Return the call of ``run_sketch`` on one row (see ``AlgorithmSpec.row_kernel``): the
    row's Gaussian sketch row drawn by the row path (``RowStep.draws``), in
    :func:`~aucopt._kernels.opauc_rows.opauc_sketch_row`, which keeps the class sketch at
    the row's columns (``RowStep.own``)."""
    rank = int(params["rank"])
    draws = np.empty((1, rank))
    width = state["w"].shape[0]
    return RowStep(opauc_sketch_row, (view(OpaucSketchState, state), draws), (hyper(params),),
                   (True, sketch_keep(rank, width)), max_nnz=width, own=("sketch_z",),
                   draws=draws, draw=_gaussian_rows(rank))


# ----------------------------------------------- opauc-f / opauc-rp / opauc-pca
def _n_components(n_features: int, params: dict) -> int:
    k = params["n_components"]
    return n_features if k is None else min(int(k), n_features)


def _init_reduced(n_features, params):
    k = _n_components(n_features, params)
    state = covariance_state(k, params)
    state["rowbuf"] = np.zeros(0)
    return state, k


def init_subset_state(n_features, n_samples, params, rng=None):
    """OPAUC^f: ``n_components`` columns drawn without replacement (sorted), once."""
    state, k = _init_reduced(n_features, params)
    state["features"] = np.sort(rng.choice(n_features, size=k, replace=False)).astype(np.int64)
    state["rowbuf"] = np.zeros(n_features)
    return state


def init_projection_state(n_features, n_samples, params, rng=None):
    """OPAUC^rp: Gaussian ``H`` with entries N(0, 1/k); ``x_hat = H^T x`` (stored as (k, d)).

    When ``k >= d`` nothing is reduced: the rows are used as they are (all
    columns, like OPAUC^f), because a square Gaussian matrix only adds bad
    conditioning (measured: 0.02-0.04 AUC lost on diabetes, german.numer and
    splice after one pass).
    """
    state, k = _init_reduced(n_features, params)
    if k >= n_features:
        state["features"] = np.arange(n_features, dtype=np.int64)
        state["rowbuf"] = np.zeros(n_features)
        state["proj"] = np.zeros((0, n_features))
        return state
    check_memory(float(k) * n_features, params, f"the {k} x {n_features} random projection",
                 "Lower n_components")
    state["proj"] = rng.standard_normal((k, n_features)) / np.sqrt(k)
    return state


def init_pca_state(n_features, n_samples, params, rng=None):
    """OPAUC^pca: the components are fitted on the first data given to ``run``."""
    check_covariance_memory(n_features, params, alternative="opauc-rp")  # the PCA's d x d
    state, k = _init_reduced(n_features, params)
    state["proj"] = np.zeros((k, n_features))
    state["pca_fitted"] = np.zeros(1, dtype=np.int64)
    return state


def coef_subset(state, params) -> np.ndarray:
    """Map the reduced iterate back: ``w_full[features] = w``, zero elsewhere."""
    w = np.zeros(state["rowbuf"].shape[0])
    w[state["features"]] = state["w"]
    return w


def coef_projection(state, params) -> np.ndarray:
    """Map the reduced iterate back: ``w_full = P^T w`` so that ``x.w_full = (P x).w``."""
    if "features" in state:  # k >= d: no projection
        return coef_subset(state, params)
    return state["proj"].T @ state["w"]


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded OPAUC state's deferred rows and feature subset fit."""
    if "n_pending" in state and (state["n_pending"] > state["pending"].shape[1]).any():
        raise ValueError(f"n_pending={state['n_pending'].tolist()} exceeds the "
                         f"{state['pending'].shape[1]} deferred rows")
    if "features" in state and (state["features"] >= n_features).any():
        raise ValueError(f"feature indices must be below n_features={n_features}")


_ETAS = tuple(2.0**k for k in range(-12, 11))
_LAMS = tuple(2.0**k for k in range(-10, 3))
_COMMON = dict(
    family="opauc",
    paper=PAPER,
    source="Gao et al., ICML 2013",
    streaming=True,
    sparse=True,
    coef=coef,
    step_param="eta",
    calibration=StepCalibration(regularised("square", l2="lam"), unit=AUTO_ETA),
    warm_keys=("w",),
    equivalence_params={"precondition": None},
    check_state=check_state,
    upgrade_state=upgrade_state,
    weights="steps",
    state=(OpaucState,),
    grid={"eta": _ETAS, "lam": _LAMS},
    quick_grid={"eta": ("auto", 2.0**-9, 2.0**-7, 2.0**-5), "lam": (1e-4, 1e-2)},
)
_NOTES = ("Paper grid (Gao et al. 2013, Section 6.1): eta in 2^[-12:10], lam in 2^[-10:2] by "
          "5-fold CV. "
          "eta='auto' (default) is calibrated on the data.")

OPAUC = register(AlgorithmSpec(
    id="opauc",
    name="OPAUC",
    memory="O(d^2) (two d x d class covariances; refused above max_memory_gb)",
    cost="O(d^2) per sample (S w over one triangle + a rank-one update folded in blocks "
    "of 16 by BLAS; no d x d temporaries)",
    params=(*PARAMS, precondition()),
    init_state=init_state,
    run=run,
    row_kernel=row_kernel,
    coef_terms=coef_terms,
    notes=_NOTES,
    **_COMMON,
))

OPAUC_R = register(AlgorithmSpec(
    id="opauc-r",
    name="OPAUCr",
    memory="O(rank d) (sketch Z per class; never d x d)",
    cost="O(rank d) per sample (O(rank nnz) sketch update for CSR rows)",
    params=(*R_PARAMS, precondition()),
    init_state=init_sketch_state,
    run=run_sketch,
    row_kernel=sketch_row_kernel,
    coef_terms=coef_terms,
    notes=_NOTES + " Gao et al. 2013, Section 6.2: rank = 50. Sketch rows r_t/sqrt(rank) "
                   "(notes.md#opaucr-sketch); "
    "centering='unbiased' (notes.md#opaucr-sketch) by default, 'paper' for the literal estimator.",
    **{**_COMMON, "grid": {"eta": _ETAS, "lam": _LAMS, "rank": (50,)},
       "state": (OpaucSketchState,)},
))

_REDUCED = {**_COMMON, "grid": {"eta": _ETAS, "lam": _LAMS, "n_components": (1000,)}}

OPAUC_F = register(AlgorithmSpec(
    id="opauc-f",
    name="OPAUC^f",
    memory="O(k^2), k = n_components",
    cost="O(k^2 + d) per sample",
    params=(*F_PARAMS, precondition()),
    init_state=init_subset_state,
    run=run,
    row_kernel=row_kernel,
    notes=_NOTES + " Gao et al. 2013, Section 6.2: OPAUC on 1,000 random features.",
    **{**_REDUCED, "coef": coef_subset},
))

OPAUC_RP = register(AlgorithmSpec(
    id="opauc-rp",
    name="OPAUC^rp",
    memory="O(k^2 + k d), k = n_components",
    cost="O(k^2 + k nnz) per sample",
    params=(*RP_PARAMS, precondition()),
    init_state=init_projection_state,
    run=run,
    row_kernel=row_kernel,
    notes=_NOTES + " Gao et al. 2013, Section 6.2: OPAUC after a Gaussian random projection to "
                   "1,000 "
    "dimensions (entries N(0, 1/k)).",
    **{**_REDUCED, "coef": coef_projection},
))

OPAUC_PCA = register(AlgorithmSpec(
    id="opauc-pca",
    name="OPAUC^pca",
    memory="O(k^2 + k d + d^2 once for the PCA), k = n_components",
    cost="O(k^2 + k nnz) per sample, plus one batch PCA on the training data",
    params=(*PCA_PARAMS, precondition()),
    init_state=init_pca_state,
    run=run,
    row_kernel=row_kernel,
    notes=_NOTES + " Gao et al. 2013, Section 6.2: OPAUC on the top-1,000 principal components, "
                   "fitted on "
    "the training data (batch: no partial_fit).",
    **{**_REDUCED, "coef": coef_projection, "streaming": False},
))
