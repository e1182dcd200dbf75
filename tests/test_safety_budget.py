"""max_time inside one long pass (blocks of rows), between MBA's rounds and sweeps and
between Sparse Kernel's greedy additions: the budget stops the work there, and a budget
not spent changes no bit of the result."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import aucopt
import aucopt.algorithms._time_budget as budget
from aucopt.algorithms import get_algorithm
from aucopt.algorithms._time_budget import Deadline
from aucopt.algorithms.mba import MAX_SWEEPS, SWEEPS_PER_CHECK, solve_quadratic

PASSES = [a for a in aucopt.list_algorithms() if get_algorithm(a).epochs_by_base]
BLOCKED = [a for a in PASSES if get_algorithm(a).exact_blocks]


def _data(n=200, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 7 rows, never grown: a pass of 200 rows runs in 29 calls of ``run``."""
    monkeypatch.setattr(budget, "FIRST_BLOCK", 7)
    monkeypatch.setattr(budget, "BLOCK_SECONDS", 0.0)


def _same(a, b, X):
    return (a.t_ == b.t_ and a.n_iter_ == b.n_iter_
            and all(np.array_equal(a._state[k], b._state[k], equal_nan=True) for k in a._state)
            and np.array_equal(a.decision_function(X), b.decision_function(X)))


