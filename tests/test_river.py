"""aucopt.river: the River classifier and the exact AUC metrics, with River's own checks."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

river = pytest.importorskip("river")
pd = pytest.importorskip("pandas")

from river import checks, compose, datasets, evaluate, metrics, preprocessing  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

import aucopt  # noqa: E402
from aucopt.algorithms import get_algorithm  # noqa: E402
from aucopt.datasets import make_auc_problem  # noqa: E402
from aucopt.river import AUCClassifier, ExactROCAUC, ExactRollingROCAUC  # noqa: E402
from aucopt.river._columns import stable_hash  # noqa: E402

from ._general_path import general  # noqa: E402

STREAMING = [a for a in aucopt.list_algorithms() if aucopt.algorithm_info(a)["streaming"]]
# random values per input column or a width-dependent layout: no vocabulary growth
NOT_GROWABLE = {"aogd", "opauc-f", "opauc-rp", "fsauc"}


def _equivalent(algorithm, **extra):
    """A classifier with the params under which chunks equal row-by-row updates."""
    return AUCClassifier(algorithm, seed=0, **dict(get_algorithm(algorithm).equivalence_params),
                         **extra)


def _stream(n=60, d=12, seed=0, emerging=False):
    """(x dict, y bool) pairs; with ``emerging`` the feature f_j appears from row 3 j on."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    out = []
    for i in range(n):
        v = rng.normal(size=d)
        y = bool(v @ w + 0.3 * rng.normal() > 0)
        names = [j for j in range(d) if not emerging or 3 * j <= i]
        out.append(({f"f{j}": float(v[j]) for j in names if v[j] > -1.0}, y))
    return out


def _csr(xs, columns, width):
    rows, cols, vals = [], [], []
    for i, x in enumerate(xs):
        for name, value in x.items():
            rows.append(i)
            cols.append(columns[name])
            vals.append(value)
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(xs), width))


# ---------------------------------------------------------------- River's own checks
# spam-l2 (vocabulary) and ftrl-auc (hashing) run in test_unit_test_params_pass_river_checks
@pytest.mark.parametrize("algorithm,n_features", [
    ("solam", None), ("ftrl-auc", None), ("ogd-fifo", None), ("aogd", 64),
])
def test_river_estimator_checks(algorithm, n_features):
    checks.check_estimator(_equivalent(algorithm, n_features=n_features))


def test_a_bounded_vocabulary_passes_river_checks():
    """Which names of a row get the last free columns of a bounded vocabulary followed the
    row's key order: check_shuffle_features_no_impact failed for any max_features."""
    checks.check_estimator(_equivalent("spam-l2", max_features=3))


def test_learn_many_refuses_a_frame_with_a_repeated_column():
    """A frame with a column name twice (an accidental concat) was learnt as one feature
    holding the sum of both columns; river's learners refuse it (DuplicateError)."""
    pd = pytest.importorskip("pandas")
    model = AUCClassifier("spam-l2", seed=0)
    frame = pd.DataFrame([[1.0, 2.0, 3.0], [0.5, 0.1, 0.2]], columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"distinct; \['a'\] appear more than once"):
        model.learn_many(frame, pd.Series([True, False]))
    assert model.columns == {}
    model.learn_many(frame.iloc[:, :2], pd.Series([True, False]))
    with pytest.raises(ValueError, match="distinct"):
        model.predict_proba_many(frame)


def test_unit_test_params_pass_river_checks():
    for params in AUCClassifier._unit_test_params():
        checks.check_estimator(AUCClassifier(**params))


def test_learn_many_check_skipped_only_without_equivalence_params():
    assert AUCClassifier("spam-l2")._unit_test_skips() == {"check_learn_many_matches_learn_one"}
    assert _equivalent("spam-l2", eta0=0.5)._unit_test_skips() == set()
    # a learn_many chunk calibrates an "auto" step, single rows do not
    assert _equivalent("spam-l2")._unit_test_skips() == {"check_learn_many_matches_learn_one"}


# ---------------------------------------------------------- exactness against partial_fit
@pytest.mark.parametrize("algorithm", STREAMING)
def test_growing_vocabulary_equals_knowing_all_features(algorithm):
    """Features that appear late (state widened on the fly) give the model of a fixed width."""
    data = _stream(emerging=True)
    params = dict(get_algorithm(algorithm).equivalence_params)
    if algorithm in NOT_GROWABLE:  # refused as the model is made
        with pytest.raises(ValueError, match="n_features=<int>"):
            AUCClassifier(algorithm, seed=0, **params)
        return
    model = AUCClassifier(algorithm, seed=0, **params)
    for x, y in data:
        model.learn_one(x, y)
    # the state started at 8 columns and doubled to 16 when the 9th name arrived
    assert len(model.columns) == 12 and model._width == 16
    ref = general(aucopt.make(algorithm, random_state=0, **params))
    for x, y in data:
        ref.partial_fit(_csr([x], model.columns, 16), [y], classes=[False, True])
    probe = [x for x, _ in _stream(n=10, seed=1)]
    ours = np.array([model.score_one(x) for x in probe])
    theirs = ref.decision_function(_csr(probe, model.columns, 16))
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)  # summation order only
    np.testing.assert_array_equal(model.estimator.intercept_, ref.intercept_)
    if hasattr(ref, "coef_"):
        np.testing.assert_array_equal(model.estimator.coef_, ref.coef_)
        assert not model.estimator.coef_[0, 12:].any()


