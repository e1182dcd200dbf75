"""Feature names to kernel columns: a growing vocabulary or a stable hash, and state growth.

River passes each sample as a dict ``{name: value}``; the kernels take CSR rows
(sorted column indices and their values). :class:`ColumnMap` turns one into the
other with a dict from name to column (a vocabulary) or one compiled call that hashes
a row's names (hashed columns, no memo: every name costs the same however many were
seen), and a one-entry cache of the last key set, so a stream with a fixed schema pays
one ``tuple(x)`` comparison and one value conversion per call; the row made last is kept
too, so that ``learn_one(x, y)`` after ``predict_proba_one(x)`` on the same unchanged dict
(a test-then-train step) does not convert it again. :func:`feature_axes` and
:func:`grow_state` let a vocabulary model widen its estimator's state when new names
arrive.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
import scipy.sparse as sp

from ..algorithms._data import as_rows, first_non_finite_row, non_finite_message
from ..algorithms._hashing import hashed_row_plan, stable_hashes
from ..algorithms._spec import RowData

__all__ = ["ColumnMap", "feature_axes", "grow_state", "stable_hash", "stable_hashes"]

# RowData(...) without the namedtuple's Python-level __new__ (0.1 us instead of 0.37 us)
_new_tuple = tuple.__new__
_NUMERIC_HINT = ("AUCClassifier takes numeric feature values; encode categorical features "
                 "first (e.g. river.preprocessing.OneHotEncoder).")


def stable_hash(name) -> int:
    """Return the 64-bit hash of one feature name, the same in every process (see
    :func:`aucopt.algorithms._hashing.stable_hashes`: FNV-1a of its bytes with a SplitMix64
    finaliser).

    Parameters
    ----------
    name : hashable
        Feature name.

    Returns
    -------
    int
    """
    return int(stable_hashes([name])[0])


def _big_ints(listed: list, values: np.ndarray) -> np.ndarray:
    """Return the values as float64 if they are all Python numbers (an int beyond int64 makes
    numpy keep objects), else ``values`` as they are (refused by the caller)."""
    if all(isinstance(v, Real) and not isinstance(v, bool) for v in listed):
        try:
            return np.array(listed, dtype=np.float64)
        except OverflowError:  # beyond float64 too: not finite, refused as such
            return np.full(len(listed), np.inf)
    return values


def _refuse_strings(frame) -> None:
    """Refuse a DataFrame column of text (``"1.5"`` included), of complex numbers, times or
    time spans: pandas would read them as numbers, where ``learn_one`` refuses them."""
    from pandas.api.types import is_bool_dtype, is_complex_dtype, is_numeric_dtype

    for name, column in frame.items():
        if is_complex_dtype(column.dtype) or column.dtype.kind in "mM":  # (as learn_one)
            raise TypeError(f"feature values must be real numbers; column {name!r} is of "
                            f"dtype {column.dtype}. {_NUMERIC_HINT}")
        if is_numeric_dtype(column.dtype) or is_bool_dtype(column.dtype):
            continue
        text = next((v for v in column if isinstance(v, str | bytes | complex)), None)
        if text is not None:
            raise TypeError(f"feature values must be numbers; column {name!r} holds "
                            f"{text!r}. {_NUMERIC_HINT}")


def _frame_values(frame) -> np.ndarray:
    """Return the columns of ``frame`` as float64 (NaN, a missing value, as 0); refuse
    values that are not real numbers (TypeError)."""
    _refuse_strings(frame)
    try:
        return frame.to_numpy(dtype=np.float64, na_value=0.0)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{exc}. {_NUMERIC_HINT}") from None


def _refuse_infinities(frame) -> None:
    """Refuse infinite values in the columns of ``frame`` a score drops (names not known
    yet), as a known column's are refused (NaN is a missing value there, as everywhere in
    a frame); non-numeric ones as every column's."""
    values = _frame_values(frame)
    if not np.isfinite(values).all():
        rows = as_rows(values)
        raise ValueError(non_finite_message(rows, first_non_finite_row(rows)))


