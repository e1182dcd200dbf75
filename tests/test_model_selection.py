"""The papers' protocols (splits) and the significance tests of model_selection."""

import math

import numpy as np
import pytest
from scipy import stats

from aucopt.datasets import load, make_preprocessor
from aucopt.metrics import roc_auc_score
from aucopt.model_selection import (
    BETTER,
    WORSE,
    evaluate_fold,
    fold_splits,
    given_test_halved,
    make_splits,
    paired_ttest,
    repeated_holdout,
    repeated_kfold,
    train_val_test,
    win_tie_loss,
)


@pytest.fixture(scope="module")
def labels():
    """Imbalanced labels: 700 negatives, 300 positives (german.numer's ratio)."""
    return np.r_[np.full(700, -1), np.full(300, 1)][np.random.default_rng(3).permutation(1000)]


def _pos_rate(y, idx):
    return np.mean(y[idx] == 1)


def test_repeated_kfold_5x5_partitions_each_repeat_with_stratification(labels):
    splits = repeated_kfold(labels, folds=5, repeats=5, random_state=7)
    assert len(splits) == 25
    assert [(s.repeat, s.fold) for s in splits] == [(r, f) for r in range(5) for f in range(5)]
    for r in range(5):
        tests = [s.test for s in splits if s.repeat == r]
        assert sorted(np.concatenate(tests).tolist()) == list(range(1000))  # a partition
        for s in splits[r * 5:(r + 1) * 5]:
            assert len(s.test) == 200 and len(s.train) == 800
            assert not set(s.train) & set(s.test)
            assert _pos_rate(labels, s.test) == pytest.approx(0.3, abs=0.005)
            assert s.validation is None and s.seed == 7 + r
    # repeats differ, the same seed gives the same splits
    assert not np.array_equal(splits[0].test, splits[5].test)
    again = repeated_kfold(labels, folds=5, repeats=5, random_state=7)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(splits, again))
    # the old name gives the same splits
    old = fold_splits(labels, folds=5, repeats=5, random_state=7)
    assert all(np.array_equal(s.test, o[3]) for s, o in zip(splits, old))


def test_repeated_holdout_80_20(labels):
    splits = repeated_holdout(labels, test_size=0.2, repeats=20, random_state=0)
    assert len(splits) == 20 and {s.fold for s in splits} == {0}
    for s in splits:
        assert len(s.test) == 200 and len(s.train) == 800
        assert sorted(np.r_[s.train, s.test].tolist()) == list(range(1000))
        assert _pos_rate(labels, s.test) == pytest.approx(0.3, abs=0.005)
    assert len({tuple(s.test[:10]) for s in splits}) == 20  # every repeat is a new split
    again = repeated_holdout(labels, test_size=0.2, repeats=20, random_state=0)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(splits, again))


def test_train_val_test_4_1_1_keeps_the_split_across_repeats(labels):
    splits = train_val_test(labels, ratios=(4, 1, 1), repeats=5, random_state=2)
    s = splits[0]
    assert (len(s.train), len(s.validation), len(s.test)) in {(667, 166, 167), (666, 167, 167),
                                                               (667, 167, 166)}
    assert sorted(np.r_[s.train, s.validation, s.test].tolist()) == list(range(1000))
    for part in (s.train, s.validation, s.test):
        assert _pos_rate(labels, part) == pytest.approx(0.3, abs=0.01)
    assert all(np.array_equal(t.test, s.test) and np.array_equal(t.validation, s.validation)
               for t in splits)
    assert [t.seed for t in splits] == [2, 3, 4, 5, 6]


def test_given_test_set_is_halved_into_validation_and_test():
    rng = np.random.default_rng(0)
    y_train = np.where(rng.random(500) < 0.25, 1, -1)
    y_test = np.r_[np.full(150, -1), np.full(50, 1)]
    splits = given_test_halved(y_train, y_test, repeats=3, random_state=0)
    s = splits[0]
    assert np.array_equal(s.train, np.arange(500))
    assert len(s.validation) == len(s.test) == 100
    assert sorted(np.r_[s.validation, s.test].tolist()) == list(range(500, 700))
    y = np.r_[y_train, y_test]
    assert _pos_rate(y, s.validation) == _pos_rate(y, s.test) == 0.25  # stratified halves
    assert len(splits) == 3 and all(np.array_equal(t.test, s.test) for t in splits)
    same = make_splits("given-test", y, n_train=500, repeats=3, random_state=0)
    assert np.array_equal(same[0].validation, s.validation)