@pytest.mark.parametrize("n_features", [None, 512])  # 512: the 12 names do not collide
@pytest.mark.parametrize("algorithm", ["spam-l2", "ftrl-auc", "oam-seq"])
def test_learn_one_and_learn_many_equal_partial_fit(algorithm, n_features):
    data = _stream()
    one, many = AUCClassifier(algorithm, n_features), AUCClassifier(algorithm, n_features)
    for x, y in data:
        one.learn_one(x, y)
    X = pd.DataFrame([x for x, _ in data])
    y = pd.Series([y for _, y in data])
    many.learn_many(X.iloc[:25], y.iloc[:25])
    many.learn_many(X.iloc[25:], y.iloc[25:])
    columns = dict(one.columns) if n_features is None else {
        f"f{j}": stable_hash(f"f{j}") % n_features for j in range(12)}
    by_row, by_chunk = general(aucopt.make(algorithm)), aucopt.make(algorithm)
    for x, y_ in data:
        by_row.partial_fit(_csr([x], columns, one._width), [y_], classes=[False, True])
    xs, width = [x for x, _ in data], many._width
    by_chunk.partial_fit(_csr(xs[:25], columns, width), y.iloc[:25], classes=[False, True])
    by_chunk.partial_fit(_csr(xs[25:], columns, width), y.iloc[25:])
    np.testing.assert_array_equal(one.estimator.coef_, by_row.coef_)
    np.testing.assert_array_equal(one.estimator.intercept_, by_row.intercept_)
    np.testing.assert_array_equal(many.estimator.coef_, by_chunk.coef_)
    scores = by_chunk.decision_function(_csr(xs, columns, width))
    np.testing.assert_allclose([many.score_one(x) for x in xs], scores, rtol=1e-13, atol=1e-15)
    proba = many.predict_proba_many(X)
    np.testing.assert_allclose(proba[True], 0.5 + np.arctan(scores) / np.pi, rtol=1e-15)
    np.testing.assert_array_equal(many.predict_many(X), scores > 0)


# ------------------------------------------------------------------ input handling
@pytest.mark.parametrize("algorithm", STREAMING)
def test_one_class_first_never_crashes(algorithm):
    model = _equivalent(algorithm, n_features=32)
    assert model.predict_proba_one({"a": 1.0}) == {False: 0.5, True: 0.5}
    data = sorted(_stream(n=30), key=lambda xy: not xy[1])  # all positives first
    for x, y in data:
        proba = model.predict_proba_one(x)
        assert set(proba) == {False, True} and abs(sum(proba.values()) - 1) < 1e-12
        model.learn_one(x, y)
    assert np.isfinite(model.score_one(data[0][0]))


def test_bad_labels_and_values_raise_and_lose_nothing():
    model = AUCClassifier("spam-l2")
    for x, y in _stream(n=10):
        model.learn_one(x, y)
    before = (dict(model.columns), {k: v.copy() for k, v in model.estimator._state.items()})
    with pytest.raises(ValueError, match="True/False"):
        model.learn_one({"f0": 1.0}, "yes")
    with pytest.raises(ValueError, match="True/False"):
        model.learn_one({"f0": 1.0}, 2)
    with pytest.raises(TypeError, match="OneHotEncoder"):
        model.learn_one({"f0": "red"}, True)
    with pytest.raises(TypeError, match="numbers"):
        model.learn_one({"f0": "1.5", "f1": 2.0}, True)  # a string is not a number
    for seq in ({"f0": np.ones(3)}, {"f0": [1.0, 2.0], "f1": 2.0}, {"f0": np.ones(2),
                                                                     "f1": np.ones(3)}):
        with pytest.raises(TypeError, match="numbers"):  # nor is an array or a list
            model.learn_one(seq, True)
        with pytest.raises(TypeError, match="numbers"):
            model.predict_proba_one(seq)
    with pytest.raises(ValueError, match="NaN"):
        model.learn_one({"new": float("nan"), "f0": 1.0}, True)
    for value, message in ((float("nan"), "NaN"), (float("inf"), "infinity")):
        for score in (model.predict_proba_one, model.score_one, model.predict_one):
            with pytest.raises(ValueError, match=message):  # not a NaN probability
                score({"f0": value, "f1": 1.0})
    with pytest.raises(ValueError, match="infinity"):
        model.predict_proba_many(pd.DataFrame({"f0": [1.0, -np.inf]}))
    # under a name not known yet too (scores drop such names: their values went unchecked)
    for value, message in ((float("nan"), "NaN"), (float("inf"), "infinity")):
        for score in (model.predict_proba_one, model.score_one, model.predict_one):
            with pytest.raises(ValueError, match=message):
                score({"unseen": value, "f1": 1.0})
    with pytest.raises(ValueError, match="infinity"):
        model.predict_proba_many(pd.DataFrame({"f0": [1.0, 1.0], "unseen": [1.0, np.inf]}))
    assert len(model.predict_proba_many(pd.DataFrame({"f0": [1.0], "unseen": [np.nan]}))) == 1
    with pytest.raises(ValueError, match="True/False"):
        model.learn_many(pd.DataFrame({"f0": [1.0]}), pd.Series(["no"]))
    assert model.columns == before[0]
    for key, value in model.estimator._state.items():
        np.testing.assert_array_equal(value, before[1][key])
    model.learn_one({"f0": 1.0, "new": 2.0}, 1)  # usable afterwards; 1/0 are labels too
    assert "new" in model.columns
    model.learn_one({"f0": -1.0}, -1)  # and -1, the negative label of scikit-learn


