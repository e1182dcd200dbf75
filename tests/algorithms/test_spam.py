"""SPAM-L2 / SPAM-NET against the slow reference, the closed form and the paper's claims."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from numpy.testing import assert_allclose
from sklearn.model_selection import StratifiedKFold, cross_val_score

from aucopt._kernels._rows import row_add_sq_unrolled, row_dot
from aucopt._kernels.spam import row_dot3_unrolled, row_l2_step, row_l2_sweep
from aucopt.algorithms.spam import iterates
from aucopt.datasets import make_auc_problem, make_preprocessor
from aucopt.exceptions import DivergenceError
from aucopt.linear_model import SPAML2Classifier, SPAMNetClassifier
from aucopt.metrics import roc_auc_score

from ..reference import spam as ref


def _orders(seed, n, passes):
    """The sample orders the estimator draws: one permutation per pass from its Generator."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize("stats", ["train", "online", "warmup"])
@pytest.mark.parametrize("penalty", ["l2", "net"])
def test_matches_reference_same_order(stats, penalty, german, as_format):
    X, y = german
    X, y = X[:400], y[:400]
    params = dict(beta=1e-3, stats=stats, warmup=30, max_iter=3, random_state=7)
    if penalty == "net":
        est = SPAMNetClassifier(beta1=1e-3, **params)
    else:
        est = SPAML2Classifier(**params)
    est.fit(as_format(X), y)
    w, w_bar, t = ref.spam(X, y, _orders(7, len(y), 3), beta=1e-3, eta0=est.eta0_,
                           beta1=1e-3 if penalty == "net" else 0.0, stats=stats, n_warmup=30,
                           t0=est.t0)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("chunk", [1, 5, 400])
def test_a_warmup_that_meets_one_class_first_goes_on_until_both(chunk, german):
    """The statistics froze after ceil(0.1 x the first chunk) rows: one row of one class
    for chunks of up to 10 rows (River's learn_one: always), after which no step could
    ever be made (t_ = 0, a zero model, no warning)."""
    X, y = german
    order = np.argsort(-y, kind="stable")[:400]  # a first chunk of positives only
    order = np.r_[order[:7], np.random.default_rng(0).permutation(order[7:])]
    X, y = X[order], y[order]
    est = SPAML2Classifier(beta=1e-3, eta0=0.05, stats="warmup", random_state=0,
                           precondition=None)
    for start in range(0, len(y), chunk):
        est.partial_fit(X[start:start + chunk], y[start:start + chunk], classes=[-1, 1])
    n_warmup = int(np.ceil(0.1 * min(chunk, len(y))))
    w, w_bar, t = ref.spam(X, y, [np.arange(len(y))], beta=1e-3, eta0=0.05, stats="warmup",
                           n_warmup=n_warmup, t0=est.t0)
    assert est.t_ == t > 300
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("stats, decay", [("train", 0.0), ("online", 0.0), ("warmup", 0.0),
                                          ("online", 0.05)])
@pytest.mark.parametrize("penalty", ["l2", "net"])
def test_weighted_matches_weighted_reference(stats, decay, penalty, german, as_format):
    """Issue #19: weighted statistics, each step scaled by its row's weight (notes.md)."""
    X, y = german
    X, y = X[:300], y[:300]
    sw = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    params = dict(beta=1e-3, stats=stats, warmup=30, decay=decay, max_iter=2, random_state=7)
    beta1 = 1e-3 if penalty == "net" else 0.0
    est = (SPAMNetClassifier(beta1=beta1, **params) if penalty == "net"
           else SPAML2Classifier(**params))
    est.fit(as_format(X), y, sample_weight=sw)
    w, w_bar, t = ref.spam(X, y, _orders(7, len(y), 2), beta=1e-3, eta0=est.eta0_, beta1=beta1,
                           stats=stats, n_warmup=30, decay=decay, t0=est.t0, sample_weight=sw)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("schedule, eta0, t0", [
    ("inv_sqrt", 0.05, 0.0), ("inv_sqrt", 0.05, 7.0), ("theory_poly", "auto", 100.0),
    ("theory_1_over_t", "auto", 100.0)])
