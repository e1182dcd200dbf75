"""One-row scores of a streaming linear model in O(nnz), from the form its state is kept in.

A spec with ``coef_terms`` states its weights as ``w = sum_k c_k state[key_k][:, col_k]``
(scalars ``c_k`` from the state and the hyperparameters, columns of per-feature entries
that a streaming call writes only at the columns of its rows, ``AlgorithmSpec.column_keys``).
The score ``w.x + intercept`` of one row then needs ``w`` at the row's features only, and
the intercept ``-(w.m+ + w.m-) / 2 - w.c`` (:meth:`aucopt.linear_model._fitted.FittedAttributes.
intercept_`) needs, per column, its dots with the class sums and the preconditioner's shift:
:class:`ScorePath` keeps them and updates them in O(nnz) around each row learnt
(:func:`aucopt._kernels.row_score.column_dots`).

A term may also be an entry a call writes whole (not in ``column_keys``: a prox or a
projection that moves every weight, an average over stages): the row's score is still
taken at its features only, but the dots are then formed afresh (O(d), in the compiled
call of the score) after every update.
"""

from __future__ import annotations

from operator import is_
from typing import NamedTuple

import numpy as np

from .._kernels.row_score import column_dots, merged_columns, row_score_after, row_score_intercept
from ._precondition import SCALE_KEY, SHIFT_KEY
from ._rowpath import compiled_entry

__all__ = ["LinearForm", "ScorePath", "linear_form", "row_columns", "scaled_terms",
           "score_path"]

_F64 = np.dtype(np.float64)
_NONE = np.zeros(0)  # (read only by the kernels, and compared by identity)
_NO_INDICES = np.zeros(0, dtype=np.int64)
_I64 = _NO_INDICES.dtype
_I32 = np.dtype(np.int32)
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
    by_columns: bool  # whether every entry is written only at the columns of the rows


def linear_form(spec, state: dict, params: dict) -> LinearForm | None:
    """Return the :class:`LinearForm` of ``state`` (None: no O(nnz) score in this form).

    The spec's ``coef_terms`` gives the terms; each must be a column of a float64,
    C-ordered entry with the features on axis 0 (a 1-D entry may hold more after them:
    its first ``d`` are read), and the class sums, scale and shift must have the shapes
    the kernels read (the compiled calls take their lengths from the first entry). The
    form is ``by_columns`` when every entry is one of ``spec.column_keys``.
    """
    if spec.coef_terms is None or spec.decision is not None or spec.mean_scores is not None:
        return None
    terms = spec.coef_terms(state, params)
    if not terms:
        return None
    sums = state["data_sum"]
    d = sums.shape[1]
    mats, keys = [], []
    for _, key, col in terms:
        a = state.get(key)
        if a is None or a.dtype != _F64 or not a.flags.c_contiguous or not (
                (a.ndim == 1 and a.shape[0] >= d and col == 0)
                or (a.ndim == 2 and a.shape[0] == d and 0 <= col < a.shape[1])):
            return None
        mats.append(a[:d].reshape(d, 1) if a.ndim == 1 else a)
        keys.append((key, col))
    scale, shift = state.get(SCALE_KEY, _NONE), state.get(SHIFT_KEY, _NONE)
    if sums.ndim != 2 or sums.shape[0] != 2 or any(
            a.ndim != 1 or a.shape[0] not in (0, d) for a in (scale, shift)):
        return None
    arrays = (sums, scale, shift, *(state[k] for k, _ in keys))
    return LinearForm(tuple(keys), tuple(mats), np.array([c for _, _, c in terms], np.int64),
                      np.array([float(c) for c, _, _ in terms]), arrays,
                      all(key in spec.column_keys for key, _ in keys))


def row_columns(indices: np.ndarray, centred: np.ndarray,
                extra: np.ndarray | None) -> np.ndarray:
    """Return the features a one-row call may write (int32 or int64): the row's, the centred ones
    (:func:`aucopt.algorithms._precondition.transform_rows` adds them to every row) and
    ``extra`` (``AlgorithmSpec.extra_columns``); sorted and distinct unless the row's
    columns alone are not (:meth:`ScorePath.add` then refuses them: the caller takes
    ``numpy.unique``). One compiled merge when each part is sorted."""
    extra = _NO_INDICES if extra is None else extra
    if not (centred.size or extra.size):
        return indices if indices.dtype is _I64 or indices.dtype is _I32 else (
            np.ascontiguousarray(indices, dtype=np.int64))
    out = np.empty(indices.shape[0] + centred.shape[0] + extra.shape[0], dtype=np.int64)
    n = merged_columns(indices, centred, extra, out)
    if n < 0:
        return np.unique(np.concatenate([indices, centred, extra])).astype(np.int64)
    return out[:n]


