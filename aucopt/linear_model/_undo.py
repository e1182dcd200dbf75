"""Undo log of one learning call: the all-or-nothing update without copying O(d).

A streaming call on a few sparse rows touches a few columns of the per-feature state.
Instead of learning on a copy of the whole state (O(d) per call), the estimator learns
in place and keeps what the call may overwrite: the entries at the columns of the chunk
for the state arrays an algorithm declares (``AlgorithmSpec.column_keys``), full copies of
everything else that is writable (small arrays, or the whole state of algorithms that
write anywhere). An algorithm about to write outside those columns (a rare O(d) rescaling)
first calls :meth:`UndoLog.before_dense`, which turns the column entries into full copies.
"""

from __future__ import annotations

import numpy as np

__all__ = ["UndoLog", "touched_columns", "undo_plan"]

# Below this width a full copy of the state costs less than finding the columns.
_MIN_COLUMN_WIDTH = 256


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


def undo_plan(state, column_keys, n_features) -> tuple:
    """Sort the entries of ``state`` once: logged by columns, copied, or shared.

    Parameters
    ----------
    state : dict of ndarray
        The committed state.
    column_keys : collection of str
        Entries written only at the columns of the rows of a call (feature axis 0 for
        ``(d,)``/``(d, k)``, axis 1 for ``(k, d)``).
    n_features : int
        Width ``d``.

    Returns
    -------
    tuple
        ``(keys, by_columns, copied)``: the keys of ``state`` (to tell when the plan is
        stale), ``(key, by_rows)`` of the column entries, and the other writable keys
        (read-only entries, e.g. drawn once, are shared: nothing writes them).
    """
    by_columns, copied = [], []
    for key, value in state.items():
        if key in column_keys:
            by_columns.append((key, value.shape[0] == n_features))
        elif value.flags.writeable:
            copied.append(key)
    return tuple(state), tuple(by_columns), tuple(copied)


class UndoLog:
    """What one call may overwrite in ``state``, and how to put it back.

    Parameters
    ----------
    state : dict of ndarray
        The committed state, about to be updated in place.
    plan : tuple
        :func:`undo_plan` of ``state``.
    cols : ndarray or None
        Columns of the chunk (see :func:`touched_columns`); None: copy every writable entry.
    rng : numpy.random.Generator or None
        The estimator's generator, whose position is restored too; None if the call
        draws nothing from it.
    """

    __slots__ = ("state", "keys", "saved", "columns", "cols", "rng", "rng_state")

    def __init__(self, state, plan, cols, rng):
        keys, by_columns, copied = plan
        self.state, self.cols, self.rng, self.keys = state, cols, rng, keys
        self.saved = {key: state[key].copy() for key in copied}
        if cols is None:
            self.saved.update((key, state[key].copy()) for key, _ in by_columns)
            self.columns = {}
        else:
            self.columns = {key: (by_rows, state[key].take(cols, axis=0 if by_rows else 1))
                            for key, by_rows in by_columns}
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

    def rollback(self) -> None:
        """Put the state and the generator back as they were when the log was made."""
        state = self.state
        for key in [k for k in state if k not in self.keys]:
            del state[key]
        for key, value in self.saved.items():
            state[key] = value
        for key, (by_rows, values) in self.columns.items():
            if by_rows:
                state[key][self.cols] = values
            else:
                state[key][:, self.cols] = values
        if self.rng is not None:
            self.rng.bit_generator.state = self.rng_state
