"""Undo log of one learning call: the all-or-nothing update without copying O(d).

A streaming call on a few sparse rows touches a few columns of the per-feature state.
Instead of learning on a copy of the whole state (O(d) per call), the estimator learns
in place and keeps what the call may overwrite: the entries at the columns of the chunk
for the state arrays an algorithm declares (``AlgorithmSpec.column_keys``), full copies of
everything else that is writable (small arrays, or the whole state of algorithms that
write anywhere). An algorithm about to write outside those columns (a rare O(d) rescaling)
first calls :meth:`UndoLog.before_dense`, which turns the column entries into full copies.

A call of one row on a small state is dominated by fixed costs, so a state whose form
(keys and arrays) stayed the same over two calls is moved into one buffer, the *arena*:
its writable entries become views of it, and the log of a call is one copy of the buffer
instead of one copy per entry. :class:`UndoPlan` holds that layout between calls.
"""

from __future__ import annotations

from operator import is_

import numpy as np

from ..algorithms._rowpath import feature_axis

__all__ = ["UndoLog", "UndoPlan", "next_plan", "touched_columns", "warm_copy"]

# Below this width a full copy of the state costs less than finding the columns.
_MIN_COLUMN_WIDTH = 256
# Offsets of the entries in the arena are multiples of this (aligned for every dtype kept).
_ALIGN = 16
# Larger states keep per-entry copies: there the copying itself costs more than the calls,
# and the arena would keep a second copy of the state between calls.
_ARENA_MAX_BYTES = 1 << 20


def warm_copy(key: str, value, fresh: np.ndarray) -> np.ndarray:
    """Return a copy of the ``warm_start`` entry ``value`` for the fresh entry ``fresh``.

    Raises ValueError when the shapes differ (X of another width than the last fit's):
    the kernels index the entries by the new width and would write past the old ones.
    """
    if np.shape(value) != fresh.shape:
        raise ValueError(f"warm_start=True cannot reuse the previous {key!r} (shape "
                         f"{np.shape(value)}, now {fresh.shape}): the width of X or a "
                         "hyperparameter that sizes the state changed. Set warm_start=False "
                         "to start afresh.")
    return np.array(value, copy=True)


def touched_columns(rows, n_features: int) -> np.ndarray | None:
    """Return the columns holding the non-zeros of CSR ``rows``, or None (dense, or many).

    Parameters
    ----------
    rows : RowData
        The chunk.
    n_features : int
        Width ``d`` of the state.

    Returns
    -------
    ndarray or None
        The column index of every stored entry (repeats are harmless: each copy of an
        entry is saved before the call writes it, and restores the same value), or None
        when an undo by columns would not be cheaper than full copies.
    """
    if not rows.is_sparse or n_features < _MIN_COLUMN_WIDTH:
        return None
    lo, hi = rows.indptr[0], rows.indptr[rows.n_samples]
    if 4 * (hi - lo) > n_features:
        return None
    return rows.indices[lo:hi]


def _arena_ready(value) -> bool:
    """Whether a state entry can become a view of the arena with the same numba type."""
    flags = value.flags
    return (flags.writeable and flags.c_contiguous and value.size > 0 and value.dtype.isnative
            and not value.dtype.hasobject and value.dtype.itemsize <= _ALIGN)


