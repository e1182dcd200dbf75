"""FTRL-AUC against the slow reference, its O(nnz) locality, and its l1 sparsity."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from aucopt._kernels.ftrl_auc import SUM_NEG, SUM_POS, N, W, Z, ftrl_auc_epoch
from aucopt.algorithms._data import as_rows
from aucopt.algorithms.ftrl_auc import FtrlAucHyper, init_state
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.linear_model._ftrl_auc import FTRLAUCClassifier

from ..reference import ftrl_auc as ref


def _orders(seed, n, passes):
    """The sample orders the estimator draws: one permutation per pass from its Generator."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize("lam1, lam2", [(0.0, 0.0), (2.0, 0.0), (1.0, 0.5)])
def test_matches_reference_same_order(lam1, lam2, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    params = dict(alpha=0.2, beta=0.5, lam1=lam1, lam2=lam2)
    est = FTRLAUCClassifier(**params, max_iter=3, random_state=7).fit(as_format(X), y)
    w, z, n, t = ref.ftrl_auc(X, y, _orders(7, len(y), 3), **params)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["pack"][:, Z], z, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["pack"][:, N], n, rtol=1e-10, atol=1e-13)
    if lam1 > 0:
        assert np.any(w == 0.0)  # the l1 branch of the closed form is exercised


def test_weighted_steps_match_reference_same_order(german, as_format):
    """notes.md#sample-weights: p and the class means are weighted, a row's gradient is scaled
    by its weight, on the first pass and the later ones. (Refused before weights.)"""
    X, y = german[0][:300], german[1][:300]
    weight = np.random.default_rng(2).uniform(0.1, 3.0, len(y))
    params = dict(alpha=0.2, beta=0.5, lam1=3.0, lam2=0.5)
    est = FTRLAUCClassifier(**params, max_iter=2, random_state=7)
    est.fit(as_format(X), y, sample_weight=weight)
    w, z, n, t = ref.ftrl_auc(X, y, _orders(7, len(y), 2), sample_weight=weight, **params)
    plain = ref.ftrl_auc(X, y, _orders(7, len(y), 2), **params)[0]
    assert est.t_ == t
    assert_allclose(est._state["run_count"], [weight[y < 0].sum(), weight[y > 0].sum()])
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["pack"][:, N], n, rtol=1e-10, atol=1e-13)
    assert np.any(w == 0.0) and not np.allclose(w, plain, rtol=1e-3)


def test_sparse_rows_match_reference_in_chunks():
    """CSR with many zeros, fed as three partial_fit chunks (one pass, online statistics)."""
    X, y = make_auc_problem(400, 30, sparsity=0.8, separation=1.5, random_state=4)
    est = FTRLAUCClassifier(alpha=0.3, lam1=0.02, random_state=0)
    for k, (a, b) in enumerate([(0, 17), (17, 250), (250, 400)]):
        est.partial_fit(sp.csr_matrix(X[a:b]), y[a:b], classes=[-1, 1] if k == 0 else None)
    w, _, _, t = ref.ftrl_auc(X, y, [np.arange(400)], alpha=0.3, lam1=0.02)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def _state_after(X, y, rows_seen, hp):
    state = init_state(X.shape[1], len(y), {})
    ftrl_auc_epoch(state["pack"], state["dots"], state["run_count"], X, None, None, y, rows_seen,
                   hp, 0, True)
    return state


