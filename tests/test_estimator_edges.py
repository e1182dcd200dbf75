"""Edge cases of the shared estimator front-end (``BaseAUCClassifier``) and a few solvers.

Covers: a failed ``fit``/``partial_fit`` leaves ``n_features_in_`` and ``feature_names_in_``
as they were (absent ones stay absent) and the previous model's scores unchanged; the
online logistic loss raises ``DivergenceError`` when its margins pass the documented bound;
``score`` rejects labels outside ``classes_``; the cutting-plane solvers fit an all-zero
``X`` without numpy warnings. Small data: the module runs in seconds.
"""

import re
import warnings

import numpy as np
import pytest

import aucopt
from aucopt.algorithms import get_algorithm
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError

pd = pytest.importorskip("pandas")

# one id per family of fit: SGD, batch L-BFGS, pairwise buffer, kernel budget, cutting plane
REFIT_IDS = ("spam-l2", "uni-log-batch", "kar", "projection-pp", "b-svm-or")


@pytest.fixture(scope="module")
def data():
    return make_auc_problem(120, 4, separation=1.5, random_state=0)


def _failing_inputs(X, y, how):
    """Return ``(X, y)`` of a refit that is refused: one class, or a NaN in ``X``."""
    if how == "one class":
        return pd.DataFrame(X, columns=["w", "x", "y", "z"]), np.ones(len(y))
    wider = np.hstack([X, X[:, :1]])  # another width too: n_features_in_ must come back
    wider[3, 1] = np.nan
    return pd.DataFrame(wider, columns=["w", "x", "y", "z", "v"]), y


@pytest.mark.parametrize("algorithm", REFIT_IDS)
@pytest.mark.parametrize("how", ["one class", "NaN"])
def test_failed_refit_keeps_input_attributes(algorithm, how, data):
    X, y = data
    model = aucopt.make(algorithm, random_state=0).fit(X, y)
    before = model.decision_function(X)
    with pytest.raises(ValueError):
        model.fit(*_failing_inputs(X, y, how))
    assert not hasattr(model, "feature_names_in_")
    assert model.n_features_in_ == X.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.decision_function(X), before)
    with pytest.warns(UserWarning, match="fitted without feature names"):  # not refused
        frame = pd.DataFrame(X, columns=list("abcd"))
        np.testing.assert_array_equal(model.decision_function(frame), before)


@pytest.mark.parametrize("how", ["one class", "NaN"])
def test_failed_refit_keeps_feature_names(how, data):
    X, y = data
    names = ["a", "b", "c", "d"]
    model = aucopt.make("spam-l2", random_state=0).fit(pd.DataFrame(X, columns=names), y)
    bad_X, bad_y = _failing_inputs(X, y, how)
    with pytest.raises(ValueError):
        model.fit(bad_X.to_numpy(), bad_y)
    assert list(model.feature_names_in_) == names
    assert model.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_failed_first_call_sets_no_input_attributes(method, data):
    X, y = data
    model = aucopt.make("spam-l2", random_state=0)
    bad_X, bad_y = _failing_inputs(X, y, "NaN")
    extra = {"classes": [-1, 1]} if method == "partial_fit" else {}
    with pytest.raises(ValueError):
        getattr(model, method)(bad_X, bad_y, **extra)
    assert not hasattr(model, "n_features_in_")
    assert not hasattr(model, "feature_names_in_")
    getattr(model, method)(X, y, **extra)  # then learns from an ndarray without warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.decision_function(X)


@pytest.mark.parametrize("eta", [1e50, 1e200])
def test_uni_log_huge_step_diverges(eta, data):
    X, y = data
    with pytest.raises(DivergenceError, match="Lower 'eta'"):
        aucopt.make("uni-log", eta=eta, random_state=0).fit(X, y)


def test_uni_log_huge_step_diverges_in_partial_fit(data):
    X, y = data
    model = aucopt.make("uni-log", eta=1e50, random_state=0)
    model.partial_fit(X[:1], y[:1], classes=[-1, 1])  # one step: margins not seen yet
    state = {k: v.copy() for k, v in model._state.items()}
    with pytest.raises(DivergenceError):
        model.partial_fit(X[1:], y[1:])
    for key, value in state.items():  # the estimator is left as it was
        np.testing.assert_array_equal(model._state[key], value)


