"""Projection++ (KOIL) and Sparse Kernel: state layout, hyperparameters, kernel calls.

Kakkar et al. 2017 and Hu et al. 2015 (details resolved from the original papers and, for
KOIL, the authors' MATLAB code; see the estimators' docstrings).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels.kernel_budget import (
    FIFO,
    RESERVOIR,
    kernel_scores,
    projection_pp_epoch,
)
from .._kernels.sparse_kernel import sparse_kernel_fit
from ._memory import check_memory
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from .aogd import auto_bandwidth

__all__ = ["ProjectionPPHyper", "SparseKernelHyper", "PROJECTION_PP", "SPARSE_KERNEL"]

PROJECTION_PP_PAPER = (
    "J. Hu, H. Yang, I. King, M. R. Lyu, A. M.-C. So. Kernelized online imbalanced "
    "learning with fixed budgets. AAAI 2015 (KOIL_RS++ / KOIL_FIFO++)."
)
SPARSE_PAPER = (
    "V. Kakkar, S. K. Shevade, S. Sundararajan, D. Garg. A sparse non-linear classifier "
    "design using AUC optimization. SIAM SDM 2017 (arXiv:1612.08633)."
)
REPLACEMENT = {"reservoir": RESERVOIR, "fifo": FIFO}
N_CANDIDATES = 59  # random candidates per greedy addition


class ProjectionPPHyper(NamedTuple):
    """Scalar hyperparameters of the KOIL kernel."""

    eta: float
    lam: float
    n_neighbors: int
    budget: int
    replacement: int


class SparseKernelHyper(NamedTuple):
    """Scalar hyperparameters of the Sparse Kernel solver."""

    lam: float
    max_newton: int
    tol: float


def _bandwidth(state: dict, rows: RowData, params: dict) -> float:
    """Fix ``state["bandwidth"]`` on the first call; return ``1 / (2 sigma^2)``."""
    if state["bandwidth"][0] <= 0:
        bw = params["bandwidth"]
        state["bandwidth"][0] = auto_bandwidth(rows) if bw == "auto" else float(bw)
    return 0.5 / state["bandwidth"][0] ** 2


def _scores(rows: RowData, sv, sv_sq, alpha, active, bandwidth) -> np.ndarray:
    out = np.empty(rows.n_samples)
    kernel_scores(out, sv, sv_sq, alpha, active, 0.5 / bandwidth**2, np.empty(alpha.shape[0]),
                  rows.data, rows.indices, rows.indptr)
    return out


# ------------------------------------------------------------------------ Projection++


def projection_pp_init_state(n_features: int, n_samples: int, params: dict, rng=None):
    """Return a fresh KOIL state: two buffers of ``budget`` slots (positives first).

    Returns
    -------
    dict
        ``alpha`` (2B,), ``sv`` (2B, d), ``sv_sq`` (2B,), ``gram`` (2B, 2B),
        ``used`` (2B,) bool, per class (negative, positive) ``size``, ``head``,
        ``seen`` (2,) int64, ``bandwidth`` (1,) (0 until fixed).
    """
    slots = 2 * int(params["budget"])
    check_memory(float(slots) * (n_features + slots + 4), params,
                 f"Projection++'s {slots} support vectors and their Gram matrix", "Lower budget")
    return {
        "alpha": np.zeros(slots),
        "sv": np.zeros((slots, n_features)),
        "sv_sq": np.zeros(slots),
        "gram": np.zeros((slots, slots)),
        "used": np.zeros(slots, dtype=bool),
        "size": np.zeros(2, dtype=np.int64),
        "head": np.zeros(2, dtype=np.int64),
        "seen": np.zeros(2, dtype=np.int64),
        "bandwidth": np.zeros(1),
    }


def projection_pp_check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless the buffer counters of a loaded KOIL state are in range."""
    budget = int(params["budget"])
    if (state["size"] > budget).any() or (state["head"] >= budget).any():
        raise ValueError(f"buffer counters size={state['size'].tolist()}, "
                         f"head={state['head'].tolist()} do not fit budget={budget}")