def test_hyperparameters_and_labels_are_checked_as_the_model_is_made():
    from aucopt.exceptions import OrderedStreamWarning

    for bad in ({"beta": -1}, {"beta": "1.5"}, {"eta0": "1.5"}):
        with pytest.raises(ValueError, match="parameter"):
            AUCClassifier("spam-l2", **bad)
    model = AUCClassifier("spam-l2")
    model.learn_one({"a": 1.0}, True)
    model.learn_one({"a": -1.0}, False)
    model.estimator.beta = -1.0  # changed afterwards: refused at the next row, nothing learnt
    t = model.estimator.t_
    with pytest.raises(ValueError, match="beta"):
        model.learn_one({"a": 2.0}, True)
    assert model.estimator.t_ == t
    model = AUCClassifier("spam-l2")  # a stream sorted by label
    with pytest.warns(OrderedStreamWarning, match="learn_one"):
        for i in range(1001):
            model.learn_one({"a": float(i % 7), "b": 1.0}, False)
    labels = [True, False, 1, 0, -1]
    many = AUCClassifier("spam-l2")
    many.learn_many(pd.DataFrame({"a": [1.0, -1.0, 2.0, 0.5, -2.0]}), pd.Series(labels))
    assert many.estimator.__dict__["_state"]["data_count"].tolist() == [3.0, 2.0]


def test_a_stream_labelled_one_and_minus_one_is_predicted_in_its_labels():
    from river import metrics

    rng = np.random.default_rng(3)
    rows = [({"a": float(v), "b": float(w)}, bool(v + 0.3 * w > 0))
            for v, w in rng.normal(size=(300, 2))]
    accuracy = {}
    for name, as_label in (("bool", lambda y: y), ("sign", lambda y: 1 if y else -1)):
        model, metric = AUCClassifier("spam-l2", stats="online"), metrics.Accuracy()
        for x, y in rows:
            model.learn_one(x, as_label(y))
            metric.update(as_label(y), model.predict_one(x))
        accuracy[name] = metric.get()
    assert accuracy["sign"] == accuracy["bool"] > 0.8  # -1 == False is false: was ~0.5
    proba = model.predict_proba_one(rows[0][0])
    assert set(proba) == {1, -1} and proba[True] == proba[1] > 0.5  # rows[0] is positive
    assert model.predict_one({"a": -5.0, "b": 0.0}) == -1
    many = AUCClassifier("spam-l2")
    many.learn_many(pd.DataFrame({"a": [1.0, -1.0]}), pd.Series([1, 0]))
    assert many.predict_one({"a": -3.0}) is False  # 1/0 labels: River's booleans
    many.learn_many(pd.DataFrame({"a": [2.0, -2.0]}), pd.Series([1, -1]))
    assert many.predict_many(pd.DataFrame({"a": [3.0, -3.0]})).tolist() == [1, -1]
    assert list(many.predict_proba_many(pd.DataFrame({"a": [3.0]})).columns) == [-1, 1]


@pytest.mark.parametrize("algorithm", ["ogd-fifo", "pauc-sopa"])
def test_a_sorted_stream_warns_through_learn_many_and_after_a_refused_row(algorithm):
    from aucopt.exceptions import OrderedStreamWarning

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=1200), "b": rng.normal(size=1200)})
    many = AUCClassifier(algorithm)  # (learn_many never checked the order)
    with pytest.warns(OrderedStreamWarning, match="learn_many"):
        for start in range(0, 1200, 100):
            part = frame.iloc[start:start + 100]
            many.learn_many(part, pd.Series([False] * len(part), index=part.index))
    one = AUCClassifier(algorithm)  # a refused row of the other class counted as seen
    rows = frame.to_dict("records")
    for x in rows[:5]:
        one.learn_one(x, False)
    with pytest.raises(ValueError):
        one.learn_one({"a": float("nan")}, True)
    with pytest.warns(OrderedStreamWarning, match="learn_one"):
        for x in rows[5:]:
            one.learn_one(x, False)


