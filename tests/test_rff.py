"""RandomFourierFeatures: kernel approximation rate, sklearn compatibility, pipelines."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import aucopt
from aucopt.kernel_model import RandomFourierFeatures


@parametrize_with_checks([RandomFourierFeatures(n_components=20, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_kernel_error_falls_like_inverse_sqrt_D():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    sigma = 2.0
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-sq / (2 * sigma**2))
    Ds = np.array([50, 200, 800, 3200])
    errors = []
    for D in Ds:  # average over seeds so the slope is not one draw's luck
        errs = []
        for seed in range(8):
            Phi = RandomFourierFeatures(n_components=int(D), bandwidth=sigma,
                                        random_state=seed).fit_transform(X)
            errs.append(np.sqrt(np.mean((Phi @ Phi.T - K) ** 2)))
        errors.append(np.mean(errs))
    slope = np.polyfit(np.log(Ds), np.log(errors), 1)[0]
    assert -0.7 <= slope <= -0.3, slope


def test_dense_and_csr_give_the_same_features():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 6)) * (rng.random((30, 6)) < 0.5)
    rff = RandomFourierFeatures(n_components=16, bandwidth="auto", random_state=2)
    dense = rff.fit_transform(X)
    csr = RandomFourierFeatures(n_components=16, bandwidth="auto",
                                random_state=2).fit_transform(sp.csr_matrix(X))
    assert_allclose(csr, dense, rtol=1e-12, atol=1e-14)
    assert_allclose(rff.bandwidth_, np.sqrt(X.var(axis=0).sum()), rtol=1e-12)
    assert_allclose(np.linalg.norm(dense, axis=1), 1.0, rtol=1e-12)


def test_frequencies_fixed_by_random_state():
    X = np.random.default_rng(0).normal(size=(10, 3))
    a = RandomFourierFeatures(random_state=4).fit(X).frequencies_
    b = RandomFourierFeatures(random_state=4).fit(X[:5]).frequencies_
    c = RandomFourierFeatures(random_state=5).fit(X).frequencies_
    assert_allclose(a, b, rtol=0, atol=0)
    assert not np.allclose(a, c)


@pytest.mark.parametrize("linear", ["spam-l2"])
def test_pipeline_with_linear_learner_solves_xor(linear):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (2000, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    X_test = rng.uniform(-1, 1, (2000, 2))
    y_test = np.where(X_test[:, 0] * X_test[:, 1] > 0, 1, -1)
    pipe = make_pipeline(RandomFourierFeatures(n_components=200, bandwidth=0.5, random_state=0),
                         aucopt.make(linear, random_state=0))
    assert pipe.fit(X, y).score(X_test, y_test) >= 0.95
    assert aucopt.make(linear, random_state=0).fit(X, y).score(X_test, y_test) < 0.65


def test_partial_fit_draws_on_the_first_call_and_keeps_the_map():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    for bandwidth in (0.7, "auto"):
        rff = RandomFourierFeatures(n_components=12, bandwidth=bandwidth, random_state=1)
        first = RandomFourierFeatures(n_components=12, bandwidth=bandwidth,
                                      random_state=1).fit(X[:10])
        out = rff.partial_fit(X[:10]).transform(X)
        assert_allclose(out, first.transform(X), rtol=0, atol=0)
        frequencies, width = rff.frequencies_.copy(), rff.bandwidth_
        assert rff.partial_fit(5.0 * X[10:]) is rff  # another scale: the map stays
        assert_allclose(rff.frequencies_, frequencies, rtol=0, atol=0)
        assert rff.bandwidth_ == width
        assert_allclose(rff.transform(X), out, rtol=0, atol=0)
        with pytest.raises(ValueError, match="features"):
            rff.partial_fit(X[:, :3])
        refit = rff.fit(5.0 * X)  # fit draws again (bandwidth "auto": a new width)
        if bandwidth == "auto":
            assert refit.bandwidth_ != width


def test_numeric_bandwidth_map_depends_only_on_the_input_dimension():
    X = np.random.default_rng(4).normal(size=(50, 3))
    rff = RandomFourierFeatures(n_components=10, bandwidth=2.0, random_state=7)
    from_zeros = rff.fit(np.zeros((1, 3))).transform(X)
    assert_allclose(RandomFourierFeatures(n_components=10, bandwidth=2.0, random_state=7)
                    .fit(X).transform(X), from_zeros, rtol=0, atol=0)


def test_feature_names_out_checks_the_input_names():
    """input_features was ignored: four names for three features passed without a word."""
    from aucopt.kernel_model import RandomFourierFeatures

    X = np.random.default_rng(0).normal(size=(20, 3))
    rff = RandomFourierFeatures(n_components=4, random_state=0).fit(X)
    assert rff.get_feature_names_out(["a", "b", "c"]).tolist() == [
        "rff_sin0", "rff_sin1", "rff_cos0", "rff_cos1"]
    with pytest.raises(ValueError, match="input_features should have length"):
        rff.get_feature_names_out(["a", "b", "c", "d"])
