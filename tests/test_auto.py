"""``aucopt.make("auto")``: the algorithm chosen from the data, as a scikit-learn estimator."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.linear_model import AUCClassifier, choose
from aucopt.linear_model._auto import (
    BATCH_MAX_FEATURES,
    BATCH_MAX_NONZEROS,
    BATCH_PARAMS,
    ONE_PASS_PARAMS,
    ONE_PASS_ROWS,
    STREAM_ALGORITHM,
    WIDE_ALGORITHM,
    WIDE_PARAMS,
    has_one_scale,
)


@parametrize_with_checks([AUCClassifier(random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_make_auto_is_the_scikit_learn_chooser_not_the_river_learner():
    est = aucopt.make("auto", random_state=3)
    assert type(est) is AUCClassifier is aucopt.AUCClassifier
    assert est.get_params() == {"algorithm": "auto", "random_state": 3, "max_time": None,
                                "verbose": 0}
    assert "AUCClassifier" in aucopt.__all__ and "AUCClassifier" in dir(aucopt)
    with pytest.raises(TypeError, match="no parameter"):
        aucopt.make("auto", beta=1.0)


@pytest.mark.parametrize("shape, streaming, expected", [
    ((1000, 20, 20_000), False, ("uni-log-batch", {"class_weight": None})),
    ((10**5, 100, 10**7), False, ("uni-log-batch", {"class_weight": None})),
    ((10**6, 2**20, 5 * 10**7), False, ("uni-log", {"max_iter": 1, "precondition": None})),
    ((10**6, 1000, 10**9), False, ("spam-l2", {"max_iter": 1, "output": "last"})),
    ((100_000, 1000, 10**8), False, ("spam-l2", {})),
    ((10_000, 2**20, 10**6), False, ("spam-l2", {})),
    ((6_000, 2**16, 300_000), False, ("spam-l2", {})),
    ((500, 20, 10_000), True, ("spam-l2", {"output": "last"})),
    ((10_000, 2**20, 500_000), True, ("uni-log", {})),
])
def test_choose_follows_the_table(shape, streaming, expected):
    assert choose(*shape, streaming=streaming) == expected


def test_choose_boundaries():
    assert choose(10, 10, BATCH_MAX_NONZEROS)[0] == "uni-log-batch"
    assert choose(ONE_PASS_ROWS - 1, 10**6, BATCH_MAX_NONZEROS + 1) == ("spam-l2", {})
    assert choose(ONE_PASS_ROWS, BATCH_MAX_FEATURES, BATCH_MAX_NONZEROS + 1) == (
        "spam-l2", {"max_iter": 1, "output": "last"})
    assert choose(ONE_PASS_ROWS, BATCH_MAX_FEATURES + 1, BATCH_MAX_NONZEROS) == (
        WIDE_ALGORITHM, WIDE_PARAMS)
    assert choose(ONE_PASS_ROWS - 1, BATCH_MAX_FEATURES + 1, BATCH_MAX_NONZEROS) == ("spam-l2", {})


@pytest.mark.parametrize("sparse", [False, True])
def test_fit_reports_its_choice_and_equals_that_estimator(sparse):
    X, y = make_auc_problem(300, 6, random_state=0)
    X = sp.csr_matrix(X) if sparse else X
    est = aucopt.make("auto", random_state=0).fit(X, y)
    assert est.algorithm_ == "uni-log-batch"
    direct = aucopt.make("uni-log-batch", class_weight=None, random_state=0).fit(X, y)
    np.testing.assert_array_equal(est.decision_function(X), direct.decision_function(X))
    np.testing.assert_array_equal(est.coef_, direct.coef_)
    assert est.score(X, y) == direct.score(X, y)
    assert est.n_features_in_ == 6 and list(est.classes_) == [-1, 1]


def test_large_data_gets_one_pass_of_spam(monkeypatch):
    # the thresholds lowered so that a small problem takes the large-data branch
    import aucopt.linear_model._auto as auto

    monkeypatch.setattr(auto, "BATCH_MAX_NONZEROS", 100)
    monkeypatch.setattr(auto, "ONE_PASS_ROWS", 200)
    X, y = make_auc_problem(300, 5, random_state=1)
    est = AUCClassifier(random_state=0).fit(X, y)
    assert est.algorithm_ == "spam-l2" and est.estimator_.max_iter == 1
    assert est.estimator_.output == "last"
    assert est.estimator_.n_iter_ == 1


def test_wide_data_get_one_pass_of_uni_log_on_the_rows_as_given(monkeypatch):
    # the thresholds lowered so that a small sparse problem takes the wide-data branch
    X, y = _wide_problem(monkeypatch)
    est = AUCClassifier(random_state=0).fit(X, y)
    assert est.algorithm_ == "uni-log" and est.estimator_.n_iter_ == 1
    assert est.estimator_.precondition is None
    direct = aucopt.make("uni-log", random_state=0, **WIDE_PARAMS).fit(X, y)
    np.testing.assert_array_equal(est.decision_function(X), direct.decision_function(X))
    assert est.estimator_.eta_ == direct.eta_


def _wide_problem(monkeypatch):
    """A small sparse problem that takes the wide-data branch (thresholds lowered)."""
    import aucopt.linear_model._auto as auto

    monkeypatch.setattr(auto, "BATCH_MAX_FEATURES", 10)
    monkeypatch.setattr(auto, "ONE_PASS_ROWS", 200)
    X, y = make_auc_problem(300, 12, random_state=1)
    return sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0)), y


def test_wide_data_keep_the_preconditioner_where_it_is_more_than_one_factor(monkeypatch):
    X, y = _wide_problem(monkeypatch)
    assert has_one_scale(X) and not has_one_scale(X.toarray())
    # a column non-zero in every row whose spread is that of the others: still one scale
    spread = np.sqrt(np.mean(X.data ** 2))
    column = np.random.default_rng(0).normal(0.0, spread, size=(300, 1))
    assert has_one_scale(sp.hstack([X, sp.csr_matrix(column)]).tocsr())
    # a column non-zero in every row (centred and scaled on its own by the preconditioner)
    dense_column = sp.hstack([X, sp.csr_matrix(1000.0 + np.arange(300.0)[:, None])]).tocsr()
    # a few rows ten times longer than the others (shortened by the preconditioner)
    long_rows = sp.diags(np.where(np.arange(300) % 50 == 0, 10.0, 1.0)) @ X
    for Z in (dense_column, sp.csr_matrix(long_rows)):
        assert not has_one_scale(Z)
        est = AUCClassifier(random_state=0).fit(Z, y)
        assert est.algorithm_ == WIDE_ALGORITHM and est.estimator_.n_iter_ == 1
        assert est.estimator_.precondition == "auto"


def test_partial_fit_streams_with_spam_and_equals_it():
    X, y = make_auc_problem(400, 5, random_state=2)
    est = AUCClassifier(random_state=0)
    direct = aucopt.make("spam-l2", random_state=0, **ONE_PASS_PARAMS)
    for lo in range(0, 400, 100):
        est.partial_fit(X[lo:lo + 100], y[lo:lo + 100], classes=[-1, 1])
        direct.partial_fit(X[lo:lo + 100], y[lo:lo + 100], classes=[-1, 1])
    assert est.algorithm_ == "spam-l2"
    np.testing.assert_array_equal(est.decision_function(X), direct.decision_function(X))


def test_a_wide_stream_is_learnt_with_uni_log_and_equals_it(monkeypatch):
    X, y = _wide_problem(monkeypatch)
    est, direct = AUCClassifier(random_state=0), aucopt.make(WIDE_ALGORITHM, random_state=0)
    for lo in range(0, 300, 100):
        est.partial_fit(X[lo:lo + 100], y[lo:lo + 100], classes=[-1, 1])
        direct.partial_fit(X[lo:lo + 100], y[lo:lo + 100], classes=[-1, 1])
    assert est.algorithm_ == "uni-log"
    np.testing.assert_array_equal(est.decision_function(X), direct.decision_function(X))


def test_a_given_algorithm_is_used_and_a_batch_one_cannot_stream():
    X, y = make_auc_problem(200, 4, random_state=0)
    assert AUCClassifier(algorithm="solam").fit(X, y).algorithm_ == "solam"
    with pytest.raises(AttributeError, match="partial_fit"):  # as make("uni-log-batch")
        AUCClassifier(algorithm="uni-log-batch").partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match="spam-l"):
        AUCClassifier(algorithm="spam-l3").fit(X, y)


def test_refit_on_other_data_chooses_again(monkeypatch):
    import aucopt.linear_model._auto as auto

    X, y = make_auc_problem(300, 5, random_state=1)
    est = AUCClassifier(random_state=0).fit(X, y)
    assert est.algorithm_ == "uni-log-batch"
    monkeypatch.setattr(auto, "BATCH_MAX_NONZEROS", 100)
    assert clone(est).fit(X, y).algorithm_ == "spam-l2"


def test_batch_choice_is_plain_logistic_regression_at_its_auto_lam():
    # rare positives: the chosen solver weighs rows alike, not classes (the balanced loss
    # would give another scoring vector)
    X, y = make_auc_problem(2000, 5, pos_rate=0.02, random_state=4)
    est = AUCClassifier(random_state=0).fit(X, y)
    assert est.estimator_.class_weight is None
    balanced = aucopt.make("uni-log-batch", random_state=0).fit(X, y)
    assert np.abs(est.coef_ - balanced.coef_).max() > 1e-3


def _power_of_ten(value: int) -> str:
    """The choosing page's spelling of a threshold: ``2 x 10^7``, ``10^4``."""
    exponent = len(str(value)) - 1
    mantissa = value // 10**exponent
    assert mantissa * 10**exponent == value
    return f"10^{exponent}" if mantissa == 1 else f"{mantissa} x 10^{exponent}"


