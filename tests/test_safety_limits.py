"""Bounded work: hard upper bounds on max_iter and the sizes, max_time for every fit,
widths checked against memory before any O(d) allocation."""

import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import aucopt
from aucopt.algorithms import get_algorithm
from aucopt.algorithms._params import COUNT, MAX_PASSES, SIZE
from aucopt.exceptions import InvalidParameterError

IDS = aucopt.list_algorithms()


def _bounded(algorithm):
    """(name, largest accepted value) of every bounded integer parameter of an id."""
    out = []
    for p in get_algorithm(algorithm).params:
        for c in p.constraints:
            if c is SIZE or c is COUNT or (p.name == "rank" and hasattr(c, "right")):
                out.append((p.name, c.right))
        if p.name == "max_iter":
            out.append((p.name, MAX_PASSES))
    return out


BOUNDED = [(a, name, top) for a in IDS for name, top in _bounded(a)]


def test_every_size_parameter_is_bounded():
    names = {name for _, name, _ in BOUNDED}
    assert {"max_iter", "budget", "buffer_size", "rank", "n_components", "batch_size",
            "inner"} <= names
    assert {a for a, name, _ in BOUNDED if name == "max_iter"} == set(IDS)


@pytest.mark.parametrize("algorithm, name, top", BOUNDED)
def test_a_size_beyond_its_bound_is_an_invalid_parameter(algorithm, name, top):
    X, y = np.eye(4), np.array([1, -1, 1, -1])
    with pytest.raises(InvalidParameterError, match=name):
        aucopt.make(algorithm, **{name: top + 1}).fit(X, y)
    with pytest.raises(InvalidParameterError, match=name):
        aucopt.make(algorithm, **{name: 2**62}).fit(X, y)


def test_every_iterative_estimator_declares_max_time():
    for algorithm in IDS:
        assert aucopt.make(algorithm).get_params()["max_time"] is None
        assert get_algorithm(algorithm).param("max_time").type == "float or None"


@pytest.mark.parametrize("algorithm, params", [
    ("spam-l2", {"max_iter": 10_000}),  # passes of the estimator
    ("svm-perf", {"max_iter": 10_000, "tol": 1e-300}),  # cutting-plane rounds
    ("b-svm-or", {"max_iter": 10_000, "tol": 1e-300}),
    ("vrspam-l2", {"max_iter": 10_000, "tol": 0.0}),  # stages
    ("spdam", {"max_iter": 10_000, "tol": 0.0}),
    # L-BFGS iterations; on the raw columns (the preconditioned problem converges in 0.05 s)
    ("uni-log-batch", {"max_iter": 100_000, "tol": 1e-300, "precondition": None}),
])
def test_max_time_stops_fit_with_a_warning_and_a_usable_model(algorithm, params):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 50))
    y = np.where(X[:, 0] + 2.0 * rng.normal(size=3000) > 0, 1, -1)
    # a budget spent after the first pass or iteration, however fast the machine
    est = aucopt.make(algorithm, random_state=0, max_time=1e-6, **params)
    start = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06"):
        est.fit(X, y)
    assert time.perf_counter() - start < 60  # without the budget: many minutes
    assert 1 <= est.n_iter_ < params["max_iter"]
    assert est.score(X, y) > 0.6


def test_max_time_none_changes_nothing():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(100, 5)), np.tile([1, -1], 50)
    a = aucopt.make("spam-l2", random_state=0, max_iter=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        b = aucopt.make("spam-l2", random_state=0, max_iter=3, max_time=1e6).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and a.n_iter_ == b.n_iter_ == 3


def _wide(width):
    return sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, width - 1]), np.array([0, 1, 2])),
                         shape=(2, width))


@pytest.mark.parametrize("algorithm", IDS)
def test_a_width_of_10_to_the_12_is_a_clear_value_error(algorithm):
    if not get_algorithm(algorithm).sparse:
        pytest.skip("dense only")
    est = aucopt.make(algorithm)
    with pytest.raises(ValueError, match="n_features=1000000000000.*Reduce the number of "
                                         "features"):
        est.fit(_wide(10**12), np.array([1, -1]))
    if hasattr(est, "partial_fit"):
        with pytest.raises(ValueError, match="n_features=1000000000000"):
            est.partial_fit(_wide(10**12), np.array([1, -1]), classes=[-1, 1])


def test_max_memory_gb_bounds_the_o_d_state():
    X = _wide(10**8)  # AOGD: its 2 x d sums, 0.8 GB per 10^8 columns... and more
    with pytest.raises(ValueError, match="max_memory_gb=0.5"):
        aucopt.make("aogd", max_memory_gb=0.5).fit(X, np.array([1, -1]))


def test_b_ls_svm_counts_the_matrices_its_fit_holds_at_once():
    """Three 2000 x 2000 matrices are 0.096 GB, and max_memory_gb=0.1 let the fit run to
    a peak of 0.15-0.18 GB: it holds five at once (lam="auto"), which is now what it counts."""
    X = np.random.default_rng(0).normal(size=(40, 2000))
    y = np.where(np.arange(40) % 2 == 0, 1, -1)
    with pytest.raises(ValueError, match=r"forms 5 dense 2000 x 2000 matrices \(0.16 GB\)"):
        aucopt.make("b-ls-svm", max_memory_gb=0.1).fit(X, y)
    aucopt.make("b-ls-svm", max_memory_gb=0.17).fit(X, y)