@pytest.mark.parametrize("algorithm", ["ogd-fifo", "pauc-sopa"])
def test_learn_many_gives_a_bounded_vocabulary_the_columns_a_learn_one_loop_does(algorithm):
    # the frame's names all competed at once (in hash order, missing columns too): 'a',
    # first seen in the third row, took a column from 'f'
    rows = [({"e": 1.0}, True), ({"f": -1.0}, False), ({"a": 1.5}, True),
            ({"e": -1.0, "f": 0.7}, False), ({"a": 0.2, "f": -1.0}, True),
            ({"e": -0.5, "a": -1.0}, False)]
    frame = pd.DataFrame([x for x, _ in rows])
    frame["never"] = np.nan  # missing in every row: no column
    kw = dict(seed=0, max_features=2, eta=0.05, precondition=None)
    one, many = AUCClassifier(algorithm, **kw), AUCClassifier(algorithm, **kw)
    for x, y in rows:
        one.learn_one(x, y)
    many.learn_many(frame, pd.Series([y for _, y in rows]))
    assert many.columns == one.columns == {"e": 0, "f": 1}
    probe = {"a": 1.0, "e": 2.0, "f": -1.0}
    assert many.score_one(probe) == one.score_one(probe)


def test_empty_samples_are_learned():
    model = AUCClassifier("spam-l2")
    model.learn_one({}, True)
    model.learn_one({"a": 1.0}, False)
    model.learn_one({"a": -1.0, "b": 2.0}, True)
    assert model.columns == {"a": 0, "b": 1} and model._width == 8
    # no feature: the intercept (kept as running dots: equal up to the order of additions)
    assert model.score_one({}) == pytest.approx(model.estimator.intercept_[0], rel=1e-12)


def test_constructor_rejects_bad_arguments():
    with pytest.raises(ValueError, match="streaming registry id"):
        AUCClassifier("svm-perf")
    with pytest.raises(ValueError, match="n_features"):
        AUCClassifier(n_features=0)
    with pytest.raises(TypeError, match="seed="):
        AUCClassifier(random_state=0)
    with pytest.raises(TypeError, match="no parameter"):
        AUCClassifier(not_a_param=1)


def test_fsauc_without_the_stream_length_learns_one_row_at_a_time():
    """FSAUC restarts its stages with a doubled horizon when no n_samples_hint is given."""
    X, y = make_auc_problem(1500, 10, separation=1.5, random_state=3)
    scores = {}
    for hint in ({}, {"n_samples_hint": 1000}):
        model = AUCClassifier("fsauc", n_features=32, seed=1, **hint)
        for row, label in zip(X[:1000], y[:1000]):
            model.learn_one({f"f{j}": v for j, v in enumerate(row)}, bool(label > 0))
        probs = [model.predict_proba_one({f"f{j}": v for j, v in enumerate(row)})[True]
                 for row in X[1000:]]
        scores[bool(hint)] = roc_auc_score(y[1000:] > 0, probs)
    assert scores[False] > 0.75
    assert abs(scores[False] - scores[True]) < 0.05


def test_fsauc_learns_one_sample_at_a_time_without_the_stream_length():
    """FSAUC restarts its stages with a doubled horizon, so no n_samples_hint is needed."""
    data, aucs = _stream(n=1500), {}
    for algorithm in ("fsauc", "spam-l2"):  # SPAM-L2: the reference on the same stream
        model = AUCClassifier(algorithm, n_features=512, seed=0)
        for x, y in data[:1000]:
            model.learn_one(x, y)
        aucs[algorithm] = roc_auc_score([y for _, y in data[1000:]],
                                        [model.score_one(x) for x, _ in data[1000:]])
    assert aucs["spam-l2"] > 0.75 and aucs["fsauc"] > aucs["spam-l2"] - 0.03, aucs


def test_hashing_is_stable_and_sums_collisions():
    assert stable_hash("f0") == 5407564552140985922  # same in every process (not hash())
    assert stable_hash(3) != stable_hash("3")
    model = AUCClassifier("spam-l2", n_features=1)  # every name in column 0
    row = model._map.row({"a": 1.0, "b": 2.5}, 1, grow=True)
    np.testing.assert_array_equal(row.indices, [0])
    np.testing.assert_array_equal(row.data, [3.5])


