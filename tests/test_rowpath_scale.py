"""The preconditioner of one streaming row in one compiled call, and hashed string names
joined into one buffer (aucopt._kernels.row_scale, aucopt.algorithms._rowpath.scaled_row,
aucopt._kernels.hash_rows.hashed_plan_joined).

Both are shortcuts of general functions: they must give the same bits as
``fix_scale`` + ``transform_rows`` and as the hash of each name's bytes, hand anything they
do not take back untouched, and leave bad rows to the general functions, which refuse them
with the model unchanged.
"""

import copy

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("river")

import aucopt  # noqa: E402
import aucopt.linear_model._base as base_module  # noqa: E402
from aucopt._kernels.row_scale import scale_row  # noqa: E402
from aucopt.algorithms._data import as_rows  # noqa: E402
from aucopt.algorithms._precondition import (  # noqa: E402
    BOUND_KEY,
    SCALE_KEY,
    SHARED_KEY,
    fix_scale,
    new_transform,
    transform_rows,
)
from aucopt.algorithms._rowpath import scaled_row  # noqa: E402
from aucopt.river import AUCClassifier  # noqa: E402
from aucopt.river._columns import ColumnMap, stable_hash  # noqa: E402

from ._general_path import general  # noqa: E402

_NONE = np.zeros(0, dtype=np.int64)


def _state(d, rng, bound):
    """A preconditioner's state with half of the scales set."""
    state = new_transform(d)
    state[SCALE_KEY][rng.random(d) < 0.5] = rng.uniform(0.5, 3.0)
    state[SHARED_KEY][0] = 1.7
    state[BOUND_KEY][0] = bound
    return state


def _row(rng, d, nnz):
    cols = np.sort(rng.choice(d, size=nnz, replace=False)).astype(np.int32)
    data = rng.normal(size=nnz) * rng.choice([1.0, 10.0], size=nnz)
    data[rng.random(nnz) < 0.2] = 0.0  # a stored zero sets no scale
    return as_rows(sp.csr_matrix((data, cols, [0, nnz]), shape=(1, d)))


@pytest.mark.parametrize("bound", [0.0, 2.5])
@pytest.mark.parametrize("auto", [True, False])
@pytest.mark.parametrize("weight", [1.0, -1.0, 0.0])
def test_scaled_row_equals_fix_scale_and_transform_rows(bound, auto, weight):
    rng = np.random.default_rng(int(bound * 10) + auto)
    d = 40
    state = _state(d, rng, bound)
    ref = copy.deepcopy(state)
    y = np.array([weight])
    for _ in range(30):
        rows = _row(rng, d, int(rng.integers(1, 12)))
        row, fixed = scaled_row(state, rows, y, auto, _NONE)
        ref_fixed = fix_scale(ref, rows, y, first=False, usable=False) if auto else None
        ref_row = transform_rows(rows, ref, _NONE)
        np.testing.assert_array_equal(state[SCALE_KEY], ref[SCALE_KEY])
        np.testing.assert_array_equal(row.data, ref_row.data)  # the same bits
        np.testing.assert_array_equal(row.indices, ref_row.indices)
        if ref_fixed is None:
            assert fixed is None
        else:
            np.testing.assert_array_equal(fixed, ref_fixed)


def test_rows_it_does_not_take_are_handed_back_untouched():
    rng = np.random.default_rng(0)
    state = _state(20, rng, 0.0)
    before = state[SCALE_KEY].copy()
    y = np.ones(1)
    new = int(np.flatnonzero(before == 0)[0])
    bad = as_rows(sp.csr_matrix(([np.inf], [new], [0, 1]), shape=(1, 20)))
    assert scaled_row(state, bad, y, True, _NONE) is None  # fix_scale must refuse it
    unsorted = bad._replace(data=np.array([1.0, 2.0]), indices=np.array([5, 2], np.int32),
                            indptr=np.array([0, 2], np.int32))
    assert scaled_row(state, unsorted, y, True, _NONE) is None
    assert scaled_row(state, _row(rng, 20, 3), y, True, np.array([1])) is None  # centred
    assert scaled_row(state, _row(rng, 20, 3), np.array([2.0]), True, _NONE) is None
    np.testing.assert_array_equal(state[SCALE_KEY], before)


