"""Partial AUC metrics against scikit-learn, brute-force pair counts and each other."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from aucopt.metrics import (
    StreamingPartialAUC,
    partial_roc_auc_score,
    pauc_scorer,
    two_way_partial_auc_score,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scores_st = st.one_of(  # small sets: frequent ties
    st.integers(0, 4).map(float),
    st.sampled_from([-1.5, 0.0, 0.25, 7.0]),
    st.floats(-10, 10, allow_nan=False, width=32),
)
fpr_st = st.one_of(st.sampled_from([0.05, 0.1, 0.25, 0.5, 1.0]),
                   st.floats(0.01, 1.0, allow_nan=False))


@st.composite
def problems(draw, min_size=2, max_size=40):
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y[0], y[1] = 0, 1
    scores = draw(st.lists(scores_st, min_size=n, max_size=n))
    return np.asarray(y), np.asarray(scores, dtype=np.float64)


def _raw_from_sklearn(y, s, max_fpr):
    """The raw area sklearn standardises, recovered from its McClish value."""
    if max_fpr == 1.0:
        return skm.roc_auc_score(y, s)
    least, most = max_fpr**2 / 2, max_fpr
    return least + (2 * skm.roc_auc_score(y, s, max_fpr=max_fpr) - 1) * (most - least)


@SETTINGS
@given(problems(), fpr_st)
def test_one_way_equals_sklearn(problem, max_fpr):
    y, s = problem
    assert partial_roc_auc_score(y, s, max_fpr=max_fpr) == pytest.approx(
        skm.roc_auc_score(y, s, max_fpr=max_fpr), rel=1e-12, abs=1e-12)
    assert partial_roc_auc_score(y, s, max_fpr=max_fpr, standardized=False) == pytest.approx(
        _raw_from_sklearn(y, s, max_fpr), rel=1e-10, abs=1e-12)


def test_one_way_random_scores_large():
    rng = np.random.default_rng(0)
    y = (rng.random(5000) < 0.02).astype(int)
    s = rng.normal(size=5000) + y
    for max_fpr in (0.001, 0.05, 0.1, 0.3):
        assert partial_roc_auc_score(y, s, max_fpr=max_fpr) == pytest.approx(
            skm.roc_auc_score(y, s, max_fpr=max_fpr), rel=1e-12)


@SETTINGS
@given(problems(), st.floats(0.0, 0.9), st.floats(0.05, 1.0))
def test_fpr_range_is_a_difference_of_prefixes(problem, a, b):
    y, s = problem
    lo, hi = min(a, b * 0.99), b
    ab = partial_roc_auc_score(y, s, min_fpr=lo, max_fpr=hi, standardized=False)
    prefix = partial_roc_auc_score(y, s, max_fpr=hi, standardized=False)
    if lo > 0:
        prefix -= partial_roc_auc_score(y, s, max_fpr=lo, standardized=False)
    assert ab == pytest.approx(prefix, abs=1e-12)


@SETTINGS
@given(problems(), fpr_st)
def test_two_way_without_tpr_floor_is_one_way(problem, max_fpr):
    y, s = problem
    assert two_way_partial_auc_score(y, s, min_tpr=0.0, max_fpr=max_fpr) == pytest.approx(
        _raw_from_sklearn(y, s, max_fpr), rel=1e-10, abs=1e-12)


@SETTINGS
@given(problems(), st.floats(0.0, 0.99))
def test_two_way_full_fpr_is_one_way_of_the_flipped_problem(problem, min_tpr):
    # (x, y) -> (1 - y, 1 - x) maps the ROC curve of (y, s) onto that of (1 - y, -s)
    y, s = problem
    expected = _raw_from_sklearn(1 - y, -s, 1.0 - min_tpr)
    assert two_way_partial_auc_score(y, s, min_tpr=min_tpr, max_fpr=1.0) == pytest.approx(
        expected, rel=1e-10, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 15), st.data())
def test_two_way_equals_pair_count_estimator(n_pos, n_neg, data):
    # distinct scores; alpha, beta on the grid: the empirical TPAUC of Yang et al. 2021
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    s = rng.permutation(n_pos + n_neg).astype(float) + rng.random()
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    m = data.draw(st.integers(1, n_pos))  # lowest positives kept
    k = data.draw(st.integers(1, n_neg))  # highest negatives kept
    pos, neg = np.sort(s[:n_pos])[:m], np.sort(s[n_pos:])[::-1][:k]
    pairs = (pos[:, None] > neg[None, :]).sum() / (n_pos * n_neg)
    got = two_way_partial_auc_score(y, s, min_tpr=1 - m / n_pos, max_fpr=k / n_neg)
    assert got == pytest.approx(pairs, abs=1e-12)


def test_two_way_normalised_range():
    y = np.r_[np.ones(5), np.zeros(5)]
    assert two_way_partial_auc_score(y, np.r_[np.ones(5), np.zeros(5)], min_tpr=0.3,
                                     max_fpr=0.2, normalized=True) == pytest.approx(1.0)
    assert two_way_partial_auc_score(y, np.r_[np.zeros(5), np.ones(5)], min_tpr=0.3,
                                     max_fpr=0.2, normalized=True) == 0.0


@SETTINGS
@given(problems(max_size=30), fpr_st, st.sampled_from([0.0, 0.0, 0.3, 0.7]))
def test_streaming_equals_batch(problem, max_fpr, min_tpr):
    y, s = problem
    metric = StreamingPartialAUC(max_fpr=max_fpr, min_tpr=min_tpr)
    for label, score in zip(y.tolist(), s.tolist()):
        metric.update(label, score)
    if min_tpr > 0:
        expected = two_way_partial_auc_score(y, s, min_tpr=min_tpr, max_fpr=max_fpr,
                                             normalized=True)
    else:
        expected = partial_roc_auc_score(y, s, max_fpr=max_fpr)
    assert metric.get() == pytest.approx(expected, rel=1e-10, abs=1e-12)
    batch = StreamingPartialAUC(max_fpr=max_fpr, min_tpr=min_tpr)
    batch.update(y, s)
    assert batch.get() == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_streaming_window_equals_batch_on_the_window():
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.2).astype(int)
    s = np.round(rng.normal(size=300) + y, 1)  # ties
    metric = StreamingPartialAUC(max_fpr=0.1, window_size=50)
    for t, (label, score) in enumerate(zip(y.tolist(), s.tolist())):
        metric.update(label, score)
        lo = max(0, t + 1 - 50)
        yw, sw = y[lo:t + 1], s[lo:t + 1]
        if 0 < yw.sum() < yw.size:
            assert metric.get() == pytest.approx(skm.roc_auc_score(yw, sw, max_fpr=0.1),
                                                 rel=1e-12)
        else:
            assert math.isnan(metric.get())
    for back in (1, 2, 3):  # each revert brings back the sample its update pushed out
        metric.revert(y[-back], s[-back])
        assert metric.n_pos + metric.n_neg == 50
        assert metric.get() == pytest.approx(
            skm.roc_auc_score(y[-50 - back:-back], s[-50 - back:-back], max_fpr=0.1),
            rel=1e-12)
    with pytest.raises(ValueError, match="most recent"):
        metric.revert(1 - y[-4], s[-4])


@pytest.mark.parametrize("kwargs", [{"max_fpr": 0.0}, {"max_fpr": 1.5}, {"min_fpr": 0.2,
                                    "max_fpr": 0.1}, {"max_fpr": float("nan")},
                                    {"max_fpr": "0.1"}])
def test_bad_range(kwargs):
    with pytest.raises(ValueError, match="fpr"):
        partial_roc_auc_score([0, 1], [0.0, 1.0], **kwargs)


def test_bad_tpr_and_window():
    with pytest.raises(ValueError, match="min_tpr"):
        two_way_partial_auc_score([0, 1], [0.0, 1.0], min_tpr=1.0)
    with pytest.raises(ValueError, match="window_size"):
        StreamingPartialAUC(window_size=0)
    with pytest.raises(ValueError, match="one class"):
        partial_roc_auc_score([1, 1], [0.0, 1.0])


def test_scorer_in_grid_search_and_score_stays_auc():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 1.2).astype(int)
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=3,
                          scoring=pauc_scorer(max_fpr=0.1)).fit(X, y)
    best = search.best_estimator_
    scorer = pauc_scorer(max_fpr=0.1)
    assert scorer(best, X, y) == pytest.approx(
        skm.roc_auc_score(y, best.decision_function(X), max_fpr=0.1))
    two = pauc_scorer(max_fpr=0.5, min_tpr=0.5)
    assert two(best, X, y) == pytest.approx(two_way_partial_auc_score(
        y, best.decision_function(X), min_tpr=0.5, max_fpr=0.5, normalized=True))


def test_evaluate_fold_selects_and_records_the_partial_auc():
    from aucopt import make
    from aucopt.datasets import load, make_preprocessor
    from aucopt.model_selection import evaluate_fold, train_val_test

    X, y = load("german.numer")
    X, y = X[:400], y[:400]
    s = train_val_test(y, repeats=1, random_state=1)[0]
    grid = {"beta": [1e-4, 3.0]}  # here the AUC prefers 1e-4, the pAUC at 0.05 prefers 3
    res = evaluate_fold("spam-l2", X, y, s.train, s.test, grid=grid, validation=s.validation,
                        random_state=0, params={"max_iter": 2}, max_fpr=0.05)
    scaler = make_preprocessor("minmax").fit(X[s.train])
    val, auc, test = {}, {}, {}
    for beta in grid["beta"]:
        est = make("spam-l2", beta=beta, max_iter=2, random_state=0)
        est.fit(scaler.transform(X[s.train]), y[s.train])
        scores = est.decision_function(scaler.transform(X[s.validation]))
        val[beta] = partial_roc_auc_score(y[s.validation], scores, max_fpr=0.05)
        auc[beta] = skm.roc_auc_score(y[s.validation], scores)
        test[beta] = partial_roc_auc_score(
            y[s.test], est.decision_function(scaler.transform(X[s.test])), max_fpr=0.05)
    best = max(val, key=val.get)
    assert best != max(auc, key=auc.get)
    assert res.params["beta"] == best
    assert res.pauc == pytest.approx(test[best]) and res.row()["pauc"] == res.pauc


def test_compare_ranks_by_partial_auc(tmp_path):
    import csv

    from sklearn.datasets import dump_svmlight_file
    from typer.testing import CliRunner

    from aucopt.cli import app
    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(240, 5, random_state=0)
    dump_svmlight_file(X, y, str(tmp_path / "toy.svm"))
    runner = CliRunner()
    args = ["compare", str(tmp_path / "toy.svm"), "--algorithms", "uni-squ,spam-l2,pauc-1pmb",
            "--folds", "3", "--grid", "none", "--n-jobs", "1", "--out", str(tmp_path / "o")]
    result = runner.invoke(app, [*args, "--metric", "pauc", "--max-fpr", "0.2"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "o" / "results.md").read_text()
    assert "Partial AUC (FPR <= 0.2, McClish)" in text and "pAUC (mean +- std)" in result.output
    with open(tmp_path / "o" / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    means = {}
    for row in rows:
        means.setdefault(row["algorithm"], []).append(float(row["pauc"]))
    ranked = sorted(means, key=lambda a: -np.mean(means[a]))
    listed = [line.split("|")[1].strip() for line in text.splitlines()
              if line.startswith("| ") and line.split("|")[1].strip() in means]
    assert listed == ranked
    bad = runner.invoke(app, [*args, "--metric", "accuracy"])
    assert bad.exit_code == 2 and "auc or pauc" in bad.output


def test_experiment_protocol_by_partial_auc(tmp_path):
    import csv

    from aucopt.experiments import ConfigError, load_config, run_experiment

    config = """
