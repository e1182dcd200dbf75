"""FTRL-AUC: state layout, hyperparameters, kernel call (Zhou, Ying, Skiena, ICDM 2020)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels.ftrl_auc import N_COLUMNS, SUM_NEG, W, ftrl_auc_epoch
from ._calibrate import StepCalibration, regularised
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["AUTO_ALPHA", "FtrlAucHyper", "FTRL_AUC", "ALPHAS", "LAM1S"]

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


def _alpha(params: dict, state: dict) -> float:
    if params["alpha"] != "auto":
        return float(params["alpha"])
    sqmax = float(state["data_sqmax"][0])
    return AUTO_ALPHA / np.sqrt(sqmax) if sqmax > 0 else AUTO_ALPHA


class FtrlAucHyper(NamedTuple):
    """Scalar hyperparameters of the FTRL-AUC kernel."""

    alpha: float
    beta: float
    lam1: float
    lam2: float


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
        ``pack`` (d, 5): per feature ``z``, ``n``, ``w`` and the sums of the
        negative and positive rows seen, interleaved; ``run_count`` (2,): the
        samples per class in those sums; ``dots`` (2,): ``w`` times each sum.
    """
    return {
        "pack": np.zeros((n_features, N_COLUMNS)),
        "dots": np.zeros(2),
        "run_count": np.zeros(2, dtype=np.int64),
    }


def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
    """One FTRL-AUC pass over ``order`` (see :func:`aucopt._kernels.ftrl_auc.ftrl_auc_epoch`).

    Writes ``pack`` at the columns of the rows only (no O(d) step: ``before_dense`` is unused).
    """
    hp = FtrlAucHyper(alpha=_alpha(params, state), beta=float(params["beta"]),
                      lam1=float(params["lam1"]), lam2=float(params["lam2"]))
    return ftrl_auc_epoch(state["pack"], state["dots"], state["run_count"], rows.data,
                          rows.indices, rows.indptr, y, order, hp, t, learn)


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


FTRL_AUC = register(
    AlgorithmSpec(
        id="ftrl-auc",
        name="FTRL-AUC",
        estimator="aucopt.linear_model._ftrl_auc:FTRLAUCClassifier",
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
        grid={"alpha": ALPHAS, "lam1": LAM1S},
        quick_grid={"alpha": ("auto", 0.01, 0.2), "lam1": (1e-3, 0.1, 1.0)},
        step_param="alpha",
        calibration=StepCalibration(regularised("square", l2="lam2", l1="lam1"),
                                    unit=AUTO_ALPHA, power=0.5),
        warm_keys=("pack",),
        warm_values=warm_values,
        column_keys=("pack",),
        equivalence_params={},
        notes="Grid of the authors' experiment code: alpha (their gamma) in "
        "{1e-5, 5e-5, ..., 1, 5}, lam1 in {1e-8, ..., 5}, beta = 1, lam2 = 0. One pass in the "
        "paper; online class statistics (p and the class means include the current sample).",
    )
)
