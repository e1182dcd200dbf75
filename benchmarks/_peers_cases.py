"""The cases of the peers benchmark: real datasets, imbalanced and hashed sparse synthetic data.

A case yields outer splits ``(X_train, y_train, X_test, y_test)`` already preprocessed (the
preprocessor fitted on the training part only), labels in {-1, +1}. Everything is seeded: a
rerun gives the same rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold, train_test_split

from aucopt.datasets import make_auc_problem, make_preprocessor

__all__ = ["Case", "hashed_stream", "token_labels", "imbalanced", "real_cases",
           "MIRROR_DATASETS", "TUNE_ROWS"]

MIRROR_DATASETS = ("diabetes", "german.numer", "splice", "sylva", "mnist5k", "shuttle", "a9a")
# the note of a run without the mirror (a merged report drops it when a part ran them)
NO_MIRROR = ("no dataset mirror (set AUCOPT_DATA_MIRROR to a directory of LIBSVM .bz2 files): "
             "the real datasets are skipped")
SMALL = 5_000  # datasets up to this many rows are split into OUTER_FOLDS folds, others held out
OUTER_FOLDS = 3
HOLDOUT = 0.3
SEED = 0
TUNE_ROWS = 5_000  # grid searches on the inner folds of at most this many training rows


@dataclass
class Case:
    """A named source of outer splits."""

    name: str
    splits: object  # () -> iterator of (X_train, y_train, X_test, y_test)
    note: str = ""
    sparse_high_dim: bool = False
    tune_rows: int | None = None  # tuning on the first rows of the training part
    info: dict = field(default_factory=dict)


def _scaled(X_train, X_test, scheme):
    if scheme == "none":
        return X_train, X_test
    pre = make_preprocessor(scheme).fit(X_train)
    return pre.transform(X_train), pre.transform(X_test)


def _signed(y):
    return np.where(np.asarray(y) > 0, 1, -1)


def _outer(X, y, scheme, folds=OUTER_FOLDS):
    y = _signed(y)
    if X.shape[0] <= SMALL:
        parts = StratifiedKFold(folds, shuffle=True, random_state=SEED).split(X, y)
    else:
        idx = np.arange(X.shape[0])
        train, test = train_test_split(idx, test_size=HOLDOUT, stratify=y, random_state=SEED)
        parts = [(np.sort(train), np.sort(test))]
    for train, test in parts:
        Xtr, Xte = _scaled(X[train], X[test], scheme)
        yield Xtr, y[train], Xte, y[test]


def real_cases(scheme: str, names=MIRROR_DATASETS, quick: bool = False) -> tuple[list, str]:
    """The datasets of the mirror (``AUCOPT_DATA_MIRROR``); ``([], message)`` without it."""
    mirror = os.environ.get("AUCOPT_DATA_MIRROR")
    if not mirror or not os.path.isdir(mirror):
        return [], NO_MIRROR
    from aucopt.datasets import fetch

    cases = []
    for name in names:
        if not os.path.exists(os.path.join(mirror, f"{name}.bz2")):
            continue

        def splits(name=name):
            X, y = fetch(name, mirror=mirror)
            if name == "a9a":  # the LIBSVM test file is the test split
                Xt, yt = fetch("a9a.t", mirror=mirror)
                Xt = sp.csr_matrix(Xt)[:, :X.shape[1]] if sp.issparse(Xt) else Xt[:, :X.shape[1]]
                # binary features: scaling would only densify them
                yield sp.csr_matrix(X), _signed(y), sp.csr_matrix(Xt), _signed(yt)
                return
            if quick:
                keep = np.random.default_rng(SEED).permutation(X.shape[0])[:2000]
                X, y = X[np.sort(keep)], np.asarray(y)[np.sort(keep)]
            X = X.toarray() if sp.issparse(X) else X
            yield from _outer(X, y, scheme)

        folds = ("a9a.t as the test set" if name == "a9a" else
                 f"3 stratified folds up to {SMALL:,} rows, else a stratified 30% test part")
        folds += f"; tuning on the first {TUNE_ROWS:,} training rows"
        cases.append(Case(name, splits, note=folds, tune_rows=TUNE_ROWS))
    return cases, ""


def imbalanced(positive_rate: float, n: int, d: int = 50) -> Case:
    """Two Gaussian classes (``make_auc_problem``) with ``positive_rate`` positives, 30% test."""

    def splits():
        X, y = make_auc_problem(n, d, pos_rate=positive_rate, separation=1.5,
                                random_state=int(1e6 * positive_rate))
        yield from _outer(X, y, "standard")

    return Case(f"synthetic {positive_rate:.1%} positives", splits,
                note=f"n={n:,}, d={d}, Gaussian classes; 30% test; tuning on the first 50,000 "
                "training rows", tune_rows=50_000)


def hashed_rows(n: int, d: int, nnz: int, rng, zipf: float = 1.1,
                binary: bool = True) -> sp.csr_matrix:
    """Binary rows of ``nnz`` tokens drawn from a Zipf law (exponent ``zipf``) and hashed
    into ``d`` columns (``binary=False``: each column's count of tokens)."""
    tokens = rng.zipf(zipf, size=(n, nnz)).astype(np.uint64)
    cols = ((tokens * np.uint64(2654435761)) % np.uint64(d)).astype(np.int32)
    cols.sort(axis=1)
    X = sp.csr_matrix((np.ones(n * nnz), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    X.sum_duplicates()
    if binary:
        X.data[:] = 1.0  # a token present or not (repeats of frequent tokens merged)
    return X


def token_labels(tokens, nnz: int, positives: float, rng) -> np.ndarray:
    """Labels in {-1, +1} of binary token rows: a Gaussian weight per column, the rows'
    scores over ``sqrt(nnz)`` plus logistic noise (scale 0.3), thresholded so that a share
    ``positives`` of the rows is positive."""
    margin = np.asarray(tokens @ rng.normal(size=tokens.shape[1])).ravel() / np.sqrt(nnz)
    z = margin + rng.logistic(size=margin.size) * 0.3
    return np.where(z > np.quantile(z, 1.0 - positives), 1, -1)


def hashed_stream(n_train: int, n_test: int, d: int = 2**20, nnz: int = 50,
                  tune_rows: int = 100_000) -> Case:
    """A hashed sparse stream: Zipf tokens, a logistic ground truth, 20% positives.

    Rows draw ``nnz`` tokens (about 0.85 ``nnz`` distinct: frequent tokens repeat); the label
    thresholds a linear score of the tokens plus logistic noise (Bayes AUC about 0.92).
    """

    def splits():
        rng = np.random.default_rng(SEED + 7)
        X = hashed_rows(n_train + n_test, d, nnz, rng)
        y = token_labels(X, nnz, 0.2, rng)
        yield X[:n_train], y[:n_train], X[n_train:], y[n_train:]

    return Case(f"hashed sparse stream d=2^{int(np.log2(d))}", splits,
                note=f"{n_train:,} training rows ({nnz} tokens each), {n_test:,} test rows; "
                f"tuning on the first {tune_rows:,}",
                sparse_high_dim=True, tune_rows=tune_rows)
