"""Gaussian kernel expansions ``f(x) = sum_j alpha_j k(x, s_j)``: the width and the scores.

Shared by Projection++ (:mod:`aucopt.algorithms.kernel_budget`) and Sparse Kernel
(:mod:`aucopt.algorithms._sparse_kernel`), whose states both hold ``bandwidth`` (1,).
"""

from __future__ import annotations

import numpy as np

from .._kernels.kernel_budget import kernel_scores
from ._spec import RowData
from .aogd import auto_bandwidth, check_width

__all__ = ["inverse_width", "expansion_scores", "check_width"]  # (check_width: of aogd)


def inverse_width(state: dict, rows: RowData, params: dict, y=None) -> float:
    """Fix ``state["bandwidth"]`` on the first call (``"auto"``: from ``rows`` weighted by the
    sample weights ``|y|``, as repeated rows would give it); return ``1 / (2 sigma^2)``."""
    if state["bandwidth"][0] <= 0:
        bw = params["bandwidth"]
        state["bandwidth"][0] = (auto_bandwidth(rows, None if y is None else np.abs(y))
                                 if bw == "auto" else float(bw))
        check_width(state, params, rows.n_features)  # the rule load applies to the file
    return 0.5 / state["bandwidth"][0] ** 2


def expansion_scores(rows: RowData, points, points_sq, coef, active, bandwidth) -> np.ndarray:
    """Return ``f(x) = sum_j coef_j k(x, points_j)`` over the ``active`` points, per row."""
    out = np.empty(rows.n_samples)
    kernel_scores(out, points, points_sq, coef, active, 0.5 / bandwidth**2,
                  np.empty(coef.shape[0]), rows.data, rows.indices, rows.indptr)
    return out
