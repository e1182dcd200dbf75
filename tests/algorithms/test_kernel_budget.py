"""Projection++ (KOIL) and Sparse Kernel: reference, optimality, budgets, non-linear problems."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize

import aucopt
from aucopt._kernels.sparse_kernel import _pair_hessian, _pair_terms, _quad_form
from aucopt.algorithms.kernel_budget import projection_pp_mean_scores
from aucopt.kernel_model import ProjectionPPClassifier, SparseKernelClassifier

from ..reference import kernel_budget as ref
from .test_aogd import circles_problem, xor_problem
from .test_oam import assert_old_files_load_with_unit_weights, positive_weights


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
    assert est.eta_ == 0.1 and est.eta == 0.1  # a step given is used as it is
    assert est._state["size"].tolist() == [12, 12]  # both buffers filled and replaced
    assert_allclose(est._state["sv"], sv, rtol=0, atol=0)
    assert_allclose(est._state["alpha"], alpha, rtol=1e-10, atol=1e-13)
    scores = [sum(a * ref.gauss(x, s, 2.5) for s, a in zip(sv, alpha, strict=True) if a)
              for x in X[:20]]
    assert_allclose(est.decision_function(as_format(X[:20])) - est.intercept_[0], scores,
                    rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("replacement", ["reservoir", "fifo"])
def test_projection_pp_weighted_matches_weighted_reference(replacement, german, as_format):
    """Sample weights: a violated pair (t, j) moves the coefficients by eta w_t w_j; support
    vectors keep their rows' weights in sv_w (notes.md#sample-weights)."""
    X, y = german
    X, y = X[:250], y[:250]
    sw = positive_weights(len(y), seed=2)
    params = dict(budget=12, n_neighbors=3, eta=0.1, lam=0.3, bandwidth=2.5,
                  replacement=replacement)
    est = ProjectionPPClassifier(**params, max_iter=2, random_state=4)
    est.fit(as_format(X), y, sample_weight=sw)
    run = dict(eta=0.1, lam=0.3, k=3, budget=12, sigma=2.5, replacement=replacement)
    alpha, sv, t = ref.projection_pp(X, y, _passes(4, len(y), 2), sample_weight=sw, **run)
    plain, _, _ = ref.projection_pp(X, y, _passes(4, len(y), 2), **run)
    assert est.t_ == t == 500
    assert_allclose(est._state["sv"], sv, rtol=0, atol=0)
    assert_allclose(est._state["alpha"], alpha, rtol=1e-10, atol=1e-13)
    assert not np.allclose(alpha, plain, rtol=1e-3)
    rows = [np.flatnonzero((X == s).all(axis=1))[0] for s in sv]  # the row of each vector
    assert_allclose(est._state["sv_w"], sw[rows], rtol=0)


@pytest.mark.parametrize("weighted", [False, True])
def test_projection_pp_intercept_is_minus_the_mean_class_scores(weighted, german):
    """``intercept_ = -(m+ + m-) / 2``, ``m+-`` the means of the scores of each class's stored
    support vectors weighted by their sample weights, from the reference kernel (the
    compiled sums of the state's Gram matrix give them without copying it)."""
    X, y = german
    X, y = X[:250], y[:250]
    sw = positive_weights(len(y), seed=2) if weighted else None
    est = ProjectionPPClassifier(budget=12, n_neighbors=3, eta=0.1, lam=0.3, bandwidth=2.5,
                                 max_iter=2, random_state=4).fit(X, y, sample_weight=sw)
    st = est._state
    used = np.flatnonzero(st["used"])
    scores = {j: sum(st["alpha"][k] * ref.gauss(st["sv"][j], st["sv"][k], 2.5) for k in used)
              for j in used}
    means = [np.average([scores[j] for j in part], weights=st["sv_w"][part])
             for part in (used[used < 12], used[used >= 12])]
    assert len(used[used < 12]) and len(used[used >= 12])
    got = projection_pp_mean_scores(st, est._params())  # (positives, negatives)
    assert got == pytest.approx(means, rel=1e-10, abs=1e-12)
    assert est.intercept_[0] == pytest.approx(-(means[0] + means[1]) / 2, rel=1e-10, abs=1e-12)


