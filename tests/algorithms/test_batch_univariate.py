"""Uni-Log and Uni-Squ (batch): normal equations, first-order conditions, equivalences."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.linear_model import LogisticRegression

import aucopt
from aucopt.algorithms.batch_pairwise import class_statistics
from aucopt.algorithms.batch_univariate import balanced_logistic, class_weights, uni_squ_gcv


def _objective_terms(X, y, v=None):
    """Augmented design [X, 1] and the balanced weights v_i/W+, v_i/W- (written out)."""
    Z = np.hstack([X, np.ones((len(y), 1))])
    v = np.ones(len(y)) if v is None else v
    a = np.where(y > 0, v / v[y > 0].sum(), v / v[y < 0].sum())
    return Z, a


def _weights(n):
    """Non-integer sample weights in [0.2, 3)."""
    return np.random.default_rng(0).uniform(0.2, 3.0, n)


@pytest.mark.parametrize("weighted", [False, True])
def test_uni_squ_batch_solves_its_weighted_normal_equations(german, as_format, weighted):
    X, y = german
    lam = 0.05
    v = _weights(len(y)) if weighted else None
    est = aucopt.make("uni-squ-batch", lam=lam).fit(as_format(X), y, sample_weight=v)
    Z, a = _objective_terms(X, y, v)
    penalty = np.diag(np.append(np.full(X.shape[1], lam), 0.0))  # intercept unpenalised
    # gradient of (lam/2)|w|^2 + sum_i a_i (y_i - z_i.v)^2 is zero:
    wb = np.linalg.solve(penalty + 2 * Z.T @ (a[:, None] * Z), 2 * Z.T @ (a * y))
    assert_allclose(est.coef_[0], wb[:-1], rtol=1e-10, atol=1e-12)
    assert_allclose(est._state["bias"][0], wb[-1], rtol=1e-10, atol=1e-12)


def test_uni_squ_batch_ranks_as_ls_svm_with_half_lam(german):
    X, y = german
    uni = aucopt.make("uni-squ-batch", lam=0.02).fit(X, y).coef_[0]
    ls = aucopt.make("b-ls-svm", lam=0.01).fit(X, y).coef_[0]
    cosine = uni @ ls / np.linalg.norm(uni) / np.linalg.norm(ls)
    assert cosine > 1 - 1e-12


@pytest.mark.parametrize("weighted", [False, True])
def test_uni_squ_batch_conjugate_gradients_path_equals_cholesky(german, weighted):
    X, y = german
    v = _weights(len(y)) if weighted else None
    exact = aucopt.make("uni-squ-batch", lam=0.05).fit(X, y, sample_weight=v)
    cg = aucopt.make("uni-squ-batch", lam=0.05, max_memory_gb=1e-9, tol=1e-12).fit(
        sp.csr_matrix(X), y, sample_weight=v)
    assert cg.n_iter_ > 1  # the CG path really ran
    assert_allclose(cg.coef_, exact.coef_, rtol=1e-8, atol=1e-10)
    assert_allclose(cg._state["bias"], exact._state["bias"], rtol=1e-8, atol=1e-10)


def test_balanced_logistic_gradient_matches_finite_differences(german):
    X, y = german
    rng = np.random.default_rng(0)
    wb = rng.standard_normal(X.shape[1] + 1) * 0.3
    a = class_weights(y)
    _, grad = balanced_logistic(wb, X, y, a, 0.1)
    h = 1e-6
    fd = [(balanced_logistic(wb + h * e, X, y, a, 0.1)[0]
           - balanced_logistic(wb - h * e, X, y, a, 0.1)[0]) / (2 * h)
          for e in np.eye(len(wb))]
    assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("lam, weighted", [(1e-3, False), (0.1, False), (1e-3, True)])
def test_uni_log_batch_first_order_conditions(german, as_format, lam, weighted):
    X, y = german
    v = _weights(len(y)) if weighted else None
    est = aucopt.make("uni-log-batch", lam=lam, tol=1e-8).fit(as_format(X), y, sample_weight=v)
    w, b = est.coef_[0], est._state["bias"][0]
    Z, a = _objective_terms(X, y, v)
    margins = y * (Z @ np.append(w, b))
    sigma = 1.0 / (1.0 + np.exp(margins))  # = -d/dm log(1 + exp(-m))
    grad = -Z.T @ (a * y * sigma) + np.append(lam * w, 0.0)
    assert np.abs(grad).max() <= 1e-8
    assert 0 < est.n_iter_ < 1000


def test_uni_log_batch_equals_balanced_sklearn_logistic_regression(german):
    # sklearn: 1/2|w|^2 + C sum_i n/(2 n_c) log(...), intercept unpenalised (lbfgs), so
    # multiplying ours by 1/lam gives C = 2/(lam n)
    X, y = german
    lam = 0.01
    ours = aucopt.make("uni-log-batch", lam=lam, tol=1e-10).fit(X, y)
    ref = LogisticRegression(C=2 / (lam * len(y)), class_weight="balanced", tol=1e-12,
                             max_iter=10000).fit(X, y)
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-7)
    assert_allclose(ours._state["bias"], ref.intercept_, rtol=1e-5, atol=1e-7)


def test_uni_log_batch_weighting_is_balanced():
    # duplicating every negative leaves the balanced objective, hence the solution, unchanged
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 4))
    y = np.where(X[:, 0] + rng.standard_normal(80) > 0.5, 1, -1)
    once = aucopt.make("uni-log-batch", lam=0.05, tol=1e-10).fit(X, y)
    neg = y < 0
    twice = aucopt.make("uni-log-batch", lam=0.05, tol=1e-10).fit(
        np.vstack([X, X[neg]]), np.concatenate([y, y[neg]]))
    assert_allclose(twice.coef_, once.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("algorithm_id", ["uni-log-batch", "uni-squ-batch"])
def test_integer_weights_equal_duplicated_rows(german, algorithm_id):
    X, y = german
    X, y = sp.csr_matrix(X[:300]), y[:300]
    v = np.arange(len(y)) % 4 + 1.0
    rep = np.repeat(np.arange(len(y)), v.astype(int))
    weighted = aucopt.make(algorithm_id, lam=0.01).fit(X, y, sample_weight=v)
    repeated = aucopt.make(algorithm_id, lam=0.01).fit(X[rep], y[rep])
    assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-8,
                    atol=1e-10)


def test_uni_squ_auto_lam_minimises_gcv_computed_by_brute_force():
    """Refit at every candidate; GCV (gamma 1.4) from the explicit rows, b unpenalised."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((70, 6)) @ rng.standard_normal((6, 6))
    y = np.where(X[:, 0] + 2 * rng.standard_normal(70) > 0.8, 1, -1)
    v = rng.uniform(0.2, 3.0, 70)
    est = aucopt.make("uni-squ-batch").fit(X, y, sample_weight=v)
    w_pos, w_neg = v[y > 0].sum(), v[y < 0].sum()
    lams, values = uni_squ_gcv(*class_statistics(X, y * v), w_pos, w_neg)
    Z, a = _objective_terms(X, y, v)
    gram = Z.T @ (a[:, None] * Z)
    n_eff = 4 * w_pos * w_neg / (w_pos + w_neg)
    brute = []
    for lam in lams:
        fit = aucopt.make("uni-squ-batch", lam=lam).fit(X, y, sample_weight=v)
        wb = np.append(fit.coef_[0], fit._state["bias"][0])
        penalty = np.diag(np.append(np.full(X.shape[1], lam / 2), 0.0))
        trace = np.trace(np.linalg.solve(gram + penalty, gram))  # tr(hat), with the intercept
        brute.append((a / 2) @ (y - Z @ wb) ** 2 / (1.0 - 1.4 * trace / n_eff) ** 2)
    assert_allclose(values, brute, rtol=1e-8)
    assert est.lam_ == lams[np.argmin(brute)]
    assert aucopt.make("uni-squ-batch", lam=0.3).fit(X, y).lam_ == 0.3