@pytest.mark.parametrize("algorithm", ["spam-l2", "projection-pp"])
@pytest.mark.parametrize("labels", [[-1, 1, 7], [0, 1]])
def test_score_rejects_unknown_labels(algorithm, labels, data):
    X, y = data
    model = aucopt.make(algorithm, random_state=0).fit(X, y)
    y_bad = np.where(y > 0, 1, labels[0])
    y_bad[-1] = labels[-1]
    unknown = re.escape(str(sorted(set(labels) - {-1, 1})))
    with pytest.raises(ValueError, match=rf"labels {unknown} .*classes \[-1(\.0)?, 1(\.0)?\]"):
        model.score(X, y_bad)


def test_score_accepts_known_labels_of_another_type(data):
    X, y = data
    model = aucopt.make("spam-l2", random_state=0).fit(X, y)
    expected = model.score(X, y)
    assert model.score(X, y.astype(np.int8)) == expected
    assert model.score(X.tolist(), y.tolist()) == expected


@pytest.mark.parametrize("algorithm", ["b-svm-or", "svm-perf", "svm-pauc"])
def test_cutting_plane_on_zero_features_is_silent(algorithm, data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = aucopt.make(algorithm, random_state=0).fit(np.zeros_like(X), y)
        assert np.isfinite(model.coef_).all()
        assert model.score(np.zeros_like(X), y) == 0.5


@pytest.mark.parametrize("algorithm_id", [a for a in aucopt.list_algorithms()
                                          if get_algorithm(a).streaming])
def test_a_chunk_whose_weights_are_all_zero_changes_nothing(algorithm_id, data):
    """Weight 0 leaves a row out, so a chunk of such rows is no step (it was refused)."""
    X, y = data
    est = aucopt.make(algorithm_id, random_state=0)
    with pytest.raises(ValueError, match="needs at least one row of positive weight"):
        est.partial_fit(X[:4], y[:4], classes=[-1, 1], sample_weight=np.zeros(4))
    assert not hasattr(est, "n_features_in_") and not hasattr(est, "classes_")
    est.partial_fit(X[:60], y[:60], classes=[-1, 1])
    before, t = est.decision_function(X), est.t_
    for rows in (X[60:64], X[60:61]):  # (the one-row path too)
        est.partial_fit(rows, y[60:60 + rows.shape[0]], sample_weight=np.zeros(rows.shape[0]))
    np.testing.assert_array_equal(est.decision_function(X), before)
    assert est.t_ == t
    with pytest.raises(ValueError, match="at least one non-zero"):
        aucopt.make(algorithm_id).fit(X, y, sample_weight=np.zeros(X.shape[0]))


def _state_of(est):
    return {k: v.copy() for k, v in est._state.items()}, est.t_


@pytest.mark.parametrize("algorithm_id", ["pauc-1pmb", "pauc-sopa"])
def test_a_chunk_whose_last_step_overflows_raises_and_changes_nothing(algorithm_id):
    """The step of the chunk's last batch overflows the iterate to NaN. That call returned
    normally, and every later call then failed on the NaN it had kept: now it raises, the
    state is as before it, and the stream goes on as if it had not happened."""
    def rows(seed, n):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 6))
        y = np.arange(n) % 2
        rng.shuffle(y)
        return X + 0.5 * y[:, None], y

    (X0, y0), (X1, y1), (X2, y2) = rows(1, 30), rows(3, 40), rows(4, 100)
    X1, y1 = X1[:25], y1[:25]  # a batch step of 1PMB and SOPA at its last row
    est, twin = (aucopt.make(algorithm_id, random_state=0) for _ in range(2))
    for e in (est, twin):
        e.partial_fit(X0, y0, classes=[0, 1])
    before = _state_of(est)
    est.set_params(eta=1.7e308)
    with pytest.raises(DivergenceError, match="left as it was"):
        est.partial_fit(X1, y1)
    after = _state_of(est)
    assert after[1] == before[1]
    for key, value in before[0].items():
        np.testing.assert_array_equal(after[0][key], value, err_msg=key)
    est.set_params(eta=twin.get_params()["eta"])
    est.partial_fit(X2, y2)
    twin.partial_fit(X2, y2)
    np.testing.assert_array_equal(est.decision_function(X0), twin.decision_function(X0))
    assert np.isfinite(est.decision_function(X0)).all()