def _same_kind(a, b) -> bool:
    """Whether the equal names ``a`` and ``b`` hash alike: of the same types, within tuples
    too, and floats of the same sign (``0.0 == -0.0``, but their ``repr`` differ)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(map(_same_kind, a, b))
    return type(a) is not float or math.copysign(1.0, a) == math.copysign(1.0, b)


def _same_types(keys: tuple, others: tuple) -> bool:
    """Whether the equal names ``keys`` and ``others`` hash alike one by one: the hash tells
    ``1``, ``1.0`` and ``True`` apart (also inside tuples), although they are equal."""
    return all(type(a) is str or _same_kind(a, b) for a, b in zip(keys, others))


class ColumnMap:
    """Map River feature dicts to CSR rows of a fixed or growing width.

    Parameters
    ----------
    n_features : int or None
        None: a vocabulary, names get columns 0, 1, ... in order of first
        appearance. An int: names are hashed into that many columns
        (:func:`stable_hash` modulo ``n_features``); colliding names add up.
    max_features : int or None, default=None
        With a vocabulary: its largest size. Once it holds ``max_features`` names, a
        new name is hashed into those columns (:func:`stable_hash` modulo
        ``max_features``) instead of getting its own. None: no bound.
    """

    max_features = None  # (maps pickled before the bound existed)
    _last_row = None  # (and before the last row was kept)
    _keyed_plan = (None, None)  # (and before the last keys and plan were one attribute)

    def __init__(self, n_features, max_features=None):
        self.n_features, self.max_features = n_features, max_features
        self.columns = {}  # name -> column (a vocabulary; empty when hashing)
        # (the last key tuple, its plan): one attribute, read once, so that threads scoring
        # rows of other keys at once never pair one row's keys with another's plan
        self._keyed_plan = (None, None)
        self._last_row = None  # (the dict, the list of its values, its row): not pickled
        # int32 indices like aucopt.algorithms._data.as_rows, so rows from learn_one and
        # from partial_fit take the same compiled kernels
        wide = n_features is not None and n_features >= np.iinfo(np.int32).max
        self._index_type = np.int64 if wide else np.int32

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_last_row"] = None  # the caller's last dict is not part of the model
        return state

    @property
    def size(self) -> int:
        """Number of columns in use (vocabulary size, or ``n_features`` when hashing)."""
        return len(self.columns) if self.n_features is None else self.n_features

    def _column(self, name, grow):
        """Column of ``name``; None if unknown and ``grow`` is False (vocabulary only)."""
        col = self.columns.get(name)
        if col is not None:
            return col
        if self.n_features is None:
            if self._full():
                return int(stable_hashes([name])[0] % np.uint64(self.max_features))
            if not grow:
                return None
            col = self.columns[name] = len(self.columns)
            return col
        return int(stable_hashes([name])[0] % np.uint64(self.n_features))

    def _full(self) -> bool:
        """Whether a bounded vocabulary holds ``max_features`` names (later names are
        hashed into its columns)."""
        return self.max_features is not None and len(self.columns) >= self.max_features

    def _columns_of(self, names, grow) -> list:
        """Columns of ``names`` (None: unknown and not growing), as :meth:`_column` gives
        them one by one, but the names hashed into a full bounded vocabulary in one call
        (a hash call per name cost 8x the hashed mode's step on rows of new tokens)."""
        get = self.columns.get
        found = [get(name) for name in names]
        missing = [i for i, col in enumerate(found) if col is None]
        if missing and self._full():
            hashed = stable_hashes([names[i] for i in missing]) % np.uint64(self.max_features)
            for i, col in zip(missing, hashed.tolist()):
                found[i] = col
        else:
            for i in missing:
                found[i] = self._column(names[i], grow)
        return found

    def _admit(self, names):
        """Give the bounded vocabulary's columns to the new ``names`` in the order of their
        stable hashes, not of the dict: which of them still get a column of their own must
        not depend on the order of a row's keys (river's check_shuffle_features_no_impact:
        0.572 against 0.510 for the same row, keys reversed)."""
        if self.max_features is None or self._full():
            return
        new = [name for name in names if name not in self.columns]
        if len(new) > 1:
            for i in np.argsort(stable_hashes(new), kind="stable"):
                self._column(new[i], True)

    def _admit_frame(self, X) -> None:
        """Give a bounded vocabulary's columns to a frame's new names as ``learn_one`` on its
        rows in order would: by the first row holding each (a missing value holds none: a
        column missing throughout gets none), the names new in one row in the order of
        their hashes (:meth:`_admit`)."""
        if self.max_features is None or self._full():
            return
        present = X.notna().to_numpy()
        held = present.any(axis=0)
        first = np.where(held, present.argmax(axis=0), -1)
        by_row = {}
        for name, at in zip(X.columns, first.tolist()):
            if at >= 0:
                by_row.setdefault(at, []).append(name)
        for row in sorted(by_row):
            self._admit(by_row[row])
            for name in by_row[row]:
                self._column(name, True)  # (a single new name: as learn_one's row plan)

    def _plan(self, keys, grow):
        """Return ``(indices, indptr, order, inverse)`` and whether every name had a column.

        ``order`` picks the values of ``x`` in column order (None: as they come),
        ``inverse`` sums the values of colliding hashed names (None: no collision).
        Only complete plans are cached: a later ``learn_one`` may add the missing names.
        """
        if self.n_features is not None:  # every name has a column: one compiled call
            cols, order, inverse = hashed_row_plan(keys, self.n_features, self._index_type)
            indptr = np.array([0, cols.size], dtype=self._index_type)
            return (cols, indptr, order, inverse), True
        if grow:
            self._admit(keys)
        found = self._columns_of(keys, grow)
        pos = [i for i, c in enumerate(found) if c is not None]
        cols = [found[i] for i in pos] if len(pos) < len(found) else found
        inverse = None
        if not all(a < b for a, b in zip(cols, cols[1:])):  # not strictly increasing
            pairs = sorted(zip(cols, pos))
            cols, pos = [c for c, _ in pairs], [i for _, i in pairs]
            if any(a == b for a, b in zip(cols, cols[1:])):  # hashed names that collide
                cols, inverse = np.unique(cols, return_inverse=True)
        order = None if pos == list(range(len(keys))) else np.array(pos, dtype=np.int64)
        cols = np.array(cols, dtype=self._index_type)
        indptr = np.array([0, cols.size], dtype=self._index_type)
        return (cols, indptr, order, inverse), len(pos) == len(keys)

    def row(self, x: dict, width: int, *, grow: bool) -> RowData:
        """Return the one-row CSR form of ``x`` (unknown names dropped when not growing).

        Parameters
        ----------
        x : dict
            Feature name -> numeric value.
        width : int
            Number of columns of the row (the estimator's state width). With a
            vocabulary, new names may get columns beyond it: the caller widens the
            state and the row's width before learning.
        grow : bool
            Whether unknown names join the vocabulary.

        Returns
        -------
        RowData
        """
        keys = tuple(x)
        listed = None
        # (a vocabulary without a bound gives columns by a dict alone, where the equal names
        # 1, 1.0 and True share one; hashing tells them apart)
        last_keys, last_plan = self._keyed_plan
        if keys == last_keys and (self.n_features is None and self.max_features is None
                                  or _same_types(keys, last_keys)):
            last = self._last_row
            # the same dict with the same values (compared one by one, the same objects
            # first) and the same width: the row made from it last, every name known then
            if last is not None and last[0] is x:
                listed = list(x.values())
                try:
                    if listed == last[1] and last[2].n_features == width:
                        return last[2]
                except (TypeError, ValueError):  # an array put in since: refused below
                    pass
            cols, indptr, order, inverse = last_plan
            complete = True
        else:
            plan, complete = self._plan(keys, grow)
            cols, indptr, order, inverse = plan
            if complete:
                self._keyed_plan = (keys, plan)
        if listed is None:
            listed = list(x.values())
        try:
            values = np.array(listed)
        except ValueError:  # sequences of different lengths among the values
            values = None
        if values is None or values.ndim != 1:  # arrays or lists among the values
            raise TypeError(f"feature values must be numbers; got {listed[:3]!r}. "
                            f"{_NUMERIC_HINT}")
        if values.dtype.kind == "O":  # ints beyond int64 (2**70) are numbers too
            values = _big_ints(listed, values)
        if values.dtype.kind != "f":  # strings (even '1.5') and objects are not numbers
            if values.dtype.kind not in "biu":
                raise TypeError(f"feature values must be numbers; got {values.dtype} values "
                                f"{values[:3].tolist()}. {_NUMERIC_HINT}")
            values = values.astype(np.float64)
        elif values.dtype.itemsize != 8:
            values = values.astype(np.float64)
        if not complete and not np.isfinite(values).all():  # a name dropped (not known yet)
            raise ValueError(non_finite_message(as_rows(values[None, :]), 0))  # as learning
        if order is not None:
            values = values[order]
        if inverse is not None:
            values = np.bincount(inverse, weights=values, minlength=cols.size)
        row = _new_tuple(RowData, (values, cols, indptr, 1, width))
        self._last_row = (x, listed, row) if complete else None
        return row

    def frame_rows(self, X, width: int, *, grow: bool) -> RowData:
        """Return the CSR rows of a pandas DataFrame (columns are feature names).

        Missing values (NaN, as in a frame built from dicts with different keys) are
        absent features, like zeros, and are not stored; unknown columns are dropped when
        not growing. With a
        vocabulary the width is at least the vocabulary size (the caller widens the state).

        Parameters
        ----------
        X : pandas.DataFrame
        width : int
        grow : bool

        Returns
        -------
        RowData
        """
        if not X.columns.is_unique:  # (river's own learners refuse them too)
            twice = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"the frame's column names must be distinct; {twice} appear more "
                             "than once (each column is one feature: rename or drop them).")
        if grow:
            self._admit_frame(X)
        cols = self._columns_of(list(X.columns), grow)
        keep = [i for i, c in enumerate(cols) if c is not None]
        dense = _frame_values(X.iloc[:, keep])
        dropped = [i for i, c in enumerate(cols) if c is None]  # names not known yet
        if dropped:
            _refuse_infinities(X.iloc[:, dropped])
        mapped = np.array([cols[i] for i in keep], dtype=np.int64)
        if self.n_features is None:  # new names may lie beyond the state's width
            width = max(width, self.size)
        csr = sp.csr_matrix(dense)
        csr = sp.csr_matrix((csr.data, mapped[csr.indices], csr.indptr),
                            shape=(dense.shape[0], width))
        csr.sum_duplicates()  # sorts the indices and adds colliding hashed names
        return as_rows(csr)

    def forget(self, names) -> None:
        """Remove ``names`` from the vocabulary (undo of a failed learning call)."""
        for name in names:
            self.columns.pop(name, None)
        self._keyed_plan, self._last_row = (None, None), None


