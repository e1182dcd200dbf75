"""B-LS-SVM, B-SVM-OR and SVM-perf against closed forms and brute-force pairwise solvers."""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms import batch_pairwise, get_algorithm
from aucopt.algorithms._cutting_plane import most_violated_roc, pairwise_hinge, simplex_qp
from aucopt.algorithms.batch_pairwise import class_statistics, ls_svm_gcv
from aucopt.datasets import make_auc_problem


@pytest.fixture(scope="module")
def small():
    """n = 60 with overlapping classes (many active hinge pairs)."""
    X, y = make_auc_problem(60, 5, pos_rate=0.35, separation=1.0, random_state=4)
    return np.asarray(X), y


def _pairs(X, y):
    """All differences x_i+ - x_j- (brute force; tests only)."""
    return (X[y > 0][:, None, :] - X[y < 0][None, :, :]).reshape(-1, X.shape[1])


def _pair_weights(y, v=None):
    """Normalised pair weights v_i v_j / sum v_i v_j in the order of :func:`_pairs`."""
    v = np.ones(len(y)) if v is None else v
    c = np.outer(v[y > 0], v[y < 0]).ravel()
    return c / c.sum()


def _weights(n, seed=0):
    """Non-integer sample weights in [0.2, 3)."""
    return np.random.default_rng(seed).uniform(0.2, 3.0, n)


def _hinge_objective(D, w, lam, kappa, c=None):
    c = np.full(len(D), 1.0 / len(D)) if c is None else c
    return 0.5 * lam * w @ w + c @ np.maximum(0.0, 1.0 - kappa * D @ w)


def _brute_force_hinge_svm(D, lam, kappa, c=None):
    """Pairwise hinge SVM by its box-constrained dual over all pairs (L-BFGS-B).

    With the pair weights c (summing to 1; 1/N by default):
    max_b c.b - kappa^2/(2 lam) ||D^T (c b)||^2, 0 <= b <= 1; w = kappa D^T (c b)/lam.
    Returns (w, dual value).
    """
    N = len(D)
    c = np.full(N, 1.0 / N) if c is None else c
    Dc = D * c[:, None]

    def neg_dual(b):
        v = Dc.T @ b
        k = kappa**2 / (2 * lam)
        return k * v @ v - c @ b, 2 * k * (Dc @ v) - c

    res = scipy.optimize.minimize(neg_dual, np.full(N, 0.5), jac=True, method="L-BFGS-B",
                                  bounds=[(0.0, 1.0)] * N,
                                  options={"maxiter": 20000, "gtol": 1e-13, "ftol": 0.0})
    w = kappa * Dc.T @ res.x / lam
    return w, -res.fun


# ------------------------------------------------------------------- B-LS-SVM
def test_ls_svm_equals_closed_form_and_pairwise_normal_equations(small, as_format):
    X, y = small
    lam = 0.01
    est = aucopt.make("b-ls-svm", lam=lam).fit(as_format(X), y)
    # notes.md#closed-forms closed form
    pos, neg = X[y > 0], X[y < 0]
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    closed = np.linalg.solve(sigma2 + lam * np.eye(X.shape[1]), mu)
    assert_allclose(est.coef_[0], closed, rtol=1e-10, atol=1e-12)
    # and the minimiser of the objective written over the explicit pairs (notes.md#square-loss)
    D = _pairs(X, y)
    N = len(D)
    brute = np.linalg.solve(lam * np.eye(X.shape[1]) + D.T @ D / N, D.T @ np.ones(N) / N)
    assert_allclose(est.coef_[0], brute, rtol=1e-9, atol=1e-12)