class ScorePath:
    """The O(nnz) score of one row of a committed state: its :class:`LinearForm` with the
    coefficients of the state it was last given, and the dots of each column with the class
    sums and the shift (the intercept), kept current in O(nnz) around each row learnt.

    Valid while the state holds the arrays it was made from under the same dict of
    hyperparameters (:meth:`fits`, one pass over a few identities); the coefficients and
    the dots are each marked with the token of the committed state they belong to (a new
    token after every update, compared by identity), so a test-then-train step refreshes
    the coefficients once (``coef_terms``, a few scalars) and forms the dots in O(d) only
    when they are not current. The terms a learnt row adds back to the dots are added by
    the next score, in its compiled call (:meth:`defer`).

    Parameters
    ----------
    spec : AlgorithmSpec
    params : dict
        The estimator's dict of hyperparameters (compared by identity).
    form : LinearForm
    state : dict
        The state ``form`` was made from.
    """

    __slots__ = ("spec", "params", "form", "keys", "held", "coefs", "coefs_for", "dots",
                 "dots_for", "updates", "n_features", "columns", "add_calls", "pending",
                 "every")

    def __init__(self, spec, params: dict, form: LinearForm, state: dict):
        self.spec, self.params, self.form = spec, params, form
        self.keys = ("data_sum", SCALE_KEY, SHIFT_KEY, *(key for key, _ in form.terms))
        self.held = tuple(map(state.get, self.keys))  # None where the state has no entry
        self.n_features = form.arrays[0].shape[1]
        self.coefs, self.coefs_for, self.dots_for = form.coefs.copy(), None, None
        self.dots = np.zeros((len(form.mats), 3))
        self.updates = 0
        self.pending = None  # features whose terms a learnt row left to add to the dots
        self.every = None  # every feature, kept by a form not by columns (formed each row)
        # the arguments of column_dots but the features, the sign and the dots: all held
        # here (the arrays of the state checked by fits), so its compiled function for
        # these types is called without typing them again (as the row path's)
        self.columns = (form.mats, form.cols, *form.arrays[:3])
        self.add_calls = {}  # features' dtype -> the compiled column_dots

    def fits(self, state: dict, params: dict) -> bool:
        """Whether the path is that of ``state`` under ``params``: the same hyperparameter
        dict, and the state holds the arrays of the form (not copies)."""
        return params is self.params and all(map(is_, map(state.get, self.keys), self.held))

    def current(self, state: dict, token) -> bool:
        """Make the coefficients those of ``state``, the committed state ``token`` stands
        for; False if its ``coef_terms`` no longer take the same columns (a new path)."""
        if self.coefs_for is token:
            return True
        terms = self.spec.coef_terms(state, self.params)
        known = self.form.terms
        self.coefs_for = None
        if not terms or len(terms) != len(known):
            return False
        coefs = self.coefs  # the path's own array, written in place
        for i, ((c, key, col), (known_key, known_col)) in enumerate(zip(terms, known)):
            if key != known_key or col != known_col:
                return False
            coefs[i] = c
        self.coefs_for = token
        return True

    def dots_current(self, token) -> bool:
        """Whether the dots are those of the committed state ``token`` (and have not been
        updated so often that their rounding should be refreshed: after
        ``max(REFRESH_ROWS, d / 8)`` rows, which keeps the refresh at O(1) per row)."""
        updates = self.updates
        return self.dots_for is token and (updates < REFRESH_ROWS
                                           or updates < self.n_features // 8)

    def form_dots(self, token) -> None:
        """Form the dots afresh in O(d), for the committed state ``token``: zero, with the
        terms of every feature left to the next use (:meth:`defer`), which adds them in
        its compiled call."""
        every = self.every
        if every is None:
            every = np.arange(self.n_features, dtype=np.int64)
            if not self.form.by_columns:  # formed after every update: kept
                self.every = every
        self.dots = np.zeros((len(self.form.mats), 3))
        self.updates = 0
        self.pending = every
        self.dots_for = token

    def defer(self, at: np.ndarray, token) -> None:
        """Leave the terms at the features ``at`` of a row just learnt (committed state
        ``token``) to be added by the next use of the dots: :meth:`score` adds them in its
        own compiled call, :meth:`flush` otherwise (the state is then still ``token``'s:
        every use checks it)."""
        self.pending = at
        self.updates += 1
        self.dots_for = token

    def flush(self) -> bool:
        """Add the terms :meth:`defer` left (False if refused: the dots are not current)."""
        at, self.pending = self.pending, None
        return at is None or self.add(at, 1.0)

    def add(self, at: np.ndarray, sign: float) -> bool:
        """Add ``sign`` times the terms at the features ``at`` (distinct, increasing);
        False if ``at`` is not (nothing changed)."""
        mats, cols, sums, scale, shift = self.columns
        call = self.add_calls.get(at.dtype)
        if call is None or at.ndim != 1 or not at.flags.c_contiguous:  # not as typed
            if (at.ndim != 1 or not at.flags.c_contiguous
                    or (at.dtype is not _I64 and at.dtype is not _I32)):
                return column_dots(mats, cols, sums, scale, shift, at, sign, self.dots)
            call = self.add_calls[at.dtype] = compiled_entry(
                column_dots, (mats, cols, sums, scale, shift, at, 1.0, self.dots))
        return call(mats, cols, sums, scale, shift, at, float(sign), self.dots)

    def score(self, counts: np.ndarray, data: np.ndarray, indices: np.ndarray) -> float:
        """Return the score ``w.x + intercept`` of one row (NaN: an index out of range), the
        intercept ``-(mean of w.m+ and w.m- over the classes seen) - w.c`` from the dots
        (one compiled call: :func:`aucopt._kernels.row_score.row_score_intercept`)."""
        form = self.form
        if self.pending is None:
            return row_score_intercept(form.mats, form.cols, self.coefs, form.arrays[1], data,
                                       indices, self.dots, counts)
        pending, self.pending = self.pending, None
        mats, cols, sums, scale, shift = self.columns
        score, added = row_score_after(mats, cols, self.coefs, sums, scale, shift, pending,
                                       data, indices, self.dots, counts)
        if not added:
            self.dots_for = None
        return score


def score_path(spec, state: dict, params: dict,
               previous: ScorePath | None = None) -> ScorePath | None:
    """Return the :class:`ScorePath` of ``state`` under ``params``, its coefficients not
    yet marked current (None: no O(nnz) score in this form).

    ``previous``: the path before (other hyperparameters, or other arrays); its dots are
    kept when the new form takes the same columns of the same arrays.
    """
    form = linear_form(spec, state, params)
    if form is None:
        return None
    path = ScorePath(spec, params, form, state)
    if previous is not None and form.terms == previous.form.terms and all(
            map(is_, form.arrays, previous.form.arrays)):
        path.dots, path.dots_for, path.updates, path.pending = (
            previous.dots, previous.dots_for, previous.updates, previous.pending)
    return path


def scaled_terms(state: dict, t_entry: int, average: bool) -> tuple:
    """Return ``coef_terms`` of the lazy form ``w = s v``, ``w_avg = (acc + S v - b) / t``
    (``pack`` holding ``v`` and ``b``, ``lazy`` holding ``s``, ``S`` first and ``t`` at
    ``t_entry``; SPAM-L2, OGD-FIFO: :func:`aucopt.algorithms._data.scaled_iterates`), or
    of the plain form (no ``pack``: Kar's OLP, dense rows): the entry ``w_avg`` or ``w``
    itself."""
    if "pack" not in state:
        return ((1.0, "w_avg" if average else "w", 0),)
    lazy = state["lazy"]
    if not average:
        return ((lazy[0], "pack", 0),)
    t = int(lazy[t_entry])
    inv_t = 1.0 / t if t > 0 else 1.0
    return ((inv_t, "acc", 0), (lazy[1] * inv_t, "pack", 0), (-inv_t, "pack", 1))
