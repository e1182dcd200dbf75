"""Gaussian kernel expansions ``f(x) = sum_j alpha_j k(x, s_j)``: the width and the scores.

Shared by Projection++ (:mod:`aucopt.algorithms.kernel_budget`) and Sparse Kernel
(:mod:`aucopt.algorithms._sparse_kernel`), whose states both hold ``bandwidth`` (1,).
"""

from __future__ import annotations

import numpy as np

from .._kernels.kernel_budget import kernel_scores
from ._spec import RowData
from .aogd import auto_bandwidth

__all__ = ["inverse_width", "expansion_scores", "check_width"]


def inverse_width(state: dict, rows: RowData, params: dict, y=None) -> float:
    """Fix ``state["bandwidth"]`` on the first call (``"auto"``: from ``rows`` weighted by the
    sample weights ``|y|``, as repeated rows would give it); return ``1 / (2 sigma^2)``."""
    if state["bandwidth"][0] <= 0:
        bw = params["bandwidth"]
        state["bandwidth"][0] = (auto_bandwidth(rows, None if y is None else np.abs(y))
                                 if bw == "auto" else float(bw))
        check_width(state, params, rows.n_features)  # the rule load applies to the file
    return 0.5 / state["bandwidth"][0] ** 2


def check_width(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded ``bandwidth`` is unset (0) or gives a positive finite
    ``1 / (2 sigma^2)``; outside about [1e-154, 1e154] the kernel is NaN or constant."""
    sigma = np.float64(state["bandwidth"][0])
    with np.errstate(all="ignore"):
        inverse = 0.5 / sigma**2 if sigma > 0 else 0.0
    if sigma != 0.0 and not (np.isfinite(inverse) and inverse > 0):
        raise ValueError(f"bandwidth={float(sigma)!r} gives 1/(2 sigma^2)="
                         f"{float(inverse)!r}, with which the Gaussian kernel is NaN or "
                         "constant: give a bandwidth within about [1e-154, 1e154], of the "
                         "order of the distances between rows (or 'auto')")


def expansion_scores(rows: RowData, points, points_sq, coef, active, bandwidth) -> np.ndarray:
    """Return ``f(x) = sum_j coef_j k(x, points_j)`` over the ``active`` points, per row."""
    out = np.empty(rows.n_samples)
    kernel_scores(out, points, points_sq, coef, active, 0.5 / bandwidth**2,
                  np.empty(coef.shape[0]), rows.data, rows.indices, rows.indptr)
    return out