def test_feature_order_and_unknown_features():
    model = AUCClassifier("ftrl-auc", seed=0)
    for x, y in _stream(n=30):
        model.learn_one(x, y)
    x = {"f3": 1.0, "f0": -2.0, "f5": 0.5}
    shuffled = {"f5": 0.5, "f0": -2.0, "f3": 1.0, "unknown": 7.0}
    assert model.score_one(x) == model.score_one(shuffled)
    assert "unknown" not in model.columns  # predicting does not grow the vocabulary


# ------------------------------------------------------------- River composition
def test_pipeline_with_standard_scaler_and_progressive_validation():
    """StandardScaler emits an all-zero first row; River's AUC metrics and ours both run."""
    results = []
    # River's RollingROCAUC takes no sample weight, so it cannot join a Metrics sum
    for metric in (metrics.ROCAUC() + ExactROCAUC(), metrics.RollingROCAUC(window_size=100)):
        model = compose.Pipeline(preprocessing.StandardScaler(), AUCClassifier("spam-l2"))
        evaluate.progressive_val_score(datasets.Phishing().take(300), model, metric)
        results.append(metric)
    (river_auc, exact), rolling = results
    assert 0.8 < exact.get() <= 1.0 and 0.7 < river_auc.get() <= 1.0
    assert 0.7 < rolling.get() <= 1.0


def test_exact_metrics_in_progressive_val_score_equal_sklearn():
    data = list(datasets.Phishing().take(200))
    model, twin = AUCClassifier("solam", seed=0), AUCClassifier("solam", seed=0)
    metric = ExactROCAUC() + ExactRollingROCAUC(window_size=50)
    evaluate.progressive_val_score(data, model, metric)
    ys, ps = [], []
    for x, y in data:  # the same test-then-train by hand
        ps.append(twin.predict_proba_one(x)[True])
        ys.append(y)
        twin.learn_one(x, y)
    assert metric[0].get() == pytest.approx(roc_auc_score(ys, ps), abs=1e-12)
    assert metric[1].get() == pytest.approx(roc_auc_score(ys[-50:], ps[-50:]), abs=1e-12)


# ------------------------------------------------------------------ exact metrics
def test_exact_metrics_equal_sklearn_where_river_rocauc_is_wrong():
    rng = np.random.default_rng(0)
    y = rng.random(400) < 0.3
    scores = np.round(rng.normal(size=400) * 20 + 15 * y)  # unbounded, with ties
    exact, rolling, approx = ExactROCAUC(), ExactRollingROCAUC(window_size=100), metrics.ROCAUC()
    for i, (yi, si) in enumerate(zip(y.tolist(), scores.tolist())):
        exact.update(yi, si)
        rolling.update(yi, si)
        approx.update(yi, si)
        if i % 37 == 36:
            assert exact.get() == pytest.approx(roc_auc_score(y[: i + 1], scores[: i + 1]))
            lo = max(0, i + 1 - 100)
            assert rolling.get() == pytest.approx(roc_auc_score(y[lo: i + 1], scores[lo: i + 1]))
    truth = roc_auc_score(y, scores)
    assert truth > 0.6
    # River's ROCAUC thresholds on [0, 1]: scores beyond it collapse onto two bins
    assert abs(approx.get() - truth) > 0.1


def test_exact_metric_takes_probability_dicts_and_reverts():
    metric = ExactRollingROCAUC(window_size=3)
    for y, p in [(False, 0.2), (True, 0.9), (False, 0.4), (True, 0.3)]:
        metric.update(y, {False: 1 - p, True: p})
    assert metric.get() == pytest.approx(roc_auc_score([True, False, True], [0.9, 0.4, 0.3]))
    metric.revert(True, {False: 0.7, True: 0.3})
    assert metric.get() == 1.0
    with pytest.raises(ValueError, match="most recent"):
        metric.revert(True, 0.123)
    with pytest.raises(ValueError, match="window_size"):
        ExactRollingROCAUC(window_size=0)
    assert np.isnan(ExactROCAUC().get())  # no pair yet


def test_clone_and_pickle_mid_stream():
    import pickle

    model = AUCClassifier("spam-l2", seed=0)
    data = _stream(n=40)
    for x, y in itertools.islice(data, 20):
        model.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(model))
    for x, y in data[20:]:
        model.learn_one(x, y)
        restored.learn_one(x, y)
    assert model.score_one(data[0][0]) == restored.score_one(data[0][0])
    assert model.clone()._get_params() == model._get_params()


# ------------------------------------------------------- prequential, CLI, drift stream
def test_prequential_records_exact_auc_over_time():
    from aucopt.river import prequential

    data = _stream(n=250)
    records = prequential(data, {"a": AUCClassifier("solam", seed=0)}, window=100, every=100)
    assert [r["n"] for r in records] == [100, 200, 250]
    twin, ys, ps = AUCClassifier("solam", seed=0), [], []
    for x, y in data:
        ps.append(twin.predict_proba_one(x)[True])
        ys.append(y)
        twin.learn_one(x, y)
    assert records[-1]["cumulative_auc"] == pytest.approx(roc_auc_score(ys, ps), abs=1e-12)
    assert records[-1]["window_auc"] == pytest.approx(roc_auc_score(ys[-100:], ps[-100:]),
                                                      abs=1e-12)
    with pytest.raises(ValueError, match="window"):
        prequential(data, {"a": AUCClassifier()}, window=0)


