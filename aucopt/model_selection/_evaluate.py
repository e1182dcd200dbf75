"""Cross-validated evaluation with inner tuning, and convergence curves.

These are the building blocks of ``aucopt demo`` and ``aucopt compare`` (and,
later, of the paper-table runner): outer stratified k-fold, preprocessing
fitted on the training part only, inner grid search by CV on the training
part, then test AUC and fit time of the refitted model.
"""

from __future__ import annotations

import itertools
import logging
import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import (
    GridSearchCV,
    ParameterGrid,
    PredefinedSplit,
    StratifiedKFold,
    train_test_split,
)
from sklearn.utils import _safe_indexing

from .._api import algorithm_info, make
from ..datasets import make_preprocessor
from ..exceptions import DivergenceError
from ..metrics import partial_roc_auc_score, pauc_scorer, roc_auc_score, roc_curve
from ..utils._warnings import ignored_warnings
from ._protocols import check_both_classes, repeated_kfold

logger = logging.getLogger(__name__)

__all__ = ["FoldResult", "evaluate_fold", "fold_splits", "convergence_curve", "grid_points",
           "GRIDS", "check_grid"]


@dataclass
class FoldResult:
    """Outcome of one (algorithm, repeat, fold) cell: one tidy results row."""

    dataset: str
    algorithm: str
    repeat: int
    fold: int
    auc: float
    fit_seconds: float
    params: dict = field(default_factory=dict)
    roc: tuple | None = None
    curve: tuple | None = None
    pauc: float | None = None  # partial AUC (McClish) at the max_fpr asked for, if any

    def row(self) -> dict:
        """Return the tidy CSV row (hyperparameters as ``param_<name>`` columns)."""
        out = {"dataset": self.dataset, "algorithm": self.algorithm, "repeat": self.repeat,
               "fold": self.fold, "auc": self.auc, "fit_seconds": self.fit_seconds}
        if self.pauc is not None:
            out["pauc"] = self.pauc
        out.update({f"param_{k}": v for k, v in sorted(self.params.items())})
        return out


#: The named grids of the inner search: the quick one, the paper's, none (the defaults).
GRIDS = ("quick", "paper", "none")


def check_grid(grid, estimator=None) -> None:
    """Refuse a grid that is neither one of :data:`GRIDS` nor a dict of value lists.

    Parameters
    ----------
    grid : {"quick", "paper", "none"} or dict
        A dict maps each hyperparameter to a non-empty list or 1-d array of its values, as
        scikit-learn's ``ParameterGrid`` requires; a malformed one raises that class's error
        (a bare value, or a string, is not a list of values).
    estimator : estimator, optional
        With a dict, also refuse a grid none of whose points ``estimator`` accepts (its
        hyperparameter checks, without fitting): the error of the first point is raised
        (``InvalidParameterError``, or the ``ValueError`` of a rule between
        hyperparameters), whatever the grid's size.

    Raises
    ------
    ValueError, TypeError
        For an unknown name, a malformed dict, or hyperparameters refused at every point.
    """
    if not isinstance(grid, dict):
        if not (isinstance(grid, str) and grid in GRIDS):
            raise ValueError(f"grid must be one of {' | '.join(GRIDS)} or a dict, got {grid!r}.")
        return
    ParameterGrid(grid)  # scikit-learn's own checks and errors for each list of values
    if estimator is None:
        return
    refused = None
    for point in grid_points(grid):
        try:
            clone(estimator).set_params(**point)._validate_params()
            return
        except ValueError as exc:  # InvalidParameterError is one
            refused = refused or exc
    raise refused


def grid_points(grid: dict) -> list[dict]:
    """Return every combination of a ``{param: values}`` grid.

    Parameters
    ----------
    grid : dict

    Returns
    -------
    list of dict
    """
    names = sorted(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]


