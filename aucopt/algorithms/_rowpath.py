"""The one-row path of a stream: a family's own kernel on one row, called with little Python.

Row-by-row learning (River's ``learn_one``) spends most of its time around the kernels:
checks, an undo log, and numba's dispatch, which types every argument on every call
(named tuples of arrays are typed in Python). A spec with a ``row_kernel`` binds the
arguments of its one-pass kernel that stay the same from row to row (:class:`RowStep`);
:class:`RowPath` then learns a row through the compiled functions numba chose for those
argument types, without typing them again. A kernel with a fused wrapper
(:mod:`aucopt._kernels.fused_rows`: every family's) takes one call, its bound arguments
held in one numba structure (:mod:`aucopt._kernels.row_lane`) so that the state crosses
from Python as one pointer; in that call:

1. (when the caller asks, ``scale=True``) the row under the state's preconditioner, as
   :func:`scaled_row` makes it;
2. :func:`aucopt._kernels.row_step.begin_row` (the same for every family): checks the
   row, saves what its update may change (O(nnz) for the per-feature entries the spec
   declares in ``column_keys``, the other writable entries whole, but for those the
   kernel restores itself, ``RowStep.own``) and adds it to the data statistics;
3. the family's kernel on the row (``order = [0]``), after any ``pre`` step;
4. only if the kernel could not finish: :func:`aucopt._kernels.row_step.undo_row` (and
   the scales the call set are unset), and the estimator's general path learns the row
   from the unchanged state.

A kernel without a wrapper takes the same steps as two or three compiled calls.

Safety: the path and its lane hold the state's arrays themselves (not their addresses),
so none can be freed while they exist, and the path is used only while the state holds
exactly those arrays (:meth:`RowPath.fits`, checked on every row; a replaced, resized or
reloaded array makes a new path). The arrays of the row are checked for the dtype, order
and shape the compiled functions were chosen for, and the kernel checks the column
indices against the width before it writes anything.
"""

from __future__ import annotations

from operator import is_
from typing import Any, NamedTuple

import numpy as np

from .._kernels._checks import OK, OUTLIER_RATIO
from .._kernels.fused_rows import FUSED, spam_lazy_row
from .._kernels.row_lane import new_lane
from .._kernels.row_scale import scale_row
from .._kernels.row_step import MORE_SPACE, NOT_HERE, RowUndo, begin_row, undo_row
from ._precondition import BOUND_KEY, SCALE_KEY, SHARED_KEY, SHIFT_KEY, centred_columns

__all__ = ["BLAS_ROW_WIDTH", "BY_COLUMNS", "FEATURES_LAST", "RowPath", "RowStep",
           "feature_axis", "row_path", "scaled_row"]

