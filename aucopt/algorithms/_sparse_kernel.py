"""Sparse Kernel: hyperparameters, state layout, solver call (Kakkar et al. 2017).

Registered by :mod:`aucopt.algorithms.kernel_budget`, beside Projection++; kept here so
that the solver's kernel scalars (``hyper``) live in the module of its ``run``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels._checks import OK
from .._kernels._clock import NO_DEADLINE
from .._kernels._state import zeros
from .._kernels.sparse_kernel import OUT_OF_TIME, SparseKernelState, sparse_kernel_fit
from ..utils._param_validation import Interval
from ._data import row_sqnorms
from ._kernel_expansion import expansion_scores, inverse_width
from ._memory import check_memory
from ._params import POSITIVE, SHUFFLE_DRAWS, SIZE, KernelScalars, Param, common
from ._spec import RowData
from ._time_budget import deadline_of
from .aogd import BANDWIDTH, max_memory_gb, with_docs

__all__ = ["N_CANDIDATES", "PARAMS", "SparseKernelHyper", "hyper", "init_state", "run",
           "decision", "mean_scores"]

N_CANDIDATES = 59  # random candidates per greedy addition

PARAMS = (
    Param("budget", 50, (SIZE,), "int",
          r"Number of basis functions :math:`|J|` (the sparsity of the model).", structural=True),
    Param("lam", 1e-3, (POSITIVE,), "float", r"""
        Regularisation :math:`\lambda` (measured, 5-fold on german.numer:
        0.777 AUC at 1e-4, 0.786 at 1e-3, 0.797 at 1e-2).""", kernel=float),
    BANDWIDTH.replace(doc=r"""
        Gaussian kernel width :math:`\sigma`; ``"auto"``: the root of the total
        variance of the training data."""),
    Param("tol", 1e-10, (Interval(Real, 0, None, closed="left"),), "float", """
        Stop the Newton refit when the predicted decrease is below ``tol``
        times the objective.""", kernel=float),
    max_memory_gb("the ``budget`` basis points and the (n, ``budget``) kernel columns of a "
                  "fit"),
    *(p.replace(kernel=int, fields=("max_newton",)) if p.name == "max_iter" else p
      for p in with_docs(
          common(max_iter=20, max_iter_doc="Newton iterations per refit at most.",
                 warm_start="Unused (the basis is rebuilt by every ``fit``)."),
          shuffle=SHUFFLE_DRAWS,
          random_state="Seed of the candidate draws.")),
)

hyper = KernelScalars("SparseKernelHyper", __name__, PARAMS)
SparseKernelHyper = hyper.type


def init_state(n_features: int, n_samples: int, params: dict, rng=None):
    """Return a fresh Sparse Kernel state (filled by one ``run``).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.sparse_kernel.SparseKernelState`.
    """
    budget = int(params["budget"])
    check_memory(float(budget) * (n_features + 3), params,
                 f"Sparse Kernel's {budget} basis points", "Lower budget")
    return zeros(SparseKernelState, n_features, params)


def _dense_rows(rows: RowData, idx: np.ndarray) -> np.ndarray:
    if not rows.is_sparse:
        return rows.data[idx].copy()
    out = np.zeros((idx.size, rows.n_features))
    for r, i in enumerate(idx):
        lo, hi = rows.indptr[i], rows.indptr[i + 1]
        out[r, rows.indices[lo:hi]] = rows.data[lo:hi]
    return out


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """Greedy basis selection with Newton refits on all rows (``order`` is not used).

    Draws, per addition, ``rng.choice(n, min(59, n), replace=False)`` candidates (uniform
    over the rows, whatever their weights; the weights ``|y|`` weigh the pairs). Under
    ``max_time`` the additions stop once it is spent (the basis so far is the model).
    """
    inv2s2 = inverse_width(state, rows, params, y)
    budget = min(int(params["budget"]), rows.n_samples)
    check_memory(float(budget) * (rows.n_samples + budget + N_CANDIDATES), params,
                 f"Sparse Kernel's {rows.n_samples} x {budget} kernel columns",
                 "Lower budget or fit on fewer rows")
    kappa = min(N_CANDIDATES, rows.n_samples)
    candidates = np.stack([rng.choice(rows.n_samples, kappa, replace=False)
                           for _ in range(budget)]).astype(np.int64)
    basis_idx = np.full(budget, -1, dtype=np.int64)
    beta = np.zeros(budget)
    sq = row_sqnorms(rows)
    deadline = deadline_of(params)  # looked at between additions
    m, n_newton, status = sparse_kernel_fit(
        basis_idx, beta, sq, np.empty(rows.n_features), inv2s2, rows.data, rows.indices,
        rows.indptr, y, candidates, hyper(params),
        NO_DEADLINE if deadline.end is None else deadline.end)
    if status == OUT_OF_TIME:
        deadline.passed()  # warns
        status = OK
    idx = basis_idx[:m]
    state["basis"][:m] = _dense_rows(rows, idx)
    state["basis_sq"][:m] = sq[idx]
    state["beta"][:m] = beta[:m]
    state["active"][:m] = True
    state["n_iter"][0] = m
    scores = decision(state, params, rows)
    neg = y < 0  # y = +-w: the class means are weighted (notes.md#sample-weights)
    state["mean_score"][:] = (np.average(scores[neg], weights=-y[neg]),
                              np.average(scores[~neg], weights=y[~neg]))
    return t + n_newton, status


def decision(state, params, rows: RowData) -> np.ndarray:
    """Return ``f(x) = sum_j beta_j k(x, s_j)`` over the basis points."""
    return expansion_scores(rows, state["basis"], state["basis_sq"], state["beta"],
                            state["active"], state["bandwidth"][0])


def mean_scores(state, params):
    """Return the mean training score of the positives and of the negatives."""
    return float(state["mean_score"][1]), float(state["mean_score"][0])
