"""SPDAM against the slow reference, the closed form and the pairwise objective."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from aucopt.datasets import make_auc_problem
from aucopt.linear_model import SPDAMClassifier

from ..reference import spdam as ref


def _batches(seed, n, m, epochs, shuffle=True):
    """Replay the estimator's generator: the base's pass order, then each batch."""
    rng = np.random.default_rng(seed)
    if shuffle:
        rng.permutation(n)
        return [rng.choice(n, size=m, replace=False) for _ in range(epochs * -(-n // m))]
    return [(m * k + np.arange(m)) % n for k in range(epochs * -(-n // m))]


@pytest.mark.parametrize("params", ["rederived", "thesis"])
@pytest.mark.parametrize("shuffle", [True, False])
def test_matches_reference_same_batches(params, shuffle, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = SPDAMClassifier(lam=1e-2, batch_size=0.1, params=params, tol=0.0, max_iter=4,
                          shuffle=shuffle, random_state=3).fit(as_format(X), y)
    w = ref.spdam(X, y, _batches(3, 300, 30, 4, shuffle), lam=1e-2, thesis=params == "thesis")
    assert est.t_ == 40 and est.n_iter_ == 4
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_odd_batch_size_wraps_around(german, as_format):
    X, y = german
    X, y = X[:103], y[:103]
    est = SPDAMClassifier(lam=1e-1, batch_size=10, tol=0.0, max_iter=3, params="rederived",
                          shuffle=False).fit(as_format(X), y)
    w = ref.spdam(X, y, _batches(0, 103, 10, 3, shuffle=False), lam=1e-1)
    assert est.t_ == 33
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("params", ["rederived", "thesis"])
def test_weighted_matches_weighted_reference(params, german, as_format):
    """Issue #19: weighted statistics, coupling rows scaled by sqrt(n w_i / W)."""
    X, y = german
    X, y = X[:300], y[:300]
    sw = np.random.default_rng(4).uniform(0.2, 3.0, size=len(y))
    est = SPDAMClassifier(lam=1e-2, batch_size=0.1, params=params, tol=0.0, max_iter=3,
                          random_state=3).fit(as_format(X), y, sample_weight=sw)
    w = ref.spdam(X, y, _batches(3, 300, 30, 3), lam=1e-2, thesis=params == "thesis",
                  sample_weight=sw)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_integer_weights_converge_to_the_closed_form_of_repeated_rows():
    """The weighted problem is the problem of the repeated rows: same minimiser."""
    X, y = make_auc_problem(300, 6, separation=1.0, random_state=2)
    sw = np.arange(300) % 3 + 1.0
    rep = np.repeat(np.arange(300), sw.astype(int))
    w_star = ref.closed_form(X[rep], np.where(y[rep] > 0, 1.0, -1.0), 1e-2)
    est = SPDAMClassifier(lam=1e-2, batch_size=30, params="rederived", tol=1e-12, max_iter=2000,
                          random_state=0).fit(X, y, sample_weight=sw)
    assert_allclose(est.coef_[0], w_star, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("params", ["rederived", "thesis"])
def test_converges_to_the_closed_form(params):
    X, y = make_auc_problem(400, 6, separation=1.0, random_state=1)
    ys = np.where(y > 0, 1.0, -1.0)
    w_star = ref.closed_form(X, ys, 1e-2)
    est = SPDAMClassifier(lam=1e-2, batch_size=40, params=params, tol=1e-12, max_iter=2000,
                          random_state=0).fit(X, y)
    assert_allclose(est.coef_[0], w_star, rtol=1e-7, atol=1e-9)
    # and the closed form is the minimiser of the objective written over all pairs
    grad = np.array([(ref.objective(X, ys, w_star + h, 1e-2)
                      - ref.objective(X, ys, w_star - h, 1e-2)) / 2e-6
                     for h in 1e-6 * np.eye(6)])
    assert np.abs(grad).max() < 1e-6


def test_tol_stops_early_and_error_shrinks_linearly():
    X, y = make_auc_problem(400, 6, separation=1.0, random_state=1)
    w_star = ref.closed_form(X, np.where(y > 0, 1.0, -1.0), 1e-1)
    errors = [np.linalg.norm(SPDAMClassifier(lam=1e-1, batch_size=40, tol=0.0, max_iter=k,
                                             random_state=0).fit(X, y).coef_[0] - w_star)
              for k in (20, 40, 60)]
    assert errors[2] / errors[1] < 0.5 and errors[1] / errors[0] < 0.5
    est = SPDAMClassifier(lam=1e-1, batch_size=40, tol=1e-6, max_iter=10_000,
                          random_state=0).fit(X, y)
    assert est.n_iter_ < 10_000