def test_choosing_page_table_is_the_code():
    page = (Path(__file__).parents[1] / "docs" / "user_guide" / "choosing.md").read_text()
    rows = page.split("| data | `AUCClassifier` takes | why |")[1].split("\n\n")[0].splitlines()
    batch, large, stream = (r for r in rows if r.startswith("| `"))
    assert _power_of_ten(BATCH_MAX_NONZEROS) in batch and _power_of_ten(BATCH_MAX_FEATURES) in batch
    for name, value in BATCH_PARAMS.items():
        assert f"`uni-log-batch` with `{name}={value}`" in batch
    assert choose(10, 10, 100)[1] == BATCH_PARAMS
    assert f"`{STREAM_ALGORITHM}`, one pass" in large and _power_of_ten(ONE_PASS_ROWS) in large
    assert stream.startswith("| `partial_fit`") and f"`{STREAM_ALGORITHM}`" in stream
    assert (f"`{WIDE_ALGORITHM}`, one pass (`max_iter={WIDE_PARAMS['max_iter']}`)" in large
            and "`precondition=None`" in large)
    for name, value in ONE_PASS_PARAMS.items():
        assert f'`{name}="{value}"`' in large and f'`{name}="{value}"`' in stream


def test_partial_fit_is_there_exactly_when_the_chosen_algorithm_can_stream():
    from aucopt.algorithms import list_algorithms

    for algorithm in list_algorithms():  # as the id's own estimator (sklearn's available_if)
        assert (hasattr(AUCClassifier(algorithm=algorithm), "partial_fit")
                == hasattr(aucopt.make(algorithm), "partial_fit")), algorithm
    assert not hasattr(AUCClassifier(algorithm="b-ls-svm"), "partial_fit")
    est = AUCClassifier().set_params(algorithm="uni-log-batch")
    assert not hasattr(est, "partial_fit") and hasattr(est.set_params(algorithm="auto"),
                                                       "partial_fit")
    X, y = make_auc_problem(200, 4, random_state=0)
    for algorithm in ("auto", "spam-l2"):
        est = AUCClassifier(algorithm=algorithm, random_state=0)
        assert est.partial_fit(X, y, classes=[-1, 1]).algorithm_ == "spam-l2"
    with pytest.raises(ValueError, match="spam-l"):  # an unknown id: the registry's error
        AUCClassifier(algorithm="spam-l3").partial_fit(X, y, classes=[-1, 1])