def fold_splits(y, *, folds=5, repeats=1, random_state=0):
    """Return ``[(repeat, fold, train_idx, test_idx), ...]`` of repeated stratified k-fold.

    Parameters
    ----------
    y : array-like of shape (n,)
    folds : int, default=5
    repeats : int, default=1
    random_state : int, RandomState instance or None, default=0
        Repeat ``r`` uses seed ``random_state + r`` (modulo 2**32). ``None``, as in
        scikit-learn, draws that seed from numpy's global generator on each call: the splits
        are then not reproducible from call to call (:func:`repeated_kfold`).

    Returns
    -------
    list of tuple
    """
    splits = repeated_kfold(y, folds=folds, repeats=repeats, random_state=random_state)
    return [(s.repeat, s.fold, s.train, s.test) for s in splits]


def evaluate_fold(algorithm_id, X, y, train, test, *, dataset="data", repeat=0, fold=0,
                  preprocessing="minmax", grid="quick", inner_folds=3, random_state=0,
                  with_roc=False, curve_points=0, params=None, validation=None,
                  max_train=None, error_score=np.nan, max_fpr=None) -> FoldResult:
    """Tune on the training part, refit, and measure test AUC and fit time.

    Parameters
    ----------
    algorithm_id : str
        Registry id.
    X, y : arrays (pandas objects too)
        The whole data set; ``train`` and ``test`` index its rows by position.
    train, test : ndarray of int
        Row indices.
    dataset : str
        Name recorded in the result.
    repeat, fold : int
        Position recorded in the result.
    preprocessing : str
        A scheme of :func:`aucopt.datasets.make_preprocessor`, fitted on ``train``.
    grid : {"quick", "paper", "none"} or dict
        Hyperparameter grid for the inner search: a dict maps each hyperparameter to a
        non-empty list or 1-d array of values (scikit-learn's ``ParameterGrid`` rules and
        errors, checked by :func:`check_grid` before any work).
    inner_folds : int
        Folds of the inner stratified CV.
    random_state : int
        Seed of the estimator and of the inner split.
    with_roc : bool
        Also return the test ROC curve.
    curve_points : int
        If > 0, also return a convergence curve with that many points.
    params : dict, optional
        Fixed hyperparameters set before the search (the grid overrides them; a
        ``random_state`` among them is the estimator's seed instead of ``random_state``).
    validation : ndarray of int, optional
        Rows for model selection: the grid point with the best validation AUC
        is chosen (no inner CV), then the model is fitted on ``train`` alone.
        The preprocessing is fitted on ``train``.
    max_train : int, optional
        Train on at most this many rows of ``train``, drawn at random with
        stratification (batch baselines of Gao et al. 2013: 8,000, or 2,000 on epsilon).
    error_score : "raise" or float, default=nan
        The AUC recorded when the model diverges or every grid point fails on this fold's
        data, with a warning naming the algorithm and its parameters (scikit-learn's
        semantics); ``"raise"`` re-raises the error. Hyperparameters the estimator refuses
        are a mistake, not a score: if every grid point (with ``params``) holds a refused
        value, the estimator's error (``InvalidParameterError``) is raised before any fit,
        whatever the grid's size and ``error_score``, as scikit-learn's ``GridSearchCV``
        raises "All the N fits failed" even with ``error_score=np.nan``. A refused point
        among accepted ones scores NaN in the inner search (scikit-learn's
        ``FitFailedWarning``).
    max_fpr : float, optional
        Select by the partial AUC over FPR in [0, max_fpr] (McClish's standardisation,
        :func:`aucopt.metrics.partial_roc_auc_score`) instead of the AUC, and record it
        in ``pauc``.

    Returns
    -------
    FoldResult
        ``auc`` is ``error_score`` when the model diverges (``DivergenceError``) or
        every grid point fails on the data: one bad fold does not abort a comparison.
    """
    info = algorithm_info(algorithm_id)
    if not (error_score == "raise" if isinstance(error_score, str) else
            isinstance(error_score, Real) and not isinstance(error_score, bool)):
        raise ValueError(f"error_score must be 'raise' or a number, got {error_score!r}.")
    if isinstance(grid, str):  # a name; check_grid refuses an unknown one
        grid = {"quick": info["quick_grid"], "paper": info["grid"], "none": {}}.get(grid, grid)
    fixed = dict(params or {})
    estimator = make(algorithm_id, **{"random_state": random_state, **fixed})
    check_grid(grid, estimator)
    # rows by position, whatever the containers (a pandas index is not a position)
    y, train, test = np.asarray(y), np.asarray(train), np.asarray(test)
    validation = None if validation is None else np.asarray(validation)
    check_both_classes(y, repeat, test=test,
                       **({} if validation is None else {"validation": validation}))
    if max_train is not None and len(train) > max_train:
        train, _ = train_test_split(train, train_size=max_train, stratify=y[train],
                                    random_state=random_state)
        train = np.sort(train)
    scaler = make_preprocessor(preprocessing)
    X_train = scaler.fit_transform(_safe_indexing(X, train))
    X_test = scaler.transform(_safe_indexing(X, test))
    y_train, y_test = y[train], y[test]
    params = {}
    start = time.perf_counter()
    try:
        if grid and len(grid_points(grid)) > 1:
            params = _search(estimator, grid, X_train, y_train, inner_folds, random_state,
                             None if validation is None else
                             scaler.transform(_safe_indexing(X, validation)),
                             None if validation is None else y[validation],
                             "roc_auc" if max_fpr is None else pauc_scorer(max_fpr))
        elif grid:
            params = grid_points(grid)[0]
        estimator.set_params(**params)
        warm_up(estimator, X_train, y_train)  # compile the kernels outside the timed fit
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
    except (DivergenceError, _AllFailed) as exc:
        if isinstance(error_score, str) and error_score == "raise":
            raise
        warnings.warn(f"{algorithm_id} with {({**fixed, **params})} failed on {dataset} "
                      f"(repeat {repeat}, fold {fold}); scored {float(error_score)!r} "
                      f"(error_score): {exc}", RuntimeWarning, stacklevel=2)
        return FoldResult(dataset, algorithm_id, repeat, fold, float(error_score),
                          time.perf_counter() - start, {**fixed, **params},
                          pauc=None if max_fpr is None else float(error_score))
    seconds = time.perf_counter() - start
    params = {**fixed, **params}
    scores = estimator.decision_function(X_test)
    result = FoldResult(dataset, algorithm_id, repeat, fold, roc_auc_score(y_test, scores),
                        seconds, params)
    if max_fpr is not None:
        result.pauc = partial_roc_auc_score(y_test, scores, max_fpr=max_fpr)
    if with_roc:
        fpr, tpr, _ = roc_curve(y_test, scores)
        result.roc = (fpr, tpr)
    if curve_points:
        try:
            result.curve = convergence_curve(estimator, X_train, y_train, X_test,
                                             y_test, n_points=curve_points)
        except DivergenceError as exc:
            warnings.warn(f"{algorithm_id} with {params}: no convergence curve on {dataset} "
                          f"(diverged: {exc})", RuntimeWarning, stacklevel=2)
    return result


