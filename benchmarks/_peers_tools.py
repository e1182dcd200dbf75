"""The tools of the peers benchmark behind one interface: ``fit(X, y)`` then ``scores(X)``.

Every tool gets the same arrays (the same splits and preprocessing) and is scored by the same
code (:func:`aucopt.metrics.roc_auc_score`). A :class:`Method` names a tool, its documented
defaults and the grid it is tuned over on the inner folds. The optional peers (Vowpal Wabbit,
River, LibAUC with torch) are used when they import; :func:`available` says which do.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.svm import LinearSVC

import aucopt

__all__ = ["Method", "available", "methods", "vw_lines"]


# LibAUC's 20 epochs of mini-batches in torch cost seconds per 10^4 rows: larger training
# sets are left out (and its grid search above a quarter of that)
LIBAUC_ROWS = 60_000
RIVER_ROWS = 60_000  # River learns row by row in Python
# the batch solvers of scikit-learn (L-BFGS, LIBLINEAR) take minutes on 10^6 hashed rows of
# d = 2^20 on this machine: the million-row stream is left to the one-pass tools and SGD
BATCH_ROWS = 400_000


def available() -> dict[str, bool]:
    """Which optional peers import here."""
    return {name: importlib.util.find_spec(module) is not None for name, module in
            (("Vowpal Wabbit", "vowpalwabbit"), ("River", "river"),
             ("LibAUC", "libauc"), ("torch", "torch"))}


@dataclass
class Method:
    """One row of the report: a tool with fixed settings, or tuned over ``grid``."""

    tool: str  # "aucopt", "scikit-learn", ...
    label: str
    make: object  # make(**params) -> model with fit(X, y) and scores(X)
    params: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)  # tuned on the inner folds when not empty
    max_features: int | None = None  # skipped above this many features (dense batches)
    max_rows: int | None = None  # skipped above this many training rows (too slow there)
    recommended: bool = False

    @property
    def tuned(self) -> bool:
        return bool(self.grid)


# ------------------------------------------------------------------ adapters
class Estimator:
    """A scikit-learn estimator; scores are its ``decision_function``."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at documented defaults
            self.estimator.fit(X, y)
        return self

    def scores(self, X):
        return self.estimator.decision_function(X)

    def describe(self) -> str:
        algorithm = getattr(self.estimator, "algorithm_", None)
        return algorithm or ""


