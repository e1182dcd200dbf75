"""Online Uni-Exp / Uni-Squ / Uni-Log against the slow reference and the batch minimisers."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from aucopt._kernels._schedules import CONSTANT
from aucopt._kernels.univariate import SQUARE, UnivariateState, univariate_epoch
from aucopt.algorithms.univariate import UnivariateHyper
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.linear_model._univariate import UniExpClassifier, UniLogClassifier, UniSquClassifier

from ..reference import univariate as ref

CLASSES = {"exp": UniExpClassifier, "squ": UniSquClassifier, "log": UniLogClassifier}


def _orders(seed, n, passes):
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize("weights", ["train", "online"])
@pytest.mark.parametrize("loss", ["exp", "squ", "log"])
def test_matches_reference_same_order(loss, weights, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = CLASSES[loss](weights=weights, lam=1e-2, max_iter=3, random_state=6)
    est.fit(as_format(X), y)
    w, b, t = ref.univariate(X, y, _orders(6, len(y), 3), loss=loss, eta=est.eta_,
                             lam=1e-2, weights=weights)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["b"][0], b, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("weights", ["train", "online"])
@pytest.mark.parametrize("loss", ["exp", "squ", "log"])
def test_weighted_steps_match_reference_same_order(loss, weights, german, as_format):
    """notes.md#sample-weights: the class weights n / (2 n_y) come from weight sums and a
    row's step is scaled by its weight. (Refused before weights.)"""
    X, y = german[0][:300], german[1][:300]
    weight = np.random.default_rng(3).uniform(0.1, 3.0, len(y))
    est = CLASSES[loss](eta=0.005, weights=weights, lam=1e-2, max_iter=2, random_state=6)
    est.fit(as_format(X), y, sample_weight=weight)
    w, b, t = ref.univariate(X, y, _orders(6, len(y), 2), loss=loss, eta=0.005, lam=1e-2,
                             weights=weights, sample_weight=weight)
    plain = ref.univariate(X, y, _orders(6, len(y), 2), loss=loss, eta=0.005, lam=1e-2,
                           weights=weights)[0]
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["b"][0], b, rtol=1e-10, atol=1e-13)
    assert not np.allclose(w, plain, rtol=1e-3)


def test_weighted_proximal_steps_fold_like_the_reference(as_format):
    """lam = 50: the lazy scale, shrunk by 1 + eta w_i lam per row, is folded often."""
    X, y = make_auc_problem(200, 5, pos_rate=0.25, random_state=3)
    weight = np.random.default_rng(4).uniform(0.1, 3.0, len(y))
    est = UniSquClassifier(eta=0.01, lam=50.0, schedule="constant", shuffle=False, max_iter=2)
    est.fit(as_format(X), y, sample_weight=weight)
    w, b, t = ref.univariate(X, y, [np.arange(len(y))] * 2, loss="squ", eta=0.01,
                             schedule="constant", lam=50.0, sample_weight=weight)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["b"][0], b, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("lam", [1e-6, 50.0])  # 50: the lazy l2 scale is folded often
@pytest.mark.parametrize("loss", ["exp", "squ", "log"])
def test_constant_schedule_matches_reference(loss, lam, as_format):
    X, y = make_auc_problem(200, 5, pos_rate=0.25, random_state=3)
    est = CLASSES[loss](eta=0.01, lam=lam, schedule="constant", shuffle=False, max_iter=2)
    est.fit(as_format(X), y)
    orders = [np.arange(len(y))] * 2
    w, b, t = ref.univariate(X, y, orders, loss=loss, eta=0.01, schedule="constant",
                             lam=lam)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("loss", ["exp", "squ", "log"])
def test_converges_to_the_balanced_minimiser(loss):
    """Many passes reach the minimiser of the balanced univariate objective (Kotlowski et al. 2011;
    Gao et al. 2013, Section 6)."""
    X, y = make_auc_problem(300, 4, pos_rate=0.2, separation=1.0, random_state=0)
    X = X / np.abs(X).max()
    lam = 1e-2
    w_star, b_star = ref.minimiser(X, y, loss, lam)
    eta = {"exp": 0.5, "squ": 0.2, "log": 1.0}[loss]  # the last iterate still moves: a noise floor
    est = CLASSES[loss](eta=eta, lam=lam, max_iter=300, random_state=0).fit(X, y)
    w, b = est.coef_[0], est._state["b"][0]
    f_star = ref.objective(X, y, w_star, b_star, loss, lam)
    gap = (ref.objective(X, y, w, b, loss, lam) - f_star) / f_star
    assert -1e-9 <= gap < 1e-3
    assert np.linalg.norm(w - w_star) < 0.05 * np.linalg.norm(w_star)


@pytest.mark.parametrize("counts, learn, weight", [((3, 1), False, 4 / 6), ((0, 0), True, 1 / 2)])
def test_first_step_uses_the_balanced_weight(counts, learn, weight):
    """Weight n/(2 n_y): 4/(2*3) for a negative with counts (3 neg, 1 pos); 1/(2*1) for the
    very first example with running counts (online mode adds it before its step)."""
    X = np.array([[0.5, -0.2]])
    y = np.array([-1.0])
    hp = UnivariateHyper(eta=0.1, auto_eta=False, schedule=CONSTANT, lam=0.5, online=learn)
    w, scale, b = np.zeros(2), np.ones(1), np.zeros(1)
    st = UnivariateState(w, scale, b, np.zeros(2, dtype=np.int64), np.zeros(1))
    t, status, position = univariate_epoch(st, np.array(counts, dtype=np.int64), np.zeros(1), X,
                                           None, None, y, np.array([0]), hp, SQUARE, 0, learn)
    g = weight * (-2.0) * (-1.0)  # l'(0) = -2 for the square loss, y = -1
    assert t == 1 and status == 0 and position == 1
    assert_allclose(w * scale, -0.1 * g * X[0] / (1 + 0.1 * 0.5), rtol=1e-14)
    assert_allclose(b[0], -0.1 * g, rtol=1e-14)


def test_default_does_not_diverge_on_unscaled_data(german_raw):
    X, y = german_raw
    for cls in (UniExpClassifier, UniSquClassifier, UniLogClassifier):
        est = cls(random_state=0).fit(X, y)
        assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


def test_exponential_loss_divergence_names_eta_and_keeps_the_model(german_raw):
    X, y = german_raw
    est = UniExpClassifier(random_state=0, max_iter=1).partial_fit(X[:100], y[:100],
                                                                    classes=[-1, 1])
    before = {k: v.copy() for k, v in est._state.items()}
    est.set_params(eta=10.0, schedule="constant")
    with pytest.raises(DivergenceError, match="Lower 'eta'"):
        est.partial_fit(X[100:], y[100:])
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value)


def test_logistic_derivative_is_bounded_and_never_overflows():
    """l'(m) = -1 / (1 + e^m): in (-1, 0), finite at any margin (no e^m of a large m)."""
    from scipy.special import expit

    from aucopt._kernels.univariate import LOGISTIC, univariate_derivative

    margins = np.array([-1e4, -700.0, -30.0, -1.0, 0.0, 1.0, 30.0, 700.0, 1e4])
    with np.errstate(over="raise"):
        got = np.array([univariate_derivative(LOGISTIC, m) for m in margins])
    expected = -expit(-margins)  # = -1 / (1 + e^m), accurate at every margin
    assert_allclose(got, expected, rtol=1e-14, atol=1e-300)
    assert got[0] == -1.0 and got[-1] == -0.0 and np.all(got <= 0) and np.all(got >= -1)
