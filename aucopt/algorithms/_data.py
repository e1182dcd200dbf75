"""The boundary between validated arrays and kernels: rows and class statistics."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._kernels._checks import OUTLIER_RATIO, TINY_SQNORM
from .._kernels._stats import accumulate_class_sums, csr_row_sqnorms
from .._kernels.spam import lazy_iterates
from ._fast import select
from ._spec import RowData

__all__ = ["as_rows", "first_non_finite_row", "identity_order", "new_data_stats", "observe_data",
           "counts_as_weights", "class_mean_scores", "scaled_iterates", "drop_lazy_form",
           "split_packed"]

# identity orders are served from one cached arange up to this many rows (8 MB)
_IDENTITY_CACHE_ROWS = 1 << 20
_identity = np.arange(0, dtype=np.intp)
_INT32_MAX = int(np.iinfo(np.int32).max)


def as_rows(X) -> RowData:
    """Return ``X`` as kernel rows, converting once (C-contiguous float64, sorted CSR).

    CSR index arrays are int32 whenever they fit (scipy's own choice, so usually
    no copy; converting 5e6 indices to int64 cost as much as a third of a SPAM
    pass) and int64 otherwise; the kernels compile for both.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
        Validated input; CSR/CSC/COO are converted to CSR.

    Returns
    -------
    RowData
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X) if X.format != "csr" else X
        data, indices, indptr = X.data, X.indices, X.indptr
        if (data.dtype == np.float64 and indices.dtype == indptr.dtype == np.int32
                and X.has_sorted_indices and data.flags.c_contiguous
                and indices.flags.c_contiguous and indptr.flags.c_contiguous):
            return RowData(data, indices, indptr, X.shape[0], X.shape[1])  # as it is
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        small = max(X.nnz, X.shape[1]) < _INT32_MAX
        index_type = np.int32 if small else np.int64
        indices = np.ascontiguousarray(X.indices, dtype=index_type)
        indptr = np.ascontiguousarray(X.indptr, dtype=index_type)
        return RowData(data, indices, indptr, X.shape[0], X.shape[1])
    X = np.ascontiguousarray(X, dtype=np.float64)
    return RowData(X, None, None, X.shape[0], X.shape[1])


def identity_order(n: int) -> np.ndarray:
    """Return ``numpy.arange(n)``, the sample order of a pass without shuffling.

    Up to ``2**20`` rows it is a view of one cached array, so that an unshuffled
    ``fit`` or ``partial_fit`` allocates no O(n) order: a fresh 1.6 MB arange
    cost up to 0.9 ms in page faults per ``fit`` on 2e5 rows, a tenth of a SPAM
    pass. Kernels only read orders; do not write into the result.

    Parameters
    ----------
    n : int
        Number of samples.

    Returns
    -------
    ndarray of shape (n,), intp
    """
    global _identity
    if n > _IDENTITY_CACHE_ROWS:
        return np.arange(n, dtype=np.intp)
    if n > _identity.shape[0]:
        _identity = np.arange(max(n, min(2 * _identity.shape[0], _IDENTITY_CACHE_ROWS)),
                              dtype=np.intp)
    return _identity[:n]


def new_data_stats(n_features: int) -> dict[str, np.ndarray]:
    """Return empty statistics of the training data seen (kept by every estimator).

    Parameters
    ----------
    n_features : int
        Number of features.

    Returns
    -------
    dict
        ``data_count`` (2,) float64 (total sample weight per class; the row count when
        unweighted), ``data_sum`` (2, d) (weighted sums), ``data_sqmax`` (1,).
    """
    return {
        "data_count": np.zeros(2),
        "data_sum": np.zeros((2, n_features)),
        "data_sqmax": np.zeros(1),
    }


