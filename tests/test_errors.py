"""Bad input gets a clear error that says what was wrong and what to do, and loses nothing."""

import numpy as np
import pytest

import aucopt
from aucopt.exceptions import InvalidParameterError

from .conftest import ALGORITHMS, STREAMING


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(rng.random(40) < 0.4, 1, -1)
    y[:2] = [1, -1]
    return X, y


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
class TestBadInput:
    def test_nan(self, algorithm_id, data):
        X, y = data
        X = X.copy()
        X[3, 1] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            aucopt.make(algorithm_id).fit(X, y)

    def test_inf(self, algorithm_id, data):
        X, y = data
        X = X.copy()
        X[0, 0] = np.inf
        with pytest.raises(ValueError, match="infinity.*nan_to_num"):
            aucopt.make(algorithm_id).fit(X, y)

    def test_one_class(self, algorithm_id, data):
        X, _ = data
        with pytest.raises(ValueError, match="both classes.*StratifiedKFold"):
            aucopt.make(algorithm_id).fit(X, np.ones(len(X)))

    def test_three_classes(self, algorithm_id, data):
        X, _ = data
        with pytest.raises(ValueError, match="Only binary classification.*binarize"):
            aucopt.make(algorithm_id).fit(X, np.arange(len(X)) % 3)

    def test_continuous_target(self, algorithm_id, data):
        X, _ = data
        with pytest.raises(ValueError, match="Unknown label type"):
            aucopt.make(algorithm_id).fit(X, np.linspace(0, 1, len(X)))

    def test_empty(self, algorithm_id):
        with pytest.raises(ValueError, match="0 sample"):
            aucopt.make(algorithm_id).fit(np.empty((0, 3)), np.empty(0))

    def test_wrong_feature_count_at_predict(self, algorithm_id, data):
        X, y = data
        est = aucopt.make(algorithm_id).fit(X, y)
        with pytest.raises(ValueError, match="X has 2 features.*expecting 3"):
            est.decision_function(X[:, :2])

    def test_non_numeric(self, algorithm_id, data):
        X, y = data
        X = X.astype(object)
        X[0, 0] = "red"
        with pytest.raises(ValueError, match="numeric.*OneHotEncoder"):
            aucopt.make(algorithm_id).fit(X, y)

    def test_bad_hyperparameter(self, algorithm_id, data):
        X, y = data
        with pytest.raises(InvalidParameterError, match="The 'max_iter' parameter.*Got -1"):
            aucopt.make(algorithm_id, max_iter=-1).fit(X, y)

    def test_failed_refit_keeps_the_model(self, algorithm_id, data):
        X, y = data
        est = aucopt.make(algorithm_id, random_state=0).fit(X, y)
        scores = est.decision_function(X)
        with pytest.raises(ValueError):
            est.fit(X[:, :2], np.ones(len(X)))
        assert est.n_features_in_ == 3
        np.testing.assert_array_equal(est.decision_function(X), scores)


@pytest.mark.parametrize("algorithm_id", STREAMING)
class TestBadStream:
    def test_classes_missing_on_first_partial_fit(self, algorithm_id, data):
        X, y = data
        with pytest.raises(ValueError, match="classes must be passed.*classes=\\[-1, 1\\]"):
            aucopt.make(algorithm_id).partial_fit(X, y)

    def test_wrong_feature_count_at_partial_fit_loses_nothing(self, algorithm_id, data):
        X, y = data
        est = aucopt.make(algorithm_id).partial_fit(X, y, classes=[-1, 1])
        state = {k: v.copy() for k, v in est._state.items()}
        with pytest.raises(ValueError, match="X has 2 features"):
            est.partial_fit(X[:, :2], y)
        with pytest.raises(ValueError, match="not in classes"):
            est.partial_fit(X, np.full(len(X), 7))
        X_nan = X.copy()
        X_nan[0, 0] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            est.partial_fit(X_nan, y)
        for key, value in state.items():
            np.testing.assert_array_equal(est._state[key], value)

    def test_classes_must_be_two(self, algorithm_id, data):
        X, y = data
        with pytest.raises(ValueError, match="exactly two labels"):
            aucopt.make(algorithm_id).partial_fit(X, y, classes=[0, 1, 2])


def test_classes_as_a_set_or_a_generator_are_two_labels(data):
    """NumPy makes one object of a set or a generator: {-1, 1} was refused as not two labels
    (with the set shown as the one label)."""
    X, y = data
    for classes in ({-1, 1}, frozenset((1, -1)), (c for c in (-1, 1))):
        est = aucopt.make("spam-l2", random_state=0).partial_fit(X, y, classes=classes)
        assert est.classes_.tolist() == [-1, 1]