def test_schedules_match_reference(schedule, eta0, t0, as_format):
    X, y = make_auc_problem(300, 5, separation=1.5, random_state=3)
    X = make_preprocessor("l2-rows").fit_transform(X)  # M = 1 keeps the theory steps stable
    est = SPAML2Classifier(beta=0.5, eta0=eta0, t0=t0, schedule=schedule, power_t=0.6,
                           output="last", shuffle=False, max_iter=2).fit(as_format(X), y)
    orders = [np.arange(len(y))] * 2
    w, _, t = ref.spam(X, y, orders, beta=0.5, eta0=eta0, schedule=schedule, power_t=0.6,
                       t0=est.t0)
    assert est.t_ == t == 600
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("estimator", [SPAML2Classifier, SPAMNetClassifier])
def test_rare_positive_first_does_not_set_the_average(estimator):
    """Issue #16: 1% positives and a positive row first (docs/robustness.md, positives-1%).

    A positive's step is about 1/p times a negative's; with eta0/sqrt(t) the first
    steps are the largest, so that row set much of the averaged iterate (0.06 AUC
    short of the least-squares optimum here). The default offset t0 keeps it close.
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 8))
    score = X @ rng.normal(size=8) + 0.5 * np.sqrt(8) * rng.normal(size=6000)
    y = np.where(score > np.quantile(score, 0.99), 1, -1)
    first = np.flatnonzero(y[:3000] > 0)[0]
    order = np.r_[first, np.delete(np.arange(3000), first)]  # a positive first
    Xtr, ytr, Xte, yte = X[order], y[order], X[3000:], y[3000:]
    best = roc_auc_score(yte, Xte @ ref.closed_form(Xtr, ytr, 1e-4))
    est = estimator(shuffle=False).fit(Xtr, ytr)
    assert est.score(Xte, yte) > best - 0.01
    paper = estimator(shuffle=False, t0=0.0).fit(Xtr, ytr)  # the papers' schedule
    assert paper.score(Xte, yte) < best - 0.03


def test_warm_start_continues_from_last_iterate(german):
    X, y = german
    est = SPAML2Classifier(max_iter=2, random_state=1, warm_start=True).fit(X[:500], y[:500])
    w_first = iterates(est._state)[0].copy()
    est.fit(X[500:], y[500:])
    _, w_bar, t = ref.spam(X[500:], y[500:], _orders(1, 500, 2), beta=1e-4, w0=w_first,
                          eta0=est.eta0_, t0=est.t0)
    assert est.t_ == t  # fit restarts the counter
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)


def test_converges_to_closed_form():
    """notes.md#closed-forms: the SPAM-L2 objective gap falls below 1% after many passes."""
    X, y = make_auc_problem(300, 5, pos_rate=0.4, separation=1.0, random_state=0)
    beta = 1e-2
    w_star = ref.closed_form(X, y, beta)
    est = SPAML2Classifier(beta=beta, eta0=0.3, max_iter=200, random_state=0).fit(X, y)
    f_star = ref.objective(X, y, w_star, beta)
    gap = (ref.objective(X, y, est.coef_[0], beta) - f_star) / f_star
    assert 0 <= gap < 0.01
    assert np.linalg.norm(est.coef_[0] - w_star) < 0.05 * np.linalg.norm(w_star)


def test_elastic_net_gives_exact_zeros_on_noise_features():
    """The proximal step of SPAM-NET zeroes coordinates exactly (not just small values)."""
    rng = np.random.default_rng(0)
    y = np.where(rng.random(2000) < 0.3, 1, -1)
    X = 0.5 * rng.standard_normal((2000, 10))
    X[y > 0, :3] += 1.0  # three informative features, seven pure noise
    net = SPAMNetClassifier(beta=1e-4, beta1=0.5, output="last", max_iter=5, random_state=0)
    w = net.fit(X, y).coef_[0]
    assert np.all(w[:3] != 0.0)
    assert np.sum(w[3:] == 0.0) >= 6  # exact zeros
    l2 = SPAML2Classifier(beta=1e-4, output="last", max_iter=5, random_state=0).fit(X, y)
    assert np.all(l2.coef_[0] != 0.0)
    assert net.score(X, y) > 0.95


def test_partial_fit_waits_for_both_classes():
    X, y = make_auc_problem(100, 4, random_state=0)
    neg = np.flatnonzero(y < 0)[:10]
    est = SPAML2Classifier().partial_fit(X[neg], y[neg], classes=[-1, 1])
    assert est.t_ == 0 and np.all(est.coef_ == 0)
    est.partial_fit(X, y)
    assert est.t_ == 100


def test_german_cross_validated_auc(german):
    """Issue #2: SPAM-L2 reaches >= 0.78 cross-validated AUC on german.numer."""
    X, y = german
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(SPAML2Classifier(random_state=0), X, y, cv=cv, scoring="roc_auc")
    assert scores.mean() >= 0.78


def test_default_step_does_not_diverge_on_unscaled_data(german_raw):
    X, y = german_raw  # raw features up to a few hundred
    est = SPAML2Classifier(random_state=0).fit(X, y)
    # no divergence; scaling still matters for AUC (0.65 raw vs 0.79 scaled, measured)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


def test_divergence_names_the_step_parameter_and_keeps_the_model(german_raw):
    X, y = german_raw
    est = SPAML2Classifier(random_state=0, max_iter=1).partial_fit(X[:100], y[:100],
                                                                   classes=[-1, 1])
    before = {k: v.copy() for k, v in est._state.items()}
    t_before = est.t_
    est.set_params(eta0=10.0)
    with pytest.raises(DivergenceError, match="'eta0'"):
        est.partial_fit(X[100:], y[100:])
    assert est.t_ == t_before
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value)
    with pytest.raises(DivergenceError, match="Lower 'eta0'"):
        SPAML2Classifier(eta0=10.0, random_state=0).fit(X, y)


