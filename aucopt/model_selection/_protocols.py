"""The papers' evaluation protocols as lists of splits (the paper's protocol).

Every protocol returns a list of :class:`Split`: which rows train, which
(optionally) validate, which test, and the seed of the estimator that learns
that split. All splits are stratified and fully determined by an int ``random_state``;
``None`` (or a ``RandomState``) draws that int afresh on each call, as scikit-learn's
splitters read ``None``: such splits differ from call to call (see :func:`repeated_kfold`).

* ``"kfold"``: repeated stratified k-fold, e.g. 5 x 5 (Gao et al. 2013, thesis ch. 3/5/6).
* ``"holdout"``: repeated stratified 80/20 holdout (Dan & Sahoo, thesis ch. 4).
* ``"train-val-test"``: one random stratified 4:1:1 split, model selection on
  the validation part (Liu et al. 2018); its repeats keep the split and change only the
  estimator seed (the order of the training data), as Liu et al. 2018 does.
* ``"given-test"``: the official training rows train; the official test set is
  halved (stratified) into validation and test (Liu et al. 2018 for a9a and w8a).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.utils import check_random_state

__all__ = ["Split", "PROTOCOLS", "repeated_kfold", "repeated_holdout", "train_val_test",
           "given_test_halved", "make_splits"]

PROTOCOLS = ("kfold", "holdout", "train-val-test", "given-test")


@dataclass(frozen=True)
class Split:
    """One outer split of a protocol.

    Attributes
    ----------
    repeat, fold : int
        Position in the protocol (``fold`` is 0 for holdout-type protocols).
    train, test : ndarray of int
        Row indices.
    validation : ndarray of int or None
        Rows for model selection; ``None`` means inner cross-validation on ``train``.
    seed : int
        Seed of the estimator (and of the inner CV) for this split.
    """

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray
    validation: np.ndarray | None = None
    seed: int = 0


def _labels(y) -> np.ndarray:
    """Return ``y`` as an array; refuse anything but a 1-d array of two classes (the AUC of
    every split would be undefined, and every fit on it would fail)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise ValueError("y must be a non-empty 1-d array of labels.")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(
            f"AUC needs labels of exactly two classes; y holds {classes.size} "
            f"({', '.join(str(c) for c in classes.tolist()[:10])}). "
            + ("Every row has the same label." if classes.size == 1 else
               "Binarise it first (aucopt.datasets.binarize)."))
    return y


def _seed(random_state) -> int:
    """Return the int seed a protocol derives its seeds from: ``random_state`` itself, or
    one drawn from numpy's global generator (``None``) or from a ``RandomState``."""
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return int(random_state)
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    raise ValueError(f"random_state must be an int, a numpy RandomState or None, got "
                     f"{random_state!r}.")


def _repeat_seed(seed: int, r: int) -> int:
    """The seed of repeat ``r``: ``seed + r``, modulo 2**32 (the seeds numpy accepts: a
    seed of 2**32 - 1 is valid for one repeat, so its next repeats must be too)."""
    return (seed + r) % 2**32


def _enough_of_each(y: np.ndarray, parts: int, what: str, where: str = "",
                    advice: str = "Use k-fold with fewer folds, or more data.") -> None:
    """Refuse labels whose smaller class cannot put a sample in each of the ``parts`` a
    stratified split makes (scikit-learn's refusal names its own groups); ``advice`` may
    name ``{fewest}``."""
    fewest = int(np.unique(y, return_counts=True)[1].min())
    if fewest < parts:
        raise ValueError(
            f"the smaller class has {fewest} sample(s){where}, fewer than the {parts} {what}: "
            "some of them would hold none of it, and their AUC is undefined. "
            + advice.format(fewest=fewest))


