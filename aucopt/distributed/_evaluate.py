"""Scoring and exact ROC AUC over partitioned data."""

from __future__ import annotations

import numpy as np

from ._cluster import compute, connect
from ._data import as_block, feature_names, frame_arrays

__all__ = ["decision_function", "roc_auc_score"]

_SAMPLES_PER_PART = 64  # score quantiles per partition used to choose the range buckets


def _scores(block, est):
    block = as_block(block, "?")
    return est.decision_function(block) if block.shape[0] else np.zeros(0)


def decision_function(estimator, X, *, label=None):
    """Return the lazy ranking scores ``estimator.decision_function`` of every partition.

    Parameters
    ----------
    estimator : BaseAUCClassifier
        A fitted estimator (sent to the workers once per partition; O(model)).
    X : dask.array.Array of shape (n, d) or dask.dataframe.DataFrame
        Dense or scipy.sparse chunks, or a DataFrame of numeric feature columns.
    label : str, optional
        The name of a DataFrame's label column, left out of the features.

    Returns
    -------
    dask.array.Array of shape (n,)
        Nothing is computed until asked (``.compute()`` or :func:`roc_auc_score`).
    """
    import copy

    import dask.array as da

    names, fitted = feature_names(X, label), getattr(estimator, "feature_names_in_", None)
    if fitted is not None:  # checked here once; the blocks the workers score have no names
        if names is not None and list(names) != list(fitted):
            raise ValueError(f"The DataFrame's feature columns {list(names)[:10]} are not those "
                             f"the model was fitted with, in order: {list(fitted)[:10]}.")
        estimator = copy.copy(estimator)
        del estimator.feature_names_in_
    X, _ = frame_arrays(X, label=label)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError("X must be a 2-D dask array or a dask DataFrame (see "
                        "aucopt.distributed.read_svmlight).")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(_scores, estimator, drop_axis=1, dtype=np.float64, meta=np.zeros(0))


def _on_profile(y, s, k):
    """Labels, size and score quantiles of partition ``k`` (checks the scores)."""
    y, s = np.asarray(y).ravel(), np.asarray(s, dtype=np.float64).ravel()
    if y.shape != s.shape:
        raise ValueError(f"partition {k}: y has {y.shape[0]} values but the scores "
                         f"{s.shape[0]}.")
    if not np.isfinite(s).all():
        row = int(np.flatnonzero(~np.isfinite(s))[0])
        raise ValueError(f"partition {k}: scores contain NaN or infinity (first in row {row}).")
    picks = np.linspace(0, max(s.size - 1, 0), min(_SAMPLES_PER_PART, s.size)).astype(int)
    return np.unique(y).tolist(), np.sort(s)[picks] if s.size else s


def _on_split(y, s, splitters, pos_label):
    """Split partition's scores into range buckets: ``[(positives, negatives), ...]``."""
    y, s = np.asarray(y).ravel(), np.asarray(s, dtype=np.float64).ravel()
    bucket = np.searchsorted(splitters, s, side="right")
    positive = y == pos_label
    return [(s[positive & (bucket == b)], s[~positive & (bucket == b)])
            for b in range(len(splitters) + 1)]


def _on_bucket(*parts):
    """Twice the pairs won by positives (ties count one) inside one bucket, and its counts."""
    pos = np.concatenate([p for p, _ in parts])
    neg = np.sort(np.concatenate([n for _, n in parts]))
    below = np.searchsorted(neg, pos, side="left")
    tied = np.searchsorted(neg, pos, side="right") - below
    return 2 * int(below.sum()) + int(tied.sum()), pos.size, neg.size


