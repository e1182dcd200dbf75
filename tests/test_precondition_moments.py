"""The scales of ``precondition="auto"`` are the moments of the rows the kernels see (the
long rows shortened; notes.md#preconditioning), against a slow NumPy transcription, and the
defaults that a few long rows or few rows for the dimension left short of the
least-squares optimum (docs/robustness.md's ``outlier-rows`` and ``few-rows`` cases).
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
from aucopt.algorithms import _precondition
from aucopt.algorithms._precondition import (
    BOUND_KEY,
    DENSE_SHARE,
    RELATIVE_FLOOR,
    ROW_CLIP,
    SCALE_KEY,
    SHARED_KEY,
    SHIFT_KEY,
)

from .test_precondition_rows import outlier_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import robustness  # noqa: E402


def _moments(X, weight, dense):
    """Shared sparse scale, scales and shifts of the rows ``X`` (columns ``dense`` centred)."""
    n = weight.sum()
    sparse = X[:, ~dense]
    shared = np.sqrt((weight @ sparse**2).sum() / (weight @ (sparse != 0)).sum())
    mean = weight @ X[:, dense] / n
    mean_square = weight @ X[:, dense] ** 2 / n
    scale = np.full(X.shape[1], shared)
    variance = np.maximum(mean_square - mean**2, 0.0)
    scale[dense] = np.sqrt(np.where(variance < RELATIVE_FLOOR**2 * mean_square, mean_square,
                                    variance))
    shift = np.zeros(X.shape[1])
    shift[dense] = mean
    return shared, scale, shift


def _bound(X, weight, scale, shift):
    """ROW_CLIP times the weighted median length of the transformed rows."""
    norms = np.linalg.norm((X - shift) / scale, axis=1)
    order = np.argsort(norms, kind="stable")
    cumulative = np.cumsum(weight[order])
    return ROW_CLIP * norms[order][np.argmax(cumulative >= cumulative[-1] / 2)], norms


def expected_transform(X, weight):
    """Return ``(shared, scale, shift, bound)`` as ``fit`` should set them: the moments of
    the rows, the bound, then the moments of the rows shortened to that bound (in the
    original units: ``c + f (x - c)``) and the bound of their transform."""
    dense = weight @ (X != 0) >= DENSE_SHARE * weight.sum()
    shared, scale, shift = _moments(X, weight, dense)
    bound, norms = _bound(X, weight, scale, shift)
    f = np.minimum(1.0, bound / norms)
    shared, scale, shift = _moments(shift + f[:, None] * (X - shift), weight, dense)
    return shared, scale, shift, _bound(X, weight, scale, shift)[0]


def _mixed_long(n=400, seed=0):
    """A sparse column (zero in 80% of the rows), two dense ones, and four long rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X @ [1.0, 1.0, 1.0] + rng.normal(size=n) > 0, 1, -1)
    X[:, 0] = np.where(rng.random(n) < 0.2, 5.0 + X[:, 0], 0.0)
    X[:, 2] += 3.0
    X[[1, 7, 50, 300]] *= 40.0
    return X, y


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_scales_are_the_moments_of_the_shortened_rows(fmt, weighted):
    X, y = _mixed_long()
    weight = 1.0 + np.arange(len(y)) % 3 if weighted else np.ones(len(y))
    data = X if fmt == "dense" else sp.csr_matrix(X)
    state = aucopt.make("spam-l2", random_state=0).fit(data, y, sample_weight=weight)._state
    shared, scale, shift, bound = expected_transform(X, weight)
    assert state[SHARED_KEY][0] == pytest.approx(shared, rel=1e-9)
    np.testing.assert_allclose(state[SCALE_KEY], scale, rtol=1e-9)
    np.testing.assert_allclose(state[SHIFT_KEY], shift, rtol=1e-9)
    assert state[BOUND_KEY][0] == pytest.approx(bound, rel=1e-9)


def test_without_long_rows_the_scales_are_the_plain_moments():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 30)) + 2.0  # lengths concentrate: no row is 3 medians long
    y = np.where(X[:, 0] > 2.0, 1, -1)
    state = aucopt.make("spam-l2", random_state=0).fit(X, y)._state
    np.testing.assert_allclose(state[SHIFT_KEY], X.mean(0), rtol=1e-12)
    np.testing.assert_allclose(state[SCALE_KEY], X.std(0), rtol=1e-9)


def test_a_few_long_rows_do_not_set_the_scales():
    """Three rows of 100x the typical norm among 800 used to multiply every scale by ~6."""
    X, y = outlier_rows()
    keep = np.linalg.norm(X, axis=1) < 50
    with_them = aucopt.make("spam-l2", random_state=0).fit(X, y)._state[SCALE_KEY]
    without = aucopt.make("spam-l2", random_state=0).fit(X[keep], y[keep])._state[SCALE_KEY]
    np.testing.assert_allclose(with_them, without, rtol=0.1)


def _gap(algorithm_id, case, scheme):
    data = robustness.spread_cases() if case in ("counts", "wide-range", "skewed") else \
        robustness.suite()
    X, y = data[case]
    Xtr, Xte, ytr, yte, _, _ = robustness.split(X, y, scheme)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aucs = [robustness.default_cell(algorithm_id, Xtr, Xte, ytr, yte, seed)[0]
                for seed in robustness.ORDERS]
    return np.median(aucs) - robustness.ls_auc(Xtr, Xte, ytr, yte)


