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
    est = VRSPAML2Classifier(beta=1e-4, eta="lipschitz", max_iter=2, tol=0.0, random_state=1,
                             warm_start=True).fit(X, y)
    w_first = est.coef_[0].copy()
    est.fit(X, y)
    _, picks = _draws(1, len(y), 2 * len(y), 2)
    eta = (1 / 32) / max(float(np.sum(X**2, axis=1).max()), 1e-300)
    snaps = ref.vrspam(X, np.where(y > 0, 1.0, -1.0), picks, beta=1e-4, eta=eta, w0=w_first)
    assert_allclose(est.coef_[0], snaps[-1], rtol=1e-10, atol=1e-13)


# ------------------------------------------------- defaults that follow the data (issue #16)
def test_auto_beta_is_the_pairs_mean_squared_distance_over_n(german, as_format):
    """beta="auto" = E_pairs ||x_i - x_j||^2 / n (brute force over the pairs), used as given."""
    X, y = german
    X, y = X[:120], y[:120]
    pos, neg = X[y > 0], X[y <= 0]
    spread = np.mean([np.sum((a - b) ** 2) for a in pos for b in neg])
    est = VRSPAML2Classifier(max_iter=2, random_state=0).fit(as_format(X), y)
    assert_allclose(est.beta_, spread / len(y), rtol=1e-10)
    fixed = VRSPAML2Classifier(beta=est.beta_, eta=est.eta_, max_iter=2,
                               random_state=0).fit(as_format(X), y)
    assert_allclose(fixed.coef_, est.coef_, rtol=1e-12, atol=1e-15)
    assert VRSPAMNetClassifier(beta=0.3, max_iter=1, random_state=0).fit(X, y).beta_ == 0.3


def test_auto_beta_is_b_ls_svm_spread_rule_in_spams_scaling():
    """SPAM's minimiser at beta is B-LS-SVM's at lam = beta / (2p(1-p)): the rule's scaling."""
    from aucopt.algorithms import vrspam
    from aucopt.algorithms._batch import class_totals, pair_spread, spread_rule
    from aucopt.algorithms.batch_pairwise import LS_SPREAD, ls_svm_solution

    X, y = make_auc_problem(200, 4, separation=1.0, pos_rate=0.3, random_state=2)
    ys = np.where(y > 0, 1.0, -1.0)
    p = np.mean(ys > 0)
    lam = spread_rule(pair_spread(X, ys), class_totals(ys), LS_SPREAD)
    beta = vrspam.auto_beta(pair_spread(X, ys), class_totals(ys))
    assert_allclose(beta, 2 * p * (1 - p) * lam, rtol=1e-12)
    assert_allclose(spam_ref.closed_form(X, ys, beta), ls_svm_solution(X, ys, lam), rtol=1e-9)


def test_lipschitz_rule_is_one_over_32_m2_and_records_no_step(german):
    X, y = german
    m2 = float(np.sum(X**2, axis=1).max())
    rule = VRSPAML2Classifier(beta=1e-3, eta="lipschitz", max_iter=2, random_state=0).fit(X, y)
    number = VRSPAML2Classifier(beta=1e-3, eta=(1 / 32) / m2, max_iter=2,
                                random_state=0).fit(X, y)
    assert rule.eta_ is None and number.eta_ == (1 / 32) / m2
    assert_allclose(rule.coef_, number.coef_, rtol=1e-12, atol=1e-15)


def test_auto_eta_is_the_calibrated_choice(german, monkeypatch):
    """fit uses (and records) the step calibrate_step returns on the resolved beta."""
    from aucopt.algorithms import _calibrate, get_algorithm

    X, y = german
    est = VRSPAMNetClassifier(max_iter=3, random_state=0).fit(X, y)
    ys = np.where(y > 0, 1.0, -1.0)
    step, trials = _calibrate.calibrate_step(get_algorithm("vrspam-net"), est.get_params(),
                                             _calibrate.as_rows(X), ys, 1)
    assert est.eta_ == step and step in trials and np.isfinite(trials[step])
    # the brief runs saw the number beta="auto" becomes on all the rows, not the string
    seen = []
    original = _calibrate._brief_run
    monkeypatch.setattr(_calibrate, "_brief_run",
                        lambda spec, params, *a: seen.append(params["beta"]) or original(
                            spec, params, *a))
    VRSPAMNetClassifier(max_iter=3, random_state=0).fit(X, y)
    assert seen and set(seen) == {est.beta_}


def test_files_saved_before_beta_existed_read_the_parameter(german):
    from aucopt.algorithms import get_algorithm

    X, y = german
    old = VRSPAML2Classifier(beta=0.25, max_iter=1, random_state=0).fit(X, y)
    del old._state["beta"]
    get_algorithm("vrspam-l2").upgrade_state(old._state)
    assert old.beta_ == 0.25