def test_cli_stream_writes_csv_and_plot(tmp_path):
    import csv

    from sklearn.datasets import dump_svmlight_file
    from typer.testing import CliRunner

    from aucopt.cli import app
    from aucopt.datasets import make_drift_stream

    X, y = make_drift_stream(600, 6, random_state=0)
    data = tmp_path / "drift.svm"
    dump_svmlight_file(X, 2 * y - 1, str(data))
    out = tmp_path / "report" / "drift"
    result = CliRunner().invoke(app, [
        "stream", str(data), "--algorithms", "spam-l2:stats=online,ftrl-auc", "--window", "200",
        "--baselines", "logreg,alma", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    with open(out.with_suffix(".csv")) as fh:
        rows = list(csv.DictReader(fh))
    learners = {r["learner"] for r in rows}
    assert learners == {"spam-l2:stats=online", "ftrl-auc", "River LogisticRegression",
                        "River ALMAClassifier"}
    assert len(rows) == 4 * 30 and rows[-1]["n"] == "600"
    final = {r["learner"]: float(r["cumulative_auc"]) for r in rows if r["n"] == "600"}
    assert all(0.55 < auc <= 1.0 for auc in final.values()), final  # none stuck at 0.5
    # the CLI's records are those of prequential() on the same rows behind MaxAbsScaler, the
    # scaling --scale auto chooses for a LIBSVM file
    from aucopt.river import prequential

    stream = [(dict(enumerate(x)), bool(label)) for x, label in zip(X.tolist(), y.tolist())]
    direct = prequential(stream, {"ftrl-auc": compose.Pipeline(
        preprocessing.MaxAbsScaler(), AUCClassifier("ftrl-auc", seed=0))}, window=200,
        every=20)
    cli = [r for r in rows if r["learner"] == "ftrl-auc"]
    assert [r["n"] for r in direct] == [int(r["n"]) for r in cli]
    np.testing.assert_allclose([float(r["window_auc"]) for r in cli],
                               [r["window_auc"] for r in direct], rtol=1e-12)
    assert out.with_suffix(".png").stat().st_size > 10_000
    assert "final cumulative AUC" in result.output
    bad = CliRunner().invoke(app, ["stream", "NoSuchDataset", "--out", str(out)])
    assert bad.exit_code == 1 and "neither a file nor a River dataset" in bad.output
    for fixed_width in ("aogd", "fsauc"):  # the CLI names its flag, not the Python argument
        growing = CliRunner().invoke(app, ["stream", str(data), "-a", fixed_width, "--out",
                                           str(out / fixed_width)])
        assert growing.exit_code == 1 and "pass --n-features N" in growing.output
        assert f"{fixed_width!r} cannot widen" in growing.output
        assert "n_features=" not in growing.output
        assert not (out / fixed_width).with_suffix(".csv").exists()  # failed before streaming
    unknown = CliRunner().invoke(app, ["stream", str(data), "--baselines", "svm", "--out",
                                       str(out)])
    assert unknown.exit_code == 1 and "unknown baseline 'svm'" in unknown.output
    river_run = CliRunner().invoke(app, ["stream", "Phishing", "--limit", "150", "--baselines",
                                         "", "-a", "aogd", "--n-features", "64", "--out",
                                         str(out), "--no-progress"])
    assert river_run.exit_code == 0, river_run.output
    assert "150 samples of Phishing" in river_run.output


def test_cli_stream_rejects_labels_other_than_signs_or_bits(tmp_path):
    """A {1, 2}-labelled file would make every row positive (label > 0): AUC NaN, exit 0."""
    from sklearn.datasets import dump_svmlight_file
    from typer.testing import CliRunner

    from aucopt.cli import app

    X = np.random.default_rng(0).normal(size=(40, 3))
    data = tmp_path / "twelve.svm"
    dump_svmlight_file(X, np.arange(40) % 2 + 1, str(data))
    result = CliRunner().invoke(app, ["stream", str(data), "--baselines", "", "--out",
                                      str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == 1 and "labels -1/+1 or 0/1" in result.output, result.output
    assert not (tmp_path / "out.csv").exists()


def test_exact_metrics_read_the_probability_of_pos_val():
    """With string labels the score is y_pred[pos_val], as in River's ROCAUC."""
    data = [("no", 0.2), ("yes", 0.9), ("no", 0.4), ("yes", 0.3), ("yes", 0.8)]
    exact, rolling = ExactROCAUC(pos_val="yes"), ExactRollingROCAUC(window_size=4, pos_val="yes")
    for y, p in data:
        exact.update(y, {"no": 1 - p, "yes": p})
        rolling.update(y, {"no": 1 - p, "yes": p})
    labels, probas = zip(*data)
    truth = roc_auc_score([y == "yes" for y in labels], probas)
    assert truth == pytest.approx(5 / 6) and exact.get() == pytest.approx(truth)
    assert rolling.get() == pytest.approx(roc_auc_score([y == "yes" for y in labels[1:]],
                                                        probas[1:]))


def test_a_bounded_vocabulary_hashes_the_names_beyond_its_size():
    model = AUCClassifier("spam-l2", max_features=4)
    for i in range(40):  # a new name in every row
        model.learn_one({f"w{i}": 1.0, "x": float(i % 5) - 2.0}, i % 2 == 0)
    assert len(model.columns) == 4 and model._width == 8  # the first 4 names own columns
    assert model._map._column("w39", grow=True) < 4  # later ones share them
    assert np.isfinite(model.score_one({"w39": 1.0, "x": 1.0}))
    with pytest.raises(ValueError, match="max_features"):
        AUCClassifier("spam-l2", n_features=16, max_features=4)


@pytest.mark.parametrize("how", ["learn_one", "learn_many"])
def test_a_failed_call_that_widened_the_state_puts_the_narrow_state_back(how):
    """New names beyond the width widen the state before learning; a value that is not
    finite then fails the call. The state stayed widened (8 -> 16 columns, and intercept_
    one ulp off): now the model is the one of before, and learns on like a twin."""
    import pandas as pd

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 6))
    y = np.arange(30) % 2 == 1
    X[y] += 0.5
    names = [f"f{j}" for j in range(6)]

    def model():
        m = AUCClassifier("spam-l2", seed=0)
        m.learn_many(pd.DataFrame(X, columns=names), pd.Series(y))
        return m

    m, twin = model(), model()
    shapes = {k: v.shape for k, v in m.estimator._state.items()}
    intercept = m.estimator.intercept_.copy()
    bad = {**dict(zip(names, X[0])), **{f"n{i}": 1.0 for i in range(12)}, "n12": np.inf}
    with pytest.raises(ValueError, match="infinity"):
        if how == "learn_one":
            m.learn_one(bad, True)
        else:
            m.learn_many(pd.DataFrame([bad]), pd.Series([True]))
    assert {k: v.shape for k, v in m.estimator._state.items()} == shapes
    np.testing.assert_array_equal(m.estimator.intercept_, intercept)
    for model_ in (m, twin):
        model_.learn_many(pd.DataFrame(X[:10] * 0.5, columns=names), pd.Series(y[:10]))
        model_.learn_one({"f1": 1.0, "g": 2.0}, True)
    np.testing.assert_array_equal(m.estimator.coef_, twin.estimator.coef_)
    assert m.predict_proba_one({"f1": 1.0, "g": 2.0}) == twin.predict_proba_one(
        {"f1": 1.0, "g": 2.0})


def test_a_kernel_model_scores_the_names_it_has_not_learnt():
    """A kernel's score is not linear in the row: a value at a name the stored rows never
    held changes their distances. With a growing vocabulary projection-pp dropped such a
    name when scoring (0.7962 where the model knowing the name gives -0.3849)."""
    rng = np.random.default_rng(0)
    train = [({"a": float(rng.normal() + y), "b": float(rng.normal())}, y)
             for y in (bool(rng.random() < 0.4) for _ in range(200))]
    vocabulary = AUCClassifier("projection-pp", seed=0)
    knows_c = AUCClassifier("projection-pp", seed=0)
    for x, y in train:
        vocabulary.learn_one(x, y)
        knows_c.learn_one({**x, "c": 0.0}, y)
    new = {"a": 1.0, "b": 0.5, "c": 3.0}
    with pytest.raises(ValueError):  # a failed score keeps the vocabulary as it was
        vocabulary.score_one({**new, "d": float("inf")})
    assert list(vocabulary.columns) == ["a", "b"]
    assert vocabulary.score_one(new) == pytest.approx(knows_c.score_one(new), rel=1e-12)
    assert vocabulary.score_one(new) != vocabulary.score_one({"a": 1.0, "b": 0.5})
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([new, {"a": 0.0, "b": 1.0, "e": 2.0}])
    assert np.allclose(vocabulary.predict_proba_many(frame)[True],
                       knows_c.predict_proba_many(frame)[True], rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["aogd", "fsauc", "opauc-f", "opauc-rp"])
def test_ids_of_a_fixed_width_are_refused_a_growing_vocabulary_when_made(algorithm):
    # (made without a word, they failed at the first learn_one, mid-pipeline)
    with pytest.raises(ValueError, match="cannot widen its state for new features"):
        AUCClassifier(algorithm)
    model = AUCClassifier(algorithm, n_features=16)
    model.learn_one({"a": 1.0}, True)
    model.learn_one({"a": -1.0}, False)
    assert np.isfinite(model.score_one({"a": 0.5}))


def test_the_exact_metrics_tell_river_that_they_ignore_weights():
    """works_with_weights was a method (always true when read as River reads it), so River
    took the metrics for weighted ones, whose update ignores w."""
    from aucopt.river import ExactPartialAUC

    for metric in (ExactROCAUC(), ExactRollingROCAUC(), ExactPartialAUC()):
        assert metric.works_with_weights is False
    assert (ExactROCAUC() + metrics.Accuracy()).works_with_weights is False


def test_io_save_of_a_river_model_says_to_pickle_it(tmp_path):
    """The advice for a Pipeline (save its last step) looped for River: the last step is the
    River model itself, refused the same way; and its .estimator alone loses the names."""
    from river import preprocessing

    import aucopt.io

    pipe = preprocessing.StandardScaler() | AUCClassifier("spam-l2")
    for x, y in _stream(n=20):
        pipe.learn_one(x, y)
    for model in (pipe, pipe[-1]):
        with pytest.raises(TypeError, match="River model .* pickle or joblib"):
            aucopt.io.save(model, tmp_path / "m")


def test_seed_and_width_out_of_range_are_refused_when_made():
    """seed=-1 was refused as "cannot widen its state" (advising n_features), then failed
    in NumPy at the first row; n_features=2**64 failed inside numba."""
    with pytest.raises(ValueError, match="seed must be None or an int"):
        AUCClassifier("spam-l2", seed=-1)
    with pytest.raises(ValueError, match="n_features=18446744073709551616 is beyond"):
        AUCClassifier("spam-l2", n_features=2**64)


@pytest.mark.parametrize("column", [np.array([1 + 2j, 3 + 0j]),
                                    pd.to_timedelta([1, 2], unit="s"),
                                    pd.to_datetime(["2020-01-01", "2020-01-02"])])
def test_learn_many_refuses_complex_and_time_columns_as_learn_one_does(column):
    model = AUCClassifier("spam-l2")
    with pytest.raises(TypeError, match="real numbers"):
        model.learn_many(pd.DataFrame({"a": column, "b": [1.0, 2.0]}),
                         pd.Series([True, False]))


def test_stream_takes_river_binary_datasets_labelled_1_and_0(monkeypatch):
    """CreditCard, HTTP and SMTP label their rows 1/0: aucopt stream refused them."""
    from river import datasets

    from aucopt.cli._stream import _river_rows

    class IntLabels:
        n_samples = 4

        def __iter__(self):
            return iter([({"a": 1.0}, 1), ({"a": 0.0}, 0), ({"a": 2.0}, 1), ({"a": 0.5}, 0)])

    monkeypatch.setattr(datasets, "IntLabels", IntLabels, raising=False)
    rows, total = _river_rows("IntLabels")
    assert [y for _, y in rows] == [True, False, True, False] and total == 4


@pytest.mark.parametrize("bound", [None, 8])
def test_scoring_a_kernel_model_leaves_its_vocabulary_as_it_was(bound):
    """A kernel learner's score gives a dict's new names columns; they stayed: in a bounded
    vocabulary they took the slots of names learnt later (predictions off by 0.32), and a
    predict-only stream grew the state without end."""
    rng = np.random.default_rng(0)
    stream = [({"f0": float(v), f"g{i % 6}": 1.0}, bool(v > 0)) for i, v in
              enumerate(rng.normal(size=120))]
    scored, plain = (AUCClassifier("projection-pp", seed=0, max_features=bound)
                     for _ in range(2))
    for k, (x, y) in enumerate(stream):
        if k < 3:
            scored.predict_proba_one({f"junk{j}": 1.0 for j in range(3)})
        scored.learn_one(x, y)
        plain.learn_one(x, y)
    assert scored.columns == plain.columns
    for x, _ in stream[:20]:
        assert scored.predict_proba_one(x) == plain.predict_proba_one(x)


def test_a_value_that_is_not_finite_is_named_with_river_s_remedy():
    """The message named scikit-learn's SimpleImputer and 'row 0' of an array the River user
    never made; it names the feature and River's StatImputer now, and nothing is learnt."""
    model = AUCClassifier("spam-l2")
    model.learn_one({"a": 1.0, "b": 2.0}, True)
    t = model.estimator.t_
    with pytest.raises(ValueError, match=r"'amount' = nan are not finite.*StatImputer.*NaN"):
        model.learn_one({"b": 1.0, "amount": float("nan")}, False)
    assert model.estimator.t_ == t and "amount" not in model.columns
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # (numpy's 'invalid value' leaked)
        with pytest.raises(ValueError, match=r"'a' = inf are not finite.*infinity"):
            model.predict_proba_one({"a": float("inf"), "b": 1.0})