def test_unknown_algorithm_id_suggests_a_close_one():
    with pytest.raises(ValueError, match="Unknown algorithm id 'spam-12'.*'spam-l2'"):
        aucopt.make("spam-12")
    with pytest.raises(ValueError, match="Known ids"):
        aucopt.algorithm_info("nope")


def test_unknown_parameter_lists_the_parameters():
    with pytest.raises(TypeError, match="no parameter.*'lr'.*beta"):
        aucopt.make("spam-l2", lr=0.1)


def test_a_divergence_under_a_tiny_max_fpr_names_it():
    """SOPA's steps on the top negatives grow as 1 / max_fpr: at 1e-8 no step helps, and
    the error blamed only the step and the features' scale."""
    from aucopt.datasets import make_auc_problem
    from aucopt.exceptions import DivergenceError

    X, y = make_auc_problem(300, 5, random_state=1)
    with pytest.raises(DivergenceError, match=r"max_fpr=1e-08 .* raise max_fpr"):
        aucopt.make("pauc-sopa", max_fpr=1e-8, random_state=0).fit(X, y)


def test_score_with_sample_weight_is_the_weighted_auc(data):
    """As ClassifierMixin.score takes weights (GridSearchCV routes them there when asked):
    scikit-learn's weighted AUC; integer weights are the rows repeated; bad ones refused."""
    from sklearn.metrics import roc_auc_score as sklearn_auc

    X, y = data
    est = aucopt.make("spam-l2", random_state=0).fit(X, y)
    weight = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    s = est.decision_function(X)
    assert est.score(X, y, sample_weight=weight) == pytest.approx(
        sklearn_auc(y, s, sample_weight=weight), abs=1e-12)
    repeated = np.repeat(np.arange(len(y)), weight.astype(int))
    assert est.score(X, y, sample_weight=weight) == pytest.approx(
        est.score(X[repeated], y[repeated]), abs=1e-14)
    assert est.score(X, y, sample_weight=np.ones(len(y))) == pytest.approx(est.score(X, y))
    for bad, match in [(-weight, ">= 0"), (weight[:-1], "one weight per sample"),
                       (np.where(y == y.max(), 0.0, 1.0), "positive total weight")]:
        with pytest.raises(ValueError, match=match):
            est.score(X, y, sample_weight=bad)


def test_grid_search_routes_weights_to_score_when_asked(data):
    import sklearn
    from sklearn.model_selection import GridSearchCV

    X, y = data
    weight = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        est = aucopt.make("spam-l2", random_state=0, max_iter=2)
        est.set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
        search = GridSearchCV(est, {"beta": [1e-4, 1e-2]}, cv=2).fit(X, y, sample_weight=weight)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


@pytest.mark.parametrize("algorithm, params, other", [
    ("vrspam-l2", {"eta0": 1e7, "eta": 1e-12}, "eta0=10000000.0"),
    ("vrspam-net", {"eta0": 1e7, "eta": 1e-12}, "eta0=10000000.0"),
    ("aogd", {"eta_random": 1e8, "eta": 1e-12}, "eta_random=100000000.0"),
])
def test_a_divergence_of_another_step_names_it_too(data, algorithm, params, other):
    """VRSPAM's SPAM start (eta0) and AOGD's random-example step (eta_random) diverged, and
    the error named only 'eta', which lowering could not fix."""
    from aucopt.exceptions import DivergenceError

    X, y = data
    with pytest.raises(DivergenceError, match=rf"Lower 'eta'.*Its other step \({other}\) "
                                              r"may be the one too large"):
        aucopt.make(algorithm, random_state=0, **params).fit(X, y)


def test_a_kernel_model_of_all_zero_coefficients_is_warned_about(data):
    """Sparse Kernel with an overwhelming penalty returned an all-zero model (every score 0)
    without the warning a linear model's all-zero coef_ gets: the kernel models have no
    coef_, and declare the entry of their expansion's coefficients instead."""
    from aucopt.algorithms import get_algorithm

    X, y = data
    with pytest.warns(UserWarning, match="ended with all weights zero: every score is the same"):
        est = aucopt.make("sparse-kernel", lam=1e300).fit(X, y)
    assert np.unique(est.decision_function(X)).size == 1
    for algorithm in ALGORITHMS:  # a declared entry is one of the state's
        key = get_algorithm(algorithm).model_key
        if key is not None:
            assert key in aucopt.make(algorithm, random_state=0).fit(X, y)._state, algorithm