def counts_as_weights(state: dict, *keys: str) -> None:
    """Convert, in place, class counts saved as int64 rows into float64 sample weights.

    Files saved before sample weights (notes.md#sample-weights) hold the rows per class
    in these entries (the estimator's ``data_count``, a family's own counts); the weights
    of an unweighted fit are the same numbers. Used by :func:`aucopt.io.load` and the
    specs' ``upgrade_state``.
    """
    for key in keys:
        count = state.get(key)
        if isinstance(count, np.ndarray) and count.dtype == np.int64:
            state[key] = count.astype(np.float64)


def observe_data(state: dict, rows: RowData, y: np.ndarray, stream: bool = False) -> None:
    """Add a chunk of training rows to the data statistics of ``state`` (O(nnz)).

    Parameters
    ----------
    state : dict
        Estimator state holding the entries of :func:`new_data_stats`.
    rows : RowData
        The chunk.
    y : ndarray of shape (n,)
        Signed weights: ``±1`` or ``±w_i`` (notes.md#sample-weights).
    stream : bool
        The rows continue a preconditioned stream: one whose squared norm is beyond
        ``OUTLIER_RATIO`` times the largest of the rows before the chunk is refused
        (ValueError).
    """
    before = float(state["data_sqmax"][0])
    bad = select(accumulate_class_sums)(
        state["data_count"], state["data_sum"], state["data_sqmax"],
        rows.data, rows.indices, rows.indptr, y,
    )
    if bad >= 0:
        raise ValueError(non_finite_message(rows, bad))
    if stream and state["data_sqmax"][0] > OUTLIER_RATIO * before > 0.0:
        raise ValueError(_outlier_message(rows, before))
    if state["data_sqmax"][0] < TINY_SQNORM and state["data_sum"].any():
        raise ValueError(
            f"Input X is tiny-scaled: the largest squared row norm is "
            f"{state['data_sqmax'][0]:.3g} (below {TINY_SQNORM:g}), so the products the "
            "learners form underflow float64 and the model would be constant. This is not a "
            "step-size problem: rescale the features first (e.g. "
            "aucopt.datasets.make_preprocessor('minmax') or "
            "sklearn.preprocessing.StandardScaler)."
        )


def row_sqnorms(X) -> np.ndarray:
    """Return the squared norm of each row of ``X`` (kernel rows, a dense array or a CSR
    matrix), in O(nnz) and without a copy of its values."""
    if isinstance(X, RowData):
        data, indptr, n = X.data, X.indptr, X.n_samples
    elif sp.issparse(X):
        X = X.tocsr()
        data, indptr, n = X.data, X.indptr, X.shape[0]
    else:
        data, indptr = X, None
    if indptr is None:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.einsum("ij,ij->i", data, data)
    out = np.empty(n)
    csr_row_sqnorms(data, indptr, out)
    return out


def _outlier_message(rows: RowData, before: float) -> str:
    """The error for a stream's row far longer than every row before it."""
    sq = row_sqnorms(rows)
    row = int(np.argmax(sq > OUTLIER_RATIO * before))
    return (f"Row {row} of this chunk has a squared norm of {sq[row]:.3g}, "
            f"{sq[row] / before:.3g} times the largest of the rows the stream has seen "
            f"({before:.3g}): a row this far out would dominate the class statistics and "
            "every later step (the stream diverged on the rows after it), so it is refused and "
            "the model is unchanged. Rescale or clip the rows first (e.g. "
            "aucopt.datasets.make_preprocessor('l2-rows'), or river's StandardScaler), or "
            "start the stream with a chunk holding enough rows of both classes, from which "
            "precondition='auto' sets a row bound that shortens such rows.")


def first_non_finite_row(rows: RowData) -> int:
    """Return the first row whose squared norm is not finite, -1 if none (O(nnz): for
    error paths)."""
    bad = np.flatnonzero(~np.isfinite(row_sqnorms(rows)))
    return int(bad[0]) if bad.size else -1


