"""VRSPAM against the slow reference, SPAM's closed form and its linear rate."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from aucopt.datasets import make_auc_problem, make_preprocessor
from aucopt.linear_model import SPAML2Classifier, VRSPAML2Classifier, VRSPAMNetClassifier

from ..reference import spam as spam_ref
from ..reference import vrspam as ref


def _draws(seed, n, inner, stages, shuffle=True):
    """Replay the estimator's generator: the SPAM pass order, then each stage's picks."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(n) if shuffle else np.arange(n)
    return order, [rng.integers(0, n, size=inner) for _ in range(stages)]


@pytest.mark.parametrize("penalty", ["l2", "net"])
@pytest.mark.parametrize("init", ["spam", "zeros"])
def test_matches_reference_same_draws(penalty, init, german, as_format):
    X, y = german
    X, y = X[:200], y[:200]
    beta1 = 1e-3 if penalty == "net" else 0.0
    params = dict(beta=1e-3, eta=0.01, inner=150, init=init, tol=0.0, max_iter=3,
                  random_state=5)
    est = (VRSPAMNetClassifier(beta1=beta1, **params) if penalty == "net"
           else VRSPAML2Classifier(**params)).fit(as_format(X), y)
    order, picks = _draws(5, len(y), 150, 3)
    snaps = ref.vrspam(X, y, picks, beta=1e-3, beta1=beta1, eta=0.01,
                       spam_order=order if init == "spam" else None)
    assert est.n_iter_ == 3 and est.t_ == 450
    assert_allclose(est.coef_[0], snaps[-1], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("penalty", ["l2", "net"])
def test_weighted_matches_weighted_reference(penalty, german, as_format):
    """Issue #19: weighted statistics and full gradient, inner steps scaled by n w_i / W."""
    X, y = german
    X, y = X[:150], y[:150]
    sw = np.random.default_rng(2).uniform(0.2, 3.0, size=len(y))
    beta1 = 1e-3 if penalty == "net" else 0.0
    params = dict(beta=1e-3, eta=0.01, inner=100, tol=0.0, max_iter=2, random_state=5)
    est = (VRSPAMNetClassifier(beta1=beta1, **params) if penalty == "net"
           else VRSPAML2Classifier(**params)).fit(as_format(X), y, sample_weight=sw)
    order, picks = _draws(5, len(y), 100, 2)
    snaps = ref.vrspam(X, y, picks, beta=1e-3, beta1=beta1, eta=0.01, spam_order=order,
                       sample_weight=sw)
    assert_allclose(est.coef_[0], snaps[-1], rtol=1e-10, atol=1e-13)


def test_spam_start_is_one_spam_pass(german):
    X, y = german
    spam = SPAML2Classifier(beta=1e-3, max_iter=1, t0=0.0, random_state=2).fit(X, y)
    est = VRSPAML2Classifier(beta=1e-3, max_iter=1, inner=1, eta=1e-12, tol=0.0,
                             eta0=spam.eta0_, random_state=2).fit(X, y)
    # one inner step with a negligible step leaves the SPAM pass's average in place
    assert_allclose(est.coef_[0], spam.coef_[0], rtol=1e-8, atol=1e-12)


def test_linear_rate_to_the_closed_form():
    X, y = make_auc_problem(300, 5, separation=1.5, random_state=3)
    X = make_preprocessor("l2-rows").fit_transform(X)
    ys = np.where(y > 0, 1.0, -1.0)
    w_star = spam_ref.closed_form(X, ys, 1e-2)
    dist = []
    for stages in range(1, 11):
        est = VRSPAML2Classifier(beta=1e-2, eta=0.05, tol=0.0, max_iter=stages,
                                 random_state=0).fit(X, y)
        dist.append(np.linalg.norm(est.coef_[0] - w_star))
    ratios = np.array(dist[1:]) / np.array(dist[:-1])
    assert np.all(ratios < 0.3), ratios  # geometric decrease, every stage
    assert dist[-1] < 1e-7 * dist[0]


def test_default_step_converges_and_tol_stops_early():
    X, y = make_auc_problem(400, 6, separation=1.0, random_state=1)
    ys = np.where(y > 0, 1.0, -1.0)
    w_star = spam_ref.closed_form(X, ys, 1e-2)
    est = VRSPAML2Classifier(beta=1e-2, tol=1e-8, max_iter=300, random_state=0).fit(X, y)
    assert 20 < est.n_iter_ < 300  # unscaled rows (M^2 = 31): the auto step is small
    assert_allclose(est.coef_[0], w_star, rtol=1e-5, atol=1e-7)


def test_net_gives_exact_zeros_on_noise_features():
    X, y = make_auc_problem(600, 8, separation=2.0, random_state=4)
    noise = np.random.default_rng(0).normal(scale=0.05, size=(600, 12))
    est = VRSPAMNetClassifier(beta=1e-3, beta1=5e-3, random_state=0).fit(np.hstack([X, noise]),
                                                                         y)
    assert np.sum(est.coef_[0, 8:] == 0.0) >= 8
    assert np.all(est.coef_[0, :8] != 0.0)


def test_warm_start_skips_the_spam_pass(german):
    X, y = german
    est = VRSPAML2Classifier(max_iter=2, tol=0.0, random_state=1, warm_start=True).fit(X, y)
    w_first = est.coef_[0].copy()
    est.fit(X, y)
    _, picks = _draws(1, len(y), 2 * len(y), 2)
    eta = (1 / 32) / max(float(np.sum(X**2, axis=1).max()), 1e-300)
    snaps = ref.vrspam(X, np.where(y > 0, 1.0, -1.0), picks, beta=1e-4, eta=eta, w0=w_first)
    assert_allclose(est.coef_[0], snaps[-1], rtol=1e-10, atol=1e-13)