@pytest.mark.parametrize("algorithm", BLOCKED)
def test_a_pass_in_blocks_is_the_pass_bit_for_bit(algorithm, small_blocks):
    """What ``exact_blocks`` declares: under a budget not spent, a pass run in blocks of rows
    gives the bits of one uninterrupted pass (dense and CSR rows, shuffled passes, weights)."""
    X, y = _data()
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    weights = np.random.default_rng(1).integers(1, 4, size=200).astype(float)
    cases = [(X, {}, {}), (X, {"shuffle": True, "max_iter": 2}, {"sample_weight": weights})]
    if get_algorithm(algorithm).sparse:
        cases.append((Xs, {"shuffle": True, "max_iter": 2}, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the budget is never spent
        for data, params, fit_params in cases:
            plain = aucopt.make(algorithm, random_state=0, **params).fit(data, y, **fit_params)
            blocked = aucopt.make(algorithm, random_state=0, max_time=1e9, **params)
            blocked.fit(data, y, **fit_params)
            assert _same(plain, blocked, data)


@pytest.mark.parametrize("algorithm", [a for a in aucopt.list_algorithms()
                                       if not get_algorithm(a).epochs_by_base])
def test_a_solver_under_a_budget_not_spent_runs_once(algorithm, small_blocks):
    """A spec whose ``run`` is the whole solver checks the budget itself: run_pass gave it
    the rows in blocks, and it solved again on each (two or three solves, other results,
    n_iter_ of the last solve only)."""
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the budget is never spent
        plain = aucopt.make(algorithm, random_state=0).fit(X, y)
        budgeted = aucopt.make(algorithm, random_state=0, max_time=1e9).fit(X, y)
    assert _same(plain, budgeted, X)


def test_the_budget_stops_inside_the_first_pass(small_blocks):
    """One pass over 20,000 rows, budget 1 µs: the fit stops after its first block of rows
    (before: only between passes, so a single long pass always ran to its end)."""
    X, y = _data(n=20_000, d=5)
    # under the parameters where a stream equals fit (one update per row)
    params = dict(random_state=0, max_iter=1, shuffle=False, eta0=0.1, stats="online",
                  precondition=None)
    est = aucopt.make("spam-net", max_time=1e-6, **params)
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06"):
        est.fit(X, y)
    assert est.n_iter_ == 1
    assert np.isfinite(est.decision_function(X)).all()
    # the model of the rows before the stop (the first block, 7 rows): partial_fit on them
    stream = aucopt.make("spam-net", **params).partial_fit(X[:7], y[:7], classes=[-1, 1])
    assert stream.t_ == est.t_
    assert np.array_equal(stream.coef_, est.coef_)


def test_a_chunk_stopped_by_the_budget_says_its_later_rows_are_not_learnt(small_blocks):
    # (the warning named fit, max_iter and a tolerance, none of which a chunk has)
    X, y = _data(n=300, d=5)
    est = aucopt.make("solam", random_state=0, max_time=1e-9)
    with pytest.warns(ConvergenceWarning, match=r"SOLAMClassifier\.partial_fit stopped after "
                      r"max_time=1e-09 s inside its chunk: the model learnt the rows before "
                      r"that point, and no later call learns the others"):
        est.partial_fit(X, y, classes=[-1, 1])
    with pytest.warns(ConvergenceWarning, match=r"SOLAMClassifier\.fit stopped .* before "
                      r"max_iter"):
        aucopt.make("solam", random_state=0, max_time=1e-9).fit(X, y)


def test_mba_stops_between_its_sampling_rounds():
    X, y = _data(n=400, d=20)
    est = aucopt.make("mba", random_state=0, max_iter=1000, batch_size=2000, max_time=1e-6)
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06"):
        est.fit(X, y)
    assert 1 <= est.n_iter_ < 1000
    assert est.score(X, y) > 0.6


def test_mba_coordinate_descent_in_budgeted_parts_is_one_descent():
    """The l1 solve checks max_time every few sweeps; parts that keep the residual give the
    bits of one descent, and a spent budget stops it (reported as not converged)."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(30, 30))
    sigma, mu = A @ A.T / 30, rng.normal(size=30)
    whole, sweeps = solve_quadratic(sigma, mu, 0.01, 1e-6, 1e-14)
    assert SWEEPS_PER_CHECK < sweeps <= MAX_SWEEPS  # several parts
    parts, again = solve_quadratic(sigma, mu, 0.01, 1e-6, 1e-14, deadline=Deadline(1e9))
    assert np.array_equal(whole, parts) and again == sweeps
    with pytest.warns(ConvergenceWarning):
        _, stopped = solve_quadratic(sigma, mu, 0.01, 1e-6, 1e-14, deadline=Deadline(1e-9))
    assert stopped == MAX_SWEEPS + 1


def test_mba_under_a_budget_not_spent_is_unchanged():
    X, y = _data(n=300, d=10)
    for params in ({}, {"lam1": 0.01}, {"pairs": "all", "lam1": 0.01}):
        a = aucopt.make("mba", random_state=0, **params).fit(X, y)
        b = aucopt.make("mba", random_state=0, max_time=1e9, **params).fit(X, y)
        assert _same(a, b, X)


def test_sparse_kernel_stops_between_its_greedy_additions():
    """The additions run in one compiled loop, which reads the clock before each (before:
    max_time was not looked at, all ``budget`` additions ran)."""
    X, y = _data(n=300, d=5)
    est = aucopt.make("sparse-kernel", random_state=0, budget=40, max_time=1e-6)
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06"):
        est.fit(X, y)
    assert 1 <= est.n_iter_ < 40
    assert np.isfinite(est.decision_function(X)).all()
    plain = aucopt.make("sparse-kernel", random_state=0, budget=40).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        unspent = aucopt.make("sparse-kernel", random_state=0, budget=40, max_time=1e9)
        unspent.fit(X, y)
    assert plain.n_iter_ == 40 and _same(plain, unspent, X)


def test_one_budget_for_the_calibration_and_the_inner_loops_of_vrspam():
    """A long inner loop (10^7 steps per stage) stops inside its stage, and the brief runs of
    the step calibration share the fit's budget (before: each had a budget of its own, and
    the inner loop ran whole)."""
    X, y = _data(n=60, d=6)
    est = aucopt.make("vrspam-net", random_state=0, inner=10**7, max_time=0.2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        est.fit(X, y)
    budget_warnings = [w for w in seen if "max_time" in str(w.message)]
    assert len(budget_warnings) == 1, [str(w.message) for w in seen]
    assert est.t_ < 10**7
    assert np.isfinite(est.decision_function(X)).all()


@pytest.mark.parametrize("algorithm", ["spam-l2", "aogd"])
def test_the_step_calibration_stops_on_the_budget(algorithm, monkeypatch):
    """The brief runs of an "auto" step share the fit's budget: once it is spent, no further
    step is tried (before: the ladder was climbed whole, 7 brief runs of about 7 s each for
    AOGD with 10^7 random features under max_time=20, a fit of 78 s)."""
    import aucopt.algorithms._calibrate as calibrate

    X, y = _data(n=300, d=6)
    runs = []
    brief_run = calibrate._brief_run

    def counted(*args, **kwargs):
        runs.append(1)
        return brief_run(*args, **kwargs)

    monkeypatch.setattr(calibrate, "_brief_run", counted)
    aucopt.make(algorithm, random_state=0).fit(X, y)
    assert len(runs) >= 3  # unlimited: the ladder is climbed
    runs.clear()
    est = aucopt.make(algorithm, random_state=0, max_time=1e-6)
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06"):
        est.fit(X, y)
    assert len(runs) == 1
    assert np.isfinite(est.decision_function(X)).all()


@pytest.mark.parametrize("algorithm", ["spam-l2", "uni-log-batch", "svm-perf", "vrspam-l2"])
def test_the_budget_warning_points_at_the_callers_line(algorithm):
    """A fixed stacklevel pointed at aucopt's lines (or scipy's, from its optimiser's
    callback) whenever the deadline was checked deeper than usual."""
    X, y = _data(n=3000, d=20)
    with pytest.warns(ConvergenceWarning, match="max_time") as caught:
        aucopt.make(algorithm, random_state=0, max_time=1e-9).fit(X, y)
    assert {w.filename for w in caught if w.category is ConvergenceWarning} == {__file__}