def check_both_classes(y, repeat: int, **parts) -> None:
    """Refuse a split one of whose ``parts`` (name -> row indices) holds a single class:
    its AUC (a test part's, a validation part's) is undefined, and no fit on it has a
    ranking to learn."""
    for name, rows in parts.items():
        held = np.unique(y[rows])
        if held.size < 2:
            raise ValueError(
                f"the {name} part of repeat {repeat} holds only the class {held.tolist()} "
                f"({rows.size} rows): its AUC is undefined. The smaller class has "
                f"{int(np.unique(y, return_counts=True)[1].min())} sample(s); give that part "
                "a larger share (test_size, ratios) or use k-fold.")


def repeated_kfold(y, *, folds=5, repeats=5, random_state=0) -> list[Split]:
    """Return ``repeats`` x ``folds`` stratified k-fold splits.

    Parameters
    ----------
    y : array-like of shape (n,)
    folds : int, default=5
    repeats : int, default=5
    random_state : int, RandomState instance or None, default=0
        Repeat ``r`` uses seed ``random_state + r`` (modulo 2**32). ``None``, as in
        scikit-learn, draws that seed from numpy's global generator on each call, so the
        splits are not reproducible from call to call (a ``RandomState`` draws it from
        itself); every ``Split.seed`` is still an int.

    Returns
    -------
    list of Split
    """
    y, random_state = _labels(y), _seed(random_state)
    if folds < 2 or repeats < 1:
        raise ValueError(f"kfold needs folds >= 2 and repeats >= 1, got {folds}, {repeats}.")
    _enough_of_each(y, folds, "folds",
                    advice="Use at most {fewest} folds (the command line's --folds).")
    out = []
    for r in range(repeats):
        seed = _repeat_seed(random_state, r)
        cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
        for f, (train, test) in enumerate(cv.split(np.zeros(len(y)), y)):
            out.append(Split(r, f, train, test, None, seed))
    return out


def repeated_holdout(y, *, test_size=0.2, repeats=20, random_state=0) -> list[Split]:
    """Return ``repeats`` stratified random train/test splits with ``test_size`` held out.

    Parameters
    ----------
    y : array-like of shape (n,)
    test_size : float, default=0.2
    repeats : int, default=20
    random_state : int, RandomState instance or None, default=0
        Repeat ``r`` uses seed ``random_state + r`` modulo 2**32 (``None``: see
        :func:`repeated_kfold`). Refused when a test part would hold a single class.

    Returns
    -------
    list of Split
    """
    y, random_state = _labels(y), _seed(random_state)
    if not 0 < test_size < 1 or repeats < 1:
        raise ValueError(f"holdout needs 0 < test_size < 1 and repeats >= 1, got {test_size}, "
                         f"{repeats}.")
    _enough_of_each(y, 2, "parts of a holdout (train, test)")
    idx = np.arange(len(y))
    out = []
    for r in range(repeats):
        seed = _repeat_seed(random_state, r)
        train, test = train_test_split(idx, test_size=test_size, stratify=y, random_state=seed)
        check_both_classes(y, r, train=train, test=test)
        out.append(Split(r, 0, np.sort(train), np.sort(test), None, seed))
    return out


def train_val_test(y, *, ratios=(4, 1, 1), repeats=5, random_state=0) -> list[Split]:
    """Return one stratified train/validation/test split in ``ratios``, ``repeats`` times.

    The split is drawn once (seed ``random_state``); repeat ``r`` keeps it and
    only changes the estimator seed to ``random_state + r`` (modulo 2**32; Liu et al. 2018:
    "averaged over 5 random runs over the training data"). Refused when a part would
    hold a single class.

    Parameters
    ----------
    y : array-like of shape (n,)
    ratios : tuple of 3 positive numbers, default=(4, 1, 1)
    repeats : int, default=5
    random_state : int, RandomState instance or None, default=0
        ``None``: see :func:`repeated_kfold`.

    Returns
    -------
    list of Split
    """
    y, random_state = _labels(y), _seed(random_state)
    ratios = np.asarray(ratios, dtype=float)
    if ratios.shape != (3,) or np.any(ratios <= 0) or repeats < 1:
        raise ValueError(f"train-val-test needs three positive ratios and repeats >= 1, got "
                         f"{tuple(ratios)}, {repeats}.")
    _enough_of_each(y, 3, "parts of train-val-test")
    idx = np.arange(len(y))
    rest_share = (ratios[1] + ratios[2]) / ratios.sum()
    train, rest = train_test_split(idx, test_size=rest_share, stratify=y,
                                   random_state=random_state)
    val, test = train_test_split(rest, test_size=ratios[2] / (ratios[1] + ratios[2]),
                                 stratify=y[rest], random_state=random_state)
    train, val, test = np.sort(train), np.sort(val), np.sort(test)
    check_both_classes(y, 0, train=train, validation=val, test=test)
    return [Split(r, 0, train, test, val, _repeat_seed(random_state, r))
            for r in range(repeats)]