_F64 = np.dtype(np.float64)
_PCG64 = np.random.PCG64
_new_tuple = tuple.__new__  # a RowData without the named tuple's Python-level __new__
_ORDER = np.zeros(1, dtype=np.int64)  # the order of a one-row chunk (read only by kernels)
_NO_EXTRA = (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
# The undo's tuples are padded with empty arrays (nothing to save) to a few fixed lengths:
# numba types a tuple by its length, and every length compiled the transaction and each
# family's fused call again (one state entry more or less, e.g. with precondition=None,
# made a new type); each tuple is a multiple of its slots long.
_EMPTY_2D, _EMPTY_BYTES, _EMPTY = np.zeros((0, 0)), np.zeros(0, dtype=np.uint8), np.zeros(0)
_ROW_SLOTS, _COL_SLOTS, _WHOLE_SLOTS, _ZEROED_SLOTS = 4, 2, 8, 2
_NO_ZEROED = (_EMPTY,) * _ZEROED_SLOTS
_NO_WATCH = np.zeros(1)
_NO_SCALING = (np.zeros(0), np.zeros(1), np.zeros(1), False)  # a lane that never scales
_SCRATCH_ROWS = 64  # non-zeros a row may have before the saved values need a larger buffer
# per-feature entries saved at the rows' columns besides the spec's column_keys, by the row
# path and by the undo log of a call: the class sums, and the preconditioner's scale and
# shift (set at the rows' columns before the step, written by no kernel): saved whole, they
# made every row or one-row call O(d)
BY_COLUMNS = ("data_sum", SCALE_KEY, SHIFT_KEY)
# per-feature entries laid out (k, d), the features on their last axis whatever k: at d = 2
# the class sums are square, and their shape alone would take their rows for features
FEATURES_LAST = ("data_sum",)

# The widest input for which a spec whose kernel makes BLAS calls per row (O(d^2) learners)
# binds a row step: its general path runs under one_blas_thread(), too costly per row, and
# OpenBLAS splits level-2 calls among threads only for matrices of some thousand entries.
BLAS_ROW_WIDTH = 64


class RowStep(NamedTuple):
    """A family kernel's call on one row: ``kernel(*head, data, indices, indptr, y, order,
    *mid, t, *tail) -> (t, status, ...)``.

    Attributes
    ----------
    kernel : numba dispatcher
        The family's one-pass kernel (the one ``run`` calls on this state and these rows).
    head, mid, tail : tuple
        Its other arguments, as ``run`` passes them for a one-row CSR chunk.
    pre : tuple of (dispatcher, tuple)
        Calls ``(kernel, head)`` made before the step as ``kernel(*head, data, indices,
        indptr, y)`` (e.g. a row joining frozen class sums).
    watch : tuple of str
        State entries whose first value the bound arguments depend on (a step scaled by
        the largest row norm seen): the step is bound again when one changes.
    extra : tuple of str
        ``(indices, count)``: the state entries holding further columns the step writes
        besides the row's (``AlgorithmSpec.extra_columns``: ``state[indices][:count]``),
        read afresh on every row; empty if none.
    max_nnz : int
        The most non-zeros a row may have for this binding (larger: the general path).
    zeroed : tuple of ndarray
        1-D float64 scratch arrays of the call that ``run`` makes afresh (zeros) on every
        call: zeroed before every row.
    own : tuple of str
        State entries the kernel itself leaves as they were when it does not finish
        (e.g. those it writes at columns that only it knows, kept only for the rows that
        may fail): the transaction does not save them. The same for every binding of a
        path.
    draws : ndarray or None
        The step's uniforms (an array among its arguments), which ``run`` draws from the
        estimator's generator for a one-row chunk as ``rng.random(draws.shape)``:
        :class:`RowPath` fills it with ``rng.random(out=draws)`` (the same numbers) before
        the row, and puts the generator back when the row takes the general path. None:
        the step draws nothing.
    draw : callable or None
        ``draw(rng, draws)`` fills ``draws`` with the numbers ``run`` draws otherwise
        (e.g. Gaussians); None: uniforms, ``rng.random(out=draws)``.
    """

    kernel: Any
    head: tuple
    mid: tuple
    tail: tuple = ()
    pre: tuple = ()
    watch: tuple = ()
    extra: tuple = ()
    max_nnz: int = 2**62
    zeroed: tuple = ()
    own: tuple = ()
    draws: Any = None
    draw: Any = None


def row_path(spec, state: dict, params: dict, valid_for: dict) -> RowPath | None:
    """Return the row path of ``state`` under ``params`` (None: the general path only).

    Parameters
    ----------
    spec : AlgorithmSpec
    state : dict
        The committed state; the path holds its arrays and is valid only while the
        state holds the same ones (:meth:`RowPath.fits`).
    params : dict
        The hyperparameters of the update, with a calibrated step already in place.
    valid_for : dict
        The estimator's dict of hyperparameters the path is valid for (its ``params``
        attribute: a new dict means new values).

    Returns
    -------
    RowPath or None
    """
    if spec.row_kernel is None:
        return None
    step = spec.row_kernel(state, params)
    if step is None:
        return None
    layout = _transaction(state, spec.column_keys, step.own)
    return None if layout is None else RowPath(spec, state, params, valid_for, step, *layout)


def scaled_row(state: dict, rows, y: np.ndarray, auto: bool, centred: np.ndarray):
    """Return ``(row the kernels see, columns whose scale was set)`` of one streaming row
    under the state's preconditioner, in one compiled call (None: use
    :func:`~aucopt.algorithms._precondition.fix_scale` and
    :func:`~aucopt.algorithms._precondition.transform_rows`, which give the same bits).

    Parameters
    ----------
    state : dict
        The committed state, holding the preconditioner's entries (scales set in place).
    rows : RowData
        One canonical CSR row (float64 values, increasing columns).
    y : ndarray of shape (1,)
        Its signed label (weight 0 or 1: other sample weights take the general functions).
    auto : bool
        Whether ``precondition="auto"`` (else the scales are only applied).
    centred : ndarray
        The centred columns of the state (any: the general functions).

    Returns
    -------
    tuple or None
        ``(RowData, ndarray of int64 or None)``.
    """
    scale, shared = state[SCALE_KEY], state.get(SHARED_KEY)
    data, weight = rows.data, abs(float(y[0]))
    if (centred.size or shared is None or rows.n_samples != 1 or rows.indices is None
            or data.dtype is not _F64 or scale.dtype is not _F64 or scale.ndim != 1
            or not scale.flags.writeable or (auto and weight not in (0.0, 1.0))):
        return None
    bound = state.get(BOUND_KEY)
    nnz = data.shape[0]
    out, fixed = np.empty(nnz), np.empty(nnz, dtype=np.int64)
    count, status = scale_row(scale, shared, 0.0 if bound is None else float(bound[0]),
                              auto and weight == 1.0, data, rows.indices, rows.indptr,
                              out, fixed)
    if status != OK:
        return None
    row = _new_tuple(type(rows), (out, rows.indices, rows.indptr, 1, rows.n_features))
    return row, (fixed[:count] if count else None)


def _scaling(state: dict, valid_for: dict) -> tuple | None:
    """Return ``(scale, shared, bound, auto)`` for fused calls that put the row under the
    state's preconditioner themselves (as :func:`scaled_row` does), or None where they
    cannot: no preconditioner, centred columns (set once, by ``fit`` or a stream's first
    chunk), or entries of other types."""
    scale, shared = state.get(SCALE_KEY), state.get(SHARED_KEY)
    if scale is None or shared is None or scale.dtype != _F64 or scale.ndim != 1 or (
            not scale.flags.writeable) or centred_columns(state).size:
        return None
    bound = state.get(BOUND_KEY)
    precondition = valid_for.get("precondition")
    return (scale, shared, np.zeros(1) if bound is None else bound,
            isinstance(precondition, str) and precondition == "auto")


def _transaction(state: dict, column_keys, own=()) -> tuple | None:
    """Return ``(by_rows, by_cols, whole)``: the views :func:`begin_row` saves (None: a
    state it cannot save exactly); the entries ``own`` are the kernel's to restore."""
    d = state["data_sum"].shape[1]
    by_rows, by_cols, whole = [], [], []
    for key, value in state.items():
        if not value.flags.writeable or key in own:
            continue  # read-only: nothing writes it; or the kernel restores it
        if not value.flags.c_contiguous:
            return None
        if key in column_keys or key in BY_COLUMNS:
            if value.dtype != _F64 or value.ndim not in (1, 2):
                return None
            axis = feature_axis(key, value, d)
            if axis == 0:  # (d,) or (d, k)
                by_rows.append(value.reshape(d, -1))
            elif axis == 1:  # (k, d)
                by_cols.append(value)
            else:
                return None
        elif value.size:
            whole.append(value.reshape(-1).view(np.uint8))
    if any(np.shares_memory(a, w) for a in by_rows + by_cols for w in whole):
        return None  # an entry saved whole and by columns: the undo would not be exact
    return (_padded(by_rows, _ROW_SLOTS, _EMPTY_2D), _padded(by_cols, _COL_SLOTS, _EMPTY_2D),
            _padded(whole, _WHOLE_SLOTS, _EMPTY_BYTES))


def _padded(items, slots: int, empty: np.ndarray) -> tuple:
    """Return ``items`` as a tuple followed by ``empty`` up to a multiple of ``slots``
    (at least ``slots`` long): fewer distinct tuple types for numba to compile for."""
    n = max(slots, -(-len(items) // slots) * slots)
    return tuple(items) + (empty,) * (n - len(items))


def feature_axis(key: str, value: np.ndarray, d: int) -> int | None:
    """Return the axis of a per-feature state entry that runs over the ``d`` features: 0 for
    ``(d,)`` and ``(d, k)`` entries, 1 for ``(k, d)`` ones (always for
    :data:`FEATURES_LAST`, else when the first axis is not of length ``d``); None if
    no axis fits."""
    if key not in FEATURES_LAST and value.shape[0] == d:
        return 0
    return 1 if value.ndim == 2 and value.shape[1] == d else None


def compiled_entry(kernel, args):
    """Return the compiled function ``kernel`` has for ``args`` (compiling it if needed;
    ``kernel`` itself without numba).

    Calling it skips numba's typing of the arguments; it is only valid for arguments
    of exactly these types (the caller checks them).
    """
    overloads = getattr(kernel, "overloads", None)
    if overloads is None:  # NUMBA_DISABLE_JIT=1: a plain function
        return kernel
    types = tuple(kernel.typeof_pyval(a) for a in args)
    found = overloads.get(types)
    if found is None:
        kernel.compile(types)
        found = overloads.get(types)
    return kernel if found is None else found.entry_point


def _typed(data, indices, indptr, y) -> bool:
    """Whether a row's arrays are of the kind the compiled calls are typed for: float64
    values and label, one-dimensional and C-ordered (the index type is checked apart)."""
    return (data.dtype is _F64 and y.dtype is _F64 and indptr.dtype is indices.dtype
            and data.ndim == indices.ndim == indptr.ndim == y.ndim == 1
            and data.flags.c_contiguous and indices.flags.c_contiguous
            and indptr.flags.c_contiguous and y.flags.c_contiguous)


class RowPath:
    """A spec's :class:`RowStep` with the transaction around it: ``path(data, indices,
    indptr, y, t) -> (t, status)``.

    Returns the updates done and ``OK``, or a status meaning that the state is as it
    was and the general path must learn the row.
    """

    __slots__ = ("spec", "state", "params", "valid_for", "values", "undo", "width", "step",
                 "stats", "begin", "restore", "entry", "fused", "pre", "index_type", "rewind",
                 "lane", "scales", "scaling", "quick", "direct", "preconditioned")

    def __init__(self, spec, state, params, valid_for, step, by_rows, by_cols, whole):
        self.spec, self.state, self.params, self.valid_for = spec, state, params, valid_for
        self.values = tuple(state.values())  # held: none of them can be freed meanwhile
        self.stats = (state["data_count"], state["data_sum"], state["data_sqmax"])
        self.width = sum(a.shape[1] for a in by_rows) + sum(a.shape[0] for a in by_cols)
        extra = tuple(state[k] for k in step.extra) if step.extra else _NO_EXTRA
        self.undo = RowUndo(by_rows, by_cols, whole, np.empty(self.width * _SCRATCH_ROWS),
                            np.empty(sum(b.shape[0] for b in whole), dtype=np.uint8),
                            *extra, np.zeros(1, dtype=np.int64), _NO_ZEROED, 0, _NO_WATCH,
                            np.zeros(1), OUTLIER_RATIO if SCALE_KEY in state else np.inf)
        self.begin = self.restore = self.pre = self.index_type = self.rewind = None
        self.lane = None
        self.scaling = _scaling(state, valid_for)
        self._bind(step)
        # whether a call may hand the fused wrapper the row as given (``scale=True``)
        self.scales = self.scaling is not None and self.fused is not None
        # whether the state has a preconditioner, and whether :meth:`learn` takes the rows
        # as given (else the caller scales them)
        self.preconditioned = SCALE_KEY in state
        self.direct = self.scales or not self.preconditioned

    def _bind(self, step: RowStep) -> None:
        """Take ``step`` (a first binding, or a new one after a watched value changed)."""
        self.step, self.entry, self.quick = step, None, False
        self.fused = FUSED.get(step.kernel)
        if step.pre and self.fused is not spam_lazy_row:
            self.fused = None  # only that wrapper makes the pre calls itself
        watch = self.state[step.watch[0]] if step.watch else _NO_WATCH
        self._set_undo(self.undo._replace(zeroed=_padded(step.zeroed, _ZEROED_SLOTS, _EMPTY),
                                          max_nnz=step.max_nnz, watch=watch,
                                          watched=np.array([watch[0]], np.float64)))

    def _set_undo(self, undo: RowUndo) -> None:
        """Take ``undo`` and hold the fused wrapper's arguments in a new lane."""
        self.undo, step = undo, self.step
        if self.fused is not None:
            scale, shared, bound, auto = self.scaling or _NO_SCALING
            self.lane = new_lane(self.stats, undo, step.head, step.mid, step.tail, _ORDER,
                                 scale, shared, bound, auto)

    def fits(self, state: dict, valid_for: dict) -> bool:
        """Whether the path is valid for ``state`` (the same dict holding the same arrays)
        and the hyperparameters ``valid_for``."""
        return (state is self.state and valid_for is self.valid_for
                and len(state) == len(self.values) and all(map(is_, state.values(), self.values)))

    def learn(self, rows, y, t, rng=None):
        """Learn the one-row CSR ``rows`` (a ``RowData``) as given, where :attr:`direct`:
        ``self(rows.data, rows.indices, rows.indptr, y, t, rng, scale=self.scales)``, with
        the same checks in fewer Python steps once the call is typed (a step that draws
        nothing). Returns ``(t, status)``."""
        data, indices, indptr = rows.data, rows.indices, rows.indptr
        index_type = self.index_type
        if (self.quick and indices.dtype is index_type and indptr.dtype is index_type
                and _typed(data, indices, indptr, y)):
            scale = self.scales
            t_after, status = self.entry(self.lane, data, indices, indptr, y, t, scale)
            if status == OK or status == NOT_HERE:
                return t_after, status
            return self._settle(status, data, indices, indptr, y, t, scale)
        return self(data, indices, indptr, y, t, rng, scale=self.scales)

    def __call__(self, data, indices, indptr, y, t, rng=None, scale=False):
        """Learn the one-row CSR chunk ``(data, indices, indptr)`` with signed label ``y``.

        ``data`` and ``y`` must be float64, ``indices`` and ``indptr`` of one integer
        type, all one-dimensional and C-ordered (as :class:`aucopt.river._columns.ColumnMap`
        makes them); anything else takes the general path, as does a row that is not one
        valid CSR row of the state's width (checked by the compiled code). ``rng`` is the
        estimator's generator, for a step that draws (``RowStep.draws``; None: such a
        step takes the general path); it is as before the call unless the status is
        ``OK``. ``scale``: the row is as given, and the call puts it under the state's
        preconditioner itself (only where :attr:`scales`; else the caller has).
        """
        draws = self.step.draws
        if draws is None:
            return self._learn(data, indices, indptr, y, t, scale)
        if rng is None:
            return t, NOT_HERE
        bits = rng.bit_generator
        if self.rewind is None or self.rewind[0] is not rng:
            # PCG64 makes one output per uniform float64 and keeps half an output only
            # after a 32-bit draw, which resets when stepped: with none kept, stepping it
            # back is exact (and cheaper than its state). Only a general call draws
            # otherwise, and one that commits replaces the path.
            self.rewind = (rng, type(bits) is _PCG64 and not bits.state["has_uint32"])
        draw = self.step.draw
        before = None if self.rewind[1] and draw is None else bits.state
        if draw is None:
            rng.random(out=draws)
        else:
            draw(rng, draws)
        t_after, status = self._learn(data, indices, indptr, y, t, scale)
        if status != OK:
            if before is None:
                bits.advance(-draws.size)
            else:
                bits.state = before
        return t_after, status

    def _learn(self, data, indices, indptr, y, t, scale):
        """:meth:`__call__` with the step's draws made."""
        index_type = indices.dtype
        if index_type is not self.index_type or not _typed(data, indices, indptr, y):
            if self.index_type is not None or index_type.kind not in "iu" or (
                    data.dtype is not _F64 or y.dtype is not _F64):
                return t, NOT_HERE  # one index type per path
            self.index_type = index_type
            return self._learn(data, indices, indptr, y, t, scale)
        step = self.step
        if self.entry is None:  # typed once per binding
            args = (*step.head, data, indices, indptr, y, _ORDER, *step.mid, t, *step.tail)
            begin = (self.stats, self.undo, data, indices, indptr, y)
            self.begin = compiled_entry(begin_row, begin)
            self.restore = compiled_entry(undo_row, (self.undo, indices, indptr))
            if self.fused is not None:
                self.entry = compiled_entry(self.fused, (self.lane, data, indices, indptr, y,
                                                         t, False))
                self.quick = step.draws is None
            else:
                self.entry = compiled_entry(step.kernel, args)
                self.pre = tuple((compiled_entry(k, (*a, data, indices, indptr, y)), a)
                                 for k, a in step.pre)
        if self.fused is not None:
            t_after, status = self.entry(self.lane, data, indices, indptr, y, t, scale)
        elif scale:
            return t, NOT_HERE  # only the fused wrappers scale the row
        else:
            t_after, status = self._two_calls(data, indices, indptr, y, t)
        if status == OK or status == NOT_HERE:
            return t_after, status
        return self._settle(status, data, indices, indptr, y, t, scale)

    def _settle(self, status, data, indices, indptr, y, t, scale):
        """Finish a row whose call asked for more scratch (``MORE_SPACE``: nothing done) or
        observed a value the bound step depends on (``REBIND``: saved and observed, the
        step not made); returns ``(t, status)`` as :meth:`__call__`."""
        step = self.step
        if status == MORE_SPACE:
            size = (int(indptr[1]) + self.undo.extra.shape[0]) * self.width
            self._set_undo(self.undo._replace(saved=np.empty(size)))
            return self._learn(data, indices, indptr, y, t, scale)
        # REBIND: a value the bound step depends on changed with the row, now observed
        found = self.spec.row_kernel(self.state, self.params)
        if found is None:
            self.restore(self.undo, indices, indptr)
            return t, NOT_HERE
        if step.draws is not None:
            found.draws[...] = step.draws  # the row's, drawn before the step was bound
        self._bind(found)
        step = self.step
        args = (*step.head, data, indices, indptr, y, _ORDER, *step.mid, t, *step.tail)
        for kernel, pre in step.pre:
            kernel(*pre, data, indices, indptr, y)
        result = step.kernel(*args)  # typed here: rare (the largest row norm grew)
        if result[1] != OK:
            self.restore(self.undo, indices, indptr)
            return t, NOT_HERE
        return result[0], OK

    def _two_calls(self, data, indices, indptr, y, t):
        """The transaction's start and the family's kernel as two compiled calls (kernels
        without a fused wrapper)."""
        status = self.begin(self.stats, self.undo, data, indices, indptr, y)
        if status != OK:
            return t, status
        step = self.step
        for kernel, args in self.pre:
            kernel(*args, data, indices, indptr, y)
        result = self.entry(*step.head, data, indices, indptr, y, _ORDER, *step.mid, t,
                            *step.tail)
        if result[1] != OK:
            self.restore(self.undo, indices, indptr)
            return t, NOT_HERE
        return result[0], OK
