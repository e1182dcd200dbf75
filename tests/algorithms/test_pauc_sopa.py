"""SOPA (CVaR one-way partial AUC) against its slow reference on CSR and dense rows, its
objective against a brute-force minimum over the thresholds, a whole-batch step against
finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from aucopt.algorithms import RowData, get_algorithm
from aucopt.algorithms._calibrate import LADDER_RATIO, calibrate_step
from aucopt.algorithms.pauc_sopa import cvar_objective
from aucopt.linear_model import SOPAClassifier

from ..reference import pauc_dro as ref
from .test_oam import assert_small_memory_at_a_million_features, positive_weights
from .test_pauc_dro import _imbalanced

PARAMS = dict(eta=0.05, max_fpr=0.2, eta_s=0.3, margin=1.0, momentum=0.8, buffer_size=8)


@pytest.mark.parametrize(("fmt", "weighted", "max_fpr"), [
    ("dense", False, 0.2), ("csr", True, 0.2), ("dense", True, 0.05), ("csr", False, 1.0)])
def test_equals_reference(fmt, weighted, max_fpr):
    # sparse rows (a tenth of the entries): coordinates skip steps and catch up lazily
    X, y = _imbalanced(d=40, density=0.1)
    sw = positive_weights(len(y)) if weighted else None
    params = {**PARAMS, "max_fpr": max_fpr}
    data = sp.csr_matrix(X) if fmt == "csr" else X
    est = SOPAClassifier(**params, max_iter=2, shuffle=False).fit(data, y, sample_weight=sw)
    w, t = ref.pauc_dro(X, y, [np.arange(len(y))] * 2, **params, sample_weight=sw)
    assert est.t_ == t > 50
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def test_memory_independent_of_d_on_csr():
    assert_small_memory_at_a_million_features(
        SOPAClassifier(eta=0.1, buffer_size=100, max_iter=1), 200)


def _brute_cvar(loss, weights, beta):
    # min over s of s + sum_j w_j (L_j - s)_+ / (beta W): convex and piecewise linear in s,
    # its minimum is at one of the losses
    values = [s + np.sum(weights * np.maximum(0.0, loss - s)) / (beta * weights.sum())
              for s in loss]
    return min(values)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("beta", [0.05, 0.1, 0.3, 1.0])
def test_objective_is_the_minimum_over_the_thresholds(weighted, beta):
    rng = np.random.default_rng(int(beta * 100) + weighted)
    scores = np.round(rng.normal(size=60), 1)  # ties among the scores
    sign = np.where(rng.random(60) < 0.3, 1.0, -1.0)
    weights = rng.uniform(0.2, 3.0, 60) if weighted else np.ones(60)
    pos, neg = sign > 0, sign < 0
    expected = 0.0
    for si, wi in zip(scores[pos], weights[pos]):
        loss = np.maximum(0.0, 1.0 - (si - scores[neg])) ** 2
        expected += wi * _brute_cvar(loss, weights[neg], beta)
    expected /= weights[pos].sum()
    assert cvar_objective(scores, sign * weights, beta) == pytest.approx(expected, rel=1e-12)


def test_objective_is_the_mean_of_the_top_losses():
    # beta n- an integer, no weights: the mean of each positive's beta n- largest losses
    rng = np.random.default_rng(1)
    scores = rng.normal(size=50)
    y = np.where(np.arange(50) < 10, 1.0, -1.0)  # 40 negatives
    loss = np.maximum(0.0, 1.0 - (scores[:10, None] - scores[None, 10:])) ** 2
    top = -np.sort(-loss, axis=1)[:, :4]  # beta = 0.1
    assert cvar_objective(scores, y, 0.1) == pytest.approx(top.mean(), rel=1e-12)
    assert cvar_objective(scores, y, 1.0) == pytest.approx(loss.mean(), rel=1e-12)


def _one_batch_step(s0, w0, X, y, **extra):
    # every row in one batch, no momentum: one SOPA step from (w0, s0); returns the
    # gradient step's G, the new thresholds and the parameters
    spec = get_algorithm("pauc-sopa")
    size = int(np.sum(y < 0))  # the batch: every negative; the ring: every positive
    params = {**SOPAClassifier().get_params(), "eta": 0.1, "momentum": 0.0,
              "buffer_size": size, **extra}
    state = spec.init_state(X.shape[1], len(y), params)
    state["w"][:] = w0
    state["batches"][0] = 62  # the first batch is already of full size
    n_pos = int(np.sum(y > 0))
    # the positives come first: ring slot i holds positive i with threshold s0[i]
    state["log_u"][:n_pos], state["u_visits"][:n_pos] = s0, 1
    state["size"][1], state["ring"][0] = n_pos, n_pos % size
    state["buf_w"][1, :n_pos] = 1.0
    state["buf"] = np.zeros((2, size, X.shape[1]))
    state["buf"][1, :n_pos] = X[y > 0]
    state["buf_idx"] = np.zeros((2, size, 0), dtype=np.int64)
    state["seen"][1] = n_pos
    rows = RowData(X, None, None, len(y), X.shape[1])
    order = np.flatnonzero(y < 0)
    t, status = spec.run(state, rows, y.astype(float), order, params, 0, True)
    assert (t, status) == (1, 0)
    grad = (w0 - spec.coef(state, params)) / params["eta"]
    return grad, state["log_u"][:n_pos].copy(), params


def _cvar_form(X, y, w, s, beta):
    # the paper's F(w, s) with the thresholds s of the positives
    scores = X @ w
    loss = np.maximum(0.0, 1.0 - (scores[y > 0][:, None] - scores[y < 0][None, :])) ** 2
    return np.mean(s + np.sum(np.maximum(0.0, loss - s[:, None]), axis=1) / (beta * loss.shape[1]))


def test_a_whole_batch_step_is_the_subgradient_of_the_cvar_form():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(48, 5))
    y = np.where(np.arange(48) < 8, 1, -1)
    w0 = 0.3 * rng.normal(size=5)
    s0 = rng.uniform(0.2, 4.0, 8)
    grad, s1, params = _one_batch_step(s0, w0, X, y, max_fpr=0.25, eta_s=0.4)
    numeric = [(_cvar_form(X, y, w0 + 1e-6 * e, s0, 0.25) - _cvar_form(X, y, w0 - 1e-6 * e, s0,
                                                                       0.25)) / 2e-6
               for e in np.eye(5)]
    assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    # s_i <- s_i - eta_s (1 - #{j: L_ij > s_i} / (beta n-)), n- = 40
    scores = X @ w0
    loss = np.maximum(0.0, 1.0 - (scores[:8, None] - scores[None, 8:])) ** 2
    above = np.sum(loss > s0[:, None], axis=1)
    assert_allclose(s1, s0 - 0.4 * (1 - above / (0.25 * 40)), rtol=1e-12)
    assert np.ptp(above) > 0 and (s1 > s0).any() and (s1 < s0).any()


def test_at_the_best_thresholds_the_step_is_the_objective_gradient():
    # Danskin: with s_i between the k-th and (k+1)-th largest losses (beta n- = k), the
    # gradient in w of F(w, s) is that of min_s F(w, s), the CVaR objective
    rng = np.random.default_rng(5)
    X = rng.normal(size=(48, 5))
    y = np.where(np.arange(48) < 8, 1, -1)
    w0 = 0.3 * rng.normal(size=5)
    scores = X @ w0
    loss = np.sort(np.maximum(0.0, 1.0 - (scores[:8, None] - scores[None, 8:])) ** 2, axis=1)
    s0 = (loss[:, -10] + loss[:, -11]) / 2  # beta n- = 0.25 * 40 = 10
    grad, s1, _ = _one_batch_step(s0, w0, X, y, max_fpr=0.25)
    assert_allclose(s1, s0)  # exactly beta n- losses above: the thresholds stay

    def objective(w):
        return cvar_objective(X @ w, y.astype(float), 0.25)

    numeric = [(objective(w0 + 1e-6 * e) - objective(w0 - 1e-6 * e)) / 2e-6 for e in np.eye(5)]
    assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_default_fit_lowers_the_objective():
    # classes apart enough that w = 0 (every loss 1) is not the minimiser: on classes that
    # overlap, the top tenth of the negatives outscore most positives in every direction and
    # w = 0 is (the objective is convex in w)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 12))
    y = np.where(rng.random(1500) < 0.15, 1, -1)
    X[y > 0, :3] += 2.0
    est = SOPAClassifier(random_state=0).fit(X, y)
    yy = y.astype(float)
    assert cvar_objective(np.zeros(len(y)), yy, est.max_fpr) == pytest.approx(1.0)
    # the calibrated step is one rung below the best brief run's: the norm still grows
    assert cvar_objective(est.decision_function(X), yy, est.max_fpr) < 0.5  # measured: 0.364


def test_bad_params():
    X, y = _imbalanced(n=100)
    for bad in ({"max_fpr": 0.0}, {"max_fpr": 1.5}, {"eta_s": 0.0}, {"eta_s": -1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SOPAClassifier(**bad).fit(X, y)


def test_calibration_does_not_pick_the_smallest_step():
    # SOPA's CVaR objective of the brief runs grows with the norm of w on classes that
    # overlap, so, as the calibration objective, it ranked the smallest step first (the
    # ladder extended down to it); the partial AUC of the brief runs does not
    rng = np.random.default_rng(2)
    X = rng.normal(size=(800, 8))
    y = np.where(X[:, 0] + X[:, 1] + 1.5 * rng.normal(size=800) > 1.0, 1.0, -1.0)
    spec = get_algorithm("pauc-sopa")
    step, trials = calibrate_step(spec, SOPAClassifier().get_params(),
                                  RowData(X, None, None, 800, 8), y, 5)
    assert step * LADDER_RATIO ** spec.calibration.safety > min(trials)