@pytest.mark.parametrize("weighted", [False, True])
def test_uni_log_batch_without_class_weight_equals_sklearn_logistic_regression(
        german, as_format, weighted):
    # class_weight=None: (lam/2)|w|^2 + (2/W) sum_i v_i log(1 + exp(-y_i (w.x_i + b)));
    # times W/(2 lam) it is sklearn's 1/2|w|^2 + C sum_i v_i log(...) with C = 2/(lam W),
    # b unpenalised in both
    X, y = german
    v = _weights(len(y)) if weighted else None
    total = len(y) if v is None else v.sum()
    lam = 0.01
    ours = aucopt.make("uni-log-batch", class_weight=None, lam=lam, tol=1e-11,
                       precondition=None).fit(as_format(X), y, sample_weight=v)
    ref = LogisticRegression(C=2 / (lam * total), solver="newton-cholesky", tol=1e-14,
                             max_iter=1000).fit(X, y, sample_weight=v)
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-9)
    assert_allclose(ours._state["bias"], ref.intercept_, rtol=1e-6, atol=1e-9)
    balanced = aucopt.make("uni-log-batch", lam=lam, tol=1e-11, precondition=None).fit(
        as_format(X), y, sample_weight=v)
    assert np.abs(balanced.coef_ - ref.coef_).max() > 1e-2  # german: 30% positives


def test_uni_log_batch_class_weights_agree_on_classes_of_equal_weight(german):
    # both weightings sum to 2: with W+ = W- they are the same objective
    X, y = german
    v = np.where(y > 0, 1.0 / (y > 0).sum(), 1.0 / (y < 0).sum())
    fits = [aucopt.make("uni-log-batch", class_weight=cw, lam=0.05, tol=1e-12).fit(
        X, y, sample_weight=v) for cw in ("balanced", None)]
    assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-6, atol=1e-8)
    assert fits[0].lam_ == fits[1].lam_ == 0.05


def test_uni_log_batch_auto_lam_without_class_weight_uses_the_total_weight(german):
    # n_eff of the unweighted problem is W (n for unit weights; integer weights as rows)
    from aucopt.algorithms._batch import pair_spread
    from aucopt.algorithms.batch_univariate import PLAIN_SPREAD

    X, y = german
    v = np.arange(len(y)) % 3 + 1.0
    est = aucopt.make("uni-log-batch", class_weight=None, precondition=None).fit(
        X, y, sample_weight=v)
    assert_allclose(est.lam_, PLAIN_SPREAD * pair_spread(X, y * v) / v.sum(), rtol=1e-12)
    spelled = aucopt.make("uni-log-batch", class_weight="none", precondition=None).fit(
        X, y, sample_weight=v)  # as a TOML config writes it
    assert_allclose(spelled.coef_, est.coef_, rtol=0, atol=0)
    with pytest.raises(ValueError, match="class_weight"):
        aucopt.make("uni-log-batch", class_weight="auto").fit(X, y)
