"""Prequential (test-then-train) run of every streaming tool on a drifting stream.

Rows arrive in chunks of ``CHUNK``; each chunk is scored by the model as it stands, then
learned. River learns row by row (``learn_one``), Vowpal Wabbit example by example through its
Python binding, the scikit-learn style learners with ``partial_fit`` per chunk. The windowed AUC
is that of the last ``window`` scores.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.linear_model import SGDClassifier

import aucopt
from aucopt.datasets import make_drift_stream
from aucopt.metrics import roc_auc_score

__all__ = ["CHUNK", "prequential"]

CHUNK = 100


class _Chunked:
    def __init__(self, estimator):
        self.estimator = estimator

    def score_chunk(self, X):
        if not hasattr(self.estimator, "classes_"):
            return np.zeros(X.shape[0])
        return self.estimator.decision_function(X)

    def learn_chunk(self, X, y):
        self.estimator.partial_fit(X, y, classes=np.array([-1, 1]))


class _River:
    def __init__(self, kind):
        from river import linear_model

        self.kind = kind
        self.model = (linear_model.ALMAClassifier() if kind == "alma"
                      else linear_model.LogisticRegression())

    def score_chunk(self, X):
        rows = [dict(enumerate(x.tolist())) for x in X]
        if self.kind == "alma":
            return np.array([sum(self.model.w.get(k, 0.0) * v for k, v in r.items())
                             for r in rows])
        return np.array([self.model.predict_proba_one(r).get(True, 0.0) for r in rows])

    def learn_chunk(self, X, y):
        for x, label in zip(X, y):
            self.model.learn_one(dict(enumerate(x.tolist())), bool(label > 0))


class _VW:
    def __init__(self):
        from vowpalwabbit import Workspace

        self.vw = Workspace("--loss_function logistic --quiet")

    @staticmethod
    def _line(x):
        return "|f " + " ".join(f"{j}:{v:.7g}" for j, v in enumerate(x.tolist()))

    def score_chunk(self, X):
        return np.array([self.vw.predict(self._line(x)) for x in X])

    def learn_chunk(self, X, y):
        for x, label in zip(X, y):
            self.vw.learn(f"{1 if label > 0 else -1} {self._line(x)}")


def learners(peers: dict) -> dict:
    """name -> factory of every streaming learner available here."""
    out = {
        "aucopt AUCClassifier (auto: spam-l2)": lambda: _Chunked(aucopt.make("auto",
                                                                             random_state=0)),
        "aucopt spam-l2 stats=online decay=1e-3": lambda: _Chunked(aucopt.make(
            "spam-l2", stats="online", decay=1e-3, random_state=0)),
        "scikit-learn SGDClassifier log-loss": lambda: _Chunked(SGDClassifier(
            loss="log_loss", random_state=0)),
    }
    if peers.get("River"):
        out["River LogisticRegression"] = lambda: _River("lr")
        out["River ALMAClassifier"] = lambda: _River("alma")
    if peers.get("Vowpal Wabbit"):
        out["Vowpal Wabbit (defaults)"] = _VW
    return out


def prequential(peers: dict, n_samples: int = 20_000, window: int = 1000,
                every: int = 500) -> dict:
    """Run every learner on one drifting stream; return curves and totals per learner."""
    X, y = make_drift_stream(n_samples, 20, drift_at=0.5, random_state=0)
    y = np.where(y > 0, 1, -1)
    results = {}
    for name, factory in learners(peers).items():
        model, scores = factory(), np.empty(n_samples)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for lo in range(0, n_samples, CHUNK):
                hi = min(lo + CHUNK, n_samples)
                scores[lo:hi] = model.score_chunk(X[lo:hi])
                model.learn_chunk(X[lo:hi], y[lo:hi])
        seconds = time.perf_counter() - start
        points = [(t, float(roc_auc_score(y[t - window:t] > 0, scores[t - window:t])))
                  for t in range(window, n_samples + 1, every)]
        results[name] = {"seconds": seconds, "curve": points,
                         "auc": float(roc_auc_score(y > 0, scores)),
                         "after_drift": float(roc_auc_score(y[n_samples // 2:] > 0,
                                                            scores[n_samples // 2:]))}
    return {"n_samples": n_samples, "window": window, "drift_at": n_samples // 2,
            "learners": results}