def test_weighted_ls_svm_is_the_minimiser_over_weighted_pairs(small, as_format):
    X, y = small
    v = _weights(len(y))
    lam = 0.01
    est = aucopt.make("b-ls-svm", lam=lam).fit(as_format(X), y, sample_weight=v)
    # each pair weighted by v_i v_j (notes.md#sample-weights), written over the explicit pairs
    D, c = _pairs(X, y), _pair_weights(y, v)
    brute = np.linalg.solve(lam * np.eye(X.shape[1]) + D.T @ (c[:, None] * D), D.T @ c)
    assert_allclose(est.coef_[0], brute, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("algorithm_id", ["b-ls-svm", "b-svm-or", "svm-perf"])
def test_integer_weights_equal_duplicated_rows(small, algorithm_id):
    X, y = small
    v = np.arange(len(y)) % 4 + 1.0
    rep = np.repeat(np.arange(len(y)), v.astype(int))
    Xs = sp.csr_matrix(X)
    weighted = aucopt.make(algorithm_id, lam=0.01).fit(Xs, y, sample_weight=v)
    repeated = aucopt.make(algorithm_id, lam=0.01).fit(Xs[rep], y[rep])
    assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-8,
                    atol=1e-10)


def test_ls_svm_refuses_a_too_large_gram_before_allocating():
    X = sp.random(50, 200_000, density=1e-4, format="csr", random_state=0)
    y = np.tile([-1, 1], 25)
    with pytest.raises(ValueError, match="200000 x 200000.*max_memory_gb=2.*b-svm-or"):
        aucopt.make("b-ls-svm").fit(X, y)