def test_any_id_whatever_was_imported_before():
    """The estimator classes register on import, and AUCClassifier looked only among those
    imported: algorithm='aogd' failed in a process that had not imported
    aucopt.kernel_model (a GridSearchCV passed with n_jobs=1 and failed with n_jobs=2)."""
    import subprocess
    import sys

    from ._child_env import child_env

    code = ("import sys; from aucopt.linear_model import AUCClassifier\n"
            "from aucopt.datasets import make_auc_problem\n"
            "assert 'aucopt.kernel_model' not in sys.modules\n"
            "X, y = make_auc_problem(200, 5, random_state=0)\n"
            "for name in ('aogd', 'projection-pp', 'sparse-kernel'):\n"
            "    model = AUCClassifier(algorithm=name, random_state=0).fit(X, y)\n"
            "    print(name, type(model.estimator_).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["aogd", "AOGDClassifier", "projection-pp",
                                   "ProjectionPPClassifier", "sparse-kernel",
                                   "SparseKernelClassifier"]


def test_a_stream_refuses_another_algorithm_after_it_started():
    """set_params(algorithm=...) between partial_fit calls was ignored (get_params said
    solam, the model went on with spam-l2); the estimators refuse a state-shaping change
    mid-stream, and so does this one now, leaving the model as it was."""
    X, y = make_auc_problem(200, 5, random_state=0)
    model = AUCClassifier(random_state=0).partial_fit(X[:100], y[:100], classes=[-1, 1])
    chosen, coef = model.algorithm_, model.coef_.copy()
    other = "solam" if chosen != "solam" else "spam-l2"
    model.set_params(algorithm=other)
    with pytest.raises(ValueError, match=f"changed to '{other}' after the stream started"):
        model.partial_fit(X[100:], y[100:])
    assert np.array_equal(model.coef_, coef)
    model.set_params(algorithm=chosen).partial_fit(X[100:], y[100:])
    model.set_params(algorithm="auto").partial_fit(X[100:], y[100:])
    assert model.algorithm_ == chosen