def warm_up(estimator, X, y, rows_per_class=20) -> None:
    """Fit a clone of ``estimator`` on a few rows of each class, so that timing excludes compiling.

    The first fit of an algorithm in a process compiles (or loads) its numba kernels; a
    timed fit that follows this one measures the algorithm alone. The clone is discarded;
    an error here (e.g. too few rows for a batch method) is left to the real fit to report.
    """
    y = np.asarray(y)
    rows = np.concatenate([np.flatnonzero(y == label)[:rows_per_class]
                           for label in np.unique(y)])
    try:
        with ignored_warnings():  # tiny data: convergence warnings mean nothing here
            quiet = clone(estimator)
            if "verbose" in quiet.get_params(deep=False):
                quiet.set_params(verbose=0)
            quiet.fit(X[rows], y[rows])
    except (ValueError, ArithmeticError, RuntimeError):
        logger.debug("warm-up fit of %s failed; the timed fit compiles instead",
                     type(estimator).__name__)


class _AllFailed(ValueError):
    """Every grid point of the inner search failed."""


def check_inner_folds(y_train, inner_folds: int) -> None:
    """Refuse a training part whose smaller class has fewer rows than the inner folds that
    tune a grid (each inner fold needs both classes; else every grid point scores NaN and
    the search returns its first point as if chosen).

    Parameters
    ----------
    y_train : array-like of shape (n_samples,)
        Labels of the training part.
    inner_folds : int
        Folds of the inner stratified cross-validation.

    Raises
    ------
    ValueError
        Naming the smaller class's count and the folds.
    """
    fewest = int(np.unique(y_train, return_counts=True)[1].min())
    if fewest < inner_folds:
        raise ValueError(
            f"a training part holds {fewest} sample(s) of its smaller class, fewer than the "
            f"{inner_folds} inner folds that tune the grid: use more data or fewer outer "
            "folds, or fixed hyperparameters (grid='none', --grid none).")


