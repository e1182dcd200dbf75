"""Defaults that work on data nobody tuned them for: calibrated "auto" steps, divergence
recovery, model selection that survives a bad configuration, robust preprocessing.

The full suite (every id x every case, with quick grids) is benchmarks/robustness.py,
reported in docs/robustness.md; here a representative subset on small data.
"""

import json
import logging
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.model_selection import GridSearchCV
from typer.testing import CliRunner

import aucopt
from aucopt.algorithms import get_algorithm, list_algorithms
from aucopt.algorithms._calibrate import (
    LADDER_RATIO,
    calibrate_step,
    pairwise_loss,
    regularised,
    univariate_loss,
)
from aucopt.algorithms._data import as_rows
from aucopt.cli import app
from aucopt.datasets import make_auc_problem, make_preprocessor
from aucopt.exceptions import DivergenceError
from aucopt.io import load
from aucopt.linear_model._base import AUTO_RETRIES
from aucopt.model_selection import evaluate_fold

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import robustness  # noqa: E402

CALIBRATED = [a for a in list_algorithms() if get_algorithm(a).calibration is not None]


def _problem(n=600, d=8, seed=0, outliers=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + rng.normal(size=n) > 0, 1, -1)
    X[:outliers] *= 30.0  # a few rows far larger than the rest (e.g. a unit error)
    return make_preprocessor("standard").fit_transform(X), y


def test_objectives_match_brute_force():
    rng = np.random.default_rng(0)
    s, y = rng.normal(size=40), np.where(rng.random(40) < 0.3, 1.0, -1.0)
    diff = s[y > 0][:, None] - s[y < 0][None, :]
    assert_allclose(pairwise_loss(s, y, "square"), np.mean((1 - diff) ** 2))
    assert_allclose(pairwise_loss(s, y, "hinge"), np.mean(np.maximum(0, 1 - diff)))
    biases = np.linspace(-3, 3, 20001)
    exp = [np.mean(np.exp(-(s[y > 0] + b))) + np.mean(np.exp(s[y < 0] + b)) for b in biases]
    squ = [np.mean((1 - s[y > 0] - b) ** 2) + np.mean((1 + s[y < 0] + b) ** 2) for b in biases]
    assert_allclose(univariate_loss(s, y, "exp"), min(exp), rtol=1e-6)
    assert_allclose(univariate_loss(s, y, "square"), min(squ), rtol=1e-6)
    log = [np.mean(np.log1p(np.exp(-(s[y > 0] + b)))) + np.mean(np.log1p(np.exp(s[y < 0] + b)))
           for b in biases]
    assert_allclose(univariate_loss(s, y, "logistic"), min(log), rtol=1e-8)


def test_logistic_objective_at_the_best_bias_on_separated_and_weighted_scores():
    """Scores far from 0 (the root is bracketed 40 beyond them) and weights as duplicates."""
    s = np.array([300.0, 302.0, 305.0, 290.0, 296.0, 301.0])
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    biases = np.linspace(-320, -280, 400001)
    log = [np.mean(np.logaddexp(0, -(s[y > 0] + b))) + np.mean(np.logaddexp(0, s[y < 0] + b))
           for b in biases]
    assert_allclose(univariate_loss(s, y, "logistic"), min(log), rtol=1e-8)
    weighted = univariate_loss(s, np.where(y > 0, 2.0, -1.0) * [1, 3, 1, 1, 2, 1], "logistic")
    duplicated = univariate_loss(np.repeat(s, [1, 3, 1, 1, 2, 1]),
                                 np.repeat(y, [1, 3, 1, 1, 2, 1]), "logistic")
    assert_allclose(weighted, duplicated, rtol=1e-9)