def projection_pp_run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One KOIL pass over ``order``; draws ``rng.random((len(order), 2))`` first."""
    inv2s2 = _bandwidth(state, rows, params)
    draws = rng.random((order.shape[0], 2))
    hp = ProjectionPPHyper(eta=float(params["eta"]), lam=float(params["lam"]),
                   n_neighbors=int(params["n_neighbors"]), budget=int(params["budget"]),
                   replacement=REPLACEMENT[params["replacement"]])
    slots = state["alpha"].shape[0]
    return projection_pp_epoch(state["alpha"], state["sv"], state["sv_sq"], state["gram"],
                               state["used"], state["size"], state["head"], state["seen"],
                               np.zeros(slots), np.zeros(slots), np.zeros(slots, dtype=np.int64),
                               inv2s2, rows.data, rows.indices, rows.indptr, y, order, draws, hp,
                               t)


def projection_pp_decision(state, params, rows: RowData) -> np.ndarray:
    """Return ``f(x) = sum_j alpha_j k(x, s_j)`` over the stored support vectors."""
    return _scores(rows, state["sv"], state["sv_sq"], state["alpha"], state["used"],
                   state["bandwidth"][0])


def projection_pp_mean_scores(state, params):
    """Return the mean score of the positive and of the negative support vectors."""
    used, budget = state["used"], int(params["budget"])
    f_sv = state["gram"][:, used] @ state["alpha"][used]
    pos, neg = used[:budget], used[budget:]
    return (float(f_sv[:budget][pos].mean()) if pos.any() else None,
            float(f_sv[budget:][neg].mean()) if neg.any() else None)


PROJECTION_PP = register(
    AlgorithmSpec(
        id="projection-pp",
        name="Projection++ (KOIL)",
        estimator="aucopt.kernel_model:ProjectionPPClassifier",
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
        run=projection_pp_run,
        coef=None,
        decision=projection_pp_decision,
        mean_scores=projection_pp_mean_scores,
        grid={"eta": tuple(2.0**k for k in range(-8, 0)),
              "lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"eta": (2.0**-6, 2.0**-4, 2.0**-2), "lam": (1e-3, 1e-1, 1.0)},
        step_param="eta",
        warm_keys=(),
        equivalence_params={"bandwidth": 1.0},
        notes="AlQuabeh et al. 2024 reports the grid eta in 2^[-8:-1], lam in 10^[-8:-1] for all "
              "methods; "
        "KOIL's own code uses eta*C = 0.05, lam = 1/C = 0.2, budget 100 per class, k = 10.",
    )
)


# ----------------------------------------------------------------------- Sparse Kernel


def sparse_init_state(n_features: int, n_samples: int, params: dict, rng=None):
    """Return a fresh Sparse Kernel state (filled by one ``run``).

    Returns
    -------
    dict
        ``basis`` (B, d) dense basis points, ``basis_sq`` (B,), ``beta`` (B,),
        ``active`` (B,) bool, ``mean_score`` (2,) (negative, positive),
        ``bandwidth`` (1,), ``n_iter`` (1,) basis points added.
    """
    budget = int(params["budget"])
    check_memory(float(budget) * (n_features + 3), params,
                 f"Sparse Kernel's {budget} basis points", "Lower budget")
    return {
        "basis": np.zeros((budget, n_features)),
        "basis_sq": np.zeros(budget),
        "beta": np.zeros(budget),
        "active": np.zeros(budget, dtype=bool),
        "mean_score": np.zeros(2),
        "bandwidth": np.zeros(1),
        "n_iter": np.zeros(1, dtype=np.int64),
    }


def _dense_rows(rows: RowData, idx: np.ndarray) -> np.ndarray:
    if not rows.is_sparse:
        return rows.data[idx].copy()
    out = np.zeros((idx.size, rows.n_features))
    for r, i in enumerate(idx):
        lo, hi = rows.indptr[i], rows.indptr[i + 1]
        out[r, rows.indices[lo:hi]] = rows.data[lo:hi]
    return out


def sparse_run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """Greedy basis selection with Newton refits on all rows (``order`` is not used).

    Draws, per addition, ``rng.choice(n, min(59, n), replace=False)`` candidates.
    """
    inv2s2 = _bandwidth(state, rows, params)
    budget = min(int(params["budget"]), rows.n_samples)
    check_memory(float(budget) * (rows.n_samples + budget + N_CANDIDATES), params,
                 f"Sparse Kernel's {rows.n_samples} x {budget} kernel columns",
                 "Lower budget or fit on fewer rows")
    kappa = min(N_CANDIDATES, rows.n_samples)
    candidates = np.stack([rng.choice(rows.n_samples, kappa, replace=False)
                           for _ in range(budget)]).astype(np.int64)
    basis_idx = np.full(budget, -1, dtype=np.int64)
    beta = np.zeros(budget)
    sq = np.empty(rows.n_samples)
    if rows.is_sparse:
        owner = np.repeat(np.arange(rows.n_samples), np.diff(rows.indptr))
        sq[:] = np.bincount(owner, weights=rows.data**2, minlength=rows.n_samples)
    else:
        sq[:] = np.einsum("ij,ij->i", rows.data, rows.data)
    hp = SparseKernelHyper(lam=float(params["lam"]), max_newton=int(params["max_iter"]),
                           tol=float(params["tol"]))
    m, n_newton, status = sparse_kernel_fit(
        basis_idx, beta, np.zeros((budget, budget)), np.zeros((rows.n_samples, budget)), sq,
        np.empty(rows.n_features), inv2s2, rows.data, rows.indices, rows.indptr, y, candidates, hp)
    idx = basis_idx[:m]
    state["basis"][:m] = _dense_rows(rows, idx)
    state["basis_sq"][:m] = sq[idx]
    state["beta"][:m] = beta[:m]
    state["active"][:m] = True
    state["n_iter"][0] = m
    scores = sparse_decision(state, params, rows)
    state["mean_score"][:] = scores[y < 0].mean(), scores[y > 0].mean()
    return t + n_newton, status


def sparse_decision(state, params, rows: RowData) -> np.ndarray:
    """Return ``f(x) = sum_j beta_j k(x, s_j)`` over the basis points."""
    return _scores(rows, state["basis"], state["basis_sq"], state["beta"], state["active"],
                   state["bandwidth"][0])


def sparse_mean_scores(state, params):
    """Return the mean training score of the positives and of the negatives."""
    return float(state["mean_score"][1]), float(state["mean_score"][0])


SPARSE_KERNEL = register(
    AlgorithmSpec(
        id="sparse-kernel",
        name="Sparse Kernel",
        estimator="aucopt.kernel_model:SparseKernelClassifier",
        family="kernel_budget",
        paper=SPARSE_PAPER,
        source="Kakkar, Shevade, Sundararajan, Garg, SDM 2017",
        streaming=False,
        sparse=True,
        memory="model O(B d + B^2), B = budget; fitting O(n B) kernel columns",
        cost="per addition: O(59 n nnz) candidate kernel columns + Newton steps "
        "O(n B^2 + n log n) each; O(B) kernel evaluations per prediction",
        init_state=sparse_init_state,
        run=sparse_run,
        coef=None,
        decision=sparse_decision,
        mean_scores=sparse_mean_scores,
        grid={"lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"lam": (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)},
        step_param=None,
        epochs_by_base=False,
        notes="AlQuabeh et al. 2024 grid lam in 10^[-8:-1]; budget and kernel width are not "
              "reported.",
    )
)
