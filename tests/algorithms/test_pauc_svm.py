"""The structural pAUC SVM over [0, max_fpr]: its most violated constraint and its optimum
against brute force over every set of top negatives (Narasimhan & Agarwal, ICML 2013, the
[0, beta] case: Theorem 1 and Algorithm 1)."""

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.optimize import linprog, minimize

import aucopt
from aucopt.algorithms._cutting_plane import _cut
from aucopt.algorithms.pauc_svm import pauc_cut
from aucopt.linear_model import SVMPAUCClassifier, SVMPerfClassifier
from aucopt.metrics import partial_roc_auc_score


def _problem(n_pos, n_neg, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_pos + n_neg, d))
    X[:n_pos] += 0.7
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    perm = rng.permutation(len(y))
    return X[perm], y[perm]


def _vertices(n_neg, budget):
    """Every vertex of {0 <= q <= 1, sum q = budget}: floor(budget) ones and the fraction."""
    full, frac = int(math.floor(budget)), budget - math.floor(budget)
    for ones in itertools.combinations(range(n_neg), full):
        rest = [j for j in range(n_neg) if j not in ones] if frac > 1e-12 else [None]
        for j in rest:
            q = np.zeros(n_neg)
            q[list(ones)] = 1.0
            if j is not None:
                q[j] = frac
            yield q


def _brute_risk(X, y, w, max_fpr, v=None):
    """The max over the negatives' weights q (0 <= q_j <= v_j, sum q = max_fpr W-) of the
    weighted mean structural hinge: every vertex (unit weights) or a linear programme."""
    s = X @ w
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    v = np.ones(len(y)) if v is None else v
    hinge = np.maximum(0.0, 1 - 2 * (s[pos][:, None] - s[neg][None, :]))
    c = v[pos] @ hinge  # per negative: the positive-weighted loss
    budget = max_fpr * v[neg].sum()
    if np.all(v == 1):
        best = max(c @ q for q in _vertices(len(neg), budget))
    else:
        found = linprog(-c, A_eq=np.ones((1, len(neg))), b_eq=[budget],
                        bounds=list(zip(np.zeros(len(neg)), v[neg])))
        best = -found.fun
    return best / (v[pos].sum() * budget)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_fpr", [0.1, 0.3, 0.5, 1.0])
def test_most_violated_cut_equals_brute_force(seed, max_fpr):
    X, y = _problem(4, 7, 3, seed)
    rng = np.random.default_rng(seed + 100)
    w = rng.normal(size=3) * 0.5
    delta, g, risk = pauc_cut(X, y, w, 2.0, max_fpr)
    assert risk == pytest.approx(_brute_risk(X, y, w, max_fpr), abs=1e-12)
    assert delta - g @ w == pytest.approx(risk, abs=1e-12)
    for _ in range(20):  # a cut is an affine minorant of the risk everywhere
        other = rng.normal(size=3)
        assert delta - g @ other <= _brute_risk(X, y, other, max_fpr) + 1e-12


def test_weighted_cut_equals_brute_force_with_ties():
    X, y = _problem(4, 6, 2, 7)
    X = np.round(X, 0)  # tied scores
    v = np.random.default_rng(0).uniform(0.3, 2.0, len(y))
    w = np.array([0.3, -0.2])
    delta, g, risk = pauc_cut(X, y * v, w, 2.0, 0.4)
    assert risk == pytest.approx(_brute_risk(X, y, w, 0.4, v), abs=1e-12)