class OnePass(Estimator):
    """``partial_fit`` over the rows once, in chunks of 10,000 (a stream)."""

    CHUNK = 10_000

    def fit(self, X, y):
        classes = np.unique(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for start in range(0, X.shape[0], self.CHUNK):
                self.estimator.partial_fit(X[start:start + self.CHUNK],
                                           y[start:start + self.CHUNK], classes=classes)
        return self


def vw_lines(X, y) -> list[bytes]:
    """LIBSVM-like Vowpal Wabbit lines ``label |f index:value ...`` (labels -1/1)."""
    X = sp.csr_matrix(X)
    binary = X.nnz and np.all(X.data == 1.0)
    out = []
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        cols = X.indices[lo:hi]
        if binary:
            feats = " ".join(map(str, cols.tolist()))
        else:
            feats = " ".join(f"{c}:{v:.7g}" for c, v in zip(cols.tolist(), X.data[lo:hi].tolist()))
        out.append(f"{1 if y[i] > 0 else -1} |f {feats}\n".encode())
    return out


class VowpalWabbit:
    """Vowpal Wabbit on a file (its own reader): logistic loss, one pass by default.

    ``prepare`` writes the file (not timed); ``fit`` runs ``vw -d file`` in-process.
    """

    _files: dict = {}  # id(X) -> path: folds are written once and shared by every setting

    def __init__(self, **options):
        self.options = {"loss_function": "logistic", **options}

    @classmethod
    def file_for(cls, X, y) -> str:
        key = (id(X), X.shape)
        if key not in cls._files:
            fd, path = tempfile.mkstemp(suffix=".vw", prefix="aucopt-peers-")
            with os.fdopen(fd, "wb") as handle:
                handle.writelines(vw_lines(X, y))
            cls._files[key] = (path, X)  # keep X alive: its id stays unique
        return cls._files[key][0]

    @classmethod
    def clear(cls) -> None:
        for path, _ in cls._files.values():
            os.unlink(path)
            if os.path.exists(path + ".cache"):  # written by vw for several passes
                os.unlink(path + ".cache")
        cls._files.clear()

    def prepare(self, X, y):
        self.file_for(X, y)

    def _args(self) -> str:
        return " ".join(f"--{k}" if v is True else f"--{k} {v}" for k, v in self.options.items())

    def fit(self, X, y):
        from vowpalwabbit import Workspace

        fd, self.model = tempfile.mkstemp(suffix=".model", prefix="aucopt-peers-")
        os.close(fd)
        path = self.file_for(X, y)
        cache = f" -c --cache_file {path}.cache -k" if int(self.options.get("passes", 1)) > 1 \
            else ""
        vw = Workspace(f"{self._args()} -d {path}{cache} -f {self.model} --quiet")
        vw.finish()
        return self

    def scores(self, X):
        from vowpalwabbit import Workspace

        path = self.file_for(X, np.ones(X.shape[0]))
        fd, preds = tempfile.mkstemp(suffix=".pred", prefix="aucopt-peers-")
        os.close(fd)
        vw = Workspace(f"-t -i {self.model} -d {path} -p {preds} --quiet")
        vw.finish()
        out = np.loadtxt(preds, ndmin=1)
        os.unlink(preds)
        os.unlink(self.model)
        return out


class RiverOnePass:
    """A River classifier, ``learn_one`` over the training rows once; scores P(y=1)."""

    def __init__(self, kind: str, lr: float | None = None):
        self.kind, self.lr = kind, lr

    def _model(self):
        from river import linear_model, optim

        if self.kind == "alma":
            return linear_model.ALMAClassifier()
        optimizer = optim.SGD(self.lr) if self.lr is not None else None
        return linear_model.LogisticRegression(optimizer=optimizer)

    def fit(self, X, y):
        self.model = self._model()
        X = sp.csr_matrix(X)
        for i in range(X.shape[0]):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            self.model.learn_one(dict(zip(X.indices[lo:hi].tolist(), X.data[lo:hi].tolist())),
                                 bool(y[i] > 0))
        return self

    def scores(self, X):
        X = sp.csr_matrix(X)
        out = np.empty(X.shape[0])
        for i in range(X.shape[0]):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            x = dict(zip(X.indices[lo:hi].tolist(), X.data[lo:hi].tolist()))
            if self.kind == "alma":  # a margin classifier: its raw score ranks
                out[i] = sum(self.model.w.get(k, 0.0) * v for k, v in x.items())
            else:
                out[i] = self.model.predict_proba_one(x).get(True, 0.0)
        return out


def methods(peers: dict[str, bool], seed: int = 0) -> list[Method]:
    """Every method of the report, the optional peers only when they import."""
    C = [0.01, 1.0, 100.0]
    alpha = [1e-5, 1e-4, 1e-3]
    out = [
        Method("aucopt", "AUCClassifier (auto)", lambda **p: Estimator(
            aucopt.make("auto", random_state=seed, **p)), recommended=True),
        Method("aucopt", "spam-l2 (defaults, 10 passes)", lambda **p: Estimator(
            aucopt.make("spam-l2", random_state=seed, **p))),
        Method("aucopt", "spam-l2 one pass", lambda **p: Estimator(
            aucopt.make("spam-l2", random_state=seed, **p)), params={"max_iter": 1}),
        Method("aucopt", "spam-l2 tuned", lambda **p: Estimator(
            aucopt.make("spam-l2", random_state=seed, **p)),
            grid=aucopt.algorithm_info("spam-l2")["quick_grid"]),
        Method("aucopt", "uni-log-batch tuned", lambda **p: Estimator(
            aucopt.make("uni-log-batch", random_state=seed, **p)),
            grid=aucopt.algorithm_info("uni-log-batch")["quick_grid"]),
        Method("scikit-learn", "LogisticRegression", lambda **p: Estimator(
            LogisticRegression(**p)), max_rows=BATCH_ROWS),
        Method("scikit-learn", "LogisticRegression balanced", lambda **p: Estimator(
            LogisticRegression(class_weight="balanced", **p)), max_rows=BATCH_ROWS),
        Method("scikit-learn", "LogisticRegression tuned", lambda **p: Estimator(
            LogisticRegression(**p)), grid={"C": C, "class_weight": [None, "balanced"]},
            max_rows=BATCH_ROWS),
        Method("scikit-learn", "SGDClassifier log-loss one pass", lambda **p: OnePass(
            SGDClassifier(loss="log_loss", random_state=seed, **p))),
        Method("scikit-learn", "SGDClassifier hinge one pass", lambda **p: OnePass(
            SGDClassifier(random_state=seed, **p))),
        Method("scikit-learn", "SGDClassifier log-loss epochs", lambda **p: Estimator(
            SGDClassifier(loss="log_loss", random_state=seed, **p))),
        Method("scikit-learn", "SGDClassifier hinge epochs", lambda **p: Estimator(
            SGDClassifier(random_state=seed, **p))),
        Method("scikit-learn", "SGDClassifier tuned", lambda **p: Estimator(
            SGDClassifier(random_state=seed, **p)),
            grid={"loss": ["log_loss", "hinge"], "alpha": alpha}),
        Method("scikit-learn", "LinearSVC (liblinear)", lambda **p: Estimator(
            LinearSVC(random_state=seed, **p)), max_rows=BATCH_ROWS),
        Method("scikit-learn", "LinearSVC tuned", lambda **p: Estimator(
            LinearSVC(random_state=seed, **p)), grid={"C": C}, max_rows=BATCH_ROWS),
    ]
    if peers.get("Vowpal Wabbit"):
        out += [
            Method("Vowpal Wabbit", "vw one pass (defaults)", lambda **p: VowpalWabbit(**p)),
            Method("Vowpal Wabbit", "vw tuned", lambda **p: VowpalWabbit(**p),
                   grid={"learning_rate": [0.1, 0.5, 2.0], "passes": [1, 5]}),
        ]
    if peers.get("River"):
        out += [
            Method("River", "LogisticRegression one pass", lambda **p: RiverOnePass("lr", **p),
                   max_rows=RIVER_ROWS),
            Method("River", "LogisticRegression tuned", lambda **p: RiverOnePass("lr", **p),
                   grid={"lr": [0.001, 0.01, 0.1]}, max_rows=RIVER_ROWS),
            Method("River", "ALMAClassifier one pass", lambda **p: RiverOnePass("alma"),
                   max_rows=RIVER_ROWS),
        ]
    if peers.get("LibAUC") and peers.get("torch"):
        from _peers_libauc import LibAUCLinear

        out += [
            Method("LibAUC", "PESG + AUCMLoss", lambda **p: LibAUCLinear("pesg", seed=seed, **p),
                   max_rows=LIBAUC_ROWS, max_features=10_000),
            Method("LibAUC", "PESG + AUCMLoss tuned", lambda **p: LibAUCLinear(
                "pesg", seed=seed, **p), grid={"lr": [0.01, 0.1, 1.0]},
                max_rows=LIBAUC_ROWS // 4, max_features=10_000),
            Method("LibAUC", "PDSCA + CompositionalAUCLoss", lambda **p: LibAUCLinear(
                "pdsca", seed=seed, **p), max_rows=LIBAUC_ROWS, max_features=10_000),
        ]
    return out
