"""The pAUC SVMs over FPR in [min_fpr, max_fpr]: the structural surrogate of Narasimhan &
Agarwal (ICML 2013) and the tight one (KDD 2013). Their most violated constraint against
enumerations of every ordering of the negatives (and every subset), their optimum against a
generic QP solver with every constraint written out, and ``min_fpr=0`` against the
[0, max_fpr] solver."""

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

from aucopt.algorithms.pauc_svm import pauc_cut, range_cut
from aucopt.linear_model import SVMPAUCClassifier
from aucopt.metrics import partial_roc_auc_score

from .test_pauc_svm import _problem

KAPPA = 2.0


def _prefix_value(masses, scores, s_i, cut, lo, hi, tight):
    """The integral of the module docstring, from 0 to ``cut``, for the negatives laid in
    the order given: loss on [lo, hi) plus kappa q(t) (s(t) - s_i)."""
    total, start = 0.0, 0.0
    pair_end = hi if tight else np.inf
    for m, s in zip(masses, scores):
        a, b = start, min(start + m, cut)
        if b > a:
            total += max(0.0, min(b, hi) - max(a, lo))
            total += KAPPA * (s - s_i) * max(0.0, min(b, pair_end) - a)
        start += m
    return total


def _brute_risk(X, y, w, lo_fpr, hi_fpr, tight, v=None):
    """Max over every order of the negatives of the sum over positives of their best cut
    (every piece boundary, and the ends of the range), by enumeration."""
    s = X @ w
    v = np.ones(len(y)) if v is None else v
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    total = v[neg].sum()
    lo, hi = lo_fpr * total, hi_fpr * total
    best = -np.inf
    for perm in itertools.permutations(neg):
        masses, scores = v[list(perm)], s[list(perm)]
        cuts = np.r_[0.0, np.cumsum(masses), lo, hi]
        value = sum(v[i] * max(_prefix_value(masses, scores, s[i], c, lo, hi, tight)
                               for c in cuts) for i in pos)
        best = max(best, value)
    return best / (v[pos].sum() * (hi - lo))


def _subset_gains(X, y, w, j_lo, j_hi, tight):
    """Unit weights, integer range ends: for each positive, the max over every subset S of
    negatives ranked above it of (|S| in the range) + kappa sum_{j in S} (s_j - s_i)."""
    s = X @ w
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    out = []
    for i in pos:
        best = -np.inf
        for k in range(len(neg) + 1):
            if tight and k > j_hi:
                break
            for subset in itertools.combinations(neg, k):
                loss = max(0, min(k, j_hi) - j_lo)
                best = max(best, loss + KAPPA * sum(s[j] - s[i] for j in subset))
        out.append(best)
    return np.array(out)


RANGES = [(0.25, 0.5), (0.125, 0.75), (0.5, 1.0), (0.2, 0.45), (0.1, 0.3)]


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("lo,hi", RANGES)
@pytest.mark.parametrize("seed", range(3))
def test_most_violated_cut_equals_enumeration(seed, lo, hi, tight):
    X, y = _problem(3, 6, 3, seed)
    rng = np.random.default_rng(seed + 50)
    w = rng.normal(size=3) * 0.5
    expected = _brute_risk(X, y, w, lo, hi, tight)
    delta, g, risk = range_cut(X, y, w, KAPPA, lo, hi, tight)
    assert risk == pytest.approx(expected, abs=1e-12)
    assert delta - g @ w == pytest.approx(risk, abs=1e-12)
    for _ in range(4):  # a cut is an affine minorant of the risk everywhere
        other = rng.normal(size=3)
        assert delta - g @ other <= range_cut(X, y, other, KAPPA, lo, hi, tight)[2] + 1e-12


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("j_lo,j_hi", [(1, 3), (2, 8), (4, 6), (1, 2)])
def test_most_violated_cut_equals_subset_enumeration(j_lo, j_hi, tight):
    X, y = _problem(4, 8, 2, 11 + j_lo)
    w = np.array([0.4, -0.3])
    by_subsets = _subset_gains(X, y, w, j_lo, j_hi, tight).sum() / (4 * (j_hi - j_lo))
    risk = range_cut(X, y, w, KAPPA, j_lo / 8, j_hi / 8, tight)[2]
    assert risk == pytest.approx(by_subsets, abs=1e-12)