def _search(estimator, grid, X_train, y_train, inner_folds, random_state, X_val, y_val,
            scoring="roc_auc"):
    """Return the grid point with the best inner-CV (or validation) ``scoring`` (the AUC, or a
    partial-AUC scorer); failures score NaN."""
    cv = StratifiedKFold(inner_folds, shuffle=True, random_state=random_state)
    X_search, y_search = X_train, y_train
    if X_val is None:
        check_inner_folds(y_train, inner_folds)
    if X_val is not None:
        X_search = (sp.vstack([X_train, X_val], format="csr") if sp.issparse(X_train)
                    else np.vstack([X_train, X_val]))
        y_search = np.concatenate([y_train, y_val])
        cv = PredefinedSplit(np.r_[np.full(len(y_train), -1), np.zeros(len(y_val))])
    search = GridSearchCV(estimator, {k: list(v) for k, v in grid.items()},
                          scoring=scoring, cv=cv, error_score=np.nan, refit=False)
    try:
        search.fit(X_search, y_search)
    except ValueError as exc:
        if "fits failed" not in str(exc):
            raise
        raise _AllFailed(str(exc)) from exc
    return dict(search.best_params_)


def convergence_curve(estimator, X_train, y_train, X_test, y_test, *, n_points=20,
                      random_state=0, copy=True):
    """Return test AUC against the number of training samples seen.

    Streaming estimators learn the shuffled training data chunk by chunk with
    ``partial_fit`` for ``max_iter`` passes; batch estimators are refitted
    with ``max_iter = 1 .. n_points`` (when they have it; the warnings of those runs cut
    short are not shown: the curve shows what they gave).

    Parameters
    ----------
    estimator : BaseAUCClassifier
        Estimator with the chosen hyperparameters.
    X_train, y_train, X_test, y_test : arrays
    n_points : int
        Number of points on the curve (at least 1). A streaming estimator gets the same
        number of points in each pass: ``n_points // max_iter`` of them, at least one and
        at most one per training row, so ``max_iter`` times that in all.
    random_state : int
        Seed of the sample order.
    copy : bool, default=True
        Learn on a clone of ``estimator``, leaving it as it is (as scikit-learn's
        ``learning_curve`` does); False: on ``estimator`` itself, which then holds the
        model of the last point (a wrapper that records its calls, for instance).

    Returns
    -------
    (samples_seen, auc) : tuple of ndarray
    """
    if not isinstance(n_points, Integral) or isinstance(n_points, bool) or n_points < 1:
        raise ValueError(f"n_points must be an int >= 1, got {n_points!r}.")
    n = len(y_train)
    seen, aucs = [], []
    if copy:
        estimator = clone(estimator)
    if hasattr(estimator, "partial_fit"):
        passes = estimator.get_params().get("max_iter", 1)
        rng = np.random.default_rng(random_state)
        chunks = min(max(1, n_points // passes), n)
        classes = np.unique(y_train)
        for _ in range(passes):
            order = rng.permutation(n)
            for part in np.array_split(order, chunks):
                estimator.partial_fit(X_train[part], y_train[part], classes=classes)
                seen.append((seen[-1] if seen else 0) + len(part))
                aucs.append(roc_auc_score(y_test, estimator.decision_function(X_test)))
    else:
        for k in range(1, n_points + 1):
            with ignored_warnings():  # a run cut short (a zero model, no convergence) is the
                estimator.set_params(max_iter=k).fit(X_train, y_train)  # curve's point
            seen.append(k * n)
            aucs.append(roc_auc_score(y_test, estimator.decision_function(X_test)))
    return np.asarray(seen), np.asarray(aucs)