def test_csr_step_touches_only_the_nonzero_coordinates():
    rng = np.random.default_rng(0)
    d = 2000
    X = sp.random(300, d, density=0.01, format="csr", random_state=1, data_rvs=rng.standard_normal)
    y = np.where(rng.random(300) < 0.3, 1.0, -1.0)
    hp = FtrlAucHyper(alpha=0.5, beta=1.0, lam1=0.01, lam2=0.1)
    dense = np.ascontiguousarray(X.toarray())
    before = _state_after(dense, y, np.arange(299), hp)
    assert before["run_count"].min() > 0 and np.count_nonzero(before["pack"][:, W]) > 100
    rows = as_rows(X)
    i = 299
    touched = rows.indices[rows.indptr[i]:rows.indptr[i + 1]]
    assert 0 < touched.size < 60
    after_csr = {k: v.copy() for k, v in before.items()}
    t, _ = ftrl_auc_epoch(after_csr["pack"], after_csr["dots"], after_csr["run_count"], rows.data,
                          rows.indices, rows.indptr, y, np.array([i]), hp, 0, True)
    assert t == 1
    untouched = np.setdiff1d(np.arange(d), touched)
    assert_array_equal(after_csr["pack"][untouched], before["pack"][untouched])
    assert not np.array_equal(after_csr["pack"][touched, Z], before["pack"][touched, Z])
    col = SUM_POS if y[i] > 0 else SUM_NEG
    assert_allclose(after_csr["pack"][touched, col] - before["pack"][touched, col],
                    rows.data[rows.indptr[i]:rows.indptr[i + 1]], rtol=1e-12)
    # the same step on the dense row (which visits every coordinate) gives the same state
    after_dense = {k: v.copy() for k, v in before.items()}
    ftrl_auc_epoch(after_dense["pack"], after_dense["dots"], after_dense["run_count"], dense, None,
                   None, y, np.array([i]), hp, 0, True)
    assert_allclose(after_csr["pack"], after_dense["pack"], rtol=1e-10, atol=1e-15)
    assert_array_equal(after_csr["run_count"], after_dense["run_count"])


def test_l1_gives_exact_zeros_on_noise_features():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(2000) < 0.3, 1, -1)
    X = 0.5 * rng.standard_normal((2000, 10))
    X[y > 0, :3] += 1.0  # three informative features, seven pure noise
    # one pass, as in the paper: lam1 thresholds |z_j|, a sum of gradients that keeps growing
    # (like sqrt(t) for a noise feature) over further passes
    sparse = FTRLAUCClassifier(alpha=0.05, lam1=10.0, max_iter=1, random_state=0).fit(X, y)
    w = sparse.coef_[0]
    assert np.all(w[:3] != 0.0)
    assert np.all(w[3:] == 0.0)  # exact zeros, not just small values
    assert sparse.score(X, y) > 0.95
    dense = FTRLAUCClassifier(alpha=0.05, lam1=0.0, max_iter=1, random_state=0).fit(X, y)
    assert np.all(dense.coef_[0] != 0.0)


def test_warm_start_continues_the_ftrl_state(german):
    X, y = german
    est = FTRLAUCClassifier(alpha=0.05, max_iter=2, random_state=1, warm_start=True)
    est.fit(X[:500], y[:500])
    z0, n0 = est._state["pack"][:, Z].copy(), est._state["pack"][:, N].copy()
    est.fit(X[500:], y[500:])
    w, _, _, t = ref.ftrl_auc(X[500:], y[500:], _orders(1, 500, 2), alpha=0.05, lam1=1e-3,
                              z0=z0, n0=n0)
    assert est.t_ == t  # fit restarts the counter and the class statistics
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_partial_fit_waits_for_both_classes():
    X, y = make_auc_problem(100, 4, random_state=0)
    neg = np.flatnonzero(y < 0)[:10]
    est = FTRLAUCClassifier().partial_fit(X[neg], y[neg], classes=[-1, 1])
    assert est.t_ == 0 and np.all(est.coef_ == 0)
    est.partial_fit(X, y)
    # online statistics: the rows before the first positive still have no pair
    assert est.t_ == 100 - np.argmax(y > 0) > 90


def test_unscaled_data_does_not_diverge(german_raw):
    X, y = german_raw  # raw features up to a few hundred
    est = FTRLAUCClassifier(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.7


def test_divergence_names_the_step_parameter_and_keeps_the_model(german_raw):
    X, y = german_raw
    est = FTRLAUCClassifier(random_state=0).partial_fit(X[:100], y[:100], classes=[-1, 1])
    before = {k: v.copy() for k, v in est._state.items()}
    est.set_params(alpha=1e12)
    with pytest.raises(DivergenceError, match="Lower 'alpha'"):
        est.partial_fit(X[100:], y[100:])
    for key, value in before.items():
        assert_array_equal(est._state[key], value)