@pytest.mark.parametrize("one_row", [False, True])
def test_auto_set_again_after_a_given_step_returns_to_the_calibrated_one(one_row):
    """A stream calibrated its "auto" step, took a given number for a chunk, then "auto"
    again: it kept the given number (eta0_ stayed 0.5); now it goes back to the calibrated
    step. A stream started with a number calibrates when "auto" is set."""
    import scipy.sparse as sp

    X, y = make_auc_problem(800, 5, random_state=0)
    est = aucopt.make("spam-l2", random_state=0)
    est.partial_fit(X[:400], y[:400], classes=[-1, 1])
    calibrated = est.eta0_
    assert isinstance(calibrated, float) and calibrated != 0.5

    def chunk(start):
        if one_row:  # the one-row path
            for i in range(start, start + 20):
                est.partial_fit(sp.csr_matrix(X[i:i + 1]), y[i:i + 1])
        else:
            est.partial_fit(X[start:start + 20], y[start:start + 20])

    est.set_params(eta0=0.5)
    chunk(400)
    assert est.eta0_ == 0.5
    est.set_params(eta0="auto")
    chunk(420)
    assert est.eta0_ == calibrated
    given_first = aucopt.make("spam-l2", random_state=0, eta0=0.5)
    given_first.partial_fit(X[:400], y[:400], classes=[-1, 1])
    given_first.set_params(eta0="auto").partial_fit(X[400:800], y[400:800])
    assert given_first.eta0_ not in (0.5, None)


def test_a_saved_stream_set_back_to_auto_continues_as_the_unsaved_one(tmp_path):
    """The step "auto" gave a stream is in the model file: a model saved after some calls
    with a given step, loaded and set back to "auto", returned to the given step instead of
    the calibrated one (the file did not keep it), unlike the same model never saved."""
    X, y = make_auc_problem(600, 5, random_state=1)
    est = aucopt.make("solam", random_state=0)
    est.partial_fit(X[:300], y[:300], classes=[-1, 1])
    calibrated = est.eta0_
    est.set_params(eta0=0.5).partial_fit(X[300:400], y[300:400])
    aucopt.io.save(est, tmp_path / "model")
    loaded = aucopt.io.load(tmp_path / "model")
    for model in (est, loaded):
        model.set_params(eta0="auto").partial_fit(X[400:], y[400:])
    assert loaded.eta0_ == est.eta0_ == calibrated != 0.5
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "ogd-fifo", "kar"])
def test_set_params_applies_to_the_next_update_whether_or_not_the_model_was_read(algorithm_id):
    """``output`` set after training changed the model only if its scores had not been read
    yet (coef_ was formed when first read, with the hyperparameters of that moment): two
    models trained alike differed by up to 0.4 in score. Now both keep the model the update
    made, and the next update takes the new value."""
    X, y = make_auc_problem(400, 5, random_state=0)
    read, unread = (aucopt.make(algorithm_id, random_state=0) for _ in range(2))
    for model in (read, unread):
        model.partial_fit(X[:300], y[:300], classes=[-1, 1])
    before = read.decision_function(X)
    for model in (read, unread):
        model.set_params(output="last")
    np.testing.assert_array_equal(unread.decision_function(X), before)
    np.testing.assert_array_equal(read.decision_function(X), before)
    for model in (read, unread):
        model.partial_fit(X[300:], y[300:])
    assert read._state_params()["output"] == "last"
    np.testing.assert_array_equal(read.decision_function(X), unread.decision_function(X))


@pytest.mark.parametrize("algorithm_id", aucopt.list_algorithms())
def test_a_shuffle_documented_as_without_effect_has_none(algorithm_id):
    """MBA's and Sparse Kernel's ``shuffle`` were documented as unused, yet the permutation
    it draws moves their random draws (pair samples, candidate rows)."""
    doc = get_algorithm(algorithm_id).param("shuffle").doc.strip()
    if not re.match(r"(Unused|Ignored)\b", doc):
        pytest.skip(f"{algorithm_id}: shuffle has an effect, as documented")
    X, y = make_auc_problem(120, 4, random_state=5)
    scores = [aucopt.make(algorithm_id, shuffle=s, random_state=3).fit(X, y).decision_function(X)
              for s in (False, True)]
    np.testing.assert_array_equal(scores[0], scores[1])