class UndoPlan:
    """How the undo log of a call saves each entry of ``state``; reused while it fits.

    Parameters
    ----------
    state : dict of ndarray
        The committed state.
    column_keys : collection of str
        Entries written only at the columns of the rows of a call (feature axis 0 for
        ``(d,)``/``(d, k)``, axis 1 for ``(k, d)``).
    n_features : int
        Width ``d``.
    arena : bool
        Whether to move the writable entries into one buffer (rebinding them in
        ``state`` to views of equal value).

    Notes
    -----
    Entries are logged by columns (``column_keys``), copied (other writable entries) or
    shared (read-only ones, e.g. drawn once: nothing writes them). With an arena the
    copied entries come first, so a call logged by columns copies only that prefix.
    """

    __slots__ = ("state", "keys", "values", "by_columns", "copied", "loose", "column_loose",
                 "all_loose", "arena", "backup", "split", "large", "whole", "prefix")

    def __init__(self, state, column_keys, n_features, *, arena):
        self.state, self.keys, self.values = state, tuple(state), tuple(state.values())
        self.by_columns = tuple((key, feature_axis(key, value, n_features) == 0)
                                for key, value in state.items() if key in column_keys)
        self.copied = tuple(key for key, value in state.items()
                            if key not in column_keys and value.flags.writeable)
        self.arena = self.backup = self.whole = self.prefix = None
        self.split = 0
        # copied by every call / also by calls without columns (arena entries excepted)
        self.loose, self.column_loose = self.copied, tuple(key for key, _ in self.by_columns)
        self.large = sum(state[k].nbytes for k in self.loose + self.column_loose) > _ARENA_MAX_BYTES
        if arena and not self.large:
            self._build_arena()
        self.all_loose = self.loose + self.column_loose

    def _build_arena(self) -> None:
        """Move the arena-ready entries into one buffer; the others stay ``loose``."""
        state = self.state
        values = tuple(state.values())

        def movable(key):  # entries sharing memory with another one keep their aliasing
            value = state[key]
            return _arena_ready(value) and not any(
                other is not value and np.may_share_memory(value, other) for other in values)

        first = [k for k in self.copied if movable(k)]
        second = [k for k in self.column_loose if movable(k)]
        offsets, size = [], 0
        for key in first + second:
            offsets.append(size)
            size += -(-state[key].nbytes // _ALIGN) * _ALIGN
        self.split = offsets[len(first)] if second else size
        arena = np.empty(size // 8 or 1, dtype=np.float64).view(np.uint8)
        for key, start in zip(first + second, offsets):
            value = state[key]
            view = arena[start:start + value.nbytes].view(value.dtype).reshape(value.shape)
            view[...] = value
            state[key] = view
        self.arena, self.backup = arena, np.empty_like(arena)
        # (saved copy, live bytes) of the whole arena and of its prefix without the columns
        self.whole = (self.backup, arena)
        self.prefix = (self.backup[:self.split], arena[:self.split])
        self.loose = tuple(k for k in self.copied if k not in first)
        self.column_loose = tuple(k for k in self.column_loose if k not in second)
        self.values = tuple(state.values())

    def fits(self, state) -> bool:
        """Whether ``state`` still has the keys and arrays this plan was made for."""
        return (state is self.state and len(state) == len(self.keys)
                and all(map(is_, state.values(), self.values)) and tuple(state) == self.keys)

    def same_keys(self, state) -> bool:
        """Whether ``state`` has the keys this plan was made for (its arrays may differ)."""
        return state is self.state and tuple(state) == self.keys


def next_plan(plan, state, column_keys, n_features) -> UndoPlan:
    """Return the plan for the next call on ``state``, reusing or upgrading ``plan``.

    A plan is kept while :meth:`UndoPlan.fits`; a plan without an arena is upgraded to
    one once the state's form has stayed the same for a call (algorithms that replace
    their arrays every call, and states over ``_ARENA_MAX_BYTES``, keep per-entry copies);
    anything else gets a new plan without an arena.
    """
    if plan is not None:
        if plan.fits(state):
            if plan.arena is not None or plan.large:
                return plan
            return UndoPlan(state, column_keys, n_features, arena=True)
        if plan.arena is None and plan.same_keys(state):
            plan.values = tuple(state.values())
            return plan
    return UndoPlan(state, column_keys, n_features, arena=False)


class UndoLog:
    """What one call may overwrite in ``state``, and how to put it back.

    Parameters
    ----------
    state : dict of ndarray
        The committed state, about to be updated in place.
    plan : UndoPlan
        The plan of ``state`` (:func:`next_plan`).
    cols : ndarray or None
        Columns of the chunk (see :func:`touched_columns`); None: copy every writable entry.
    rng : numpy.random.Generator or None
        The estimator's generator, whose position is restored too; None if the call
        draws nothing from it.
    """

    __slots__ = ("state", "plan", "saved", "columns", "cols", "rng", "rng_state", "copied")

    def __init__(self, state, plan, cols, rng):
        self.state, self.plan, self.cols, self.rng = state, plan, cols, rng
        if plan.arena is not None:  # one copy of the arena (its prefix when logging by columns)
            self.copied = plan.whole if cols is None else plan.prefix
            self.copied[0][...] = self.copied[1]
        keys = plan.loose if cols is not None else plan.all_loose
        self.saved = {key: state[key].copy() for key in keys} if keys else {}
        self.columns = {} if cols is None else {
            key: (by_rows, state[key].take(cols, axis=0 if by_rows else 1))
            for key, by_rows in plan.by_columns}
        self.rng_state = rng.bit_generator.state if rng is not None else None

    def before_dense(self) -> None:
        """Keep full copies from here on: the caller is about to write outside the columns."""
        for key, (by_rows, values) in self.columns.items():
            full = self.state[key].copy()
            if by_rows:
                full[self.cols] = values
            else:
                full[:, self.cols] = values
            self.saved[key] = full
        self.columns = {}

    def unfinite(self) -> str | None:
        """Return the first floating entry the call may have written that is not finite
        (None: all are): the entries this log saved, whole or at their columns, so the
        check costs what the log did."""
        state, plan = self.state, self.plan
        whole = set(plan.copied) | set(self.saved)
        if self.cols is None:
            whole.update(key for key, _ in plan.by_columns)
        for key in state:
            value = state[key]
            if key in whole and value.dtype.kind == "f" and not np.isfinite(value).all():
                return key
        for key, (by_rows, _) in self.columns.items():
            value = state[key]
            if value.dtype.kind == "f":
                part = value[self.cols] if by_rows else value[:, self.cols]
                if not np.isfinite(part).all():
                    return key
        return None

    def rollback(self) -> None:
        """Put the state and the generator back as they were when the log was made."""
        state, plan = self.state, self.plan
        state.clear()  # the keys, in their order, and the arrays the call started from
        state.update(zip(plan.keys, plan.values))
        if plan.arena is not None:
            self.copied[1][...] = self.copied[0]
        for key, value in self.saved.items():  # in place: the arrays stay those of the plan
            state[key][...] = value
        for key, (by_rows, values) in self.columns.items():
            if by_rows:
                state[key][self.cols] = values
            else:
                state[key][:, self.cols] = values
        if self.rng is not None:
            self.rng.bit_generator.state = self.rng_state
