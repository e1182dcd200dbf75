"""FSAUC against the slow reference, the stage formulas and the issue's requirements."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from aucopt._kernels._prox import project_l1_ball
from aucopt._kernels._prox_l1l2 import project_l1_ball_warm
from aucopt._kernels.fsauc import lemma1
from aucopt.algorithms.fsauc import n_stages
from aucopt.datasets import make_auc_problem
from aucopt.linear_model._fsauc import FSAUCClassifier

from ..reference import fsauc as ref


def _orders(seed, n, passes):
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize(
    "projection, stats, decay",
    [("exact", "global", "capped"), ("exact", "local", "paper"), ("dykstra", "global", "halve"),
     ("alternating", "global", "capped")],
)
def test_matches_reference_same_order(projection, stats, decay, german, as_format):
    X, y = german
    X, y = X[:400], y[:400]
    params = dict(R=0.5, eta1=0.5, projection=projection, stats=stats, step_decay=decay,
                  projection_rounds=100, n_samples_hint=100)  # m = 1, n0 = 100: 8 stages
    est = FSAUCClassifier(max_iter=2, random_state=3, **params).fit(as_format(X), y)
    kappa = np.sqrt(max(float(x @ x) for x in X))
    out = ref.fsauc(X, y, _orders(3, len(y), 2), R=0.5, kappa=kappa, eta1=0.5, n=100,
                    decay=decay, stats=stats, projection=projection)
    assert est._state["n_stages"][0] == out["m"] == 1
    assert est.t_ == 800 and out["stages"] == 8
    assert_allclose(est._state["v_hat"], out["v_hat"], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["alpha_hat"], [out["alpha_hat"]], rtol=1e-10, atol=1e-13)
    assert_allclose(est.coef_[0], out["w"], rtol=1e-10, atol=1e-13)
    assert np.abs(est.coef_[0]).sum() > 0.01  # not the trivial output
    if projection == "exact":  # the root search of P5 was exercised
        assert est._state["root_steps"][0] > 0


@pytest.mark.parametrize("stats", ["global", "local"])
def test_weighted_steps_match_reference_same_order(stats, german, as_format):
    """notes.md#sample-weights: T+-, A+- and p_hat are weighted, a row's partials are scaled
    by its weight. (On the code before weights, they were refused.)"""
    X, y = german[0][:400], german[1][:400]
    weight = np.random.default_rng(1).uniform(0.1, 3.0, len(y))
    params = dict(R=0.5, eta1=0.5, stats=stats, n_samples_hint=100)
    est = FSAUCClassifier(max_iter=2, random_state=3, **params)
    est.fit(as_format(X), y, sample_weight=weight)
    kappa = np.sqrt(max(float(x @ x) for x in X))
    out = ref.fsauc(X, y, _orders(3, len(y), 2), R=0.5, kappa=kappa, eta1=0.5, n=100,
                    stats=stats, sample_weight=weight)
    plain = ref.fsauc(X, y, _orders(3, len(y), 2), R=0.5, kappa=kappa, eta1=0.5, n=100,
                      stats=stats)
    assert est.t_ == 800 and out["stages"] == 8
    if stats == "global":
        assert_allclose(est._state["run_count"], 2 * np.array([weight[y < 0].sum(),
                                                               weight[y > 0].sum()]))
    assert_allclose(est._state["v_hat"], out["v_hat"], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["alpha_hat"], [out["alpha_hat"]], rtol=1e-10, atol=1e-13)
    assert not np.allclose(out["v_hat"], plain["v_hat"], rtol=1e-3)  # the weights matter


def test_partial_fit_with_hint_matches_reference_across_stages(german):
    X, y = german
    est = FSAUCClassifier(R=1.0, eta1=0.02, kappa=5.0, n_samples_hint=300)
    for chunk in np.array_split(np.arange(700), 5):
        est.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    out = ref.fsauc(X, y, [np.arange(700)], R=1.0, kappa=5.0, eta1=0.02, n=300)
    m, n0 = out["m"], out["n0"]
    assert est._state["stage"][0] - 1 == out["stages"] == 700 // n0 > m  # beyond the budget
    assert_allclose(est.coef_[0], out["w"], rtol=1e-10, atol=1e-13)


def test_stage_count_formula():
    """Liu et al. 2018, Algorithm 1: the stage count m for reference sizes, at least one
    (notes.md#fsauc-unstated)."""
    assert [n_stages(n) for n in (1000, 32561, 94460, 387341, 7333333)] == [2, 5, 5, 6, 8]
    assert n_stages(40) == 1 and n_stages(1) == 1


def test_lemma1_guards():
    beta, dual = lemma1(1.0, 10, 0.05, 2.0, 3.0, 0.1, 7.0)  # tiny imbalanced stage
    assert beta == 7.0 and dual == 4 * 3.0 * 2.0
    beta, dual = lemma1(1.0, 100000, 0.4, 2.0, 3.0, 0.1, 7.0)
    c = 2 + np.sqrt(2 * np.log(120))
    assert beta == pytest.approx(1 + 32 + 32 * 4 * 25 * c**2 / (0.4 - np.sqrt(2 * np.log(120)
                                                                           / 100000)))
    assert dual > 2 * np.sqrt(2) * 2.0 * 1.0


def test_fit_knows_n_and_output_waits_for_a_stage():
    X, y = make_auc_problem(500, 5, random_state=0)
    est = FSAUCClassifier(max_iter=3, random_state=0).fit(X, y)
    assert est._state["n_total"][0] == 1500 and est.t_ == 1500
    early = FSAUCClassifier(n_samples_hint=1000).partial_fit(X[:100], y[:100], classes=[-1, 1])
    assert np.all(early.coef_ == 0)  # v_hat_0 = 0 until the first stage ends
    assert early._state["n0"][0] == 1000 // n_stages(1000)


@pytest.mark.parametrize("rows", [1, 400])
def test_a_stream_plans_its_first_horizon_from_its_first_chunk(rows):
    """partial_fit took max_iter (3) times the first chunk as n: one chunk of 400 rows ended
    inside its first stage (a zero model, no warning), and one-row chunks ran horizons of
    3, 6, 12, ... where the docs say 1, 2, 4, ..."""
    X, y = make_auc_problem(400, 5, random_state=0)
    est = FSAUCClassifier(random_state=0)  # max_iter=3: fit's passes
    est.partial_fit(X[:rows], y[:rows], classes=[-1, 1])
    assert est._state["n_total"][0] == rows
    for start in range(rows, 400, rows):
        est.partial_fit(X[start:start + rows], y[start:start + rows])
    assert np.any(est.coef_ != 0) and est.t_ == 400
    assert FSAUCClassifier(max_iter=3).fit(X, y)._state["n_total"][0] == 1200  # unchanged


def test_exact_and_alternating_projections_differ():
    """Both stay feasible; they give different iterates (notes.md#exact-projection)."""
    X, y = make_auc_problem(600, 8, separation=1.5, random_state=1)
    X = X * 0.25  # eta1 kappa^2 = 3.3: a large step that is still stable (MAX_STEP_CURVATURE)
    params = dict(R=0.5, eta1=1.0, n_samples_hint=60, random_state=0)  # 10 stages: r binds
    a = FSAUCClassifier(**params).fit(X, y)
    b = FSAUCClassifier(projection="alternating", **params).fit(X, y)
    assert a._state["root_steps"][0] > 0
    for est in (a, b):
        assert np.abs(est.coef_[0]).sum() <= 0.5 + 1e-9
    assert not np.allclose(a.coef_, b.coef_)


def test_default_step_on_unscaled_data(german_raw):
    X, y = german_raw
    est = FSAUCClassifier(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


@pytest.mark.parametrize("guess", [0.0, np.nan, np.inf, -1.0, 1e300, "near", "random"])
def test_warm_started_l1_projection_equals_the_sort_based_one(guess):
    """Any starting threshold gives the point of the sort-based projection
    (notes.md#projections)."""
    rng = np.random.default_rng(7)
    for trial in range(400):
        d = int(rng.integers(1, 80))
        w = [rng.normal(size=d) * rng.uniform(0.01, 10),
             rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0], size=d),  # ties and zeros
             rng.standard_cauchy(size=d)][trial % 3]
        radius = 0.0 if trial % 40 == 0 else rng.uniform(0, 1.2) * np.abs(w).sum()
        expected = w.copy()
        theta = project_l1_ball(expected, radius, np.empty(d))
        start = {"near": theta * (1 + rng.normal(0, 0.1)),
                 "random": rng.uniform(0, 2 * np.abs(w).max())}.get(guess, guess)
        got = w.copy()
        assert project_l1_ball_warm(got, radius, start) == pytest.approx(theta, rel=1e-13)
        assert_allclose(got, expected, rtol=0, atol=1e-14 * np.abs(w).max())


def test_a_fit_before_its_first_stage_ends_says_why_its_weights_are_zero():
    """FSAUC's output is a stage's average, formed when the stage ends: a fit stopped before
    (max_time, or a long n_samples_hint) has zero weights, and the warning advised
    rescaling the features."""
    import warnings

    from aucopt.datasets import make_auc_problem
    from aucopt.linear_model import FSAUCClassifier

    X, y = make_auc_problem(500, 5, random_state=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FSAUCClassifier(n_samples_hint=10**7, random_state=0).fit(X, y)
    messages = [str(w.message) for w in caught if "weights zero" in str(w.message)]
    assert len(messages) == 1 and "first stage has not ended" in messages[0]
    assert "rescale" not in messages[0]
