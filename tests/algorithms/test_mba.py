"""MBA against the slow reference, the all-pairs closed form and the l1 optimality conditions."""

import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from aucopt._kernels.mba import enet_quadratic_cd
from aucopt.algorithms import get_algorithm
from aucopt.algorithms.mba import solve_quadratic
from aucopt.datasets import make_auc_problem
from aucopt.linear_model import MBAClassifier

from ..reference import mba as ref


def _rounds(seed, n_pos, n_neg, batch, rounds):
    """Replay the estimator's generator: the base's pass order, then each round's draws."""
    rng = np.random.default_rng(seed)
    rng.permutation(n_pos + n_neg)
    return [(rng.integers(0, n_pos, size=batch), rng.integers(0, n_neg, size=batch))
            for _ in range(rounds)]


@pytest.mark.parametrize("lam1", [0.0, 1e-3])
def test_sampled_statistics_match_reference(lam1, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = MBAClassifier(lam1=lam1, lam2=1e-3, batch_size=50, max_iter=4, tol=1e-12,
                        random_state=9).fit(as_format(X), y)
    ys = np.where(y > 0, 1.0, -1.0)
    mu, sigma = ref.pair_statistics(X, ys, _rounds(9, int(np.sum(ys > 0)), int(np.sum(ys < 0)),
                                                   50, 4))
    if lam1 == 0.0:
        expected = np.linalg.solve(sigma + 1e-3 * np.eye(X.shape[1]), mu)
        assert_allclose(est.coef_[0], expected, rtol=1e-10, atol=1e-12)
    else:
        _assert_kkt(sigma, mu, est.coef_[0], lam1, 1e-3, atol=1e-9)
    assert est.t_ == 200 and est.n_iter_ == 4


def _assert_kkt(sigma, mu, w, lam1, lam2, atol):
    """Subgradient optimality of the elastic-net quadratic problem."""
    grad = sigma @ w - mu + lam2 * w
    active = w != 0
    assert_allclose(grad[active], -lam1 * np.sign(w[active]), atol=atol)
    assert np.all(np.abs(grad[~active]) <= lam1 + atol)


def test_all_pairs_without_l1_is_the_closed_form(as_format):
    X, y = make_auc_problem(120, 5, separation=1.0, random_state=2)
    est = MBAClassifier(pairs="all", lam2=1e-2).fit(as_format(X), y)
    mu, sigma = ref.all_pairs(X, np.where(y > 0, 1.0, -1.0))
    assert_allclose(est.coef_[0], np.linalg.solve(sigma + 1e-2 * np.eye(5), mu), rtol=1e-10)


def test_coordinate_descent_reaches_the_linear_solve_and_the_l1_optimum():
    X, y = make_auc_problem(150, 8, separation=1.0, random_state=5)
    mu, sigma = ref.all_pairs(X, np.where(y > 0, 1.0, -1.0))
    w = np.zeros(8)
    sweeps = enet_quadratic_cd(sigma, mu, 0.0, 1e-2, w, 1e-13, 100_000)
    assert sweeps <= 100_000
    assert_allclose(w, np.linalg.solve(sigma + 1e-2 * np.eye(8), mu), rtol=1e-9)
    w1, _ = solve_quadratic(sigma, mu, 0.05, 1e-2, 1e-13)
    _assert_kkt(sigma, mu, w1, 0.05, 1e-2, atol=1e-10)
    assert np.sum(w1 == 0) >= 1  # a large enough l1 weight zeroes coordinates
    # no feasible perturbation lowers the objective
    base = ref.objective(sigma, mu, w1, 0.05, 1e-2)
    for h in 1e-4 * np.vstack([np.eye(8), -np.eye(8)]):
        assert ref.objective(sigma, mu, w1 + h, 0.05, 1e-2) >= base - 1e-14


def test_more_pairs_approach_the_all_pairs_solution():
    X, y = make_auc_problem(400, 6, separation=1.0, random_state=1)
    exact = MBAClassifier(pairs="all").fit(X, y).coef_[0]
    errors = [np.linalg.norm(MBAClassifier(batch_size=b, max_iter=10, random_state=0)
                             .fit(X, y).coef_[0] - exact) for b in (20, 2000)]
    assert errors[1] < 0.3 * errors[0]


def test_memory_limit_refuses_before_allocating():
    X, y = make_auc_problem(50, 5, random_state=0)
    with pytest.raises(ValueError, match="max_memory_gb.*spam-net"):
        MBAClassifier(max_memory_gb=1e-9).fit(X, y)


def _weighted_rounds(seed, n, v_pos, v_neg, batch, rounds):
    """Replay the weighted draws: inverse-CDF picks, P(row) proportional to its weight."""
    rng = np.random.default_rng(seed)
    rng.permutation(n)

    def pick(v):
        return np.searchsorted(np.cumsum(v), rng.random(batch) * v.sum(), side="right")

    return [(pick(v_pos), pick(v_neg)) for _ in range(rounds)]


def test_weighted_sampled_statistics_match_reference(german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    sw = np.random.default_rng(3).uniform(0.2, 3.0, len(y))
    est = MBAClassifier(lam2=1e-3, batch_size=50, max_iter=4, random_state=9)
    est.fit(as_format(X), y, sample_weight=sw)
    rounds = _weighted_rounds(9, len(y), sw[y > 0], sw[y < 0], 50, 4)
    mu, sigma = ref.pair_statistics(X, y, rounds)
    assert_allclose(est.coef_[0], np.linalg.solve(sigma + 1e-3 * np.eye(X.shape[1]), mu),
                    rtol=1e-10, atol=1e-12)


def test_weighted_draws_follow_the_weights():
    from aucopt.algorithms.mba import _draw

    v = np.array([1.0, 3.0, 0.5, 0.5])
    picks = _draw(np.arange(10, 14), v, 200_000, np.random.default_rng(0))
    assert_allclose(np.bincount(picks - 10, minlength=4) / 200_000, v / v.sum(), atol=0.005)


def test_weighted_all_pairs_are_the_weighted_pair_statistics(as_format):
    """Every pair counted with w_i w_j; integer weights equal repeated rows."""
    X, y = make_auc_problem(90, 5, separation=1.0, random_state=2)
    sw = np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    est = MBAClassifier(pairs="all", lam2=1e-2).fit(as_format(X), y, sample_weight=sw)
    mu, sigma = ref.all_pairs(X, y, sample_weight=sw)
    assert_allclose(est.coef_[0], np.linalg.solve(sigma + 1e-2 * np.eye(5), mu), rtol=1e-10)
    k = np.arange(len(y)) % 3 + 1
    rep = np.repeat(np.arange(len(y)), k)
    weighted = MBAClassifier(pairs="all", lam2=1e-2).fit(as_format(X), y, sample_weight=k * 1.0)
    repeated = MBAClassifier(pairs="all", lam2=1e-2).fit(as_format(X[rep]), y[rep])
    assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-10,
                    atol=1e-12)


def test_auto_lam2_is_b_ls_svm_spread_rule_and_a_number_is_kept():
    X, y = make_auc_problem(n_samples=200, n_features=6, random_state=3)
    est = MBAClassifier(random_state=0).fit(X, y)
    pos, neg = X[y > 0], X[y < 0]
    spread = ((pos[:, None, :] - neg[None, :, :]) ** 2).sum(-1).mean()
    n_pos, n_neg = len(pos), len(neg)
    assert_allclose(est.lam2_, 2.0 * spread * (n_pos + n_neg) / (4 * n_pos * n_neg), rtol=1e-10)
    assert MBAClassifier(lam2=0.0, random_state=0).fit(X, y).lam2_ == 0.0
    old = MBAClassifier(lam2=0.25, random_state=0).fit(X, y)
    del old._state["lam2"]  # a file saved before lam2_ existed
    get_algorithm("mba").upgrade_state(old._state)
    assert old.lam2_ == 0.25


def test_default_within_the_bar_on_few_rows():
    """The robustness case where lam2=1e-4 fell 0.031 short of the least-squares optimum."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import robustness

    X, y = robustness.suite()["few-rows"]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, "standard")
    gap = MBAClassifier(random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert gap - robustness.ls_auc(Xtr, Xte, ytr, yte) > -robustness.bar("mba")