def test_subsets_equal_orderings_for_integer_ends():
    X, y = _problem(3, 6, 2, 11)
    w = np.array([0.4, -0.3])
    for tight in (False, True):
        by_subsets = _subset_gains(X, y, w, 1, 3, tight).sum() / (3 * 2)
        assert _brute_risk(X, y, w, 1 / 6, 3 / 6, tight) == pytest.approx(by_subsets,
                                                                          abs=1e-12)


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("lo,hi", [(0.2, 0.55), (0.35, 0.9)])
def test_weighted_cut_equals_enumeration_with_ties(lo, hi, tight):
    X, y = _problem(3, 6, 2, 7)
    X = np.round(X, 0)  # tied scores
    v = np.random.default_rng(0).uniform(0.3, 2.0, len(y))
    w = np.array([0.3, -0.2])
    delta, g, risk = range_cut(X, y * v, w, KAPPA, lo, hi, tight)
    assert risk == pytest.approx(_brute_risk(X, y, w, lo, hi, tight, v), abs=1e-12)


@pytest.mark.parametrize("tight", [False, True])
def test_integer_weights_equal_duplicated_rows(tight):
    X, y = _problem(5, 9, 3, 2)
    k = np.random.default_rng(3).integers(1, 4, len(y))
    w = np.array([0.2, -0.5, 0.3])
    got = range_cut(X, y * k, w, KAPPA, 0.15, 0.6, tight)
    rows = np.repeat(np.arange(len(y)), k)
    expected = range_cut(X[rows], y[rows], w, KAPPA, 0.15, 0.6, tight)
    for a, b in zip(got, expected):
        assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_tight_at_zero_is_the_top_range_cut_and_bounds():
    X, y = _problem(9, 14, 4, 3)
    rng = np.random.default_rng(1)
    for _ in range(5):
        w = rng.normal(size=4)
        for got, expected in zip(range_cut(X, y, w, KAPPA, 0.0, 0.3, True),
                                 pauc_cut(X, y, w, KAPPA, 0.3)):
            assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
        for lo, hi in RANGES:
            tight = range_cut(X, y, w, KAPPA, lo, hi, True)[2]
            loose = range_cut(X, y, w, KAPPA, lo, hi, False)[2]
            # both bound the exact partial-AUC loss (ties count one half in both)
            exact = 1 - partial_roc_auc_score(y, X @ w, min_fpr=lo, max_fpr=hi,
                                              standardized=False) / (hi - lo)
            assert exact <= tight + 1e-12
            assert tight <= loose + 1e-12