def feature_axes(states: dict[int, dict]) -> dict[str, tuple[int, ...]]:
    """Find the feature axes of a state from the initial states at two widths.

    An axis is a feature axis when its length equals the width at both widths.
    The state can grow by zero padding along them only if every other axis keeps
    its length and the initial state is zero on every feature slice, so that a
    feature never seen keeps exactly the state of its first appearance.

    Parameters
    ----------
    states : dict
        ``{width: initial state}`` for two different widths.

    Returns
    -------
    dict
        State key -> its feature axes (empty tuple: no feature axis).

    Raises
    ------
    ValueError
        If the layout cannot grow this way (width-dependent non-feature axes,
        non-zero initial values on feature slices, different keys).
    """
    (w1, s1), (w2, s2) = sorted(states.items())
    if set(s1) != set(s2):
        raise ValueError("the state has different entries at different widths")
    axes = {}
    for key, a in s1.items():
        b = s2[key]
        if a.ndim != b.ndim:
            raise ValueError(f"state entry {key!r} changes rank with the width")
        found = []
        for ax, (n1, n2) in enumerate(zip(a.shape, b.shape)):
            if n1 == w1 and n2 == w2:
                found.append(ax)
            elif n1 != n2:
                raise ValueError(f"state entry {key!r} has an axis of length {n1} at width "
                                 f"{w1} and {n2} at width {w2}")
        if found and (np.any(a) or np.any(b)):
            raise ValueError(f"state entry {key!r} starts with non-zero values per feature "
                             "(e.g. random projections drawn per input column)")
        axes[key] = tuple(found)
    return axes


def grow_state(state: dict, axes: dict[str, tuple[int, ...]], width: int) -> dict:
    """Return ``state`` widened to ``width`` columns, zero-padded along the feature axes.

    Parameters
    ----------
    state : dict
        Estimator state (not modified).
    axes : dict
        Result of :func:`feature_axes`.
    width : int
        New width (at least the current one).

    Returns
    -------
    dict
    """
    grown = {}
    for key, value in state.items():
        found = axes[key]
        if not found:
            grown[key] = value
            continue
        shape = list(value.shape)
        for ax in found:
            shape[ax] = width
        new = np.zeros(shape, dtype=value.dtype)
        new[tuple(slice(0, n) for n in value.shape)] = value
        grown[key] = new
    return grown