def test_ls_svm_sparse_statistics_without_densifying():
    # a CSR matrix with d = 1200: the data stay sparse, only the d x d statistics are dense
    X = sp.random(400, 1200, density=0.005, format="csr", random_state=1)
    y = np.where(np.random.default_rng(1).random(400) < 0.3, 1, -1)
    est = aucopt.make("b-ls-svm", lam=0.1).fit(X, y)
    dense = aucopt.make("b-ls-svm", lam=0.1).fit(X.toarray(), y)
    assert_allclose(est.coef_, dense.coef_, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("algorithm_id", ["b-ls-svm", "uni-squ-batch"])
@pytest.mark.parametrize("offset", [1e4, 1e8])
def test_csr_columns_far_from_zero_give_the_dense_statistics(small, algorithm_id, offset):
    # X'WX / W - c c^T cancelled: at an offset of 1e8 the covariance was noise (a singular
    # system), at 1e7 the model 6-17% off the dense one's
    X, y = small
    X = X.copy()
    X[:, :3] += offset  # three columns far from zero; the others near it
    Xs, signed = sp.csr_matrix(X), y.astype(np.float64)
    for a, b in zip(class_statistics(Xs, signed), class_statistics(X, signed)):
        assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    for lam in ("auto", 1e-3):
        dense = aucopt.make(algorithm_id, lam=lam).fit(X, y)
        assert_allclose(aucopt.make(algorithm_id, lam=lam).fit(Xs, y).coef_, dense.coef_,
                        rtol=1e-7, atol=1e-12 * np.abs(dense.coef_).max())


# ----------------------------------------------------------- cutting-plane parts
def _alg15_scan(scores, y, kappa):
    """Literal thesis Algorithm 15 (with offsets -+ 1/(2 kappa)), decreasing scan."""
    s = np.where(y > 0, scores - 0.5 / kappa, scores + 0.5 / kappa)
    order = sorted(range(len(y)), key=lambda i: -s[i])
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    sp_, sn_ = n_pos, 0
    c = np.zeros(len(y))
    for r in order:
        if y[r] > 0:
            c[r] = n_neg - 2 * sn_
            sp_ -= 1
        else:
            c[r] = -n_pos + 2 * sp_
            sn_ += 1
    return c


@pytest.mark.parametrize("kappa", [1.0, 2.0])
def test_most_violated_constraint_is_algorithm_15_and_the_pairwise_argmax(kappa):
    rng = np.random.default_rng(0)
    y = np.where(rng.random(50) < 0.4, 1.0, -1.0)
    scores = rng.standard_normal(50)
    swapped, c = most_violated_roc(scores, y, kappa)
    assert_allclose(c, _alg15_scan(scores, y, kappa), atol=0)
    # brute force: y'_ij = -1 exactly where the pair's hinge 1 - kappa (s_i - s_j) is positive
    flip = 1.0 - kappa * (scores[y > 0][:, None] - scores[y < 0][None, :]) > 0
    yprime = np.where(flip, -1.0, 1.0)
    c_brute = np.zeros(50)
    c_brute[y > 0] = yprime.sum(1)
    c_brute[y < 0] = -yprime.sum(0)
    assert swapped == flip.sum()
    assert_allclose(c, c_brute, atol=0)


def test_weighted_most_violated_constraint_is_the_pairwise_argmax():
    rng = np.random.default_rng(1)
    sign = np.where(rng.random(40) < 0.4, 1.0, -1.0)
    v = _weights(40, seed=1)
    scores = rng.standard_normal(40)
    swapped, c = most_violated_roc(scores, sign * v, 1.0)
    flip = 1.0 - (scores[sign > 0][:, None] - scores[sign < 0][None, :]) > 0
    pair_w = np.outer(v[sign > 0], v[sign < 0])
    yprime = np.where(flip, -1.0, 1.0) * pair_w
    c_brute = np.zeros(40)
    c_brute[sign > 0] = yprime.sum(1)
    c_brute[sign < 0] = -yprime.sum(0)
    assert_allclose(swapped, pair_w[flip].sum(), rtol=1e-13)
    assert_allclose(c, c_brute, rtol=1e-12, atol=1e-12)


def test_pairwise_hinge_is_exact_in_n_log_n_including_ties(small):
    X, y = small
    X = np.round(X, 1)  # many tied scores
    w = np.array([1.0, -0.5, 0.0, 2.0, 0.5])
    D = _pairs(X, y)
    v = _weights(len(y))
    for kappa in (1.0, 2.0):
        assert_allclose(pairwise_hinge(X, y, w, kappa),
                        np.mean(np.maximum(0, 1 - kappa * D @ w)), rtol=1e-13)
        assert_allclose(pairwise_hinge(sp.csr_matrix(X), y, w, kappa),
                        np.mean(np.maximum(0, 1 - kappa * D @ w)), rtol=1e-13)
        assert_allclose(pairwise_hinge(X, y * v, w, kappa),
                        _pair_weights(y, v) @ np.maximum(0, 1 - kappa * D @ w), rtol=1e-12)


def test_simplex_qp_matches_slsqp_on_a_singular_problem():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((12, 4))          # rank 4 < 12: singular Gram
    Q = A @ A.T
    b = rng.standard_normal(12)
    alpha = simplex_qp(Q, b, np.eye(12)[0])
    assert np.all(alpha >= 0) and abs(alpha.sum() - 1) < 1e-15
    f = lambda a: 0.5 * a @ Q @ a - b @ a  # noqa: E731
    ref = scipy.optimize.minimize(f, np.full(12, 1 / 12), jac=lambda a: Q @ a - b,
                                  method="SLSQP", bounds=[(0, None)] * 12,
                                  constraints={"type": "eq", "fun": lambda a: a.sum() - 1},
                                  options={"ftol": 1e-15, "maxiter": 1000})
    assert f(alpha) <= ref.fun + 1e-10
    # KKT: the gradient is smallest (= -nu) on the support
    grad = Q @ alpha - b
    assert grad[alpha > 0].max() - grad.min() < 1e-9


# ------------------------------------------------------------ B-SVM-OR, SVM-perf
@pytest.mark.parametrize("algorithm_id, kappa", [("b-svm-or", 1.0), ("svm-perf", 2.0)])
@pytest.mark.parametrize("lam", [0.5, 0.01])
def test_cutting_plane_agrees_with_brute_force_pairwise_qp(small, as_format, algorithm_id,
                                                           kappa, lam):
    X, y = small
    D = _pairs(X, y)
    w_bf, dual_bf = _brute_force_hinge_svm(D, lam, kappa)
    p_bf = _hinge_objective(D, w_bf, lam, kappa)
    assert p_bf - dual_bf < 1e-7  # the reference itself is solved to 1e-7
    est = aucopt.make(algorithm_id, lam=lam, tol=1e-8, max_iter=5000).fit(as_format(X), y)
    w = est.coef_[0]
    p = _hinge_objective(D, w, lam, kappa)
    assert abs(p - p_bf) < 1e-6
    assert p - dual_bf < 1e-6 + 1e-7
    assert est._state["gap"][0] <= 1e-8 and est.n_iter_ < 5000
    # strong convexity: ||w - w*||^2 <= 2 (P(w) - P*) / lam
    assert np.linalg.norm(w - w_bf) <= np.sqrt(2 * 2e-6 / lam)


@pytest.mark.parametrize("algorithm_id, kappa", [("b-svm-or", 1.0), ("svm-perf", 2.0)])
def test_weighted_cutting_plane_agrees_with_brute_force_per_pair_costs(small, as_format,
                                                                       algorithm_id, kappa):
    X, y = small
    v = _weights(len(y))
    lam = 0.05
    D, c = _pairs(X, y), _pair_weights(y, v)
    w_bf, dual_bf = _brute_force_hinge_svm(D, lam, kappa, c)
    est = aucopt.make(algorithm_id, lam=lam, tol=1e-8, max_iter=5000).fit(
        as_format(X), y, sample_weight=v)
    p = _hinge_objective(D, est.coef_[0], lam, kappa, c)
    assert abs(p - _hinge_objective(D, w_bf, lam, kappa, c)) < 1e-6
    assert p - dual_bf < 1e-6 + 1e-7
    assert np.linalg.norm(est.coef_[0] - w_bf) <= np.sqrt(2 * 2e-6 / lam)


def test_tolerance_is_a_certified_objective_gap(small):
    X, y = small
    D = _pairs(X, y)
    _, dual = _brute_force_hinge_svm(D, 0.01, 1.0)  # dual <= P* (to 1e-7)
    for tol in (1e-2, 1e-3, 1e-4):
        est = aucopt.make("b-svm-or", lam=0.01, tol=tol).fit(X, y)
        assert est._state["gap"][0] <= tol
        assert _hinge_objective(D, est.coef_[0], 0.01, 1.0) - dual <= tol + 1e-7


def test_svm_perf_is_svm_or_with_a_quarter_of_lam_and_half_of_w(german):
    X, y = german
    perf = aucopt.make("svm-perf", lam=0.04, tol=1e-9, max_iter=3000).fit(X, y)
    svm_or = aucopt.make("b-svm-or", lam=0.01, tol=1e-9, max_iter=3000).fit(X, y)
    assert_allclose(perf.coef_[0], svm_or.coef_[0] / 2, atol=1e-3 * np.abs(svm_or.coef_).max())


def test_max_iter_caps_the_number_of_cuts(german):
    X, y = german
    est = aucopt.make("b-svm-or", lam=2.0**-10, tol=1e-12, max_iter=7).fit(X, y)
    assert est.n_iter_ == est.t_ == 7 and est._state["gap"][0] > 1e-12


def test_warm_start_from_the_solution_stops_at_once(german):
    X, y = german
    est = aucopt.make("b-svm-or", lam=0.1, tol=1e-3, warm_start=True).fit(X, y)
    first = est.coef_.copy()
    est.set_params(tol=1.0).fit(X, y)  # P(w) - D(alpha=e_0) = P(w) <= 1: no cut needed
    assert est.n_iter_ == 0
    assert_allclose(est.coef_, first, rtol=0, atol=0)


# ---------------------------------------------------------------- lam="auto" (GCV)
def test_ls_svm_auto_lam_minimises_gcv_computed_by_brute_force(small):
    """Refit at every candidate and compute GCV (gamma 1.4) from the explicit weighted pairs."""
    X, y = small
    v = _weights(len(y))
    est = aucopt.make("b-ls-svm").fit(X, y, sample_weight=v)
    lams, values = ls_svm_gcv(*class_statistics(X, y * v), v[y > 0].sum(), v[y < 0].sum())
    D, c = _pairs(X, y), _pair_weights(y, v)
    w_pos, w_neg = v[y > 0].sum(), v[y < 0].sum()
    n_eff = 4 * w_pos * w_neg / (w_pos + w_neg)
    gram = D.T @ (c[:, None] * D)
    brute = []
    for lam in lams:
        w = aucopt.make("b-ls-svm", lam=lam).fit(X, y, sample_weight=v).coef_[0]
        trace = np.trace(np.linalg.solve(gram + lam * np.eye(X.shape[1]), gram))  # tr(hat)
        brute.append(c @ (1.0 - D @ w) ** 2 / (1.0 - 1.4 * trace / n_eff) ** 2)
    assert_allclose(values, brute, rtol=1e-8)
    assert est.lam_ == lams[np.argmin(brute)]
    assert est.get_params()["lam"] == "auto"
    assert_allclose(est.coef_, aucopt.make("b-ls-svm", lam=est.lam_).fit(
        X, y, sample_weight=v).coef_, rtol=1e-12)


def test_auto_lam_follows_the_scale_of_the_data_and_a_number_is_kept(small):
    X, y = small
    est = aucopt.make("b-ls-svm").fit(X, y)
    big = aucopt.make("b-ls-svm").fit(1e4 * X, y)
    assert_allclose(big.lam_, 1e8 * est.lam_, rtol=1e-6)
    assert_allclose(big.coef_, 1e-4 * est.coef_, rtol=1e-6)
    assert aucopt.make("b-ls-svm", lam=0.3).fit(X, y).lam_ == 0.3


@pytest.mark.parametrize("algorithm_id", ["b-ls-svm", "uni-squ-batch"])
@pytest.mark.parametrize("power", [-100, -80, 80, 100])
def test_auto_lam_keeps_its_units_at_extreme_feature_sizes(small, algorithm_id, power):
    # the criterion squared sums of eigenvalues: at 1e80 they overflowed, at 1e-100 they
    # underflowed, every candidate scored NaN and the largest lam was taken
    X, y = small
    est = aucopt.make(algorithm_id).fit(X, y)
    with np.errstate(all="raise"):  # (and no overflow on the way)
        far = aucopt.make(algorithm_id).fit(10.0**power * X, y)
    assert_allclose(far.lam_, 10.0 ** (2 * power) * est.lam_, rtol=1e-9)
    assert_allclose(far.coef_, 10.0**-power * est.coef_, rtol=1e-6)


def test_files_saved_before_lam_was_recorded_report_the_parameter(small):
    X, y = small
    est = aucopt.make("svm-perf", lam=0.25).fit(X, y)
    del est._state["lam"]
    get_algorithm("svm-perf").upgrade_state(est._state)
    assert est.lam_ == 0.25


@pytest.mark.parametrize("algorithm_id, factor", [("b-svm-or", 4.0), ("svm-perf", 16.0),
                                                  ("uni-log-batch", 2.0)])
def test_auto_lam_of_the_other_batch_methods_is_the_spread_rule(small, as_format, algorithm_id,
                                                                factor):
    X, y = small
    v = _weights(len(y))
    est = aucopt.make(algorithm_id).fit(as_format(X), y, sample_weight=v)
    D, c = _pairs(X, y), _pair_weights(y, v)
    w_pos, w_neg = v[y > 0].sum(), v[y < 0].sum()
    n_eff = 4 * w_pos * w_neg / (w_pos + w_neg)
    assert_allclose(est.lam_, factor * (c @ (D * D).sum(1)) / n_eff, rtol=1e-12)
    assert aucopt.make(algorithm_id, lam=0.3).fit(X, y).lam_ == 0.3


BATCH_IDS = ["b-ls-svm", "uni-squ-batch", "uni-log-batch", "b-svm-or", "svm-perf"]


def test_defaults_within_the_bar_on_few_rows():
    """The robustness case where the former fixed defaults fell 0.030-0.050 short."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import robustness

    X, y = robustness.suite(small=True)["few-rows"]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, "standard")
    best = robustness.ls_auc(Xtr, Xte, ytr, yte)
    gaps = {a: aucopt.make(a).fit(Xtr, ytr).score(Xte, yte) - best for a in BATCH_IDS}
    assert all(gap > -robustness.bar(a) for a, gap in gaps.items()), gaps


@pytest.mark.parametrize("algorithm_id, factor", [("b-ls-svm", 2.0), ("uni-squ-batch", 4.0)])
def test_auto_lam_above_the_gcv_dimension_limit_is_the_spread_rule(small, monkeypatch,
                                                                    algorithm_id, factor):
    X, y = small
    monkeypatch.setattr(batch_pairwise, "GCV_MAX_FEATURES", X.shape[1] - 1)
    est = aucopt.make(algorithm_id).fit(X, y)
    D = _pairs(X, y)
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    assert_allclose(est.lam_, factor * (D * D).sum(1).mean() * (n_pos + n_neg)
                    / (4 * n_pos * n_neg), rtol=1e-10)