@pytest.mark.parametrize("kind, kwargs, match", [
    ("nested", {}, "Unknown protocol 'nested'"),
    ("given-test", {}, "needs n_train"),
    ("kfold", {"folds": 1}, "folds >= 2"),
    ("holdout", {"test_size": 1.5}, "0 < test_size < 1"),
    ("train-val-test", {"ratios": (4, 1)}, "three positive ratios"),
])
def test_make_splits_errors(labels, kind, kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_splits(kind, labels, **kwargs)


# --------------------------------------------------------------------------- statistics

def test_paired_ttest_matches_scipy_and_the_textbook_formula():
    ref = np.array([0.81, 0.82, 0.83, 0.84, 0.85])
    other = ref - np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    res = paired_ttest(ref, other)
    # d = .01..05: mean .03, sd .0158114, t = .03 / (sd / sqrt 5) = 4.2426, df 4
    assert res.statistic == pytest.approx(4.242640687, rel=1e-8)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(4.242640687, 4), rel=1e-8)
    assert res.pvalue == pytest.approx(0.013236, abs=1e-5)
    sp = stats.ttest_rel(ref, other)
    assert (res.statistic, res.pvalue) == pytest.approx((sp.statistic, sp.pvalue))
    assert (res.outcome, res.mark, res.n) == ("win", BETTER, 5)
    assert paired_ttest(other, ref).outcome == "loss" and paired_ttest(other, ref).mark == WORSE


def test_paired_ttest_ties_and_degenerate_cases():
    a = np.array([0.80, 0.82, 0.79, 0.81, 0.80])
    b = np.array([0.81, 0.80, 0.80, 0.80, 0.81])  # p ~ 0.8
    res = paired_ttest(a, b)
    assert res.outcome == "tie" and res.mark == "" and res.pvalue > 0.5
    assert paired_ttest(a, a).outcome == "tie"
    assert paired_ttest(a + 0.01, a).outcome == "win"  # constant positive differences
    assert paired_ttest([0.8], [0.7]).outcome == "tie"  # one pair: no test
    nan = paired_ttest([0.8, np.nan, 0.9, 0.85], [0.7, 0.6, 0.8, 0.75])
    assert nan.n == 3 and nan.outcome == "win"
    with pytest.raises(ValueError, match="same length"):
        paired_ttest([1, 2], [1, 2, 3])
    assert math.isnan(paired_ttest([0.8], [0.7]).pvalue)
    for alpha in (2, 0, -0.1, True, "0.05"):
        with pytest.raises(ValueError, match="alpha must be a level in"):
            paired_ttest(a, b, alpha=alpha)


def test_a_convergence_curve_has_its_points_or_says_why_not():
    import aucopt
    from aucopt.datasets import make_auc_problem
    from aucopt.model_selection import convergence_curve

    X, y = make_auc_problem(60, 3, random_state=0)
    est = aucopt.make("spam-l2", max_iter=2, random_state=0)
    seen, auc = convergence_curve(est, X[:30], y[:30], X[30:], y[30:], n_points=100)
    assert seen.size == auc.size == 60 and seen[-1] == 60  # at most a point per row and pass
    seen, _ = convergence_curve(aucopt.make("spam-l2", max_iter=2), X[:30], y[:30], X[30:],
                                y[30:], n_points=6)
    assert seen.size == 6
    with pytest.raises(ValueError, match="n_points must be an int >= 1"):
        convergence_curve(aucopt.make("spam-l2"), X, y, X, y, n_points=0)


def test_win_tie_loss_counts_datasets():
    up = (np.array([0.9, 0.91, 0.92, 0.93]), np.array([0.8, 0.8, 0.81, 0.8]))
    down = (up[1], up[0])
    flat = (np.array([0.80, 0.82, 0.79, 0.81]), np.array([0.81, 0.80, 0.80, 0.80]))
    assert win_tie_loss([up, up, flat, down]) == (2, 1, 1)
    with pytest.raises(ValueError, match="alpha must be a level"):
        win_tie_loss([], alpha=2)  # (checked only through paired_ttest, once per pair)