def roc_auc_score(y, scores, *, pos_label=None, client=None):
    r"""Exact ROC AUC of partitioned scores, ties counted one half.

    Equals :func:`aucopt.metrics.roc_auc_score` on the gathered data (and
    :func:`sklearn.metrics.roc_auc_score` to rounding) without gathering the
    scores: they are range-partitioned into buckets at quantiles of a sample
    (a distributed sample sort), and each bucket counts its own pairs. Tied
    scores always share a bucket, so with ``P_b, N_b`` the bucket counts

    .. math::

        \mathrm{AUC} = \frac{1}{P N} \sum_b \Big( \#\{\text{won pairs in } b\}
        + P_b \sum_{b' < b} N_{b'} \Big),

    an integer count divided once. Traffic: the scores once (8 bytes per row,
    spread over the workers) plus O(partitions) quantiles; labels and scores are
    kept in the workers' memory between the two passes.

    Parameters
    ----------
    y : dask.array.Array of shape (n,) or dask.dataframe.Series
        Binary labels.
    scores : dask.array.Array of shape (n,) or dask.dataframe.Series
        Scores with the same partitions (e.g. :func:`decision_function`).
    pos_label : scalar, optional
        The positive label; default the larger of the two (as scikit-learn).
    client : distributed.Client, str or None
        As in :func:`fit`.

    Returns
    -------
    float
    """
    import dask
    import dask.array as da

    y, scores = (v.to_dask_array() if hasattr(v, "to_dask_array") else v  # a dask Series
                 for v in (y, scores))
    for name, value in (("y", y), ("scores", scores)):
        if not isinstance(value, da.Array) or value.ndim != 1:
            raise TypeError(f"{name} must be a 1-d dask array or a dask Series, got "
                            f"{type(value).__name__} of shape {getattr(value, 'shape', '?')}; "
                            "for arrays in memory use aucopt.metrics.roc_auc_score.")
    known = not (np.isnan(y.shape[0]) or np.isnan(scores.shape[0]))
    if known and y.shape[0] == scores.shape[0] and y.chunks != scores.chunks:
        y = y.rechunk(scores.chunks)
    if y.numblocks != scores.numblocks:
        raise ValueError(f"y has {y.numblocks[0]} partitions but scores {scores.numblocks[0]}; "
                         "compute the scores from the X that goes with y (decision_function "
                         "keeps its partitions).")
    with connect(client) as dask_client:
        # two passes below; keep labels and scores (16 bytes a row) on the workers meanwhile
        y, scores = dask_client.persist([y, scores], optimize_graph=False)
        ys = list(y.to_delayed(optimize_graph=False).ravel())
        ss = list(scores.to_delayed(optimize_graph=False).ravel())
        profile = dask.delayed(_on_profile, pure=True)
        profiles = compute(dask_client, [profile(a, b, k) for k, (a, b) in
                                         enumerate(zip(ys, ss))])
        labels = sorted(set().union(*(set(p[0]) for p in profiles)))
        if len(labels) != 2:
            raise ValueError(f"y must hold exactly two classes for the ROC AUC; got {labels}.")
        pos_label = labels[1] if pos_label is None else pos_label
        if pos_label not in labels:
            raise ValueError(f"pos_label={pos_label!r} is not a label of y ({labels}).")
        pooled = np.sort(np.concatenate([p[1] for p in profiles]))
        cuts = np.linspace(0, pooled.size - 1, len(ys) + 1)[1:-1].astype(int)
        splitters = np.unique(pooled[cuts])
        split = dask.delayed(_on_split, pure=True)
        parts = [split(a, b, splitters, pos_label) for a, b in zip(ys, ss)]
        bucket = dask.delayed(_on_bucket, pure=True)
        counts = compute(dask_client, [bucket(*[part[b] for part in parts])
                                       for b in range(len(splitters) + 1)])
    won2, negatives_below = 0, 0
    for pairs2, n_pos, n_neg in counts:
        won2 += pairs2 + 2 * n_pos * negatives_below
        negatives_below += n_neg
    n_pos = sum(c[1] for c in counts)
    return won2 / (2 * n_pos * negatives_below)
