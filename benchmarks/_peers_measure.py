"""Timing, peak memory and tuning of one method on one split, the same code for every tool."""

from __future__ import annotations

import itertools
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

from aucopt.metrics import roc_auc_score

__all__ = ["INNER_FOLDS", "Result", "fit_and_score", "inner_folds", "peak_rss_mb", "tune"]

INNER_FOLDS = 3
SEED = 0


def _status(field: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _reset_peak() -> bool:
    try:  # Linux: writing 5 resets the peak resident set size (VmHWM) to the current one
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class peak_rss_mb:
    """Context: ``.mb`` is the growth of the peak resident set size inside it (MB; Linux)."""

    def __enter__(self):
        self.ok = _reset_peak()
        self.start = _status("VmRSS:")
        return self

    def __exit__(self, *exc):
        self.mb = max(_status("VmHWM:") - self.start, 0.0) if self.ok else float("nan")
        return False


class Result(dict):
    """``auc``, ``seconds`` (the timed fit), ``memory_mb``, ``params``, ``tune_seconds``."""


def _auc(y, scores) -> float:
    scores = np.asarray(scores, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        return float("nan")
    return float(roc_auc_score(y > 0, scores))


def fit_and_score(method, params, Xtr, ytr, Xte, yte, memory=True) -> Result:
    """Fit ``method`` with ``params`` on the training part (timed) and score the test part."""
    model = method.make(**{**method.params, **params})
    if hasattr(model, "prepare"):
        model.prepare(Xtr, ytr)  # e.g. Vowpal Wabbit's input file: not timed
    if memory:
        with peak_rss_mb() as rss:
            start = time.perf_counter()
            model.fit(Xtr, ytr)
            seconds = time.perf_counter() - start
    else:
        start = time.perf_counter()
        model.fit(Xtr, ytr)
        seconds = time.perf_counter() - start
    describe = getattr(model, "describe", lambda: "")()
    return Result(auc=_auc(yte, model.scores(Xte)), seconds=seconds,
                  memory_mb=rss.mb if memory else float("nan"), params=params,
                  chosen=describe)


def inner_folds(X, y, rows: int | None):
    """The inner folds on the first ``rows`` training rows: shared by every tuned method."""
    if rows is not None and X.shape[0] > rows:
        X, y = X[:rows], y[:rows]
    split = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=SEED).split(
        np.zeros(len(y)), y)
    return [(X[a], y[a], X[b], y[b]) for a, b in split]


def tune(method, folds) -> tuple[dict, float]:
    """Return the grid point with the best mean inner-fold AUC, and the tuning time."""
    start = time.perf_counter()
    names = list(method.grid)
    best, best_auc = {}, -np.inf
    for values in itertools.product(*(method.grid[n] for n in names)):
        params = dict(zip(names, values))
        aucs = []
        for Xa, ya, Xb, yb in folds:
            try:
                aucs.append(fit_and_score(method, params, Xa, ya, Xb, yb, memory=False)["auc"])
            except (ValueError, FloatingPointError, ArithmeticError):
                aucs.append(np.nan)
        auc = float(np.mean(aucs))
        if np.isfinite(auc) and auc > best_auc:
            best, best_auc = params, auc
    return best, time.perf_counter() - start