# --------------------------------------------------------------------------- evaluate_fold


@pytest.fixture(scope="module")
def german_small():
    X, y = load("german.numer")
    return X[:400], y[:400]


def test_evaluate_fold_selects_on_the_validation_set(german_small):
    X, y = german_small
    s = train_val_test(y, repeats=1, random_state=0)[0]
    grid = {"beta": [1e-4, 10.0]}
    res = evaluate_fold("spam-l2", X, y, s.train, s.test, grid=grid, validation=s.validation,
                        random_state=0, params={"max_iter": 2})
    scaler = make_preprocessor("minmax").fit(X[s.train])
    from aucopt import make

    val_auc = {}
    for beta in grid["beta"]:
        est = make("spam-l2", beta=beta, max_iter=2, random_state=0)
        est.fit(scaler.transform(X[s.train]), y[s.train])
        val_auc[beta] = roc_auc_score(y[s.validation],
                                      est.decision_function(scaler.transform(X[s.validation])))
    assert res.params == {"max_iter": 2, "beta": max(val_auc, key=val_auc.get)}
    assert val_auc[1e-4] != val_auc[10.0]


def test_evaluate_fold_caps_training_rows(german_small, monkeypatch):
    X, y = german_small
    s = repeated_holdout(y, repeats=1)[0]
    seen = []
    from aucopt.linear_model import SPAML2Classifier

    original = SPAML2Classifier.fit

    def spy(self, X, y, *args, **kwargs):
        seen.append(len(y))
        return original(self, X, y, *args, **kwargs)

    monkeypatch.setattr(SPAML2Classifier, "fit", spy)
    res = evaluate_fold("spam-l2", X, y, s.train, s.test, grid="none", max_train=100)
    assert seen == [40, 100] and 0 <= res.auc <= 1  # warm-up (20 rows per class), then the fit


def test_evaluate_fold_warms_up_before_timing(monkeypatch):
    """The timed refit follows a warm-up fit on a clone (compilation is not timed)."""
    import aucopt.model_selection._evaluate as evaluate
    from aucopt.datasets import make_auc_problem

    calls = []
    real = evaluate.warm_up

    def recording(estimator, X, y, **kw):
        calls.append((type(estimator).__name__, X.shape[0]))
        real(estimator, X, y, **kw)
        assert not hasattr(estimator, "coef_")  # the estimator itself is not fitted

    monkeypatch.setattr(evaluate, "warm_up", recording)
    X, y = make_auc_problem(120, 4, random_state=0)
    result = evaluate.evaluate_fold("spam-l2", X, y, np.arange(80), np.arange(80, 120),
                                    grid="none")
    assert calls == [("SPAML2Classifier", 80)] and result.fit_seconds > 0


def test_warm_up_swallows_a_failure_on_too_few_rows():
    from aucopt import make
    from aucopt.model_selection._evaluate import warm_up

    X = np.zeros((3, 2))
    warm_up(make("spam-l2"), X, np.array([1, 1, 1]))  # one class: fit fails, no error here


def test_protocol_and_fold_arguments_are_checked():
    y = np.array([0, 1] * 8)
    with pytest.raises(ValueError, match="given-test needs repeats >= 1"):
        make_splits("given-test", y, n_train=10, repeats=0)
    for n_train in (-2, 0, 16):
        with pytest.raises(ValueError, match="n_train must count the rows"):
            make_splits("given-test", y, n_train=n_train)
    splits = fold_splits(y, folds=2)
    _, _, train, test = splits[0]
    X = np.random.default_rng(0).normal(size=(16, 2))
    for bad in ("zero", True, None):
        with pytest.raises(ValueError, match="error_score must be 'raise' or a number"):
            evaluate_fold("spam-l2", X, y, train, test, grid="none", error_score=bad)


@pytest.mark.parametrize("grid", [{"beta": []}, {"beta": [1e-3, 1e-2], "eta0": []},
                                  {"beta": 0.1}, {"beta": "0.001"},
                                  {"beta": np.ones((2, 2))}])
