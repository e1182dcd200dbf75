"""A fixed diagonal preconditioner, applied at the boundary between the data and the kernels.

Preconditioned stochastic gradient steps ``w <- prox(w - eta P g(w))`` with
``P = diag(1/s_j^2)`` are the unmodified algorithm run on the rescaled features
``x'_j = (x_j - c_j) / s_j``, with ``w_j = v_j / s_j`` (notes.md#preconditioning; the
shift ``c_j`` changes no pairwise difference ``x - x'``, only the noise of the stochastic
gradients). So the estimators transform the rows (dense: one copy; CSR: the stored
values, plus the shifted columns, which hold a non-zero in at least half of the rows, so
O(nnz)), run the unchanged kernels on them, and report ``coef_ = v / s`` and an intercept
that accounts for the shift. The penalty and the radius of a ball act on ``v``: a
per-feature weighted penalty on ``w``, as if the user had standardised the columns.

Dense columns (non-zero in at least ``DENSE_SHARE`` of the rows) are centred and get
their own standard deviation; all the other ("sparse") columns share one scale, the
root mean square of all their non-zero values, so that the relative sizes of sparse
features (a word's count, a shifted signal) are kept and only the block's units go.
A transformed row longer than ``ROW_CLIP`` times the median length of the rows that set
the scales is shortened to it (O(nnz); not for a spec with ``clip_rows=False``), so that a
few very long rows do not dominate the steps; scores are ``w . x`` on the rows as given.

The scales, the shift, the shared sparse scale and the row bound are kept in the
estimator's state (``feature_scale``, ``feature_shift``, ``sparse_scale``, ``row_bound``;
a scale of 0 marks a feature not seen yet, a bound of 0 no bound), so that they are
saved, loaded and reused by ``warm_start``. ``fit`` sets them on its rows (at most
``MEDIAN_ROWS`` of them, evenly spaced). A stream sets them on its first chunk, if it has
enough rows of both classes (else every scale is 1 and there is no bound: the papers' steps);
a feature first seen later gets the shared sparse scale of the first chunk. An entry never
moves once set: the learner's state is in the transformed coordinates.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._kernels._precondition import (
    csr_affine_clip,
    csr_affine_norms,
    csr_clip,
    csr_scale_clip,
    dense_affine_norms,
    dense_clip_affine,
)
from ._data import first_non_finite_row, non_finite_message
from ._moments import column_sums, rows_at, variances
from ._spec import RowData

__all__ = ["SCALE_KEY", "SHIFT_KEY", "SHARED_KEY", "BOUND_KEY", "DENSE_SHARE", "RELATIVE_FLOOR",
           "ROW_CLIP", "MEDIAN_ROWS", "new_transform", "upgrade_transform", "fix_scale",
           "centred_columns", "refuse_changed_precondition", "transform_rows", "unscaled",
           "rescaled", "intercept_shift"]

SCALE_KEY = "feature_scale"
SHIFT_KEY = "feature_shift"
SHARED_KEY = "sparse_scale"  # shape (1,): the scale of every sparse column (0: not set)
BOUND_KEY = "row_bound"  # shape (1,): the largest norm of a transformed row (0: none)

# a column is centred when at least this share of its entries is non-zero: centring it
# then costs at most twice its stored entries, and sparse columns (counts, words) have a
# natural zero and a small mean relative to their spread
DENSE_SHARE = 0.5
# the sparse columns keep scale 1 when they hold fewer non-zero values (counted with their
# weights) than this in the rows that set the scales: a few draws are no estimate of a size
MIN_NONZEROS = 10.0
# a transformed row whose norm exceeds this many times the median norm of the transformed
# rows that set the scales is scaled down to that norm: a few rows of 100x the typical norm
# then no longer dominate the steps (nor the calibration of an "auto" step)
ROW_CLIP = 3.0
# the scales, shifts, shared scale and median length of a first chunk are estimated on
# this many of its rows at most (evenly spaced): 10^4 rows give them to about 1%, without
# sweeps over all the rows of a large fit
MEDIAN_ROWS = 10_000
# the compiled CSR passes read the shared scale from a table of one byte per feature when
# the rows store at least 1 / SHARED_ROWS entries per feature (the table costs O(d))
SHARED_ROWS = 4
_NO_CODES = np.zeros(0, dtype=np.uint8)
# a centred column whose spread is below this share of its root mean square is constant (to
# rounding) in the rows read: scaled by the root mean square, neither its rounding noise nor
# its later values are blown up (notes.md#preconditioning); one 10^9 spreads from 0 keeps
# its own spread
RELATIVE_FLOOR = 1e-10
# a centred column whose one-pass variance (mean square minus squared mean) is below this
# share of its mean square may have lost most of its digits to the subtraction: its variance
# is computed again in two passes over the rows read (a date in seconds: 10^-13)
CANCELLATION = 1e-6


def new_transform(n_features: int) -> dict[str, np.ndarray]:
    """Return the unset scale and shift of ``n_features`` features, the unset shared
    sparse scale and row bound (state entries)."""
    return {SCALE_KEY: np.zeros(n_features), SHIFT_KEY: np.zeros(n_features),
            SHARED_KEY: np.zeros(1), BOUND_KEY: np.zeros(1)}


def upgrade_transform(state: dict) -> None:
    """Add, in place, the shared sparse scale to a preconditioned state saved without it
    (by an aucopt whose sparse columns had scales of their own): its scales are kept, and
    the features it has not seen yet will get scale 1."""
    if SCALE_KEY in state and SHARED_KEY not in state:
        state[SHARED_KEY] = np.ones(1)
    if SCALE_KEY in state and BOUND_KEY not in state:
        state[BOUND_KEY] = np.zeros(1)


def fix_scale(state: dict, rows: RowData, y: np.ndarray, *, first: bool,
              usable: bool, clip: bool = True) -> np.ndarray | None:
    """Set, in place, the scale (and on the ``first`` chunk the shift and the shared
    sparse scale) of the features not set yet that are non-zero in ``rows``; return the
    columns set (None: none).

    ``first``: the rows are all of ``fit``, or the first chunk of a stream; its estimates
    read at most ``MEDIAN_ROWS`` of them, evenly spaced (every ``ceil(n / MEDIAN_ROWS)``-th
    row: :func:`_sample_stride`). If the rows are ``usable`` (enough rows of both classes,
    :func:`aucopt.algorithms._calibrate.usable`), the features non-zero in at least
    ``DENSE_SHARE`` of the rows read are centred (their mean) and scaled by their standard
    deviation (their root mean square if constant: ``RELATIVE_FLOOR``); every other
    feature gets the shared sparse scale, the root mean square of all the non-zero values
    of those features (1 if there are fewer than ``MIN_NONZEROS`` of them); with ``clip``,
    the row bound is ``ROW_CLIP`` times the weighted median length of the transformed rows
    read. When only some rows are read, every feature without a non-zero value in them gets the
    shared scale (as a feature first seen later would). Rows that are not usable set every
    scale, shared one included, to 1 (the papers' steps), and no bound. A feature first
    seen in a later chunk gets the shared scale, or, if it is non-zero in at least
    ``DENSE_SHARE`` of the rows of a usable chunk, its root mean square there (not centred:
    the shift is fixed by the first chunk). Rows count with their sample weights
    ``|y|`` (notes.md#sample-weights). O(d + the read rows' nnz) on a first chunk, O(nnz)
    on CSR rows after it.
    """
    scale, shared = state[SCALE_KEY], state[SHARED_KEY]
    weight = np.abs(y)
    n = float(weight.sum())
    if n == 0:
        return None
    entries = None  # later CSR chunks: the stored entries of features not set yet
    if rows.is_sparse and not first:
        new = scale[rows.indices] == 0.0
        if not new.any():  # (River's learn_one, mostly)
            return None
        cols, at = np.unique(rows.indices[new], return_inverse=True)
        entries = new, at
    else:
        cols = np.flatnonzero(scale == 0.0)
    if cols.size == 0:
        return None
    stride = _sample_stride(rows, weight) if first else 1
    sampled, n, given = stride > 1, float(weight[::stride].sum()), rows
    if sampled:  # the rows read, gathered once (dense: then read in cache-friendly order)
        rows = rows_at(rows, np.arange(0, rows.n_samples, stride))
        weight, stride = weight[::stride], 1
    count, total, squares = column_sums(rows, weight, cols, stride, entries)
    if not (np.isfinite(squares).all() and np.isfinite(total).all()):
        raise ValueError(non_finite_message(given, max(first_non_finite_row(given), 0)))
    every, seen = cols, np.flatnonzero(count > 0)  # every: the columns this call sets
    cols = seen if every.size == rows.n_features else every[seen]  # (every: all of them)
    unset = every if every.size < scale.size else slice(None)  # (all: a fill)
    total, squares, count = total[seen], squares[seen], count[seen]
    sets_shared = first and shared[0] == 0.0
    if sets_shared:
        shared[0] = 1.0
        if usable:
            _set_shared(shared, count, squares, n)
    if sampled:  # a feature not in the rows read: as if first seen later (those read are
        scale[unset] = shared[0]  # set below)
    if cols.size == 0:
        return every if sampled else None
    if not usable or not first:  # (a first chunk that is not usable: shared == 1)
        scale[cols] = shared[0] if shared[0] > 0 else 1.0
        if usable:  # a later chunk: a feature dense in it gets its root mean square there
            own = count >= DENSE_SHARE * n
            scale[cols[own]] = np.sqrt(squares[own] / n)
        return every if sampled else cols
    centred = count >= DENSE_SHARE * n  # centre the dense columns
    _set_affine(state, cols, centred, total, squares, n,
                lambda at: variances(rows, weight, stride, at))
    if clip and state[BOUND_KEY][0] == 0.0:
        sq = _affine_norms(rows, state, centred_columns(state), stride)
        state[BOUND_KEY][0] = ROW_CLIP * _median_norm(sq, weight[::stride])
        # the moments of the rows as the kernels see them (the long rows shortened), so
        # that a few long rows do not set the spread of every column (once: the moments
        # then hardly move, each shortened row being at most ROW_CLIP medians long)
        clipped = _clipped_sums(rows, weight, state, cols, centred, total, squares, sq,
                                stride)
        if clipped is not None:
            total, squares = clipped
            if sets_shared:
                _set_shared(shared, count, squares, n)
                if sampled:
                    scale[unset] = shared[0]
            bound = state[BOUND_KEY][0]
            _set_affine(state, cols, centred, total, squares, n,
                        lambda at: variances(rows, weight, stride, at, sq, bound,
                                              state[SHIFT_KEY][at]))
            sq = _affine_norms(rows, state, centred_columns(state), stride)
            state[BOUND_KEY][0] = ROW_CLIP * _median_norm(sq, weight[::stride])
    return every if sampled else cols


def _sample_stride(rows: RowData, weight: np.ndarray) -> int:
    """Return the stride of the rows a first chunk's estimates read: ``ceil(n / MEDIAN_ROWS)``
    (1 up to ``MEDIAN_ROWS`` rows, or if the rows read would weigh nothing; notes.md)."""
    stride = -(-rows.n_samples // MEDIAN_ROWS)
    return stride if stride > 1 and weight[::stride].any() else 1


def _set_shared(shared: np.ndarray, count: np.ndarray, squares: np.ndarray, n: float) -> None:
    """Set the shared sparse scale: the root mean square of the non-zero values of the columns
    non-zero in fewer than ``DENSE_SHARE`` of the ``n`` rows (1 below ``MIN_NONZEROS``)."""
    sparse = count < DENSE_SHARE * n
    nonzeros = float(count[sparse].sum())
    shared[0] = np.sqrt(float(squares[sparse].sum()) / nonzeros) \
        if nonzeros >= MIN_NONZEROS else 1.0


def _set_affine(state: dict, cols: np.ndarray, centred: np.ndarray, total: np.ndarray,
                squares: np.ndarray, n: float, two_pass) -> None:
    """Set the scale of ``cols`` (the shared one, or the spread of the ``centred`` ones)
    and the shift of the centred ones (their mean); ``two_pass(columns)`` returns the
    variance / mean square of centred columns whose one-pass variance lost digits
    (``CANCELLATION``) and the value of those that hold one
    (:func:`~aucopt.algorithms._moments.variances`), called before anything is set."""
    spread = np.full(cols.size, state[SHARED_KEY][0])
    mean_square = squares[centred] / n
    mean = total[centred] / n
    # the variance as a share of the mean square (its one-pass value, or its two-pass one
    # where that lost digits): in shares, columns of 1e-160 do not underflow
    ratio = np.maximum(1.0 - mean * mean / np.where(mean_square > 0.0, mean_square, 1.0), 0.0)
    redo = np.flatnonzero(ratio < CANCELLATION)
    if redo.size:
        ratio[redo], values = two_pass(cols[centred][redo])
        one = np.isfinite(values)  # one value: the shift is that value, which becomes 0
        mean[redo[one]], ratio[redo[one]] = values[one], 0.0
    # constant to rounding: the root mean square
    spread[centred] = np.sqrt(mean_square) * np.sqrt(np.where(ratio < RELATIVE_FLOOR**2, 1.0,
                                                              ratio))
    state[SHIFT_KEY][cols[centred]] = mean
    state[SCALE_KEY][cols] = spread


def _clipped_sums(rows: RowData, weight: np.ndarray, state: dict, cols: np.ndarray,
                  centred: np.ndarray, total: np.ndarray, squares: np.ndarray, sq: np.ndarray,
                  stride: int):
    """Return the weighted ``(sum, sum of squares)`` of the columns ``cols`` over the rows
    ``0, stride, ...`` shortened to the state's bound, in the original units, from those
    of the same rows as given (``total``, ``squares``; ``sq``: their squared transformed
    lengths), or None if none is longer.

    A row ``x`` shortened by ``f = min(1, B / |x'|)`` in the transformed coordinates is
    ``c + f (x - c)`` in the original ones (``c = 0`` on the columns not centred), so the
    sums change by weighted column sums of the long rows alone: one norm per row, then
    O(nnz) of the long rows.
    """
    bound = state[BOUND_KEY][0]
    long = np.flatnonzero(sq > bound * bound) if bound > 0.0 else np.empty(0, np.intp)
    if long.size == 0:
        return None
    sq, long = sq[long], long * stride  # (rows of ``rows``)
    f = bound / np.sqrt(sq)
    w = weight[long]
    few = rows_at(rows, long)
    at = np.arange(cols.size)
    if rows.is_sparse:  # only the columns of the long rows change: O(their nnz), not O(d)
        used = np.unique(few.indices)
        at = np.minimum(np.searchsorted(cols, used), cols.size - 1)
        at = at[cols[at] == used]
    less, less_squares, cross = np.zeros(cols.size), np.zeros(cols.size), np.zeros(cols.size)
    _, less[at], _ = column_sums(few, w * (1.0 - f), cols[at])  # sum of w (1 - f) x
    _, _, less_squares[at] = column_sums(few, w * (1.0 - f * f), cols[at])  # w (1 - f^2) x^2
    _, cross[at], _ = column_sums(few, w * f * (1.0 - f), cols[at])
    total, squares = total - less, squares - less_squares
    c = state[SHIFT_KEY][cols[centred]]
    rest = w * (1.0 - f)
    total[centred] += c * float(rest.sum())
    squares[centred] += c * c * float(rest @ (1.0 - f)) + 2.0 * c * cross[centred]
    return total, squares


def _median_norm(sq: np.ndarray, weight: np.ndarray) -> float:
    """Return the weighted median of the lengths whose squares are ``sq`` (of rows of
    weights ``weight``): the smallest with at least half of the weight at or below it."""
    if weight.min() == weight.max():  # equal weights: a selection, no sort
        median = np.partition(sq, (sq.size + 1) // 2 - 1)[(sq.size + 1) // 2 - 1]
    else:
        order = np.argsort(sq, kind="stable")
        cumulative = np.cumsum(weight[order])
        median = sq[order[np.searchsorted(cumulative, 0.5 * cumulative[-1])]]
    return float(np.sqrt(max(median, 0.0)))


def _affine_norms(rows: RowData, state: dict, centred: np.ndarray, stride: int) -> np.ndarray:
    """Return the squared lengths of the transformed rows ``0, stride, ...`` (unclipped)."""
    sq = np.empty(-(-rows.n_samples // stride))
    inv, offset = _affine(state, centred)
    if rows.is_sparse:
        codes, common = _shared_columns(state, centred, rows.data.size if stride == 1 else 0)
        csr_affine_norms(rows.data, rows.indices, rows.indptr, np.stack((inv, offset), 1),
                         codes, common, state[SCALE_KEY], state[SHIFT_KEY], centred, stride, sq)
    else:
        dense_affine_norms(rows.data, inv, offset, stride, sq)
    return sq


def _affine(state: dict, centred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(1 / s, -c / s)`` over all features (1 and 0 where not set)."""
    inv = _inverse(state[SCALE_KEY])
    offset = np.zeros_like(inv)
    offset[centred] = -(state[SHIFT_KEY][centred] * inv[centred])
    return inv, offset


def centred_columns(state: dict) -> np.ndarray:
    """Return the columns with a non-zero shift (O(d): callers keep the result while the
    shift does not change, i.e. from one ``fit`` or first chunk to the next)."""
    return np.flatnonzero(state[SHIFT_KEY])


def refuse_changed_precondition(auto: bool, warm_from: dict) -> None:
    """Refuse a warm start whose ``precondition`` (``auto``: ``"auto"``) is not that of the
    state ``warm_from``: its iterates are in the other coordinates (ValueError)."""
    if auto != (SCALE_KEY in warm_from):
        was, now = ("'auto'", "None") if not auto else ("None", "'auto'")
        raise ValueError(
            f"warm_start=True cannot continue a model learnt with precondition={was} under "
            f"precondition={now}: its iterates are in the coordinates of the previous "
            f"setting. Set warm_start=False to start afresh, or precondition back to {was}.")


def transform_rows(rows: RowData, state: dict, centred: np.ndarray, in_place=False) -> RowData:
    """Return the rows the kernels see: ``(x_j - c_j) / s_j`` (unset features unchanged),
    each row longer than the state's bound shortened to it.

    ``centred``: :func:`centred_columns` of ``state``. Dense: one new array. CSR: the
    stored values divided by their column's scale, plus every entry of the centred
    columns (each holds a non-zero in at least half of the rows of the data that set
    it), so O(nnz + n k) for k centred columns; nothing else is densified, and nothing
    of size d is formed but a table of d bytes for rows of at least d / ``SHARED_ROWS``
    stored entries. Both forms compute ``x * (1/s) + (-(c/s))``, then multiply a row
    longer than the bound by ``bound / length``: the same bits. Several CSR rows take one
    compiled pass, one row (River's ``learn_one``) a few NumPy calls. ``in_place``: the
    values (the caller's own copy) are overwritten (dense; CSR with no centred column).
    """
    scale = state[SCALE_KEY]
    bound = float(state[BOUND_KEY][0]) if BOUND_KEY in state else 0.0
    if not rows.is_sparse:
        inv, offset = _affine(state, centred)
        out = rows.data if in_place else np.empty_like(rows.data)
        dense_clip_affine(rows.data, inv, offset, bound, out)
        return rows._replace(data=out)
    n, d = rows.n_samples, rows.n_features
    # one row (River's learn_one): a few NumPy calls cost less than a compiled call
    compiled = n > 1 and rows.indptr[0] == 0 and rows.indptr[-1] == rows.data.size
    if compiled:
        codes, common = _shared_columns(state, centred, rows.data.size)
        if centred.size == 0:
            data = rows.data if in_place else np.empty_like(rows.data)
            csr_scale_clip(rows.data, rows.indices, rows.indptr, scale, codes, common, bound,
                           data)
            return rows._replace(data=data)
        out = _merged_rows(rows, state, (codes, common), centred, bound)
        if out is not None:
            return out
    at = scale[rows.indices]
    data = rows.data * (1.0 / at if at.all() else _inverse(at))  # (the same bits)
    if centred.size == 0:
        if bound > 0.0:
            csr_clip(data, rows.indptr, bound)
        return rows._replace(data=data)
    offset = _offsets(state, centred)
    idx = rows.indices
    if n == 1 and (idx[1:] > idx[:-1]).all():  # one canonical row (River's learn_one):
        # merged without building two CSR matrices
        out = _one_row_plus(rows, data, centred, offset)
        if bound > 0.0:
            csr_clip(out.data, out.indptr, bound)
        return out
    X = sp.csr_matrix((data, rows.indices, rows.indptr), shape=(n, d))
    fill = sp.csr_matrix((np.tile(offset, n), np.tile(centred, n),
                          np.arange(0, n * centred.size + 1, centred.size)), shape=(n, d))
    X = (X + fill).tocsr()
    X.sort_indices()
    out = RowData(np.ascontiguousarray(X.data, dtype=np.float64),
                  np.ascontiguousarray(X.indices, dtype=_index_type(rows, X.nnz)),
                  np.ascontiguousarray(X.indptr, dtype=_index_type(rows, X.nnz)), n, d)
    if bound > 0.0:
        csr_clip(out.data, out.indptr, bound)
    return out


def _shared_columns(state: dict, centred: np.ndarray, nnz: int) -> tuple[np.ndarray, float]:
    """Return ``(codes, 1 / shared)``: ``codes[j]`` is 1 where feature ``j`` has the shared
    sparse scale and is not centred, so that the compiled passes over ``nnz`` stored
    entries read a table of d bytes (in cache) for most entries instead of the scales
    (8 d bytes); the codes are empty (not used) when ``nnz`` is too small to pay O(d)."""
    shared = float(state[SHARED_KEY][0]) if SHARED_KEY in state else 0.0
    scale = state[SCALE_KEY]
    if shared <= 0.0 or SHARED_ROWS * nnz < scale.size:
        return _NO_CODES, 1.0
    codes = scale == shared
    codes[centred] = False
    return codes.view(np.uint8), 1.0 / shared


def _index_type(rows: RowData, nnz: int) -> type:
    """Return the index type of transformed CSR rows of ``nnz`` entries: that of ``rows``
    while the entries and the columns can be counted in int32, else int64."""
    small = max(nnz, rows.n_features) < np.iinfo(np.int32).max
    return rows.indices.dtype if small else np.int64


def _offsets(state: dict, centred: np.ndarray) -> np.ndarray:
    """Return ``-(c / s)`` (as ``-(c * (1 / s))``) of the ``centred`` columns."""
    return -(state[SHIFT_KEY][centred] * _inverse(state[SCALE_KEY][centred]))


def _merged_rows(rows: RowData, state: dict, shared: tuple, centred: np.ndarray,
                 bound: float) -> RowData | None:
    """Return the transformed CSR ``rows`` with the offsets of the ``centred`` columns
    merged in and the long rows shortened, in one compiled pass
    (:func:`~aucopt._kernels._precondition.csr_affine_clip`; ``shared``: of
    :func:`_shared_columns`): the bits of scipy's sum that :func:`transform_rows` forms
    otherwise. None if a row's columns are not sorted."""
    n = rows.n_samples
    most = int(rows.indptr[-1]) + n * centred.size  # every centred column added to every row
    index_type = _index_type(rows, most)
    data, indices = np.empty(most), np.empty(most, dtype=index_type)
    indptr = np.empty(n + 1, dtype=index_type)
    nnz = csr_affine_clip(rows.data, rows.indices, rows.indptr, state[SCALE_KEY], *shared,
                          centred, _offsets(state, centred), bound, data, indices, indptr)
    if nnz < 0:
        return None
    if nnz < most:  # the centred entries a row stored already: give the tail back
        data.resize(nnz, refcheck=False)  # (a shrinking realloc: no copy of the rest)
        indices.resize(nnz, refcheck=False)
    index_type = _index_type(rows, nnz)
    return RowData(data, indices.astype(index_type, copy=False),
                   indptr.astype(index_type, copy=False), n, rows.n_features)


def _one_row_plus(rows: RowData, data: np.ndarray, centred: np.ndarray,
                  offset: np.ndarray) -> RowData:
    """Return the one-row CSR ``data`` (at ``rows.indices``) plus ``offset`` at ``centred``,
    as scipy's CSR sum gives it: sorted columns, a value in both added once, exact zeros
    dropped."""
    cols = np.union1d(rows.indices, centred)
    values = np.zeros(cols.size)
    values[np.searchsorted(cols, rows.indices)] = data
    values[np.searchsorted(cols, centred)] += offset
    kept = values != 0.0
    if not kept.all():
        cols, values = cols[kept], values[kept]
    index_type = _index_type(rows, cols.size)
    return RowData(values, cols.astype(index_type, copy=False),
                   np.array([0, cols.size], dtype=index_type), 1, rows.n_features)


def _inverse(scale: np.ndarray) -> np.ndarray:
    """Return ``1 / scale`` with 1 where the scale is not set (a feature not seen)."""
    out = np.ones_like(scale)
    np.divide(1.0, scale, out=out, where=scale > 0)
    return out


def unscaled(v: np.ndarray, state: dict) -> np.ndarray:
    """Return the weights on the original features, ``w = v / s`` (``v`` where not set)."""
    return v * _inverse(state[SCALE_KEY]) if SCALE_KEY in state else v


def rescaled(w: np.ndarray, state: dict) -> np.ndarray:
    """Return the weights on the transformed features, ``v = w s`` (``w`` where not set)."""
    if SCALE_KEY not in state:
        return w
    scale = state[SCALE_KEY]
    return w * np.where(scale > 0, scale, 1.0)


def intercept_shift(w: np.ndarray, state: dict) -> float:
    """Return ``w . c``: the scores of the original rows exceed those of the transformed
    rows by it (``w . x = v . x' + w . c``)."""
    shift = state.get(SHIFT_KEY)
    return 0.0 if shift is None else float(w @ shift)