def non_finite_message(rows: RowData, row: int, where: str | None = None) -> str:
    """Return the error message for a row of ``X`` with a NaN, an infinity or a huge value
    (``where``: how the message places that row, default ``"first in row {row}"``)."""
    lo, hi = (rows.indptr[row], rows.indptr[row + 1]) if rows.is_sparse else (None, None)
    values = rows.data[lo:hi] if rows.is_sparse else rows.data[row]
    where = f"first in row {row}" if where is None else where
    if np.isnan(values).any():
        return (f"Input X contains NaN ({where}). Impute or drop the missing values "
                "first (e.g. sklearn.impute.SimpleImputer).")
    if np.isfinite(values).all():  # finite, but the row's squared norm overflows
        return (f"Input X holds values too large for the kernels ({where}: finite, but the "
                "squared row norm overflows float64). Rescale the features before fitting "
                "(e.g. aucopt.datasets.make_preprocessor('standard')).")
    return (f"Input X contains infinity or a value too large for dtype('float64') ({where}; "
            "squared row norms must stay finite). Remove or clip infinite values "
            "(e.g. numpy.nan_to_num) or rescale the features before fitting.")


def class_mean_scores(state: dict, w: np.ndarray) -> list[float]:
    """Return ``w . m+`` and ``w . m-`` for the classes seen so far (``w . sums / count``).

    The means are not formed: no O(d) temporaries per ``fit``/``partial_fit`` call.

    Parameters
    ----------
    state : dict
        Estimator state holding the entries of :func:`new_data_stats`.
    w : ndarray of shape (d,)
        Weight vector.

    Returns
    -------
    list of float
        One score per class seen (positive first).
    """
    counts, sums = state["data_count"], state["data_sum"]
    out = []
    with np.errstate(over="ignore", invalid="ignore"):  # (once: it costs microseconds)
        scores = [float(w @ sums[c]) / counts[c] if counts[c] else None for c in (1, 0)]
    for c, score in zip((1, 0), scores):
        if score is None:
            continue
        if not math.isfinite(score):  # sums of huge weights: w . sums overflowed
            score = float(w @ (sums[c] / counts[c]))
        out.append(score)
    return out


def scaled_iterates(state: dict, t_entry: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``w`` and ``w_avg`` of a state kept plain or in the lazy form ``w = s v``.

    The lazy form (SPAM-L2, OGD-FIFO on CSR rows) holds ``pack`` (v and b), ``acc`` and
    ``lazy`` (``s``, ``S``, ..., ``t`` at ``t_entry``); see
    :func:`aucopt._kernels.spam.lazy_iterates`.

    Parameters
    ----------
    state : dict
        Estimator state.
    t_entry : int
        Entry of ``state["lazy"]`` holding the number of updates.

    Returns
    -------
    (w, w_avg) : tuple of ndarray of shape (d,)
    """
    if "pack" not in state:
        return state["w"], state["w_avg"]
    d = state["pack"].shape[0]
    w, w_avg = np.empty(d), np.empty(d)
    lazy_iterates(state["pack"], state["acc"], state["lazy"], int(state["lazy"][t_entry]), w,
                  w_avg)
    return w, w_avg


def drop_lazy_form(state: dict, iterates, lazy_keys: tuple[str, ...]) -> None:
    """Switch a state kept in a lazy form (entries ``lazy_keys``) back to ``w`` and ``w_avg``.

    ``iterates(state)`` returns the plain ``(w, w_avg)`` of the lazy form (O(d)).
    """
    state["w"], state["w_avg"] = iterates(state)
    for key in lazy_keys:
        del state[key]


def split_packed(state: dict, key: str, names: tuple) -> None:
    """Split a packed array of an older saved state into one 1-element entry per name.

    Used by specs' ``upgrade_state``. ``state[key]`` (1-D, one value per name) is
    replaced by ``state[name] = state[key][i:i + 1]``; anything else is left as it is, for
    :func:`aucopt.io.load`'s checks to report.
    """
    packed = state.get(key)
    if isinstance(packed, np.ndarray) and packed.shape == (len(names),):
        del state[key]
        for i, name in enumerate(names):
            state.setdefault(name, packed[i:i + 1].copy())
