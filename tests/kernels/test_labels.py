"""The fit boundary's label passes against NumPy (compiled and as plain Python), and its
identity orders."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import aucopt
from aucopt._kernels._labels import distinct_two, sign_labels
from aucopt.algorithms._data import _IDENTITY_CACHE_ROWS, identity_order
from aucopt.datasets import make_auc_problem
from aucopt.linear_model._inputs import _two_values

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32, np.float64]
SETTINGS = settings(max_examples=60, deadline=None)
label_lists = st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.0, np.nan, 0.5]), min_size=1,
                       max_size=40)


def _expected_distinct(y):
    values = np.unique(y)  # NaN sorts last and is kept
    if values.size > 2 or np.isnan(values.astype(np.float64)).any():
        return None
    return values


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "python"])
@given(values=label_lists, dtype_index=st.integers(0, len(DTYPES) - 1))
@SETTINGS
def test_distinct_two_matches_numpy_unique(jit, values, dtype_index):
    dtype = DTYPES[dtype_index]
    if np.dtype(dtype).kind != "f":
        values = [v for v in values if np.isfinite(v) and v == int(v) and (v >= 0 or dtype in (
            np.int8, np.int32, np.int64))] or [1.0]
    y = np.array(values).astype(dtype)
    k, a, b = (distinct_two if jit else distinct_two.py_func)(y)
    expected = _expected_distinct(y)
    if expected is None:
        assert k == 3
    else:
        assert k == expected.size
        assert_array_equal(np.unique(np.array([a, b], dtype=dtype)), expected)


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "python"])
@given(values=label_lists)
@SETTINGS
def test_sign_labels_matches_numpy(jit, values):
    y = np.array(values)
    out = np.full(y.size, 7.0)
    unknown = (sign_labels if jit else sign_labels.py_func)(y, 1.0, -1.0, out)
    assert_array_equal(out, np.where(y == 1.0, 1.0, -1.0))
    assert unknown == np.count_nonzero((y != 1.0) & (y != -1.0))


@pytest.mark.parametrize("dtype", DTYPES + [object, str], ids=lambda t: np.dtype(t).name)
def test_fit_is_the_same_for_every_label_dtype(dtype):
    """The numba passes (numeric and boolean labels) and the NumPy fallback (strings,
    objects) give the same model."""
    X, y = make_auc_problem(n_samples=300, n_features=5, random_state=0)
    positive = (y > 0).astype(np.intp)
    if dtype in (object, str):
        labels = np.array(["a", "b"], dtype=dtype)[positive]
    else:
        labels = positive.astype(dtype)
    reference = aucopt.make("spam-l2", random_state=0).fit(X, y > 0)
    est = aucopt.make("spam-l2", random_state=0).fit(X, labels)
    assert_array_equal(est.coef_, reference.coef_)
    assert est.classes_.size == 2 and est.classes_[1] == labels[np.argmax(positive)]


def test_two_values_rejects_infinite_labels():
    assert _two_values(np.array([1.0, np.inf, 1.0])) is None
    assert_array_equal(_two_values(np.array([3, 1, 3, 1], dtype=np.int8)), [1, 3])


def test_partial_fit_names_unknown_labels():
    X, y = make_auc_problem(n_samples=50, n_features=3, random_state=0)
    est = aucopt.make("spam-l2").partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"labels \[2\] that are not in classes"):
        est.partial_fit(X[:3], np.array([1, 2, 2]))


def test_identity_order_is_an_arange_served_from_one_cache():
    small, large = identity_order(10), identity_order(1000)
    assert_array_equal(small, np.arange(10))
    assert_array_equal(large, np.arange(1000))
    assert identity_order(7).base is large.base  # no new O(n) array per unshuffled pass
    beyond = identity_order(_IDENTITY_CACHE_ROWS + 1)  # not cached: a fresh arange
    assert beyond.base is None and beyond[-1] == _IDENTITY_CACHE_ROWS
    assert identity_order(0).shape == (0,)


@pytest.mark.parametrize("algorithm_id", aucopt.list_algorithms())
def test_unshuffled_fit_leaves_the_shared_identity_order_intact(algorithm_id):
    """Every kernel gets the cached order as a view: none may write into it."""
    X, y = make_auc_problem(n_samples=80, n_features=4, random_state=1)
    est = aucopt.make(algorithm_id, random_state=0)
    if "shuffle" in est.get_params():
        est.set_params(shuffle=False)
    est.fit(X, y)
    if hasattr(est, "partial_fit"):
        est.partial_fit(X[:30], y[:30])
    assert_array_equal(identity_order(80), np.arange(80))