def test_a_malformed_grid_gets_sklearns_error_before_any_work(grid, monkeypatch):
    import re

    from sklearn.model_selection import ParameterGrid

    from aucopt.model_selection import _evaluate as evaluate
    from aucopt.model_selection._evaluate import check_grid

    with pytest.raises((TypeError, ValueError)) as sklearns:
        ParameterGrid(grid)
    error, message = type(sklearns.value), re.escape(str(sklearns.value))
    monkeypatch.setattr(evaluate, "make_preprocessor", lambda *a: pytest.fail("work began"))
    y = np.array([0, 1] * 20)
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(error, match=message):
        evaluate.evaluate_fold("spam-l2", X, y, np.arange(30), np.arange(30, 40), grid=grid)
    with pytest.raises(error, match=message):
        check_grid(grid)  # aucopt compare's check, before its folds


def test_a_grid_of_refused_values_raises_whatever_its_size_and_error_score():
    from sklearn.exceptions import FitFailedWarning

    from aucopt.exceptions import InvalidParameterError

    X, y = load("german.numer")
    _, _, train, test = fold_splits(y, folds=3)[0]
    for grid, params in (({"beta": [-1.0]}, None), ({"beta": [-1.0, -2.0]}, None),
                         ("quick", {"eta0": -1.0})):
        for error_score in (np.nan, 0.5):
            with pytest.raises(InvalidParameterError, match="parameter of SPAML2Classifier"):
                evaluate_fold("spam-l2", X, y, train, test, grid=grid, params=params,
                              error_score=error_score)
    with pytest.raises(ValueError, match="forgets the running class statistics"):
        evaluate_fold("spam-l2", X, y, train, test, grid={"beta": [1e-3, 1e-2]},
                      params={"decay": 0.5})  # a rule between hyperparameters: refused too
    with (pytest.warns(UserWarning, match="non-finite"),  # a refused point among good ones
          pytest.warns(FitFailedWarning, match="fits failed")):
        result = evaluate_fold("spam-l2", X, y, train, test, grid={"beta": [-1.0, 1e-3]})
    assert result.params["beta"] == 1e-3 and result.auc > 0.7


def test_fold_splits_take_random_state_none_and_random_states_as_sklearn():
    y = np.array([0, 1] * 20)
    first, second = fold_splits(y, random_state=None), fold_splits(y, random_state=None)
    assert len(first) == 5 and np.array_equal(np.sort(np.concatenate([s[3] for s in first])),
                                              np.arange(40))
    assert any(not np.array_equal(a[3], b[3]) for a, b in zip(first, second))  # fresh seeds
    again = [fold_splits(y, random_state=np.random.RandomState(7)) for _ in range(2)]
    assert all(np.array_equal(a[3], b[3]) for a, b in zip(*again))
    for kind in ("kfold", "holdout", "train-val-test", "given-test"):
        assert all(isinstance(s.seed, int) for s in
                   make_splits(kind, y, n_train=20, repeats=2, random_state=None))
    for bad in ("0", 1.5, True):
        with pytest.raises(ValueError, match="random_state must be an int, a numpy "
                                             "RandomState or None"):
            fold_splits(y, random_state=bad)


def test_paired_ttest_takes_numpy_reals_as_alpha():
    a, b = [0.8, 0.9, 0.85, 0.88], [0.7, 0.8, 0.86, 0.8]
    expected = paired_ttest(a, b, alpha=0.05)
    for alpha in (np.float32(0.05), np.float64(0.05)):
        assert paired_ttest(a, b, alpha=alpha).outcome == expected.outcome
    assert win_tie_loss([(a, b)], alpha=np.float32(0.05)) == win_tie_loss([(a, b)])
    for bad in (True, np.float32(1.5), "0.05"):
        with pytest.raises(ValueError, match="alpha must be a level in"):
            paired_ttest(a, b, alpha=bad)


def test_the_refits_of_a_batch_curve_do_not_warn():
    """A batch method refitted with max_iter = 1, 2, ... stops early; svm-pauc's first
    cutting planes leave w = 0, and each such refit warned that the model was zero (17
    warnings in one `aucopt compare`), about models nobody asked for."""
    import warnings

    import aucopt
    from aucopt.datasets import make_auc_problem
    from aucopt.model_selection import convergence_curve

    X, y = make_auc_problem(600, 8, separation=1.0, random_state=4)
    est = aucopt.make("svm-pauc", max_fpr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, auc = convergence_curve(est, X[:400], y[:400], X[400:], y[400:], n_points=3)
    assert auc[0] == 0.5 and not [w for w in caught if "weights zero" in str(w.message)]