def test_river_hashing_width_is_checked_before_allocating():
    from aucopt.river import AUCClassifier

    model = AUCClassifier("spam-l2", n_features=10**12)
    with pytest.raises(ValueError, match="n_features=1000000000000"):
        model.learn_one({"a": 1.0}, True)
    assert model.score_one({"a": 1.0}) == 0.0  # nothing learned, still usable


@pytest.mark.parametrize("algorithm", ["svm-perf", "b-svm-or", "uni-log-batch",
                                       "uni-squ-batch", "b-ls-svm"])
def test_huge_constant_weights_solve_like_unit_weights(algorithm):
    """Weights 2^62 (a power of two: scaled back exactly) give the unweighted model at a
    given lam (``"auto"`` counts integer weights as duplicated rows), fast; 1e308 (whose
    sum overflows) is a clear error. Before: a minute of cutting planes, or NaN scores."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = np.where(X[:, 0] + rng.normal(size=200) > 0, 1, -1)
    plain = aucopt.make(algorithm, lam=0.01).fit(X, y)
    heavy = aucopt.make(algorithm, lam=0.01).fit(X, y, sample_weight=np.full(200, 2.0**62))
    np.testing.assert_allclose(heavy.coef_, plain.coef_, rtol=1e-9, atol=1e-12)
    assert heavy.n_iter_ == plain.n_iter_
    with pytest.raises(ValueError, match="sample_weight sums to more than float64"):
        aucopt.make(algorithm).fit(X, y, sample_weight=np.full(200, 1e308))


@pytest.mark.parametrize("algorithm", ["svm-perf", "b-svm-or"])
def test_a_vanishing_lam_is_refused_before_the_cutting_plane_rounds(algorithm):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 10))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, 1, -1)
    est = aucopt.make(algorithm, lam=1e-300)  # before: all 1000 rounds, ~1 min
    with pytest.raises(ValueError, match="numerically singular"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
    assert aucopt.make(algorithm, lam=1e-8).fit(X, y).lam_ == 1e-8  # a usable lam is kept


@pytest.mark.parametrize("algorithm", ["svm-perf", "svm-pauc", "b-svm-or", "uni-log-batch",
                                       "uni-squ-batch", "b-ls-svm"])
def test_tiny_constant_weights_solve_like_unit_weights(algorithm):
    """Weights 2^-1000 (scaled back exactly) give the unweighted model at a given lam. Before:
    the class sums' product underflowed to 0 and svm-pauc returned NaN scores. (The
    preconditioner counts weighted rows, and 200 rows of 2^-1000 are too few: it is off.)"""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = np.where(X[:, 0] + rng.normal(size=200) > 0, 1, -1)
    params = {"lam": 0.01}
    if "precondition" in aucopt.make(algorithm).get_params():
        params["precondition"] = None
    plain = aucopt.make(algorithm, **params).fit(X, y)
    tiny = aucopt.make(algorithm, **params).fit(X, y, sample_weight=np.full(200, 2.0**-1000))
    np.testing.assert_allclose(tiny.coef_, plain.coef_, rtol=1e-9, atol=1e-12)
    assert np.isfinite(tiny.decision_function(X)).all()


@pytest.mark.parametrize(("algorithm", "limit"), [("svm-perf", 0.8), ("uni-log-batch", 1.6),
                                                  ("spdam", 0.8)])
def test_batch_solvers_on_csr_make_no_copy_of_x_for_row_norms(algorithm, limit):
    """The row norms of a CSR X (the lam floor, the spread of pairs, SPDAM's scales) were
    taken from X.multiply(X), a whole copy: a fit with precondition=None peaked at 2.3-2.4x
    the values and indices of X (limits page: it learns on X itself); 0.2-0.3x now (1.3x
    for uni-log-batch: L-BFGS's workspace of 2 x 20 x d doubles, 0.8x this small X)."""
    import tracemalloc

    import scipy.sparse as sp

    X = sp.random(4000, 2000, density=0.01, random_state=0, format="csr")
    y = np.where(np.random.default_rng(0).random(4000) < 0.3, 1, -1)
    aucopt.make(algorithm, random_state=0, max_iter=2).fit(X[:300], y[:300])  # compiled
    tracemalloc.start()
    aucopt.make(algorithm, random_state=0, max_iter=2, precondition=None).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1] / (X.data.nbytes + X.indices.nbytes)
    tracemalloc.stop()
    assert peak < limit, f"{peak:.2f}x"


def test_row_sqnorms_of_every_container_are_the_sums_of_squares():
    """The one row-norm pass of the library (kernel rows, CSR, dense), against NumPy."""
    import scipy.sparse as sp

    from aucopt.algorithms._data import as_rows, row_sqnorms

    X = sp.random(60, 30, density=0.2, random_state=0, format="csr")
    X[5] = 0.0  # an empty row
    X.eliminate_zeros()
    expected = (X.toarray() ** 2).sum(axis=1)
    for given in (X, X.tocoo(), X.toarray(), as_rows(X), as_rows(X.toarray())):
        np.testing.assert_allclose(row_sqnorms(given), expected, rtol=1e-14)
    assert row_sqnorms(as_rows(sp.csr_matrix((0, 4)))).shape == (0,)