def test_full_range_is_the_roc_area_cut():
    X, y = _problem(9, 14, 4, 3)
    w = np.random.default_rng(1).normal(size=4)
    for got, expected in zip(pauc_cut(X, y, w, 2.0, 1.0), _cut(X, y, w, 2.0)):
        assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def _brute_optimum(X, y, lam, max_fpr):
    """min (lam/2)||w||^2 + xi, xi >= the q-weighted mean of xi_ij for every vertex q,
    xi_ij >= hinge (the whole structural QP, every constraint written out), by SLSQP."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    budget = max_fpr * len(neg)
    d, pairs = X.shape[1], [(i, j) for i in pos for j in neg]
    where = {pair: r for r, pair in enumerate(pairs)}

    def objective(z):
        return 0.5 * lam * z[:d] @ z[:d] + z[d]

    cons = []
    for r, (i, j) in enumerate(pairs):
        diff = X[i] - X[j]
        cons.append({"type": "ineq", "fun": lambda z, r=r, diff=diff:
                     z[d + 1 + r] - 1 + 2 * z[:d] @ diff})
    for q in _vertices(len(neg), budget):
        idx = np.array([[d + 1 + where[(i, j)] for j in neg] for i in pos])
        cons.append({"type": "ineq", "fun": lambda z, idx=idx, q=q:
                     z[d] - (z[idx] @ q).sum() / (len(pos) * budget)})
    bounds = [(None, None)] * (d + 1) + [(0, None)] * len(pairs)
    found = minimize(objective, np.r_[np.zeros(d), 1.0, np.ones(len(pairs))], method="SLSQP",
                     constraints=cons, bounds=bounds, options={"maxiter": 500, "ftol": 1e-12})
    assert found.success, found.message
    return found.x[:d], found.fun


@pytest.mark.parametrize("seed,max_fpr", [(0, 0.2), (1, 0.4), (2, 0.5), (3, 1.0)])
def test_optimum_equals_brute_force_qp(seed, max_fpr):
    X, y = _problem(4, 7, 2, seed)
    lam = 0.2
    w_brute, p_brute = _brute_optimum(X, y, lam, max_fpr)
    est = SVMPAUCClassifier(lam=lam, max_fpr=max_fpr, tol=1e-9).fit(X, y)
    w = est.coef_[0]
    p = 0.5 * lam * w @ w + _brute_risk(X, y, w, max_fpr)
    assert p <= p_brute + 1e-6  # the certified optimum is no worse than SLSQP's
    assert p == pytest.approx(p_brute, abs=1e-5)
    assert_allclose(w, w_brute, atol=1e-3)  # strictly convex: one minimiser


def test_full_range_equals_svm_perf_and_sparse_equals_dense():
    X, y = _problem(30, 60, 5, 4)
    a = SVMPAUCClassifier(lam=0.01, max_fpr=1.0, tol=1e-8).fit(X, y)
    b = SVMPerfClassifier(lam=0.01, tol=1e-8).fit(X, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-7)
    c = SVMPAUCClassifier(lam=0.01, max_fpr=0.2, tol=1e-8).fit(sp.csr_matrix(X), y)
    e = SVMPAUCClassifier(lam=0.01, max_fpr=0.2, tol=1e-8).fit(X, y)
    assert_allclose(c.coef_, e.coef_, rtol=1e-6, atol=1e-9)


def test_partial_auc_at_least_the_full_auc_svm_on_its_training_range():
    rng = np.random.default_rng(0)
    n = 1500
    X = rng.normal(size=(n, 6))
    y = np.where(rng.random(n) < 0.1, 1, -1)
    pos = np.flatnonzero(y > 0)
    X[pos[: len(pos) // 2], 0] += 3.0
    X[pos[len(pos) // 2:], 1:3] += 0.8
    # (at max_fpr 0.05 and 0.1, w = 0 minimises the pAUC objective on these data: below)
    p = SVMPAUCClassifier(lam=1e-3, max_fpr=0.15).fit(X, y)
    f = SVMPerfClassifier(lam=1e-3).fit(X, y)
    got = partial_roc_auc_score(y, p.decision_function(X), max_fpr=0.15)
    full = partial_roc_auc_score(y, f.decision_function(X), max_fpr=0.15)
    assert got >= full
    with pytest.warns(UserWarning, match="w = 0 minimises"):
        zero = SVMPAUCClassifier(lam=1e-3, max_fpr=0.05).fit(X, y)
    assert not zero.coef_.any()


def _top_overlap(seed):
    """Positives packed at the centre of the negatives: the means of every two of the
    twenty negatives (the top 10%) surround the positives' mean, so every direction from
    w = 0 raises the risk over the top share: w = 0 is the minimiser whatever lam."""
    rng = np.random.default_rng(seed)
    X = np.vstack([0.05 * rng.normal(size=(6, 2)), rng.normal(size=(20, 2))])
    return X, np.r_[np.ones(6), -np.ones(20)]


@pytest.mark.parametrize("seed", range(3))
def test_a_fit_whose_minimiser_is_zero_returns_zero_and_says_why(seed):
    X, y = _top_overlap(seed)
    lam, max_fpr = 0.01, 0.1
    angles = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
    # brute force: the objective only grows along every direction from 0
    for t in (1e-3, 0.1, 1.0):
        for a in angles:
            w = t * np.array([np.cos(a), np.sin(a)])
            assert 0.5 * lam * w @ w + _brute_risk(X, y, w, max_fpr) > 1.0
    with pytest.warns(UserWarning, match="raise max_fpr") as caught:
        est = SVMPAUCClassifier(lam=lam, max_fpr=max_fpr, precondition=None).fit(X, y)
    assert not est.coef_.any()  # the last cut's solution lay above P(0) = 1
    assert not any("rescale" in str(w.message) for w in caught)  # not the general advice
    assert est._state["gap"][0] <= est.tol


def test_a_full_auc_fit_with_equal_class_means_says_why_it_is_zero():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0],
                  [2.0, 0.0], [-2.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) + 1.0
    y = np.r_[np.ones(4), -np.ones(4)]  # both classes' mean (1, 1)
    with pytest.warns(UserWarning, match="no lam helps where the means are equal"):
        est = SVMPerfClassifier(lam=0.1, precondition=None).fit(X, y)
    assert not est.coef_.any()


def test_a_zero_model_of_another_cause_keeps_the_general_advice():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.warns(UserWarning, match="rescale them first") as caught:
        est = aucopt.make("spam-net", beta1=100.0, random_state=0).fit(X, y)
    assert not est.coef_.any() and len(caught) == 1
