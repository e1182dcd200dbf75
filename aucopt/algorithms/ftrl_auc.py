"""FTRL-AUC: state layout, hyperparameters, kernel call (Zhou, Ying, Skiena, ICDM 2020)."""

from __future__ import annotations

import numpy as np

from .._kernels._state import zeros
from .._kernels.ftrl_auc import SUM_NEG, FtrlAucState, W, ftrl_auc_epoch
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights
from ._params import AUTO, NON_NEGATIVE, POSITIVE, KernelScalars, Param, common, precondition
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData

__all__ = ["AUTO_ALPHA", "PARAMS", "FtrlAucHyper", "FTRL_AUC", "ALPHAS", "LAM1S", "hyper"]

PAPER = (
    "B. Zhou, Y. Ying, S. Skiena. Online AUC optimization for sparse high-dimensional "
    "datasets. ICDM 2020 (arXiv:2009.10867); FTRL-Proximal of H. B. McMahan et al., Ad click "
    "prediction: a view from the trenches, KDD 2013."
)

# The grid of the authors' experiment script (github.com/baojianzhou/ftrl-auc,
# test_on_high_dim.py): the learning-rate scale ("gamma" there) and the l1 weight, with
# beta = 1 and lam2 = 0 fixed.
ALPHAS = (1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 5e-2, 1e-1, 5e-1, 1.0, 5.0)
LAM1S = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 5e-3, 1e-2, 5e-2, 1e-1, 3e-1, 5e-1, 7e-1, 1.0,
         3.0, 5.0)


# alpha="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred
# on AUTO_ALPHA / m, m the root mean squared row norm of the sample (the per-coordinate rates
# adapt to the gradients' size, so w scales as 1/||x||); until partial_fit has a chunk to
# calibrate on, AUTO_ALPHA / M, M the largest row norm seen.
AUTO_ALPHA = 0.2


def _alpha(value) -> float:
    """The kernel's ``alpha``: the number given, or ``AUTO_ALPHA`` (scaled by :func:`run`)."""
    return AUTO_ALPHA if isinstance(value, str) else float(value)


PARAMS = (
    Param("alpha", "auto", (POSITIVE, AUTO), 'float or "auto"', r"""
        Learning-rate scale :math:`\alpha_{\rm lr}` of the per-feature rate
        :math:`\alpha_{\rm lr}/(\beta + \sqrt{n_j})` (called ``gamma`` in the
        authors' code). ``"auto"`` calibrates it on the training data (a short run per
        step of a geometric ladder, the lowest objective wins;
        :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``alpha_``;
        the fixed 0.05 it replaces fell 0.051 AUC short of the least-squares optimum on
        the unscaled case of ``benchmarks/robustness.py``.""", kernel=_alpha),
    Param("beta", 1.0, (POSITIVE,), "float",
          r"Offset :math:`\beta` of that rate (the authors fix 1).", kernel=float),
    Param("lam1", 1e-3, (NON_NEGATIVE,), "float", r"""
        l1 weight :math:`\lambda_1`: features with :math:`|z_j| \le \lambda_1`
        are exactly 0.""", kernel=float),
    Param("lam2", 0.0, (NON_NEGATIVE,), "float",
          r"l2 weight :math:`\lambda_2` (the authors fix 0).", kernel=float),
    *common(max_iter=5, max_iter_doc="""
        Passes over the data in ``fit``. The paper makes one pass (set 1 for
        a faithful run; ``partial_fit`` is always one pass); on small data
        more passes gain 0.005-0.02 AUC (measured on diabetes, german.numer,
        splice). From the second pass on, the class statistics are those of
        the whole data.""", warm_start="""
        Start ``fit`` from the previous FTRL state (``z``, ``n``, ``w``); the
        class statistics and the counter restart."""),
)