@pytest.mark.parametrize("algorithm_id", CALIBRATED)
def test_auto_step_is_recorded_and_reproduces_the_fit(algorithm_id):
    X, y = _problem(300)
    spec = get_algorithm(algorithm_id)
    est = aucopt.make(algorithm_id, random_state=0).fit(X, y)
    step = getattr(est, f"{spec.step_param}_")
    assert isinstance(step, float) and step > 0
    assert est.get_params()[spec.step_param] == "auto"  # the parameter itself is not changed
    again = aucopt.make(algorithm_id, random_state=0, **{spec.step_param: step}).fit(X, y)
    assert getattr(again, f"{spec.step_param}_") == step  # a number given is used as it is
    assert_allclose(again.decision_function(X), est.decision_function(X), rtol=1e-12)


@pytest.mark.parametrize("algorithm_id", ["solam", "solam-l1", "reg-solam", "spam-l2"])
def test_stream_opening_with_a_zero_row_does_not_freeze(algorithm_id):
    """River's StandardScaler emits an all-zero first row; the step must not freeze on it."""
    X, y = _problem(400, d=5)
    X[0] = 0.0
    est = aucopt.make(algorithm_id)
    for i in range(len(y)):
        est.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
    assert np.abs(est.coef_).max() > 1e-3
    assert est.score(X, y) > 0.85


def test_unregularised_calibration_objective_ignores_the_norm_of_the_model():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(300) < 0.3, 1, -1)
    scores, w = y + 2.0 * rng.normal(size=300), rng.normal(size=4)
    for loss in ("square", "hinge"):
        objective = regularised(loss)
        assert objective.scale_free
        assert_allclose(objective(scores, w, {}, y), objective(7.0 * scores, 7.0 * w, {}, y),
                        rtol=1e-9)
        # the loss at the best scale: no multiple of the scores does better
        grid = min(pairwise_loss(c * scores, y, loss) for c in np.linspace(0.0, 3.0, 301))
        assert objective(scores, w, {}, y) <= grid + 1e-6
    penalised = regularised("square", l2="lam")
    assert not penalised.scale_free
    assert penalised(scores, w, {"lam": 0.1}, y) != penalised(7.0 * scores, 7.0 * w,
                                                               {"lam": 0.1}, y)


