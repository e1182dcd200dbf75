"""Projection++ (KOIL) and Sparse Kernel: reference, optimality, budgets, non-linear problems."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize

import aucopt
from aucopt.kernel_model import ProjectionPPClassifier, SparseKernelClassifier

from ..reference import kernel_budget as ref
from .test_aogd import circles_problem, xor_problem


def _passes(seed, n, n_passes):
    """Replay the estimator's Generator: per pass a permutation, then (n, 2) uniforms."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_passes):
        order = rng.permutation(n)
        out.append((order, rng.random((n, 2))))
    return out


@pytest.mark.parametrize("replacement", ["reservoir", "fifo"])
def test_projection_pp_matches_reference_same_order_and_draws(replacement, german, as_format):
    X, y = german
    X, y = X[:250], y[:250]
    params = dict(budget=12, n_neighbors=3, eta=0.1, lam=0.3, bandwidth=2.5,
                  replacement=replacement)
    est = ProjectionPPClassifier(**params, max_iter=2, random_state=4).fit(as_format(X), y)
    alpha, sv, t = ref.projection_pp(X, y, _passes(4, len(y), 2), eta=0.1, lam=0.3, k=3, budget=12,
                            sigma=2.5, replacement=replacement)
    assert est.t_ == t == 500
    assert est._state["size"].tolist() == [12, 12]  # both buffers filled and replaced
    assert_allclose(est._state["sv"], sv, rtol=0, atol=0)
    assert_allclose(est._state["alpha"], alpha, rtol=1e-10, atol=1e-13)
    scores = [sum(a * ref.gauss(x, s, 2.5) for s, a in zip(sv, alpha, strict=True) if a)
              for x in X[:20]]
    assert_allclose(est.decision_function(as_format(X[:20])) - est.intercept_[0], scores,
                    rtol=1e-10, atol=1e-12)


def test_projection_pp_memory_is_bounded_by_the_budget():
    X, y = xor_problem(3000, 0)
    est = ProjectionPPClassifier(budget=25, random_state=0).fit(X, y)
    assert est._state["used"].sum() <= 50 and est._state["sv"].shape[0] == 50
    assert np.all(est._state["size"] == 25)


def test_projection_pp_infinite_budget_keeps_every_weighted_example():
    """With a budget larger than the stream nothing is replaced: one vector per nonzero step."""
    X, y = xor_problem(150, 1)
    est = ProjectionPPClassifier(budget=200, random_state=0).fit(X, y)
    alpha = est._state["alpha"][est._state["used"]]
    assert est._state["used"].sum() == est._state["size"].sum() <= 150
    assert np.all(alpha != 0)


@pytest.mark.parametrize("problem", [xor_problem, circles_problem])
@pytest.mark.parametrize("algorithm_id", ["projection-pp", "sparse-kernel"])
def test_learns_nonlinear_problem_where_linear_fails(algorithm_id, problem):
    """Issue #5: AUC >= 0.95 on a noiseless non-linear problem; spam-l2 stays below 0.65."""
    X, y = problem(2000, 0)
    X_test, y_test = problem(2000, 1)
    assert aucopt.make(algorithm_id, random_state=0).fit(X, y).score(X_test, y_test) >= 0.95
    assert aucopt.make("spam-l2", random_state=0).fit(X, y).score(X_test, y_test) < 0.65


def test_sparse_kernel_newton_reaches_the_optimum_on_its_basis(german, as_format):
    """The final refit minimises the objective over the chosen basis (checked with BFGS)."""
    X, y = german
    X, y = X[:300], y[:300]
    est = SparseKernelClassifier(budget=8, lam=1e-2, bandwidth=3.0, random_state=0)
    est.fit(as_format(X), y)
    st = est._state
    assert est.n_iter_ == 8 and st["active"].sum() == 8
    basis, beta = st["basis"], st["beta"]
    objective = lambda b: ref.sparse_objective(b, basis, X, y, 3.0, 1e-2)  # noqa: E731
    best = minimize(objective, np.zeros(8), method="BFGS", options={"gtol": 1e-10})
    assert objective(beta) <= best.fun + 1e-9
    assert_allclose(beta, best.x, rtol=1e-4, atol=1e-4)
    # the basis points are training rows
    assert all(np.any(np.all(X == b, axis=1)) for b in basis)


def test_sparse_kernel_objective_falls_as_basis_grows(german):
    X, y = german
    X, y = X[:300], y[:300]
    values = []
    for budget in (1, 4, 16):
        st = SparseKernelClassifier(budget=budget, lam=1e-3, bandwidth=3.0,
                                    random_state=0).fit(X, y)._state
        values.append(ref.sparse_objective(st["beta"], st["basis"], X, y, 3.0, 1e-3))
    assert values[0] > values[1] > values[2]


def test_sparse_kernel_model_size_is_the_budget(german):
    X, y = german
    est = SparseKernelClassifier(budget=10, random_state=0).fit(X, y)
    assert est._state["basis"].shape == (10, X.shape[1]) and est.n_iter_ == 10
    assert est.score(X, y) > 0.75