hyper = KernelScalars("FtrlAucHyper", __name__, PARAMS)
FtrlAucHyper = hyper.type


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh FTRL-AUC state.

    Parameters
    ----------
    n_features : int
        Number of features ``d``.
    n_samples : int
        Unused.
    params : dict
        Unused.
    rng : numpy.random.Generator, optional
        Unused (FTRL-AUC draws nothing).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.ftrl_auc.FtrlAucState`, all zero.
    """
    return zeros(FtrlAucState, n_features)


def _scalars(state: dict, params: dict):
    """Return the kernel scalars of a call: an ``alpha="auto"`` not yet calibrated is
    ``AUTO_ALPHA / M``, ``M`` the largest row norm of the training data given so far."""
    hp = hyper(params)
    if params["alpha"] == "auto":
        sqmax = float(state["data_sqmax"][0])
        if sqmax > 0:
            hp = hp._replace(alpha=AUTO_ALPHA / np.sqrt(sqmax))
    return hp


def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
    """One FTRL-AUC pass over ``order`` (see :func:`aucopt._kernels.ftrl_auc.ftrl_auc_epoch`).

    Writes ``pack`` at the columns of the rows only (no O(d) step: ``before_dense`` is unused).
    """
    return ftrl_auc_epoch(state["pack"], state["dots"], state["run_count"], rows.data,
                          rows.indices, rows.indptr, y, order, _scalars(state, params), t, learn)


def row_kernel(state: dict, params: dict) -> RowStep:
    """Return the call of ``run`` on one row (see ``AlgorithmSpec.row_kernel``)."""
    return RowStep(ftrl_auc_epoch, (state["pack"], state["dots"], state["run_count"]),
                   (_scalars(state, params),), (True,),
                   watch=("data_sqmax",) if params["alpha"] == "auto" else ())


def upgrade_state(state: dict) -> None:
    """Class counts of files saved before sample weights (int64 rows) become weights."""
    counts_as_weights(state, "run_count")


def warm_values(state: dict) -> dict:
    """Return the per-feature FTRL state for ``warm_start=True``, without the class sums.

    The class statistics restart with the new data (their counts are not carried over).
    """
    pack = state["pack"].copy()
    pack[:, SUM_NEG:] = 0.0
    return {"pack": pack}


def coef(state, params) -> np.ndarray:
    """Return the current FTRL weights (the last iterate; exact zeros where ``|z_j| <= lam1``)."""
    return state["pack"][:, W]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as one column of ``pack`` (see ``AlgorithmSpec.coef_terms``)."""
    return ((1.0, "pack", W),)


FTRL_AUC = register(
    AlgorithmSpec(
        id="ftrl-auc",
        name="FTRL-AUC",
        family="ftrl_auc",
        paper=PAPER,
        source="Zhou, Ying, Skiena, ICDM 2020",
        streaming=True,
        sparse=True,
        memory="O(d)",
        cost="O(nnz) per sample (lazy per-feature FTRL state; nothing O(d) per call)",
        init_state=init_state,
        run=run,
        coef=coef,
        params=(*PARAMS, precondition()),
        state=(FtrlAucState,),
        grid={"alpha": ALPHAS, "lam1": LAM1S},
        quick_grid={"alpha": ("auto", 0.01, 0.2), "lam1": (1e-3, 0.1, 1.0)},
        step_param="alpha",
        calibration=StepCalibration(regularised("square", l2="lam2", l1="lam1"),
                                    unit=AUTO_ALPHA, power=0.5, weight_power=0.0),
        warm_keys=("pack",),
        warm_values=warm_values,
        column_keys=("pack",),
        row_kernel=row_kernel,
        coef_terms=coef_terms,
        equivalence_params={"precondition": None},
        upgrade_state=upgrade_state,
        weights="steps",
        notes="Grid of the authors' experiment code: alpha (their gamma) in "
        "{1e-5, 5e-5, ..., 1, 5}, lam1 in {1e-8, ..., 5}, beta = 1, lam2 = 0. One pass in the "
        "paper; online class statistics (p and the class means include the current sample).",
    )
)
