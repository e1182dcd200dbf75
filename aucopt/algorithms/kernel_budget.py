"""Projection++ (KOIL) and Sparse Kernel: state layout, hyperparameters, kernel calls.

Hu et al. 2015 and Kakkar et al. 2017 (details resolved from the original papers and, for
KOIL, the authors' MATLAB code; see the estimators' docstrings). Sparse Kernel's
declarations and solver call are in :mod:`aucopt.algorithms._sparse_kernel`; both
algorithms are registered here.
"""

from __future__ import annotations

import numpy as np

from .._kernels._state import view, zeros
from .._kernels.kernel_budget import (
    FIFO,
    RESERVOIR,
    ProjectionPPState,
    projection_pp_epoch,
    projection_pp_row,
    support_mean_sums,
)
from .._kernels.sparse_kernel import SparseKernelState
from ..utils._param_validation import Options
from . import _sparse_kernel as sparse
from ._buffer_weights import check_weights, unit_weights
from ._calibrate import StepCalibration
from ._kernel_expansion import check_width, expansion_scores, inverse_width
from ._memory import check_memory
from ._objectives import pairwise_loss
from ._params import NON_NEGATIVE, SIZE, KernelScalars, Param, auto_step, codes, common
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from .aogd import BANDWIDTH, max_memory_gb, with_docs

__all__ = ["PARAMS", "ProjectionPPHyper", "SparseKernelHyper", "PROJECTION_PP", "SPARSE_KERNEL",
           "hyper"]

PROJECTION_PP_PAPER = (
    "J. Hu, H. Yang, I. King, M. R. Lyu, A. M.-C. So. Kernelized online imbalanced "
    "learning with fixed budgets. AAAI 2015 (KOIL_RS++ / KOIL_FIFO++)."
)
SPARSE_PAPER = (
    "V. Kakkar, S. K. Shevade, S. Sundararajan, D. Garg. A sparse non-linear classifier "
    "design using AUC optimization. SIAM SDM 2017 (arXiv:1612.08633)."
)
REPLACEMENT = {"reservoir": RESERVOIR, "fifo": FIFO}
SparseKernelHyper = sparse.SparseKernelHyper

# ------------------------------------------------------------------------ Projection++

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA whatever the data's scale (Gaussian kernel values are at most 1); before calibration
# the kernel uses AUTO_ETA, the authors' eta * C.
AUTO_ETA = 0.05

PARAMS = (
    Param("budget", 100, (SIZE,), "int",
          r"Support vectors per class :math:`B` (the authors' code: 100).", kernel=int,
          structural=True),
    Param("n_neighbors", 10, (SIZE,), "int",
          r"Opposite support vectors updated per step :math:`k` (the authors' code: 10).",
          kernel=int),
    auto_step("eta", AUTO_ETA, r"""
        Step size :math:`\eta`. ``"auto"`` calibrates it on the training data (a short
        run per step of a geometric ladder centred on the authors'
        :math:`\eta C = 0.01 \cdot 5`, the lowest regularised objective wins;
        :mod:`aucopt.algorithms._calibrate`, notes.md#kernel-steps) and stores the value
        used in ``eta_``; until a ``partial_fit`` chunk can calibrate it, the step is
        0.05. The kernel values are at most 1, so the step does not depend on the scale
        of the data.""", scaled=False),
    Param("lam", 0.2, (NON_NEGATIVE,), "float", r"""
        RKHS-norm weight :math:`\lambda` (the authors' :math:`1/C = 0.2`); each
        step shrinks every coefficient by :math:`1 - \eta\lambda`.""", kernel=float),
    BANDWIDTH.replace(doc=r"""
        Kernel width :math:`\sigma`. ``"auto"``: the root of the total variance
        of the first data given, fixed afterwards: a stream (``partial_fit``) refuses
        another value until ``fit`` restarts."""),
    Param("replacement", "reservoir", (Options(str, set(REPLACEMENT)),), '{"reservoir", "fifo"}',
          "Buffer policy: KOIL_RS++ or KOIL_FIFO++.", kernel=codes(REPLACEMENT)),
    max_memory_gb("the 2 x ``budget`` support vectors (d values each) and their Gram matrix"),
    *with_docs(common(max_iter=1, max_iter_doc="Passes over the data in ``fit`` (KOIL is a "
                      "one-pass method).",
                      warm_start="Unused (the buffers restart with every ``fit``); kept for "
                      "the common interface."),
               random_state="Seed of the sample order and the reservoir draws."),
)

