"""aucopt.datasets.make_drift_stream: the synthetic drifting stream of the prequential report."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from aucopt.datasets import make_drift_stream


def test_make_drift_stream_changes_the_ranking_rule():
    X, y = make_drift_stream(4000, 10, random_state=0)
    X2, y2 = make_drift_stream(4000, 10, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert 0.25 < y.mean() < 0.35
    old = LogisticRegression().fit(X[:2000], y[:2000])
    assert roc_auc_score(y[:2000], old.decision_function(X[:2000])) > 0.85
    assert abs(roc_auc_score(y[2000:], old.decision_function(X[2000:])) - 0.5) < 0.1
    gradual = make_drift_stream(1000, 4, drift_width=200, random_state=0)[1]
    assert gradual.shape == (1000,)
    for bad in ({"n_features": 1}, {"drift_at": 1.5}, {"positive_fraction": 1.0},
                {"noise": -1.0}, {"noise": float("inf")}, {"n_samples": 2.5},
                {"drift_width": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_drift_stream(**{"n_samples": 100, "n_features": 4, **bad})