def test_equal_trials_choose_the_middle_step_for_a_scale_free_objective(monkeypatch):
    """Steps too small to leave the class-mean direction score alike without the norm."""
    monkeypatch.setattr("aucopt.algorithms._calibrate._brief_run", lambda *args: 0.5)
    X, y = _problem(300)
    for algorithm_id, middle in (("solam", True), ("opauc", False)):
        spec = get_algorithm(algorithm_id)
        step, trials = calibrate_step(spec, aucopt.make(algorithm_id).get_params(), as_rows(X),
                                      y)
        steps = sorted(trials)
        assert step == steps[(len(steps) - 1) // 2 if middle else 0]


@pytest.mark.parametrize("algorithm_id, case", [("solam", "pareto"), ("fsauc", "positives-1%"),
                                                ("uni-exp", "positives-1%")])
def test_defaults_within_the_bar_where_they_fell_short(algorithm_id, case):
    X, y = robustness.suite(small=False)[case]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, robustness.SCHEME.get(case, "standard"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uni-exp: a restart with a smaller step is logged
        auc, _, status = robustness.default_cell(algorithm_id, Xtr, Xte, ytr, yte)
    assert status == "ok"
    assert auc - robustness.ls_auc(Xtr, Xte, ytr, yte) > -robustness.bar(algorithm_id)


@pytest.mark.parametrize("algorithm_id", ["solam", "ftrl-auc", "uni-exp", "opauc"])
@pytest.mark.parametrize("case, scheme", [("wide-range", "none"), ("skewed", "none")])
def test_defaults_within_the_bar_whatever_the_columns_spread(algorithm_id, case, scheme):
    """Columns of very different spreads (three with maxima 1,000x the rest; unscaled skewed
    columns with offsets): the preconditioned defaults reach the optimum (with
    precondition=None these fall 0.02-0.27 short)."""
    X, y = robustness.spread_cases(small=True)[case]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, scheme)
    auc, _, status = robustness.default_cell(algorithm_id, Xtr, Xte, ytr, yte)
    assert status == "ok"
    assert auc - robustness.ls_auc(Xtr, Xte, ytr, yte) > -robustness.bar(algorithm_id)


def test_partial_fit_defers_calibration_until_a_chunk_has_a_scale():
    X, y = _problem(400)
    est = aucopt.make("spam-l2").partial_fit(np.zeros((50, X.shape[1])), y[:50], classes=[-1, 1])
    assert est.eta0_ is None  # zero rows give no scale: wait
    est.partial_fit(X[:200], y[:200])
    step = est.eta0_
    assert isinstance(step, float) and step > 0
    est.partial_fit(X[200:], y[200:])
    assert est.eta0_ == step  # calibrated once, then kept


def test_diverging_auto_step_restarts_with_a_smaller_step(monkeypatch, caplog):
    X, y = _problem(300)
    monkeypatch.setattr("aucopt.linear_model._base.calibrate_step",
                        lambda *args: (400.0, {}))  # far too large: SPAM diverges
    with caplog.at_level(logging.WARNING, logger="aucopt.linear_model._base"):
        est = aucopt.make("spam-l2", random_state=0).fit(X, y)
    assert est.eta0_ < 400.0 and np.isfinite(est.coef_).all()
    # each restart goes one rung down the calibration ladder
    assert any(np.isclose(est.eta0_, 400.0 / LADDER_RATIO**k) for k in range(1, AUTO_RETRIES + 1))
    assert "restarting with eta0=" in caplog.text
    caplog.clear()
    monkeypatch.setattr("aucopt.linear_model._base.calibrate_step", lambda *args: (1e12, {}))
    with pytest.raises(DivergenceError, match="'auto', last tried "), \
            caplog.at_level(logging.WARNING):
        aucopt.make("spam-l2", random_state=0).fit(X, y)
    assert caplog.text.count(f"({AUTO_RETRIES}/{AUTO_RETRIES})") == 1


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "solam", "ogd-fifo"])
def test_a_restarted_partial_fit_call_starts_from_the_state_before_it(algorithm_id):
    """A diverging calibrated step restarts the call after the undo log put the state back."""
    import scipy.sparse as sp

    X, y = _problem(400)
    X = sp.csr_matrix(X)  # the lazy CSR form, learned in place under the undo log
    step = get_algorithm(algorithm_id).step_param
    first, other = (aucopt.make(algorithm_id, random_state=0) for _ in range(2))
    for est in (first, other):
        est.partial_fit(X[:200], y[:200], classes=[-1, 1])
    setattr(first, f"{step}_", 500.0)  # the calibrated step of later calls: far too large
    first.partial_fit(X[200:], y[200:])
    final = getattr(first, f"{step}_")
    assert 0 < final < 500.0  # restarted with smaller steps
    setattr(other, f"{step}_", final)  # the same call with the step that worked, once
    other.partial_fit(X[200:], y[200:])
    np.testing.assert_array_equal(first.coef_, other.coef_)
    assert first.t_ == other.t_


def test_a_user_step_is_never_changed():
    X, y = _problem(300)
    with pytest.raises(DivergenceError, match="'eta0' \\(currently 4000.0\\)"):
        aucopt.make("spam-l2", eta0=4e3, random_state=0).fit(X, y)


