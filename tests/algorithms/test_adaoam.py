"""AdaOAM against the slow reference; the H-norm projection against KKT and scipy."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize

from aucopt._kernels.adaoam import project_l2_ball_diag
from aucopt.linear_model import AdaOAMClassifier

from ..reference import adaoam as ref
from ..reference import opauc as ref_opauc


def _orders(seed, n, passes):
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize("eta, lam", [("auto", 1e-3), (0.05, 2.0)])
def test_matches_reference_same_order(eta, lam, german, as_format):
    X, y = german
    X, y = X[:250], y[:250]
    est = AdaOAMClassifier(eta=eta, lam=lam, delta=1e-3, max_iter=2,
                           random_state=2).fit(as_format(X), y)
    w, t = ref.adaoam(X, y, _orders(2, len(y), 2), eta=est.eta_, lam=lam, delta=1e-3)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert np.linalg.norm(est.coef_[0]) <= 1.0 / np.sqrt(lam) * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_projection_is_optimal(seed):
    rng = np.random.default_rng(seed)
    d = 6
    v = rng.normal(size=d) * 3
    h = rng.uniform(0.01, 5.0, size=d)
    r = 0.5 * np.linalg.norm(v) * rng.uniform(0.05, 0.95)
    w = v.copy()
    mu = project_l2_ball_diag(w, h, r)
    # KKT: w = h v / (h + mu), mu > 0, ||w|| = r
    assert mu > 0
    assert_allclose(np.linalg.norm(w), r, rtol=1e-12)
    assert_allclose(w, h * v / (h + mu), rtol=1e-12)
    assert_allclose(w, ref.project_diag(v, h, r), rtol=1e-10, atol=1e-12)
    res = minimize(lambda x: np.sum(h * (x - v) ** 2), np.zeros(d),
                   jac=lambda x: 2 * h * (x - v), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda x: r * r - x @ x,
                                 "jac": lambda x: -2 * x}], options={"ftol": 1e-14})
    assert np.sum(h * (w - v) ** 2) <= res.fun * (1 + 1e-8)
    assert_allclose(w, res.x, atol=1e-5)


def test_projection_keeps_inside_points():
    w = np.array([0.1, -0.2])
    assert project_l2_ball_diag(w, np.array([1.0, 3.0]), 1.0) == 0.0
    assert_allclose(w, [0.1, -0.2], rtol=0, atol=0)


def test_ranks_like_the_least_squares_optimum(german):
    X, y = german
    Xtr, ytr, Xte, yte = X[:700], y[:700], X[700:], y[700:]
    from aucopt.metrics import roc_auc_score

    ls = roc_auc_score(yte, Xte @ ref_opauc.closed_form(Xtr, ytr, 1e-2))
    assert AdaOAMClassifier(random_state=0).fit(Xtr, ytr).score(Xte, yte) > ls - 0.02


def test_weighted_matches_weighted_reference(german, as_format):
    """Weighted class statistics; the row's gradient v g enters G and the step."""
    X, y = german
    X, y = X[:200], y[:200]
    sw = np.random.default_rng(4).uniform(0.2, 3.0, len(y))
    est = AdaOAMClassifier(eta=0.05, lam=1e-3, delta=1e-3, max_iter=2, random_state=2)
    est.fit(as_format(X), y, sample_weight=sw)
    w, t = ref.adaoam(X, y, _orders(2, len(y), 2), eta=0.05, lam=1e-3, delta=1e-3,
                      sample_weight=sw)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    plain = ref.adaoam(X, y, _orders(2, len(y), 2), eta=0.05, lam=1e-3, delta=1e-3)[0]
    assert not np.allclose(w, plain, rtol=1e-3)