id = "tiny-pauc"
title = "Partial AUC"
source = "nobody"
reference = "spam-l2"
[protocol]
kind = "holdout"
repeats = 2
inner_folds = 2
max_fpr = 0.1
[[datasets]]
name = "german.numer"
label = "german"
[[algorithms]]
id = "spam-l2"
grid = { beta = "10^[-4:-3]" }
[[algorithms]]
id = "pauc-1pmb"
[published]
columns = ["spam-l2", "pauc-1pmb"]
rows = [["german", ".70±.01", ".70±.01"]]
"""
    path = tmp_path / "tiny.toml"
    path.write_text(config)
    assert load_config(path).protocol.max_fpr == 0.1
    run_experiment(path, tmp_path / "run", progress=False)
    with open(tmp_path / "run" / "results.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if r["status"] == "ok"]
    assert len(rows) == 4 and all(0 < float(r["pauc"]) < 1 for r in rows)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "partial AUC over FPR in [0, 0.1]" in report
    spam = np.mean([float(r["pauc"]) for r in rows if r["algorithm"] == "spam-l2"])
    assert f"{spam:.4f}".lstrip("0") in report or f"{spam:.4f}" in report
    path.write_text(config.replace("max_fpr = 0.1", "max_fpr = 2"))
    with pytest.raises(ConfigError, match="max_fpr"):  # before any work
        run_experiment(path, tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad" / "results.csv").exists()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint64, np.int8, np.int64])
def test_integer_scores_rank_as_their_values(dtype):
    # a negative at 0 (unsigned) or at the type's minimum: negating the scores to sort them
    # wrapped these around, and the areas came out of a wrongly ordered curve
    y = np.array([0, 0, 0, 1, 1, 0, 1, 0])
    ranks = np.array([0, 1, 2, 3, 1, 5, 4, 0])
    low = np.iinfo(dtype).min
    scores = (ranks + low if low < 0 else ranks).astype(dtype)
    for kwargs in ({"max_fpr": 1.0}, {"max_fpr": 0.5}, {"max_fpr": 0.5, "min_fpr": 0.2}):
        assert partial_roc_auc_score(y, scores, **kwargs) == partial_roc_auc_score(
            y, ranks.astype(np.float64), **kwargs)
    assert partial_roc_auc_score(y, scores, max_fpr=0.5) == skm.roc_auc_score(y, ranks,
                                                                             max_fpr=0.5)
    assert two_way_partial_auc_score(y, scores, min_tpr=0.2, max_fpr=1.0) == \
        two_way_partial_auc_score(y, ranks.astype(np.float64), min_tpr=0.2, max_fpr=1.0)


def test_flags_must_be_bools():
    y, s = [0, 0, 1, 1], [0.1, 0.5, 0.4, 0.9]
    with pytest.raises(TypeError, match="standardized"):
        partial_roc_auc_score(y, s, max_fpr=0.5, standardized="False")
    with pytest.raises(TypeError, match="normalized"):
        two_way_partial_auc_score(y, s, normalized="False")
    with pytest.raises(TypeError, match="standardized"):
        StreamingPartialAUC(standardized="no")
    assert partial_roc_auc_score(y, s, max_fpr=0.5, standardized=np.False_) == \
        partial_roc_auc_score(y, s, max_fpr=0.5, standardized=False)


def test_two_way_normalised_is_a_double_whatever_the_type_of_its_bounds():
    """Bounds given as numpy float32 made the normalised area a float32 (1e-8 off)."""
    y, s = [0, 0, 0, 0, 1, 1], [0.1, 0.2, 0.3, 0.9, 0.8, 0.4]
    for min_tpr, max_fpr in ((np.float32(0.3), 0.5), (0.25, np.float32(0.3))):
        value = two_way_partial_auc_score(y, s, min_tpr=min_tpr, max_fpr=max_fpr,
                                          normalized=True)
        assert type(value) is float
        assert value == two_way_partial_auc_score(y, s, min_tpr=float(min_tpr),
                                                  max_fpr=float(max_fpr), normalized=True)


@pytest.mark.parametrize("tied", [False, True])
def test_weighted_partial_auc_equals_sklearn_and_repeated_rows(tied):
    """pauc_scorer could not take routed weights (a TypeError in GridSearchCV), while the
    estimators' score and scikit-learn's roc_auc_score(max_fpr=) weigh rows."""
    from sklearn.metrics import roc_auc_score as sklearn_auc

    from aucopt.metrics import partial_roc_auc_score

    from ._weighted_cases import weighted_cases

    for y, s, w in weighted_cases(2, 60, tied, smallest=4):
        for max_fpr in (0.05, 0.3):
            assert partial_roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w) == (
                pytest.approx(sklearn_auc(y, s, max_fpr=max_fpr, sample_weight=w), abs=1e-12))
        keep = np.repeat(np.arange(y.size), w.astype(int))
        assert partial_roc_auc_score(y, s, max_fpr=0.5, min_fpr=0.2, sample_weight=w) == (
            pytest.approx(partial_roc_auc_score(y[keep], s[keep], max_fpr=0.5, min_fpr=0.2),
                          abs=1e-12))


def test_pauc_scorer_takes_routed_weights():
    import sklearn
    from sklearn.model_selection import GridSearchCV

    import aucopt
    from aucopt.datasets import make_auc_problem
    from aucopt.metrics import pauc_scorer

    X, y = make_auc_problem(300, 4, random_state=0)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        est = aucopt.make("spam-l2", random_state=0, max_iter=2).set_fit_request(
            sample_weight=True)
        scorer = pauc_scorer(0.1).set_score_request(sample_weight=True)
        search = GridSearchCV(est, {"beta": [1e-4, 1e-2]}, cv=2, scoring=scorer)
        search.fit(X, y, sample_weight=w)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
