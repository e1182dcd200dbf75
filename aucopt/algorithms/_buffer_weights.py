"""The sample weights of the rows a buffered learner stores (notes.md#sample-weights).

OAM's reservoirs (``buf_w``) and Projection++'s support vectors (``sv_w``) keep the weight
of each stored row; files saved before sample weights lack them and load with ones.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_weights", "unit_weights"]


def check_weights(weights: np.ndarray, stored: np.ndarray) -> None:
    """Raise ValueError unless the sample weights of a loaded state's stored rows (the mask
    ``stored``) are positive and every weight is >= 0."""
    if (weights < 0).any() or (weights[stored] <= 0).any():
        raise ValueError("the sample weights of the stored rows (buf_w / sv_w) must be "
                         "positive; the file is corrupt or was not written by aucopt.io.save")


def unit_weights(state: dict, key: str, like: str) -> None:
    """Give a state saved before sample weights the weights ``key`` of its stored rows: ones.

    Used by specs' ``upgrade_state``: ``state[key]`` becomes ``ones_like(state[like])`` if
    absent (every row stored then had weight 1); anything else is left for the checks.
    """
    if key not in state and isinstance(state.get(like), np.ndarray):
        state[key] = np.ones_like(state[like], dtype=np.float64)
