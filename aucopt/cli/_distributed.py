"""``aucopt fit ... --distributed`` and ``aucopt evaluate MODEL 'parts/*.svm'``."""

from __future__ import annotations

import logging
from contextlib import contextmanager

#: Loggers of Dask that print start-up, shutdown and nanny lines; quiet unless ``-v``.
DASK_LOGGERS = ("distributed", "dask", "tornado", "bokeh")


def is_glob(data: str) -> bool:
    """Whether ``data`` is a glob pattern of file parts rather than one path or name."""
    return any(char in data for char in "*?[")


@contextmanager
def _dask_logs(verbose: int):
    """Dask's own log lines at INFO and above with ``-v``, none below CRITICAL without it
    (a task that fails is reported once, by the command's ``error:`` line)."""
    import distributed  # noqa: F401  (its import sets its loggers' levels: set ours after it)

    level = logging.INFO if verbose else logging.CRITICAL
    saved = {name: logging.getLogger(name).level for name in DASK_LOGGERS}
    for name in DASK_LOGGERS:
        logging.getLogger(name).setLevel(level)
    try:
        yield level
    finally:
        for name, old in saved.items():
            logging.getLogger(name).setLevel(old)


def fit_distributed(est, data, *, n_features, scheduler, workers, strategy, rounds,
                    verbose=0, progress=None, zero_based=False):
    """Fit ``est`` on the LIBSVM parts ``data`` (a glob) on a Dask cluster.

    Connects to ``scheduler`` when given, otherwise starts a local cluster of
    ``workers`` processes. Dask's log lines are shown with ``verbose`` only; the
    progress bar when stdout is a terminal (``progress=None``). Returns the fitted
    estimator and a one-line summary.
    """
    import sys

    from .. import distributed as ad
    from ..distributed._cluster import connect

    if n_features is None:
        raise ValueError("--distributed needs --n-features (every part must have the model's "
                         "width).")
    if scheduler is not None and workers is not None:
        raise ValueError("give either --scheduler (an existing cluster) or --workers (a local "
                         "one), not both.")
    progress = sys.stdout.isatty() if progress is None else progress
    # absolute paths: workers may run elsewhere
    X, y = ad.read_svmlight(data, n_features, zero_based=zero_based)
    with _dask_logs(verbose) as level:
        context = (connect(scheduler) if scheduler is not None
                   else ad.local_cluster(n_workers=workers, silence_logs=level))
        with context as client:
            model = ad.fit(est, X, y, strategy=strategy, n_rounds=rounds, client=client,
                           progress=progress)
            auc = ad.roc_auc_score(y, ad.decision_function(model, X), client=client)
    return model, (f"strategy {model.distributed_strategy_!r} on {X.numblocks[0]} parts, "
                   f"training AUC {auc:.4f}")


ALL_LINES = 2**62  # leading_zero_based over a whole part


def evaluate_parts(est, pattern, zero_based=False):
    """Scores and labels of ``est`` on the LIBSVM parts matching ``pattern``, part by part
    (their indices from 0 if ``zero_based``, else from 1; None: from 0 if any part holds an
    index 0, one base for all the parts).

    Reads one part at a time (the scores and labels of all parts are kept, 16 bytes
    per row). Returns ``(y, scores, n_parts)``.
    """
    import numpy as np

    from ..datasets._stream import leading_zero_based
    from ..distributed._data import _expand, _load_part

    ys, scores = [], []
    files = _expand(pattern)
    if zero_based is None:  # (a part without an index 0 is not therefore one-based)
        zero_based = any(leading_zero_based(path, ALL_LINES) for path in files)
    for path in files:
        X, y = _load_part(path, est.n_features_in_, zero_based)
        if X.shape[0]:  # (an empty part, as fit --distributed skips it)
            ys.append(y)
            scores.append(est.decision_function(X))
    return np.concatenate(ys), np.concatenate(scores), len(files)