hyper = KernelScalars("ProjectionPPHyper", __name__, PARAMS)
ProjectionPPHyper = hyper.type


def projection_pp_init_state(n_features: int, n_samples: int, params: dict, rng=None):
    """Return a fresh KOIL state: two buffers of ``budget`` slots (positives first).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.kernel_budget.ProjectionPPState`.
    """
    slots = 2 * int(params["budget"])
    check_memory(float(slots) * (n_features + slots + 4), params,
                 f"Projection++'s {slots} support vectors and their Gram matrix", "Lower budget")
    return zeros(ProjectionPPState, n_features, slots=slots)


def projection_pp_check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless the buffer counters of a loaded KOIL state are in range."""
    budget = int(params["budget"])
    if (state["size"] > budget).any() or (state["head"] >= budget).any():
        raise ValueError(f"buffer counters size={state['size'].tolist()}, "
                         f"head={state['head'].tolist()} do not fit budget={budget}")
    check_weights(state["sv_w"], state["used"])
    check_width(state, params, n_features)


def projection_pp_upgrade_state(state: dict) -> None:
    """Add the weights ``sv_w`` (ones) of the support vectors of a file saved before weights."""
    unit_weights(state, "sv_w", "alpha")


def projection_pp_run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One KOIL pass over ``order``; draws ``rng.random((len(order), 2))`` first."""
    inv2s2 = inverse_width(state, rows, params, y)
    draws = rng.random((order.shape[0], 2))
    return projection_pp_epoch(view(ProjectionPPState, state), inv2s2, rows.data, rows.indices,
                               rows.indptr, y, order, draws, hyper(params), t)