@pytest.mark.parametrize("algorithm_id, case, scheme", [
    ("spdam", "outlier-rows", "standard"),  # the duals' steps: the rows' largest norm
    ("spam-l2", "few-rows", "minmax"),  # 245 training rows of 34 columns
])
def test_defaults_within_the_bar_where_they_fell_short(algorithm_id, case, scheme):
    """Before: spdam -0.032 on outlier-rows (a few long rows set every column's scale),
    spam-l2 -0.017 on few-rows (its step chosen by the objective on the rows it learned)."""
    assert _gap(algorithm_id, case, scheme) > -robustness.bar(algorithm_id)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_large_fit_reads_evenly_spaced_rows(fmt, weighted, monkeypatch):
    """Above MEDIAN_ROWS rows the estimates read every ceil(n / MEDIAN_ROWS)-th row (here
    every 4th of 400, one of the four long rows among them); a column non-zero only in
    rows not read gets the shared scale. A stream's first chunk reads the same rows."""
    monkeypatch.setattr(_precondition, "MEDIAN_ROWS", 100)
    X, y = _mixed_long()
    X = np.column_stack((X, np.zeros(len(y))))
    X[[1, 2, 3], 3] = [0.5, 9.0, -4.0]  # rows 1, 2, 3: not read
    weight = 1.0 + np.arange(len(y)) % 3 if weighted else np.ones(len(y))
    data = X if fmt == "dense" else sp.csr_matrix(X)
    est = aucopt.make("spam-l2", random_state=0).fit(data, y, sample_weight=weight)
    state = est._state
    shared, scale, shift, bound = expected_transform(X[::4, :3], weight[::4])
    assert state[SHARED_KEY][0] == pytest.approx(shared, rel=1e-9)
    np.testing.assert_allclose(state[SCALE_KEY], np.append(scale, shared), rtol=1e-9)
    np.testing.assert_allclose(state[SHIFT_KEY], np.append(shift, 0.0), rtol=1e-9)
    assert state[BOUND_KEY][0] == pytest.approx(bound, rel=1e-9)
    first = aucopt.make("spam-l2", random_state=0).partial_fit(
        data, y, classes=[-1, 1], sample_weight=weight)._state
    for key in (SCALE_KEY, SHIFT_KEY, SHARED_KEY, BOUND_KEY):
        np.testing.assert_array_equal(first[key], state[key])


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("where", ["fit, a row not read", "fit, precondition None",
                                   "a later chunk", "one row"])
def test_a_row_whose_norm_overflows_is_refused(fmt, where, monkeypatch):
    """A row of 1e200s (squared norm inf) used to be shortened to zeros by the row bound
    and learnt silently after the first chunk; it is refused with its row number (not
    the number it had in the step calibration's sample, as with precondition=None), and a
    stream loses nothing."""
    monkeypatch.setattr(_precondition, "MEDIAN_ROWS", 100)
    X, y = _mixed_long()
    X[[1, 7, 50, 300]] /= 40.0
    as_data = (lambda A: A) if fmt == "dense" else sp.csr_matrix
    est = aucopt.make("spam-l2", random_state=0,
                      precondition=None if where.endswith("None") else "auto")
    bad = X.copy()
    if where.startswith("fit"):
        bad[5] = 1e200
        with pytest.raises(ValueError, match=r"row 5\b"):
            est.fit(as_data(bad), y)
        return
    est.partial_fit(as_data(X[:200]), y[:200], classes=[-1, 1])
    before = {k: v.copy() for k, v in est._state.items()}
    rows = slice(200, 400) if where == "a later chunk" else slice(205, 206)
    bad[205] = 1e200
    with pytest.raises(ValueError, match=r"row 5\b" if where == "a later chunk" else r"row 0\b"):
        est.partial_fit(as_data(bad[rows]), y[rows])
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value, err_msg=key)


def test_learn_one_refuses_a_row_whose_norm_overflows():
    """River: after a first mini-batch set the transform and its bound, a row of 1e200s
    is refused by learn_one (it used to be shortened to zeros and learnt), and the
    learner is unchanged."""
    import pandas as pd

    from aucopt.river import AUCClassifier

    X, y = _mixed_long()
    frame = pd.DataFrame(X[:200], columns=["a", "b", "c"])
    model = AUCClassifier("spam-l2", seed=0)
    model.learn_many(frame, pd.Series(y[:200] > 0))
    for i in range(200, 210):
        model.learn_one(dict(zip("abc", X[i])), bool(y[i] > 0))
    assert model.estimator._state[BOUND_KEY][0] > 0
    before = {k: v.copy() for k, v in model.estimator._state.items()}
    probe = dict(zip("abc", X[300]))
    score = model.score_one(probe)
    with pytest.raises(ValueError, match="values too large for the kernels .*finite, but "
                       "the squared row norm overflows"):
        model.learn_one({"a": 1e200, "b": 1e200, "c": 1.0}, True)
    for key, value in before.items():
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)
    assert model.score_one(probe) == score