def given_test_halved(y_train, y_test, *, repeats=5, random_state=0) -> list[Split]:
    """Official training rows train; the official test set is halved into validation and test.

    Indices refer to the rows of the training set followed by the rows of the
    test set (``scipy.sparse.vstack([X_train, X_test])``), so the test rows
    start at ``len(y_train)``. As in :func:`train_val_test` the halving is drawn
    once and the repeats only change the estimator seed.

    Parameters
    ----------
    y_train, y_test : array-like
    repeats : int, default=5
    random_state : int, RandomState instance or None, default=0
        ``None``: see :func:`repeated_kfold`.

    Returns
    -------
    list of Split
    """
    y_train, y_test = _labels(y_train), _labels(y_test)
    random_state = _seed(random_state)
    if repeats < 1:
        raise ValueError(f"given-test needs repeats >= 1, got {repeats}.")
    _enough_of_each(y_test, 2, "parts of the halved test set (validation, test)",
                    " in the test set")
    n = len(y_train)
    rows = np.arange(n, n + len(y_test))
    val, test = train_test_split(rows, test_size=0.5, stratify=y_test, random_state=random_state)
    train = np.arange(n)
    check_both_classes(np.concatenate([y_train, y_test]), 0, validation=val, test=test)
    return [Split(r, 0, train, np.sort(test), np.sort(val), _repeat_seed(random_state, r))
            for r in range(repeats)]


def make_splits(kind, y, *, folds=5, repeats=5, test_size=0.2, ratios=(4, 1, 1), n_train=None,
                random_state=0) -> list[Split]:
    """Return the splits of a named protocol.

    Parameters
    ----------
    kind : {"kfold", "holdout", "train-val-test", "given-test"}
    y : array-like of shape (n,)
        Labels of all rows (for ``"given-test"``: training rows then test rows).
    folds, repeats, test_size, ratios :
        Protocol sizes (see the functions above).
    n_train : int, optional
        ``"given-test"`` only: how many leading rows of ``y`` are the official training set.
    random_state : int, RandomState instance or None, default=0
        ``None``: see :func:`repeated_kfold`.

    Returns
    -------
    list of Split
    """
    if kind == "kfold":
        return repeated_kfold(y, folds=folds, repeats=repeats, random_state=random_state)
    if kind == "holdout":
        return repeated_holdout(y, test_size=test_size, repeats=repeats,
                                random_state=random_state)
    if kind == "train-val-test":
        return train_val_test(y, ratios=ratios, repeats=repeats, random_state=random_state)
    if kind == "given-test":
        if n_train is None:
            raise ValueError("protocol 'given-test' needs n_train (rows of the official "
                             "training set).")
        y = _labels(y)
        if not 0 < n_train < len(y):
            raise ValueError(f"n_train must count the rows of the official training set, "
                             f"0 < n_train < {len(y)}; got {n_train}.")
        return given_test_halved(y[:n_train], y[n_train:], repeats=repeats,
                                 random_state=random_state)
    raise ValueError(f"Unknown protocol {kind!r}; use one of {PROTOCOLS}.")