def projection_pp_row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return ``run``'s call on one row (see ``AlgorithmSpec.row_kernel``; None until the
    first call of ``run`` fixed the bandwidth).

    The kernel is :func:`~aucopt._kernels.kernel_budget.projection_pp_row`, with the row's
    two uniforms (``RowStep.draws``). It keeps the coefficients and weights itself and
    writes the support vectors and their Gram matrix only once the step has finished
    (``RowStep.own``): the transaction saves the counters, not the O(budget d + budget^2)
    support vectors and Gram matrix.
    """
    if state["bandwidth"][0] <= 0:
        return None
    slots = state["alpha"].shape[0]
    work = (np.empty(slots), np.empty(slots), np.empty(slots, dtype=np.int64))
    draws = np.empty((1, 2))
    return RowStep(projection_pp_row, (view(ProjectionPPState, state),
                                       inverse_width(state, None, params), work),
                   (draws, hyper(params)), (np.empty(2 * slots),), zeroed=work[:2],
                   draws=draws, own=("alpha", "sv_w", "sv", "sv_sq", "gram", "used"))


def projection_pp_decision(state, params, rows: RowData) -> np.ndarray:
    """Return ``f(x) = sum_j alpha_j k(x, s_j)`` over the stored support vectors."""
    return expansion_scores(rows, state["sv"], state["sv_sq"], state["alpha"], state["used"],
                            state["bandwidth"][0])


def projection_pp_mean_scores(state, params):
    """Return the mean score of the positive and of the negative support vectors, weighted by
    their sample weights (notes.md#sample-weights; None for a class with none stored), in
    one compiled pass (:func:`~aucopt._kernels.kernel_budget.support_mean_sums`)."""
    sums = support_mean_sums(state["gram"], state["alpha"], state["used"], state["sv_w"],
                             int(params["budget"]))
    return tuple(_weighted_mean(*sums[k:k + 3]) for k in (0, 3))


def _weighted_mean(total: float, weight: float, count: float) -> float | None:
    if count == 0:
        return None
    if weight == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")  # (numpy's)
    return float(total / weight)


def projection_pp_model_vector(state) -> np.ndarray:
    """Return ``v`` with ``v . v = ||f||^2 = alpha' G alpha`` over the stored support vectors.

    From the eigendecomposition of their Gram matrix, ``v = sqrt(Lambda) Q' alpha``;
    eigenvalues below 0 (rounding) count as 0. The calibration objective's penalty
    ``lam / 2 ||v||^2`` is then KOIL's RKHS penalty.
    """
    used = state["used"]
    values, vectors = np.linalg.eigh(state["gram"][np.ix_(used, used)])
    return np.sqrt(np.maximum(values, 0.0)) * (vectors.T @ state["alpha"][used])


def projection_pp_objective(scores, w, params, y) -> float:
    """Return KOIL's regularised objective: ``lam/2 ||f||^2`` plus the pair hinge summed
    over a full opposite buffer, estimated as ``budget`` times the sample's mean pair hinge.

    The calibration hook of ``eta="auto"`` (``w`` from :func:`projection_pp_model_vector`,
    ``y = ±w`` the signed sample weights); notes.md#kernel-steps.
    """
    hinge = pairwise_loss(scores, y, "hinge")
    return float(params["budget"]) * hinge + 0.5 * float(params["lam"]) * float(w @ w)


PROJECTION_PP = register(
    AlgorithmSpec(
        id="projection-pp",
        name="Projection++ (KOIL)",
        params=PARAMS,
        state=(ProjectionPPState,),
        family="kernel_budget",
        paper=PROJECTION_PP_PAPER,
        source="Hu, Yang, King, Lyu, So, AAAI 2015",
        streaming=True,
        sparse=True,
        memory="O(B d + B^2), B = budget per class (vectors + Gram matrix)",
        cost="O(B nnz + B^2) per sample (kernel values of the new row, scores of the "
        "opposite buffer from the Gram matrix)",
        init_state=projection_pp_init_state,
        check_state=projection_pp_check_state,
        upgrade_state=projection_pp_upgrade_state,
        weights="steps",
        run=projection_pp_run,
        row_kernel=projection_pp_row_kernel,
        coef=None,
        decision=projection_pp_decision,
        model_key="alpha",
        mean_scores=projection_pp_mean_scores,
        grid={"eta": tuple(2.0**k for k in range(-8, 0)),
              "lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"eta": (2.0**-6, 2.0**-4, 2.0**-2), "lam": (1e-3, 1e-1, 1.0)},
        step_param="eta",
        calibration=StepCalibration(projection_pp_objective, unit=AUTO_ETA, power=0.0,
                                    share=0.75, model_vector=projection_pp_model_vector),
        warm_keys=(),
        equivalence_params={"bandwidth": 1.0},
        notes="AlQuabeh et al. 2024 reports the grid eta in 2^[-8:-1], lam in 10^[-8:-1] for all "
              "methods; "
        "KOIL's own code uses eta*C = 0.05, lam = 1/C = 0.2, budget 100 per class, k = 10; "
        "eta='auto' is calibrated on the data around 0.05 (notes.md#kernel-steps).",
    )
)


# ----------------------------------------------------------------------- Sparse Kernel

SPARSE_KERNEL = register(
    AlgorithmSpec(
        id="sparse-kernel",
        name="Sparse Kernel",
        params=sparse.PARAMS,
        state=(SparseKernelState,),
        family="kernel_budget",
        paper=SPARSE_PAPER,
        source="Kakkar, Shevade, Sundararajan, Garg, SDM 2017",
        streaming=False,
        sparse=True,
        memory="model O(B d + B^2), B = budget; fitting O(n B) kernel columns",
        cost="per addition: O(59 n nnz) candidate kernel columns + Newton steps "
        "O(n B^2 + n log n) each; O(B) kernel evaluations per prediction",
        init_state=sparse.init_state,
        run=sparse.run,
        coef=None,
        decision=sparse.decision,
        model_key="beta",
        mean_scores=sparse.mean_scores,
        check_state=check_width,
        grid={"lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"lam": (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)},
        step_param=None,
        epochs_by_base=False,
        weights="steps",
        notes="AlQuabeh et al. 2024 grid lam in 10^[-8:-1]; budget and kernel width are not "
              "reported.",
    )
)