def test_the_kernel_without_numba_gives_the_same_bits():
    rng = np.random.default_rng(1)
    for bound in (0.0, 1.0):
        a, b = _state(30, rng, bound), None
        b = copy.deepcopy(a)
        for _ in range(20):
            rows = _row(rng, 30, 8)
            outs = []
            for kernel, state in ((scale_row, a), (scale_row.py_func, b)):
                out, fixed = np.empty(8), np.empty(8, np.int64)
                count, status = kernel(state[SCALE_KEY], state[SHARED_KEY], bound, True,
                                       rows.data, rows.indices, rows.indptr, out, fixed)
                outs.append((count, status, out.tolist(), fixed[:count].tolist()))
            assert outs[0] == outs[1]
        np.testing.assert_array_equal(a[SCALE_KEY], b[SCALE_KEY])


def _sparse_chunk(rng, n, d):
    X = sp.random(n, d, density=0.1, random_state=rng, format="csr")
    X.data = rng.normal(size=X.nnz) * 3.0
    y = np.asarray(X[:, 0].todense()).ravel() + 0.3 * rng.normal(size=n) > 0
    return X, y


@pytest.mark.parametrize("algorithm", ["spam-l2", "ftrl-auc", "uni-squ"])
def test_a_stream_with_a_row_bound_learns_one_row_as_partial_fit(algorithm, monkeypatch):
    """A model started on a sparse chunk (shared scale, a row bound, no centred column), then
    row by row with features never seen: the one-call path, the bits of partial_fit."""
    rng = np.random.default_rng(2)
    d = 60
    X0, y0 = _sparse_chunk(rng, 200, d)
    X0 = X0[:, : d // 2]  # the second half of the features is new to the stream
    X0 = sp.hstack([X0, sp.csr_matrix((200, d - d // 2))], format="csr")
    rows, labels = _sparse_chunk(rng, 80, d)
    est = aucopt.make(algorithm, random_state=0)
    est.partial_fit(X0, y0, classes=[False, True])
    ref = general(copy.deepcopy(est))
    assert est._state[BOUND_KEY][0] > 0
    assert not est._state["feature_shift"].any()
    assert (est._state[SCALE_KEY][d // 2:] == 0).all()
    calls, learning = [], [False]
    original = base_module.fix_scale
    monkeypatch.setattr(base_module, "fix_scale",
                        lambda *a, **k: calls.append(learning[0]) or original(*a, **k))
    for i in range(rows.shape[0]):
        learning[0] = True
        est._learn_row(as_rows(rows[i]), np.array([1.0 if labels[i] else -1.0]))
        learning[0] = False
        ref.partial_fit(rows[i], [labels[i]])
    assert est.__dict__.get("_row_path") is not None
    assert not any(calls)  # every row of learn_one through the compiled call
    assert est.t_ == ref.t_
    for key in ref._state:
        np.testing.assert_array_equal(est._state[key], ref._state[key], err_msg=key)


def test_a_non_finite_value_at_a_new_feature_is_refused_and_changes_nothing():
    model = AUCClassifier("spam-l2")
    rng = np.random.default_rng(3)
    for i in range(50):
        model.learn_one({"a": float(rng.normal()), "b": float(rng.normal())}, i % 2 == 0)
    before = copy.deepcopy(model.estimator._state)
    with pytest.raises(ValueError):
        model.learn_one({"a": 1.0, "c": float("inf")}, True)
    for key, value in before.items():
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)
    assert "c" not in model.columns


@pytest.mark.parametrize("algorithm", ["spam-l2", "ftrl-auc", "oam-seq"])
def test_a_row_refused_after_its_new_features_got_a_scale_changes_nothing(algorithm):
    """The one-call path sets the scale of the row's new features before the step; a row it
    then cannot learn (a non-finite value at a known feature) must leave them unset: the
    general path refuses the row with the model as it was."""
    model = AUCClassifier(algorithm, seed=0)
    rng = np.random.default_rng(5)
    for i in range(60):
        model.learn_one({"a": float(rng.normal()), "b": float(rng.normal())}, i % 2 == 0)
    assert model.estimator._row_path.scales
    before = copy.deepcopy(model.estimator._state)
    with pytest.raises(ValueError):
        model.learn_one({"a": float("inf"), "c": 2.0, "d": -1.0}, True)
    for key, value in before.items():
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)
    assert "c" not in model.columns and "d" not in model.columns


def _reference_columns(names, width):
    return sorted({stable_hash(k) % width for k in names})


@pytest.mark.parametrize("width", [1, 7, 2**20])
def test_string_names_hash_as_their_own_bytes(width):
    """Rows of string names only (one joined buffer), zero characters among them (each
    name on its own): the columns and summed values of the definition."""
    rng = np.random.default_rng(width)
    pool = [f"w{k}" for k in range(200)] + ["", "été", "名前", "a\0b", "\0", "x" * 300]
    mapper = ColumnMap(width)
    for _ in range(40):
        names = [pool[i] for i in rng.choice(len(pool), size=int(rng.integers(1, 30)),
                                             replace=False)]
        x = {k: float(v) for k, v in zip(names, rng.normal(size=len(names)))}
        row = mapper.row(x, width, grow=False)
        assert row.indices.tolist() == _reference_columns(names, width)
        expected = np.zeros(width if width < 100 else 0)
        if width < 100:
            for k, v in x.items():
                expected[stable_hash(k) % width] += v
            np.testing.assert_allclose(row.data, expected[row.indices], rtol=0, atol=1e-12)



@pytest.mark.parametrize("counts", [(3.0, 5.0), (0.0, 2.0), (4.0, 0.0), (0.0, 0.0)])
def test_the_one_call_score_adds_the_intercept_of_the_class_means(counts):
    from aucopt._kernels.row_score import row_score, row_score_intercept

    rng = np.random.default_rng(4)
    mats = (rng.normal(size=(9, 2)), rng.normal(size=(9, 1)))
    cols, coefs = np.array([1, 0]), np.array([0.5, -2.0])
    scale, data, indices = rng.uniform(1, 2, size=9), rng.normal(size=3), np.array([1, 4, 8])
    dots = rng.normal(size=(2, 3))
    counts = np.array(counts)
    pos, neg, off = coefs @ dots
    means = [m for m, c in ((pos / max(counts[1], 1), counts[1]),
                            (neg / max(counts[0], 1), counts[0])) if c]
    expected = row_score(mats, cols, coefs, scale, data, indices) - (
        np.mean(means) if means else 0.0) - off
    for kernel in (row_score_intercept, row_score_intercept.py_func):
        got = kernel(mats, cols, coefs, scale, data, indices, dots, counts)
        assert got == pytest.approx(expected, rel=1e-14, abs=1e-14)


def test_the_joined_names_kernel_without_numba_gives_the_same_plan():
    from aucopt._kernels.hash_rows import hashed_plan_joined

    names = ["w1", "", "été", "w1x", "名前", "b"]
    raw = np.frombuffer("\0".join(names).encode("utf-8"), dtype=np.uint8)
    outs = []
    for kernel in (hashed_plan_joined, hashed_plan_joined.py_func):
        cols, order, inverse = (np.empty(6, np.int32), np.empty(6, np.int64),
                                np.empty(6, np.int64))
        k, identity = kernel(raw, 6, 5, cols, order, inverse)
        outs.append((k, identity, cols[:k].tolist(), order.tolist(), inverse.tolist()))
        assert kernel(raw, 5, 5, cols, order, inverse)[0] == -1  # not 5 names: refused
    assert outs[0] == outs[1]
    assert outs[0][2] == _reference_columns(names, 5)