def test_csr_input_with_unsorted_indices_and_int32():
    X, y = make_auc_problem(200, 6, sparsity=0.5, sparse_output=True, random_state=0)
    X = sp.csr_matrix(X)
    shuffled = X.copy()
    for i in range(shuffled.shape[0]):  # reverse each row's index order
        a, b = shuffled.indptr[i], shuffled.indptr[i + 1]
        shuffled.indices[a:b] = shuffled.indices[a:b][::-1].copy()
        shuffled.data[a:b] = shuffled.data[a:b][::-1].copy()
    shuffled.has_sorted_indices = False
    a = SPAML2Classifier(random_state=0).fit(X, y)
    b = SPAML2Classifier(random_state=0).fit(shuffled, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)


@pytest.mark.parametrize("stats", ["train", "online", "warmup"])
@pytest.mark.parametrize("beta, eta0", [(1e-3, "auto"), (100.0, 0.1)])  # 2nd: rescaling path
def test_lazy_sparse_kernel_equals_dense_kernel(stats, beta, eta0):
    """CSR input with beta1=0 runs the O(nnz) lazy kernel; it must equal the dense one."""
    X, y = make_auc_problem(500, 40, sparsity=0.8, random_state=5)
    params = dict(beta=beta, eta0=eta0, stats=stats, warmup=50, max_iter=3, random_state=2)
    dense = SPAML2Classifier(**params).fit(X, y)
    lazy = SPAML2Classifier(**params)
    lazy.partial_fit(sp.csr_matrix(X[:123]), y[:123], classes=[-1, 1])
    lazy.partial_fit(sp.csr_matrix(X[123:]), y[123:])
    chunked = SPAML2Classifier(**params)
    chunked.partial_fit(X[:123], y[:123], classes=[-1, 1])
    chunked.partial_fit(X[123:], y[123:])
    assert_allclose(lazy.coef_, chunked.coef_, rtol=1e-9, atol=1e-14)
    assert_allclose(iterates(lazy._state)[0], iterates(chunked._state)[0], rtol=1e-9, atol=1e-14)
    full = SPAML2Classifier(**params).fit(sp.csr_matrix(X), y)
    assert_allclose(full.coef_, dense.coef_, rtol=1e-9, atol=1e-14)


def _reductions(w, sums, data, indices, indptr, i):
    return (row_dot(w, data, indices, indptr, i),
            row_add_sq_unrolled(sums, 1, data, indices, indptr, i))


def _fused(w, w_avg, sums, X):
    return row_l2_sweep((-0.3, 0.9, 0.25), 1, w, w_avg, sums[0], sums[1], 0, X, None, None, 2)


def _separate(w, w_avg, sums, X):
    row_l2_step(-0.3, 0.9, 0.25, w, w_avg, X, None, None, 1)
    return row_dot3_unrolled(w, sums[0], sums[1], X, None, None, 2)


# one numba dispatcher per helper, compiled once for the module (not once per case)
_jitted = functools.cache(njit)


@pytest.mark.parametrize("d", [1, 3, 4, 7, 100])
@pytest.mark.parametrize("jit", [True, False])
def test_unrolled_row_reductions_equal_numpy(d, jit):
    """The four-partial-sum dot product and class-sum helpers used by the dense SPAM pass."""
    run = _jitted(_reductions) if jit else _reductions
    rng = np.random.default_rng(d)
    X, w = rng.normal(size=(3, d)), rng.normal(size=d)
    for data, indices, indptr in ((X, None, None),
                                  (lambda A: (A.data, A.indices, A.indptr))(sp.csr_matrix(X))):
        sums = np.zeros((2, d))
        dot, sq = run(w, sums, data, indices, indptr, 2)
        assert_allclose([dot, sq], [X[2] @ w, X[2] @ X[2]], rtol=1e-13)
        assert_allclose(sums, [np.zeros(d), X[2]], rtol=0, atol=0)


@pytest.mark.parametrize("d", [3, 8, 101])
@pytest.mark.parametrize("jit", [True, False])
def test_pipelined_l2_sweep_equals_step_then_dot3(d, jit):
    """The dense kernel does each l2 step in the sweep of the next row: no bit changes."""
    rng = np.random.default_rng(d)
    X, sums = rng.normal(size=(3, d)), rng.normal(size=(2, d)) * 100
    w1, avg1 = rng.normal(size=(2, d))
    w2, avg2 = w1.copy(), avg1.copy()
    f, s = (_jitted(_fused), _jitted(_separate)) if jit else (_fused, _separate)
    assert f(w1, avg1, sums, X) == s(w2, avg2, sums, X)
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_array_equal(avg1, avg2)