def test_max_time_and_verbose_reach_the_chosen_estimator(caplog):
    """The recommended model can be time-bounded and made verbose like every estimator
    (make("auto", max_time=1.0) was a TypeError, and `aucopt -v fit auto` logged nothing)."""
    import logging

    import pytest

    import aucopt
    from aucopt.datasets import make_auc_problem
    from aucopt.utils._param_validation import InvalidParameterError

    X, y = make_auc_problem(300, 5, random_state=0)
    with caplog.at_level(logging.INFO, logger="aucopt"):
        est = aucopt.make("auto", max_time=30.0, verbose=1, random_state=0).fit(X, y)
    assert est.estimator_.max_time == 30.0 and est.estimator_.verbose == 1
    assert any(r.name.startswith("aucopt") for r in caplog.records)
    with pytest.raises(InvalidParameterError, match="max_time"):
        aucopt.make("auto", max_time=-1.0).fit(X, y)


def test_warnings_through_the_chooser_point_at_the_callers_line():
    import warnings

    import numpy as np

    import aucopt
    from aucopt.exceptions import OrderedStreamWarning

    X = np.random.default_rng(0).normal(size=(1200, 3))
    y = np.r_[np.zeros(1100, int), np.ones(100, int)]  # sorted by label
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aucopt.make("auto", random_state=0).partial_fit(X, y, classes=[0, 1])
    ordered = [w for w in caught if issubclass(w.category, OrderedStreamWarning)]
    assert ordered and {w.filename for w in ordered} == {__file__}