@pytest.mark.parametrize("algorithm_id", list_algorithms())
def test_quick_grid_search_with_defaults_does_not_abort(algorithm_id):
    rng = np.random.default_rng(1)
    X = rng.lognormal(sigma=1.5, size=(120, 6))
    y = np.where(np.log(X) @ rng.normal(size=6) + rng.normal(size=120) > 0, 1, -1)
    X = make_preprocessor("standard").fit_transform(X)
    grid = {k: list(v) for k, v in aucopt.algorithm_info(algorithm_id)["quick_grid"].items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(aucopt.make(algorithm_id, random_state=0), grid, cv=2,
                              scoring="roc_auc").fit(X, y)
    assert np.isfinite(search.best_score_)


def test_evaluate_fold_scores_a_diverging_model_nan_and_names_it():
    X, y = make_auc_problem(200, 5, random_state=0)
    with pytest.warns(RuntimeWarning, match="uni-squ with .*'eta': 1000.0.*scored nan"):
        result = evaluate_fold("uni-squ", X, y, np.arange(150), np.arange(150, 200),
                               grid="none", params={"eta": 1000.0})
    assert np.isnan(result.auc)
    with pytest.raises(DivergenceError):
        evaluate_fold("uni-squ", X, y, np.arange(150), np.arange(150, 200), grid="none",
                      params={"eta": 1000.0}, error_score="raise")
    with pytest.warns(RuntimeWarning, match=r"scored 0\.0 \(error_score\)"):  # (said NaN)
        result = evaluate_fold("uni-squ", X, y, np.arange(150), np.arange(150, 200),
                               grid="none", params={"eta": 1000.0}, error_score=0.0)
    assert result.auc == 0.0


def test_robust_scaler_ignores_outlying_values():
    X = np.random.default_rng(0).normal(size=(200, 3))
    X[0, 0] = 1e6
    Z = make_preprocessor("robust").fit_transform(X)
    assert abs(np.median(Z[:, 0])) < 1e-12 and np.percentile(np.abs(Z[1:, 0]), 99) < 5


@pytest.mark.parametrize("scheme", ["standard", "robust", "minmax"])
def test_cli_fit_preprocess_saves_a_model_of_the_raw_features(tmp_path, scheme):
    from sklearn.datasets import dump_svmlight_file

    X, y = _problem(200)
    X = X * 50.0 + 7.0
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"))
    result = CliRunner().invoke(app, ["fit", "spam-l2", str(tmp_path / "d.svm"), "--preprocess",
                                      scheme, "-p", "random_state=0", "--out",
                                      str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    model = load(tmp_path / "m")
    scaled = make_preprocessor(scheme).fit_transform(X)
    ref = aucopt.make("spam-l2", random_state=0).fit(scaled, y)
    assert_allclose(model.decision_function(X), ref.decision_function(scaled), rtol=1e-9,
                    atol=1e-9)
    assert json.loads((tmp_path / "m.json").read_text())["algorithm"] == "spam-l2"


SUBSET = ["spam-l2", "solam", "uni-squ", "opauc", "b-ls-svm", "oam-gra", "ogd-fifo"]


@pytest.mark.parametrize("case", ["pareto", "positives-1%", "const-dup", pytest.param(
    "unscaled-1e4", marks=pytest.mark.xfail(strict=True, reason=(
        "precondition='auto' turns the columns x 1e4 into standardised ones; on these 420 "
        "training rows SOLAM's default then ends 0.018 short (0.012 without preconditioning, "
        "on the raw columns): known, see the robustness report")))])
def test_suite_subset_defaults_within_the_bar(case):
    X, y = robustness.suite(small=True)[case]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, robustness.SCHEME.get(case, "standard"))
    best = robustness.ls_auc(Xtr, Xte, ytr, yte)
    gaps = {}
    for a in SUBSET:
        auc, _, status = robustness.default_cell(a, Xtr, Xte, ytr, yte)
        assert status == "ok", a
        gaps[a] = auc - best
    assert all(gaps[a] > -robustness.bar(a) for a in SUBSET), gaps


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_usable_finds_a_scale_anywhere_in_the_rows(fmt):
    """usable() looks for a non-zero value block by block (not an O(n d) norm of every row)."""
    import scipy.sparse as sp

    from aucopt.algorithms._calibrate import usable
    from aucopt.algorithms._data import as_rows

    X = np.zeros((30_000, 5))
    y = np.where(np.arange(30_000) % 2 == 0, 1.0, -1.0)
    wrap = sp.csr_matrix if fmt == "csr" else np.asarray
    assert not usable(as_rows(wrap(X)), y)
    X[29_999, 4] = 1e-300  # the last value of the last row
    assert usable(as_rows(wrap(X)), y)
    assert not usable(as_rows(wrap(X)), np.ones(30_000))  # one class
