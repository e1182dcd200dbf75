"""Extreme sample weights: a fit ends in a clear error or a model whose scores are finite,
never in a model that scores inf or NaN."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
from aucopt.algorithms._data import as_rows
from aucopt.io._validate import LARGEST_COEF
from aucopt.linear_model._divergence import _row_scale

OPAUC_IDS = [a for a in aucopt.list_algorithms() if a.startswith("opauc")]


def _two_rows():
    return np.random.default_rng(0).normal(size=(2, 6)), np.array([1, -1])


def _usable(est, X):
    """Finite scores, and a coef_ that aucopt.io.load accepts (no fit writes a larger one)."""
    return (np.isfinite(est.decision_function(X)).all()
            and np.abs(est.coef_).max() <= LARGEST_COEF)


@pytest.mark.parametrize("algorithm", OPAUC_IDS)
def test_a_huge_step_on_the_last_row_of_a_pass_is_a_divergence(algorithm):
    """Weights 1e-300 / 1e300: the step on the second (last) row is scaled by 1e300. The
    guard saw a step's result only at the next step, so the pass ended with margins near
    1e300 (scores of 1e298 or inf, a model that load refuses); now the last step is
    checked too."""
    X, y = _two_rows()
    weights = np.array([1e-300, 1e300])
    est = aucopt.make(algorithm, random_state=0)
    try:
        est.fit(X, y, sample_weight=weights)
    except ValueError as exc:
        assert "diverged" in str(exc)
        assert not hasattr(est, "coef_")
    else:  # a variant whose working space loses the step (a column subset) may finish
        assert _usable(est, X)
    if algorithm != "opauc-pca":  # a stream: the failed call leaves the model as it was
        est = aucopt.make(algorithm, random_state=0).partial_fit(X, y, classes=[-1, 1])
        before = est.decision_function(X)
        try:
            est.partial_fit(X, y, sample_weight=weights)
        except ValueError:
            assert np.array_equal(est.decision_function(X), before)
        else:
            assert _usable(est, X)


@pytest.mark.parametrize("algorithm", ["b-ls-svm", "uni-squ-batch"])
def test_class_mean_scores_of_huge_weight_sums_stay_finite(algorithm):
    """Weights 1e300 summed per class near 1e301: ``w . sums`` overflowed before its division
    by the class weight, and intercept_ was -inf (every score -inf)."""
    rng = np.random.default_rng(3)
    X = np.ones((60, 6))
    y = np.where(rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    weights = np.where(np.arange(60) % 2 == 0, 1e-300, 1e300)
    est = aucopt.make(algorithm).fit(X, y, sample_weight=weights)
    assert np.isfinite(est.intercept_).all()
    assert np.isfinite(est.decision_function(X)).all()


def test_largest_row_norm_of_csr_rows_with_empty_rows():
    """The divergence message measures the rows; CSR rows ending in empty rows raised an
    IndexError from ``np.add.reduceat`` instead of the DivergenceError."""
    X = sp.csr_matrix(np.array([[0.0, 3.0], [4.0, 0.0], [0.0, 0.0], [0.0, 0.0]]))
    rows = as_rows(X)
    assert _row_scale(rows) == 4.0
    rows = as_rows(sp.csr_matrix(np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])))
    assert _row_scale(rows) == pytest.approx(np.sqrt(5.0))


def _mixed(n):
    return np.where(np.arange(n) % 2 == 0, 1e-300, 1e300)


def test_adaoam_whose_squared_gradients_overflow_is_a_divergence():
    """Weights 1e300: the running sums of squared gradients became inf, the steps 0, and the
    fit ended with a state that load refuses (it holds inf)."""
    rng = np.random.default_rng(484)
    X = rng.normal(size=(60, 6))
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    est = aucopt.make("adaoam", random_state=0)
    with pytest.raises(ValueError, match="diverged"):
        est.fit(X, y, sample_weight=_mixed(60))
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize(("algorithm", "seed", "weight"), [("svm-perf", 668, 1e-300),
                                                           ("svm-pauc", 778, 2.0**62)])
def test_cutting_planes_whose_gap_overflows_are_a_divergence(algorithm, seed, weight):
    """Rows of norm 1e150 with constant weights: the duality gap was NaN after all max_iter
    rounds and the model kept it (load refuses a NaN state); now a DivergenceError. (The
    solver on the rows as given: the preconditioner would standardise them first.)"""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 6))
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    est = aucopt.make(algorithm, random_state=0, max_iter=20, precondition=None)
    with pytest.raises(ValueError, match="Rescale the features"):
        est.fit(X * 1e150, y, sample_weight=np.full(60, weight))
    assert not hasattr(est, "coef_")


def test_mba_lam2_auto_that_overflows_is_a_clear_error():
    """A spread of the pairs beyond float64 (two opposite rows of squared norm 6e307, as
    given): lam2='auto' came out inf and was kept."""
    X, y = np.vstack([np.full(60, 1e153), np.full(60, -1e153)]), np.array([1, -1])
    est = aucopt.make("mba", random_state=0, lam1=1e300, precondition=None)
    with pytest.raises(ValueError, match="lam2='auto' gave inf"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the overflows it reports)
        est.fit(X, y)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize(("algorithm", "seed", "weights", "params"), [
    # a state entry inf (beta = 1 + 8 kappa^2)
    ("fsauc", 209, np.full(60, 1e-300), {"precondition": None}),
    ("vrspam-net", 101, np.full(60, 1e-300), {"precondition": None}),
    # the calibrated step underflowed to 0 (preconditioned, the input check refuses first)
    ("pauc-1pmb", 74, np.r_[1e15, np.ones(59)], {"precondition": None}),
])
def test_fit_does_not_commit_a_model_load_refuses(algorithm, seed, weights, params):
    """Rows of norm 1e150 with extreme weights: fit ended with a state entry that is inf or a
    step eta_ = 0.0, a model whose save load refused; now a DivergenceError naming why."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 6))
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    est = aucopt.make(algorithm, random_state=0, **params)
    # (FSAUC's uniform weights of 1e-300 now scale its calibrated step by 1e300, as they
    # scale its steps down: it diverges in the passes, before a state entry overflows)
    with pytest.raises(ValueError, match="extreme scale"):
        est.fit(X * 1e150, y, sample_weight=weights)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize(("algorithm", "seed", "weights"), [
    ("uni-log-batch", 266, np.full(60, 2.0**62)),
    ("oam-seq", 383, np.full(60, 2.0**62)),
    ("oam-gra", 92, np.arange(60) % 3),
])
def test_a_fit_on_features_of_1e_minus_150_saves_and_loads(algorithm, seed, weights, tmp_path):
    """precondition='auto' learns on columns of 1e-150 as on unit ones, so coef_ (of the raw
    columns) is near 1e150: load refused such files (its cap was 1e150), and so did save."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 6))
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    est = aucopt.make(algorithm, random_state=0).fit(X * 1e-150, y, sample_weight=weights)
    aucopt.io.save(est, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded.decision_function(X * 1e-150),
                                  est.decision_function(X * 1e-150))
    assert est.score(X * 1e-150, y) > 0.7


@pytest.mark.parametrize(("algorithm", "scale", "weights"), [
    ("spam-l2", 1e-160, None),
    ("uni-squ", 1e-160, None),
    ("solam", 1e-155, np.r_[1e15, np.ones(59)]),
    ("oam-gra", 1e-152, np.r_[1e15, np.ones(59)]),
    ("mba", 1e-150, np.r_[1e15, np.ones(59)]),
])
def test_a_preconditioned_fit_whose_coef_squares_overflow_saves_and_loads(algorithm, scale,
                                                                          weights, tmp_path):
    """coef_ of the raw columns beyond 1e154 (columns of 1e-160, or one row weighted 1e15 on
    columns of 1e-150): the scores are finite, but load's bound on them took the norm of
    coef_, whose squares overflow, and scored the class means of the preconditioned rows
    with the coefficients of the raw ones: it refused the model, and so did save."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6)) * scale
    y = np.where(X[:, 0] + rng.normal(size=60) * scale > 0, 1, -1)
    est = aucopt.make(algorithm, random_state=0).fit(X, y, sample_weight=weights)
    assert np.abs(est.coef_).max() > 1e154 and np.isfinite(est.decision_function(X)).all()
    aucopt.io.save(est, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("weight", [1e154, 1e300, 1e-160])
@pytest.mark.parametrize("algorithm, params", [("sparse-kernel", {}), ("pauc-sopa", {"eta": 0.05}),
                                               ("pauc-sopa-s", {"eta": 0.05}),
                                               ("pauc-sota-s", {"eta": 0.05}),
                                               ("pauc-1pmb", {"eta": 0.05}),
                                               ("pauc-2pmb", {"eta": 0.05})])
def test_weights_of_any_common_scale_give_the_unweighted_model(algorithm, params, weight):
    """These objectives divide the weighted pair sum by the product of the class weight
    sums, which overflowed (or underflowed) beyond 1e154: sparse-kernel's model was constant
    (AUC 0.5) without a word, or a ZeroDivisionError; the partial-AUC steps were all 0 (a
    zero model and a warning that blamed the features), NaN, or a divergence. Each class's
    weights are now brought to a sum near 1 first, by a power of two."""
    X, y = aucopt.datasets.make_auc_problem(n_samples=300, n_features=5, random_state=0)
    plain = aucopt.make(algorithm, random_state=0, **params).fit(X, y)
    heavy = aucopt.make(algorithm, random_state=0, **params).fit(
        X, y, sample_weight=np.full(len(y), weight))
    np.testing.assert_allclose(heavy.decision_function(X), plain.decision_function(X),
                               rtol=1e-8, atol=1e-8)


def test_a_heavy_chunk_of_a_pauc_stream_leaves_a_finite_model():
    """1PMB's weighted pair w_i w_j overflowed for weights 1e200: partial_fit returned with
    a NaN iterate, which scored NaN, could not be saved and failed every later chunk."""
    X, y = aucopt.datasets.make_auc_problem(300, 8, random_state=3)
    est = aucopt.make("pauc-1pmb", random_state=0)
    for start in range(0, 150, 50):
        est.partial_fit(X[start:start + 50], y[start:start + 50], classes=[-1, 1])
    est.partial_fit(X[150:200], y[150:200], sample_weight=np.full(50, 1e200))
    assert np.isfinite(est.decision_function(X)).all()
    est.partial_fit(X[200:250], y[200:250])
