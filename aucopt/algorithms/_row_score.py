"""One-row scores of a streaming linear model in O(nnz), from the form its state is kept in.

A spec with ``coef_terms`` states its weights as ``w = sum_k c_k state[key_k][:, col_k]``
(scalars ``c_k`` from the state and the hyperparameters, columns of per-feature entries
that a streaming call writes only at the columns of its rows, ``AlgorithmSpec.column_keys``).
The score ``w.x + intercept`` of one row then needs ``w`` at the row's features only, and
the intercept ``-(w.m+ + w.m-) / 2 - w.c`` (:meth:`aucopt.linear_model._fitted.FittedAttributes.
intercept_`) needs, per column, its dots with the class sums and the preconditioner's shift:
:class:`ScoreDots` keeps them and updates them in O(nnz) around each row learnt
(:func:`aucopt._kernels.row_score.column_dots`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels.row_score import column_dots, row_score_intercept
from ._precondition import SCALE_KEY, SHIFT_KEY

__all__ = ["LinearForm", "ScoreDots", "linear_form", "row_columns", "same_arrays",
           "scaled_terms"]

_F64 = np.dtype(np.float64)
_NONE = np.zeros(0)  # (read only by the kernels, and compared by identity)
# the running dots are formed afresh (O(d)) after at least this many rows: their rounding
# errors then stay those of a few thousand additions however long the stream
REFRESH_ROWS = 4096


class LinearForm(NamedTuple):
    """The weights of a state as ``sum_k coefs[k] mats[k][:, cols[k]]``."""

    terms: tuple  # ((key, col), ...): which columns
    mats: tuple  # the entries, as (d, m) views
    cols: np.ndarray  # int64
    coefs: np.ndarray  # float64
    arrays: tuple  # every array the dots depend on (identity checks)


def linear_form(spec, state: dict, params: dict,
                previous: LinearForm | None = None) -> LinearForm | None:
    """Return the :class:`LinearForm` of ``state`` (None: no O(nnz) score in this form).

    The spec's ``coef_terms`` gives the terms; each must be a column of a float64,
    C-ordered entry of ``spec.column_keys`` with the features on axis 0. ``previous``:
    a form returned before; when ``state`` holds the same arrays, only the coefficients
    are new.
    """
    if spec.coef_terms is None or spec.decision is not None or spec.mean_scores is not None:
        return None
    terms = spec.coef_terms(state, params)
    if not terms:
        return None
    if previous is not None and len(terms) == len(previous.terms) and all(
            (key, col) == known for (_, key, col), known in zip(terms, previous.terms)):
        if same_arrays(previous, state):
            return LinearForm(previous.terms, previous.mats, previous.cols,
                              np.array([float(c) for c, _, _ in terms]), previous.arrays)
    sums = state["data_sum"]
    d = sums.shape[1]
    mats, keys = [], []
    for _, key, col in terms:
        a = state.get(key)
        if (key not in spec.column_keys or a is None or a.dtype != _F64
                or a.ndim not in (1, 2) or a.shape[0] != d or not a.flags.c_contiguous
                or not 0 <= col < a.size // max(d, 1)):
            return None
        mats.append(a.reshape(d, -1))
        keys.append((key, col))
    arrays = (sums, state.get(SCALE_KEY, _NONE), state.get(SHIFT_KEY, _NONE),
              *(state[k] for k, _ in keys))
    return LinearForm(tuple(keys), tuple(mats), np.array([c for _, _, c in terms], np.int64),
                      np.array([float(c) for c, _, _ in terms]), arrays)


def same_arrays(form: LinearForm, state: dict) -> bool:
    """Whether ``state`` holds the arrays ``form`` was made from."""
    arrays = form.arrays
    return (state["data_sum"] is arrays[0] and state.get(SCALE_KEY, _NONE) is arrays[1]
            and state.get(SHIFT_KEY, _NONE) is arrays[2]
            and all(state.get(key) is a for (key, _), a in zip(form.terms, arrays[3:])))


def row_columns(indices: np.ndarray, centred: np.ndarray,
                extra: np.ndarray | None) -> np.ndarray:
    """Return the features a one-row call may write (sorted, distinct, int64): the row's,
    the centred ones (:func:`aucopt.algorithms._precondition.transform_rows` adds them to
    every row) and ``extra`` (``AlgorithmSpec.extra_columns``)."""
    at = indices
    if centred.size or (extra is not None and extra.size):
        parts = [indices, centred] + ([extra] if extra is not None else [])
        at = np.unique(np.concatenate(parts))
    return np.ascontiguousarray(at, dtype=np.int64)


class ScoreDots:
    """The dots of each column of a :class:`LinearForm` with the class sums and the shift,
    valid for one committed state.

    Parameters
    ----------
    form : LinearForm
    valid_for : object
        A token of the committed state (the caller's; compared by identity).
    """

    __slots__ = ("terms", "arrays", "dots", "valid_for", "updates")

    def __init__(self, form: LinearForm, valid_for):
        self.terms, self.arrays, self.valid_for = form.terms, form.arrays, valid_for
        sums, scale, shift = form.arrays[:3]
        self.dots = np.zeros((len(form.mats), 3))
        self.updates = 0
        every = np.arange(sums.shape[1], dtype=np.int64)
        column_dots(form.mats, form.cols, sums, scale, shift, every, 1.0, self.dots)

    def fits(self, form: LinearForm, valid_for) -> bool:
        """Whether the dots are those of ``form`` in the state ``valid_for`` stands for
        (and have not been updated so often that their rounding should be refreshed: after
        ``max(REFRESH_ROWS, d / 8)`` rows, which keeps the refresh at O(1) per row)."""
        if valid_for is not self.valid_for:
            return False
        arrays = self.arrays
        if self.updates >= REFRESH_ROWS and self.updates >= arrays[0].shape[1] // 8:
            return False
        if form.arrays is arrays and form.terms is self.terms:  # a form made from this one
            return True
        return (form.terms == self.terms and len(form.arrays) == len(arrays)
                and all(a is b for a, b in zip(form.arrays, arrays)))

    def add(self, form: LinearForm, at: np.ndarray, sign: float) -> bool:
        """Add ``sign`` times the terms at the features ``at`` (distinct, increasing);
        False if ``at`` is not (nothing changed)."""
        sums, scale, shift = form.arrays[:3]
        self.updates += sign > 0
        return column_dots(form.mats, form.cols, sums, scale, shift, at, sign, self.dots)

    def score(self, form: LinearForm, counts: np.ndarray, data: np.ndarray,
              indices: np.ndarray) -> float:
        """Return the score ``w.x + intercept`` of one row (NaN: an index out of range), the
        intercept ``-(mean of w.m+ and w.m- over the classes seen) - w.c`` from the dots
        (one compiled call: :func:`aucopt._kernels.row_score.row_score_intercept`)."""
        return row_score_intercept(form.mats, form.cols, form.coefs, form.arrays[1], data,
                                   indices, self.dots, counts)


def scaled_terms(state: dict, t_entry: int, average: bool) -> tuple | None:
    """Return ``coef_terms`` of the lazy form ``w = s v``, ``w_avg = (acc + S v - b) / t``
    (``pack`` holding ``v`` and ``b``, ``lazy`` holding ``s``, ``S`` first and ``t`` at
    ``t_entry``; SPAM-L2, OGD-FIFO: :func:`aucopt.algorithms._data.scaled_iterates`);
    None for the plain form."""
    if "pack" not in state:
        return None
    lazy = state["lazy"]
    if not average:
        return ((lazy[0], "pack", 0),)
    t = int(lazy[t_entry])
    inv_t = 1.0 / t if t > 0 else 1.0
    return ((inv_t, "acc", 0), (lazy[1] * inv_t, "pack", 0), (-inv_t, "pack", 1))