def test_projection_pp_auto_eta_is_calibrated_on_fit_and_recorded(german):
    """notes.md#kernel-steps: the default step is calibrated on the data and kept in eta_;
    the fit equals a fit with that number given."""
    X, y = german
    est = ProjectionPPClassifier(budget=30, random_state=0).fit(X, y)
    assert est.eta == "auto" and isinstance(est.eta_, float) and est.eta_ > 0
    given = ProjectionPPClassifier(budget=30, eta=est.eta_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(given._state["alpha"], est._state["alpha"])


def test_projection_pp_uncalibrated_auto_eta_is_the_former_constant(german):
    """Single rows never calibrate: "auto" is then the authors' 0.05, bit for bit."""
    X, y = german
    auto = ProjectionPPClassifier(budget=20, random_state=0)
    fixed = ProjectionPPClassifier(budget=20, eta=0.05, random_state=0)
    for est in (auto, fixed):
        for i in range(120):
            est.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
    assert auto.eta_ is None and auto.t_ == fixed.t_ == 120
    np.testing.assert_array_equal(auto._state["alpha"], fixed._state["alpha"])
    np.testing.assert_array_equal(auto._state["sv"], fixed._state["sv"])


def test_projection_pp_model_vector_norm_is_the_rkhs_norm(german):
    """||v||^2 = ||f||^2 = sum_ij alpha_i alpha_j k(s_i, s_j) over the stored vectors, so the
    calibration objective's l2 term is KOIL's RKHS penalty."""
    from aucopt.algorithms.kernel_budget import projection_pp_model_vector

    X, y = german
    est = ProjectionPPClassifier(budget=15, eta=0.1, bandwidth=2.5, random_state=0).fit(X, y)
    state = est._state
    assert state["used"].all()  # both buffers full
    brute = sum(a * b * ref.gauss(s, u, 2.5)
                for a, s in zip(state["alpha"], state["sv"], strict=True)
                for b, u in zip(state["alpha"], state["sv"], strict=True))
    v = projection_pp_model_vector(state)
    assert brute > 0
    assert_allclose(v @ v, brute, rtol=1e-10)
    # only the used slots count: a free slot's leftover values change nothing
    state["used"][0] = False
    part = projection_pp_model_vector(state)
    keep = np.flatnonzero(state["used"])
    assert part.shape == (keep.size,)
    alpha = state["alpha"][keep]
    brute = sum(alpha[i] * alpha[j] * ref.gauss(state["sv"][keep[i]], state["sv"][keep[j]], 2.5)
                for i in range(keep.size) for j in range(keep.size))
    assert_allclose(part @ part, brute, rtol=1e-10)


def test_projection_pp_old_files_load_with_unit_weights(tmp_path):
    assert_old_files_load_with_unit_weights(
        lambda: ProjectionPPClassifier(budget=30, random_state=0), "sv_w", tmp_path)


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


def _brute_pair_terms(s, y, w, col):
    """The weighted squared-hinge pair sums by brute force over every (i+, j-) pair."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    loss, grad, quad = 0.0, np.zeros(len(s)), 0.0
    hess = np.zeros((col.shape[1],) * 2)
    for i in pos:
        for j in neg:
            m = 1.0 - s[i] + s[j]
            if m > 0:
                loss += w[i] * w[j] * m * m
                grad[i] -= 2 * w[i] * w[j] * m
                grad[j] += 2 * w[i] * w[j] * m
                diff = col[i] - col[j]
                quad += w[i] * w[j] * diff[0] ** 2
                hess += w[i] * w[j] * np.outer(diff, diff)
    return loss, grad, quad, hess


def test_sparse_kernel_weighted_pair_sums_equal_brute_force():
    """The O(n log n) weighted sums of the Newton refit (loss, gradient, the gain's quadratic
    form, the Hessian) equal the sums over all pairs weighted by w_i w_j."""
    rng = np.random.default_rng(0)
    n, m = 40, 3
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    w = positive_weights(n, seed=3)
    s, col = rng.standard_normal(n), rng.standard_normal((n, m))
    classes = (np.flatnonzero(y > 0), np.flatnonzero(y < 0), w)
    grad, count, first = np.empty(n), np.empty(n), np.zeros(n, dtype=np.int64)
    loss = _pair_terms(s, classes, grad, count, first)
    hess = np.empty((m, m))
    _pair_hessian(hess, m, col, s, classes, count, first)
    quad = _quad_form(np.ascontiguousarray(col[:, 0]), s, classes, count, first)
    expected = _brute_pair_terms(s, y, w, col)
    for got, want in zip((loss, grad, quad, hess), expected, strict=True):
        assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_sparse_kernel_weighted_newton_reaches_the_weighted_optimum(german):
    """With sample weights the refit minimises the pair mean weighted by w_i w_j."""
    X, y = german
    X, y = X[:300], y[:300]
    sw = positive_weights(len(y), seed=4)
    est = SparseKernelClassifier(budget=6, lam=1e-2, bandwidth=3.0, random_state=0)
    est.fit(X, y, sample_weight=sw)
    basis, beta = est._state["basis"], est._state["beta"]
    objective = lambda b: ref.sparse_objective(b, basis, X, y, 3.0, 1e-2, sw)  # noqa: E731
    best = minimize(objective, np.zeros(6), method="BFGS", options={"gtol": 1e-10})
    assert objective(beta) <= best.fun + 1e-9
    assert_allclose(beta, best.x, rtol=1e-4, atol=1e-4)
    scores = est.decision_function(X) - est.intercept_[0]
    assert_allclose(est._state["mean_score"], [np.average(scores[y < 0], weights=sw[y < 0]),
                                               np.average(scores[y > 0], weights=sw[y > 0])])
    unweighted = lambda b: ref.sparse_objective(b, basis, X, y, 3.0, 1e-2)  # noqa: E731
    assert unweighted(beta) > minimize(unweighted, beta, method="BFGS").fun + 1e-7
