"""Partitioned data: dask arrays, LIBSVM parts, and exactly mergeable class statistics.

Every function here that takes a block runs on a worker; only the statistics
(O(d) per class, O(d^2) with the scatter matrices) travel.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Hashable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..algorithms._data import as_rows, non_finite_message, row_sqnorms
from ..algorithms._structure import check_sparse_structure
from ..algorithms.batch_pairwise import sparse_covariance

__all__ = ["read_svmlight", "partitions", "frame_arrays", "feature_names", "as_block",
           "block_stats", "merge_stats", "tree_reduce", "PartStats"]


def read_svmlight(paths, n_features, *, zero_based=False):
    """Return ``(X, y)`` dask arrays over LIBSVM files, one partition per file.

    Nothing is read here: each worker parses the files it is given when a
    computation needs them, and the parsed rows stay on the workers. The files
    must be readable by every worker under the same path (a shared or local
    file system). Split one big file into parts first (e.g. ``split -l 1000000``).
    Each pass over the data parses every part once (``X`` and ``y`` of a part
    come from one task); keep the parsed parts in the workers' memory across
    passes with ``aucopt.distributed.fit(..., persist=True)`` or
    ``X, y = client.persist((X, y))`` when they fit (about 12 bytes per non-zero).

    Parameters
    ----------
    paths : str, Path or list of them
        Files or glob patterns (``"parts/*.svm"``, sorted); ``.gz``/``.bz2`` work.
    n_features : int
        Number of features (all parts share the model's width).
    zero_based : bool, default=False
        Whether feature indices start at 0 (LIBSVM's own format starts at 1).

    Returns
    -------
    X : dask.array.Array of shape (nan, n_features), chunks of scipy.sparse.csr_matrix
    y : dask.array.Array of shape (nan,), float64 labels as written in the files

    Raises
    ------
    ValueError
        If no file matches or ``n_features`` is not a positive int. A part that
        cannot be read or parsed raises, when the data are computed, a
        ``ValueError`` (an ``OSError`` if the file cannot be opened) naming the file.
    """
    import dask
    import dask.array as da

    if isinstance(n_features, bool) or not isinstance(n_features, int | np.integer) \
            or n_features < 1:
        raise ValueError(f"n_features must be a positive int (the width of the model); got "
                         f"{n_features!r}.")
    files = _expand(paths)
    xs, ys = [], []
    for path in files:
        part = dask.delayed(_load_part, pure=True)(path, int(n_features), zero_based)
        xs.append(da.from_delayed(part[0], shape=(np.nan, n_features), dtype=np.float64,
                                  meta=sp.csr_matrix((0, n_features))))
        ys.append(da.from_delayed(part[1], shape=(np.nan,), dtype=np.float64,
                                  meta=np.zeros(0)))
    return da.concatenate(xs, axis=0), da.concatenate(ys, axis=0)


def _expand(paths) -> list[str]:
    patterns = [paths] if isinstance(paths, str | Path) else list(paths)
    files = []
    for pattern in patterns:
        pattern = os.path.abspath(os.path.expanduser(str(pattern)))
        matched = sorted(glob.glob(pattern))
        if not matched:
            raise ValueError(f"No LIBSVM file matches {pattern!r}.")
        files.extend(matched)
    return files


def _load_part(path, n_features, zero_based):
    from sklearn.datasets import load_svmlight_file

    try:
        return load_svmlight_file(path, n_features=n_features, zero_based=zero_based,
                                  dtype=np.float64)
    except (FileNotFoundError, PermissionError):
        raise  # their message names the file
    except (OSError, EOFError, ValueError) as exc:  # a corrupt or truncated part, bad text
        raise ValueError(f"{path}: cannot read this LIBSVM part ({type(exc).__name__}: "
                         f"{exc})") from exc


def partitions(X, y=None):
    """Return the row blocks of ``(X, y)`` as two lists of dask delayed objects.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d), dask.dataframe.DataFrame, or the pair ``(X, y)``
        Dense or scipy.sparse chunks; split into rows only (column chunks are joined).
        A DataFrame's partitions are the row blocks (see :func:`frame_arrays`).
    y : dask.array.Array of shape (n,), dask.dataframe.Series or str
        Labels; with a DataFrame ``X`` also the name of its label column.

    Returns
    -------
    xs, ys : list of dask.delayed.Delayed
        A block's ``X`` and ``y`` share their graph (no graph optimisation), so a
        LIBSVM part is parsed once however many tasks use it.
    n_features : int
        The width X declares.
    """
    import dask.array as da

    if y is None and isinstance(X, tuple) and len(X) == 2:
        X, y = X
    X, y = frame_arrays(X, y)
    if not isinstance(X, da.Array) or not isinstance(y, da.Array):
        raise TypeError(
            f"X and y must be dask arrays or a dask DataFrame with a label column (got "
            f"{type(X).__name__} and {type(y).__name__}): e.g. "
            "dask.array.from_array(X, chunks=(10_000, -1)), "
            "aucopt.distributed.read_svmlight(...) or fit(est, frame, 'label'). For "
            "in-memory data use estimator.fit."
        )
    if X.ndim != 2 or y.ndim != 1:
        raise ValueError(f"X must be 2-D and y 1-D; got X.ndim={X.ndim}, y.ndim={y.ndim}.")
    if X.shape[1] == 0:
        raise ValueError("X has 0 feature columns (a DataFrame needs some beside its label "
                         "column).")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if y.chunks[0] != X.chunks[0]:
        if np.isnan(X.shape[0]) or np.isnan(y.shape[0]):
            raise ValueError("X and y have different row partitions of unknown sizes; build "
                             "them from the same blocks (or call X.compute_chunk_sizes()).")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}.")
        y = y.rechunk((X.chunks[0],))
    return (list(X.to_delayed(optimize_graph=False)[:, 0]),
            list(y.to_delayed(optimize_graph=False)), int(X.shape[1]))


def held_in_memory(blocks) -> bool:
    """Whether the graphs of ``blocks`` (dask delayed objects) hold only computed data.

    True when every value of their graphs is a future (a persisted collection) or an
    array (a collection made from in-memory arrays): a graph that reads them many times
    then keeps nothing that is not kept already. False when any task computes something,
    e.g. reads a file.
    """
    from distributed import Future

    graphs = {id(graph): graph for graph in (block.__dask_graph__() for block in blocks)}
    return all(isinstance(value, (Future, np.ndarray)) or sp.issparse(value)
               for graph in graphs.values() for value in graph.values())


def _is_frame(obj, kind="DataFrame") -> bool:
    module = type(obj).__module__ or ""
    return module.startswith("dask") and type(obj).__name__ == kind


def frame_arrays(X, y=None, *, label=None):
    """Return ``(X, y)`` as dask arrays when given a dask DataFrame (else unchanged).

    Parameters
    ----------
    X : dask.dataframe.DataFrame or dask.array.Array
        A DataFrame's numeric (or boolean) columns are the features, as float64, in
        column order; its partitions become the row blocks (nothing is computed).
    y : str, dask.dataframe.Series, dask.array.Array or None
        The name of X's label column (left out of the features), or labels with
        X's partitions.
    label : str, optional
        For scoring: the name of a label column of X to leave out of the features.

    Returns
    -------
    X, y : dask.array.Array (y unchanged if it was None)

    Raises
    ------
    ValueError
        For a missing label column or non-numeric feature columns (named).
    """
    if _is_frame(y, "Series"):
        y = y.to_dask_array()
    if not _is_frame(X):
        return X, y
    named = _is_name(y)
    drop = y if named else label
    if drop is not None:
        if drop not in X.columns:
            raise ValueError(f"the DataFrame has no column {drop!r} (its columns: "
                             f"{list(X.columns)[:20]}).")
        if named:  # (a pandas extension dtype, str or category, as numpy objects)
            column = X[drop]
            plain = isinstance(column.dtype, np.dtype)
            y = (column if plain else column.astype(object)).to_dask_array()
        X = X.drop(columns=[drop])
    bad = [str(c) for c, t in X.dtypes.items() if t.kind not in "biuf"]
    if bad:
        raise ValueError(f"feature columns must be numeric; {bad[:10]} are not (drop or "
                         "encode them first, or name the label column: fit(est, frame, "
                         "'label')).")
    # (float64 in the frame: a nullable column's <NA> becomes NaN, refused by partition)
    return X.astype(np.float64).to_dask_array(), y


def _is_name(y) -> bool:
    """Whether ``y`` names a column (a str, an int...) rather than holding labels."""
    return y is not None and isinstance(y, Hashable) and not hasattr(y, "shape")


def feature_names(X, y=None):
    """Return the feature column names of a dask DataFrame ``X`` (its label column ``y``, if
    named, left out) as scikit-learn's ``feature_names_in_``, or None (not a frame, or names
    that are not all strings)."""
    if not _is_frame(X):
        return None
    names = [c for c in X.columns if not (_is_name(y) and c == y)]
    return np.asarray(names, dtype=object) if all(isinstance(c, str) for c in names) else None


class PartStats(dict):
    """Per-label statistics: ``label -> [n, mean (d,), scatter (d, d) or None, sqmax, sqsum]``.

    ``scatter`` is the centred sum ``sum (x - mean)(x - mean)^T``; ``sqmax`` the
    largest squared row norm and ``sqsum`` their sum. Two of them merge exactly with
    :func:`merge_stats`.
    """


def as_block(X, k):
    """Return block ``k`` of X as float64 CSR or a C-contiguous 2-D array."""
    if sp.issparse(X):
        try:  # before scipy or a kernel reads the index arrays
            check_sparse_structure(X)
        except ValueError as exc:
            raise ValueError(f"partition {k}: {exc}") from None
        return sp.csr_matrix(X, dtype=np.float64)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"partition {k} of X is not 2-D (shape {X.shape}).")
    return X


def block_stats(X, y, k, scatter, n_features=None):
    """Return the :class:`PartStats` of partition ``k`` after checking it (runs on a worker).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_k, d)
    y : ndarray of shape (n_k,)
    k : int
        Partition number (for the error messages).
    scatter : bool
        Whether to form the d x d scatter matrices (O(d^2) memory and traffic).
    n_features : int, optional
        The width X declares; a block of another width is an error.

    Returns
    -------
    widths : dict
        ``{n_features: k}`` (merged widths name their first partition).
    stats : PartStats

    Raises
    ------
    ValueError
        For a length mismatch, NaN or infinity (naming the partition and the row).
        An empty partition has empty statistics (the strategies skip it).
    """
    X = as_block(X, k)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"partition {k} of X has {X.shape[1]} columns but X has {n_features}: "
                         "every partition must have the model's width (pass n_features= to "
                         "read_svmlight, or fix the chunk shapes).")
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"partition {k}: X has {X.shape[0]} rows but y has {y.shape[0]}.")
    sq = row_sqnorms(X)
    bad = np.flatnonzero(~np.isfinite(sq))
    if bad.size:
        raise ValueError(f"partition {k}: " + non_finite_message(as_rows(X), int(bad[0])))
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"partition {k}: y contains NaN (first in row "
                         f"{int(np.flatnonzero(np.isnan(y))[0])}); drop or label those rows.")
    if y.dtype.kind == "O":  # labels of a pandas extension dtype: pd.NA or None where missing
        import pandas as pd

        missing = np.flatnonzero(pd.isna(y))
        if missing.size:
            raise ValueError(f"partition {k}: y has a missing label (first in row "
                             f"{int(missing[0])}); drop or label those rows.")
    stats = PartStats()
    for label in np.unique(y):
        mask = y == label
        Xc = X[mask]
        n = int(mask.sum())
        mean = np.asarray(Xc.mean(axis=0)).ravel()
        cov = None
        if scatter:
            if sp.issparse(Xc):  # (recentred where X'X - n m m^T would cancel)
                cov = n * sparse_covariance(Xc, np.ones(n), Xc, mean, n)
            else:
                centred = Xc - mean
                cov = centred.T @ centred
        # (numpy scalars to Python ones; an object array's labels, e.g. str, are already)
        key = label.item() if isinstance(label, np.generic) else label
        stats[key] = [n, mean, cov, float(sq[mask].max()), float(sq[mask].sum())]
    return {X.shape[1]: k}, stats


def merge_stats(a, b):
    """Merge two ``(widths, PartStats)`` of :func:`block_stats` exactly.

    Chan, Golub and LeVeque (1979), Eq. 2.1 (the pairwise update of a scatter matrix).

    For one label with counts ``n_a, n_b``, means ``m_a, m_b`` and scatters
    ``M_a, M_b``: ``m = m_a + (n_b/n) delta`` and
    ``M = M_a + M_b + (n_a n_b / n) delta delta^T`` with ``delta = m_b - m_a``.
    """
    (widths, left), (widths_b, right) = a, b
    widths = {**widths_b, **widths}
    if len(widths) > 1:
        (d, k), (d_b, k_b) = sorted(widths.items(), key=lambda item: item[1])[:2]
        raise ValueError(f"partition {k_b} of X has {d_b} columns but partition {k} has {d}: "
                         "every partition must have the model's width (pass n_features= to "
                         "read_svmlight, or fix the chunk shapes).")
    out = PartStats(left)
    for label, (n_b, m_b, s_b, q_b, r_b) in right.items():
        if label not in out:
            out[label] = [n_b, m_b, s_b, q_b, r_b]
            continue
        n_a, m_a, s_a, q_a, r_a = out[label]
        n = n_a + n_b
        delta = m_b - m_a
        mean = m_a + delta * (n_b / n)
        cov = None if s_a is None else s_a + s_b + np.outer(delta, delta) * (n_a * n_b / n)
        out[label] = [n, mean, cov, max(q_a, q_b), r_a + r_b]
    return widths, out


def tree_reduce(items, merge):
    """Combine the delayed ``items`` pairwise with ``merge`` in a balanced tree (on the workers)."""
    import dask

    merge = dask.delayed(merge, pure=True)
    while len(items) > 1:
        pairs = [merge(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]
        items = pairs + ([items[-1]] if len(items) % 2 else [])
    return items[0]
