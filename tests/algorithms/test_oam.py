"""OAM_seq / OAM_gra against the slow reference, the closed forms and the reservoir's law."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize_scalar

from aucopt._kernels._buffers import reservoir_update
from aucopt._kernels.oam import oam_seq_pair
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.linear_model._oam import OAMGraClassifier, OAMSeqClassifier

from ..reference import oam as ref

CLASSES = {"sequential": OAMSeqClassifier, "gradient": OAMGraClassifier}


def _orders_and_draws(seed, n, passes, width):
    """Replay the estimator's Generator: per pass the permutation, then the uniforms."""
    rng = np.random.default_rng(seed)
    orders, draws = [], []
    for _ in range(passes):
        orders.append(rng.permutation(n))
        draws.append(rng.random((n, width)))
    return orders, draws


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_matches_reference_same_order_and_draws(update, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = CLASSES[update](C=0.05, buffer_size=7, max_iter=2, random_state=3)
    est.fit(as_format(X), y)
    orders, draws = _orders_and_draws(3, len(y), 2, 2)
    w, t = ref.oam(X, y, orders, draws, C=0.05, buffer_size=7, update=update)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert np.all(est._state["size"] == 7)  # both reservoirs full: replacements happened


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_auto_C_scales_with_the_largest_row_norm(update, german):
    X, y = german
    X, y = X[:200], y[:200]
    est = CLASSES[update](max_iter=1, shuffle=False, random_state=0).fit(X, y)
    c = 0.003 / max(float(x @ x) for x in X)
    draws = [np.random.default_rng(0).random((len(y), 2))]
    w, _ = ref.oam(X, y, [np.arange(len(y))], draws, C=c, buffer_size=100, update=update)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_sequential_step_is_the_exact_minimiser_of_its_proximal_objective():
    """Spec section 4: w + min(C/2, loss/||u||^2) u minimises ||w' - w||^2 + C hinge(w'.u)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        d = 5
        w, u = rng.standard_normal(d), rng.standard_normal(d)
        c = 10.0 ** rng.uniform(-3, 2)

        def objective(v, w=w, u=u, c=c):
            return (v - w) @ (v - w) + c * max(0.0, 1.0 - v @ u)

        def on_line(s, w=w, u=u, objective=objective):
            return objective(w + s * u)

        tau = oam_seq_pair(w @ u, u @ u, c)
        best = w + tau * u
        # the minimiser lies on w + s u (optimality: 2(w' - w) in -C d hinge); 1-D check
        line = minimize_scalar(on_line, bounds=(-1.0, c + 1.0), method="bounded",
                               options={"xatol": 1e-12})
        assert objective(best) <= line.fun + 1e-9
        for scale in (1e-4, 1e-2, 1.0):  # and no direction of R^d does better
            for _ in range(20):
                assert objective(best) <= objective(best + scale * rng.standard_normal(d)) + 1e-12


def test_first_pair_update_of_the_estimator():
    """A negative then a positive: one sequential step with C_1 = C from w = 0."""
    X = np.array([[0.2, -0.1, 0.4], [0.5, 0.3, -0.2]])
    y = np.array([-1, 1])
    est = OAMSeqClassifier(C=0.3, shuffle=False).fit(X, y)
    u = X[1] - X[0]
    assert_allclose(est.coef_[0], min(0.15, 1.0 / (u @ u)) * u, rtol=1e-14)
    assert est.t_ == 1


def test_reservoir_keeps_each_item_with_probability_N_over_t():
    """P10: after t arrivals each of them is in the reservoir with probability N/t."""
    rng = np.random.default_rng(12345)
    n_items, capacity, runs = 40, 8, 4000
    X = np.arange(n_items, dtype=float)[:, None]
    kept = np.zeros(n_items)
    buf, buf_sq = np.zeros((capacity, 1)), np.zeros(capacity)
    for _ in range(runs):
        size = 0
        u = rng.random((n_items, 2))
        for i in range(n_items):
            size = reservoir_update(buf, buf_sq, size, i + 1, u[i, 0], u[i, 1], X, None,
                                    None, i)
        assert size == capacity
        kept[buf[:, 0].astype(int)] += 1
    freq = kept / runs
    assert np.abs(freq - capacity / n_items).max() < 0.035  # 5.5 sigma of Binomial(4000, .2)
    assert_allclose(buf_sq, buf[:, 0] ** 2)


def test_gradient_update_with_a_large_buffer_is_the_all_pairs_update(german):
    """Buffers larger than the stream hold every past example and C_t = C."""
    X, y = german
    X, y = X[:150], y[:150]
    est = OAMGraClassifier(C=0.01, buffer_size=200, shuffle=False).fit(X, y)
    w = ref.oam_gra_all_pairs(X, y, np.arange(len(y)), 0.01)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_C_t_grows_with_the_other_class_count():
    """A-34: C_t = C max(1, N_opp^t / N); with N = 1 the 2nd positive sees C_t = 2C."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([-1, -1, 1, 1])
    est = OAMGraClassifier(C=1e-3, buffer_size=1, shuffle=False, random_state=0).fit(X, y)
    draws = [np.random.default_rng(0).random((4, 2))]
    w, t = ref.oam(X, y, [np.arange(4)], draws, C=1e-3, buffer_size=1, update="gradient")
    assert_allclose(est.coef_[0], w, rtol=1e-12)
    # both positives see the one stored negative with C_t = 1e-3 * 2 (two negatives seen)
    stored = X[0] if draws[0][1, 0] >= 0.5 else X[1]
    expected = 1e-3 * ((X[2] - stored) + (X[3] - stored))
    assert_allclose(est.coef_[0], expected, rtol=1e-12)
    assert t == est.t_ == 2


@pytest.mark.parametrize("cls", [OAMSeqClassifier, OAMGraClassifier])
def test_default_does_not_diverge_on_unscaled_data(cls, german_raw):
    X, y = german_raw  # raw features up to a few hundred
    est = cls(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


@pytest.mark.parametrize("cls", [OAMSeqClassifier, OAMGraClassifier])
def test_easy_problem_and_one_class_prefix(cls):
    X, y = make_auc_problem(600, 8, pos_rate=0.3, separation=2.5, random_state=0)
    neg = np.flatnonzero(y < 0)[:10]
    est = cls(random_state=0).partial_fit(X[neg], y[neg], classes=[-1, 1])
    assert est.t_ == 0 and np.all(est.coef_ == 0)
    est.partial_fit(X, y)
    assert est.score(X, y) > 0.9


def test_divergence_names_C_and_keeps_the_model():
    X, y = make_auc_problem(200, 4, random_state=0)
    est = OAMGraClassifier(C=1e15, random_state=0)  # scores beyond 1e12 count as divergence
    with pytest.raises(DivergenceError, match="Lower 'C'"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