def _brute_optimum(X, y, lam, j_lo, j_hi, tight, kappa=KAPPA):
    """min (lam/2)||w||^2 + sum_i t_i / (n+ (j_hi - j_lo)), t_i >= the gain of every subset
    of negatives for positive i (every constraint written out), by SLSQP."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    d, m = X.shape[1], len(pos)
    rows, rhs = [], []
    for r, i in enumerate(pos):
        for k in range(len(neg) + 1):
            if tight and k > j_hi:
                break
            for subset in itertools.combinations(neg, k):
                # t_r - kappa sum_j (x_j - x_i).w >= loss
                row = np.zeros(d + m)
                row[:d] = -kappa * (X[list(subset)].sum(axis=0) - k * X[i])
                row[d + r] = 1.0
                rows.append(row)
                rhs.append(max(0, min(k, j_hi) - j_lo))
    A, b = np.array(rows), np.array(rhs, dtype=float)
    scale = 1.0 / (m * (j_hi - j_lo))

    def objective(z):
        return 0.5 * lam * z[:d] @ z[:d] + scale * z[d:].sum()

    def gradient(z):
        return np.r_[lam * z[:d], np.full(m, scale)]

    cons = [{"type": "ineq", "fun": lambda z: A @ z - b, "jac": lambda z: A}]
    found = minimize(objective, np.r_[np.zeros(d), np.full(m, float(j_hi))], jac=gradient,
                     method="SLSQP", constraints=cons,
                     options={"maxiter": 1000, "ftol": 1e-13})
    assert found.success, found.message
    return found.x[:d], found.fun


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("seed,j_lo,j_hi", [(0, 1, 3), (1, 2, 4), (2, 1, 6), (3, 3, 5)])
def test_optimum_equals_brute_force_qp(seed, j_lo, j_hi, tight):
    X, y = _problem(4, 6, 2, seed)
    lam = 0.2
    w_brute, p_brute = _brute_optimum(X, y, lam, j_lo, j_hi, tight)
    est = SVMPAUCClassifier(lam=lam, min_fpr=j_lo / 6, max_fpr=j_hi / 6, tol=1e-10,
                            surrogate="tight" if tight else "structural").fit(X, y)
    w = est.coef_[0]
    p = 0.5 * lam * w @ w + _brute_risk(X, y, w, j_lo / 6, j_hi / 6, tight)
    assert p <= p_brute + 1e-7  # the certified optimum is no worse than SLSQP's
    assert p == pytest.approx(p_brute, abs=1e-6)
    assert_allclose(w, w_brute, atol=1e-3)  # strictly convex: one minimiser


@pytest.mark.parametrize("j_lo,j_hi,tight", [(1, 3, False), (1, 3, True), (2, 5, False),
                                              (2, 5, True), (0, 3, True)])
def test_papers_parametrisation_is_c_four_over_lam(j_lo, j_hi, tight):
    """The papers' problem, min (1/2)||u||^2 + C xi with the {0, 1} ordering matrix (a
    swapped pair changes the feature map by x_i - x_j, margin 1 on u.(x_i - x_j)), is ours
    at lam = 4/C with u = 2 w: the same ranking, scores scaled by 2."""
    X, y = _problem(4, 6, 2, 5 + j_lo)
    C = 1.0  # strong enough that the optimum is not at a kink shared by many C
    u, _ = _brute_optimum(X, y, 1.0 / C, j_lo, j_hi, tight, kappa=1.0)
    est = SVMPAUCClassifier(lam=4.0 / C, min_fpr=j_lo / 6, max_fpr=j_hi / 6, tol=1e-10,
                            surrogate="tight" if tight else "structural").fit(X, y)
    assert_allclose(2.0 * est.coef_[0], u, atol=1e-5)
    # and not at lam = 1/C (the factor is not 1)
    other = SVMPAUCClassifier(lam=1.0 / C, min_fpr=j_lo / 6, max_fpr=j_hi / 6, tol=1e-10,
                              surrogate="tight" if tight else "structural").fit(X, y)
    assert np.abs(2.0 * other.coef_[0] - u).max() > 1e-2


def _papers_fractional_loss(scores, y, lo, hi):
    """1 - pAUC(lo, hi) as the paper writes it for unit weights: the negatives ranked
    j_lo + 1 .. j_hi by score count fully (j_lo = ceil(n lo), j_hi = floor(n hi)), the
    j_lo-th one with j_lo - n lo and the (j_hi + 1)-th with n hi - j_hi; each counts the
    positives scored below it, over n+ n- (hi - lo)."""
    sp_, sn = scores[y > 0], np.sort(scores[y < 0])[::-1]
    n = len(sn)
    j_lo, j_hi = math.ceil(n * lo), math.floor(n * hi)
    below = [(sp_ < s).sum() for s in sn]  # rank r (from 1) is below[r - 1]
    total = sum(below[j_lo:j_hi])
    if j_lo > 0:
        total += (j_lo - n * lo) * below[j_lo - 1]
    if j_hi < n:
        total += (n * hi - j_hi) * below[j_hi]
    return total / (len(sp_) * n * (hi - lo))


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("lo,hi", [(0.2, 0.55), (0.1, 0.3), (1 / 7, 4 / 7), (0.3, 1.0)])
def test_loss_is_the_papers_fractional_partial_auc(lo, hi, tight):
    """With margins negligible (w scaled up, no ties) the most violated ordering is the
    ranking by score, and the cut's Delta is the paper's empirical 1 - pAUC(alpha, beta)
    with its fractional end terms and normalisation n+ n- (beta - alpha)."""
    X, y = _problem(5, 7, 3, 21)
    w = 1e6 * np.array([0.6, -0.2, 0.4])
    delta = range_cut(X, y, w, KAPPA, lo, hi, tight)[0]
    assert delta == pytest.approx(_papers_fractional_loss(X @ w, y, lo, hi), abs=1e-12)


def test_min_fpr_zero_is_the_top_range_solver_exactly():
    X, y = _problem(30, 60, 5, 4)
    v = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    base = SVMPAUCClassifier(lam=0.01, max_fpr=0.2, tol=1e-6).fit(X, y, sample_weight=v)
    for surrogate in ("structural", "tight"):
        est = SVMPAUCClassifier(lam=0.01, max_fpr=0.2, min_fpr=0.0, tol=1e-6,
                                surrogate=surrogate).fit(X, y, sample_weight=v)
        assert_array_equal(est.coef_, base.coef_)
        assert est.n_iter_ == base.n_iter_


@pytest.mark.parametrize("surrogate", ["structural", "tight"])
def test_range_sparse_equals_dense_and_weights_equal_duplicates(surrogate):
    X, y = _problem(20, 40, 5, 6)
    kw = dict(lam=0.01, min_fpr=0.1, max_fpr=0.4, tol=1e-9, surrogate=surrogate)
    dense = SVMPAUCClassifier(**kw).fit(X, y)
    sparse = SVMPAUCClassifier(**kw).fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-8)
    k = np.random.default_rng(4).integers(1, 3, len(y))
    weighted = SVMPAUCClassifier(**kw).fit(X, y, sample_weight=k)
    rows = np.repeat(np.arange(len(y)), k)
    copies = SVMPAUCClassifier(**kw).fit(X[rows], y[rows])
    assert_allclose(weighted.coef_, copies.coef_, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("min_fpr,max_fpr", [(0.3, 0.3), (0.5, 0.2), (1.0, 1.0)])
def test_empty_range_is_refused(min_fpr, max_fpr):
    X, y = _problem(5, 5, 2, 0)
    with pytest.raises(ValueError, match="min_fpr"):
        SVMPAUCClassifier(min_fpr=min_fpr, max_fpr=max_fpr).fit(X, y)


@pytest.mark.parametrize("params", [{"min_fpr": -0.1}, {"surrogate": "loose"}])
def test_bad_values_are_refused(params):
    X, y = _problem(5, 5, 2, 0)
    with pytest.raises(ValueError):
        SVMPAUCClassifier(**params).fit(X, y)


def test_tight_optimum_not_above_the_structural_one():
    """The tight risk is at most the structural one at every w, so its optimal objective is
    too; both fits certify their gap, so the comparison holds up to the two tolerances."""
    X, y = _problem(25, 75, 4, 9)
    lam, kw = 0.05, dict(min_fpr=0.1, max_fpr=0.4, tol=1e-9)
    objective = {}
    for surrogate in ("structural", "tight"):
        w = SVMPAUCClassifier(lam=lam, surrogate=surrogate, **kw).fit(X, y).coef_[0]
        risk = range_cut(X, y, w, KAPPA, 0.1, 0.4, surrogate == "tight")[2]
        objective[surrogate] = 0.5 * lam * w @ w + risk
    assert objective["tight"] <= objective["structural"] + 2e-9
    assert objective["tight"] < objective["structural"] - 1e-3  # not the same problem


def test_small_min_fpr_limits():
    """As min_fpr goes to 0 the tight cut tends to the [0, max_fpr] one; the structural
    cut keeps the pairs with the negatives below the range (another output space)."""
    X, y = _problem(6, 12, 3, 8)
    w = np.array([0.5, -0.2, 0.1])
    top = pauc_cut(X, y, w, KAPPA, 0.4)[2]
    tight = range_cut(X, y, w, KAPPA, 1e-9, 0.4, True)[2]
    loose = range_cut(X, y, w, KAPPA, 1e-9, 0.4, False)[2]
    assert tight == pytest.approx(top, rel=1e-7)
    assert loose > top + 1e-3


def test_subnormal_min_fpr_is_refused():
    X, y = _problem(5, 5, 2, 0)
    with pytest.raises(ValueError, match="subnormal"):
        SVMPAUCClassifier(min_fpr=5e-324).fit(X, y)
