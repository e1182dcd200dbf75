"""Hashed feature columns of the River front-end: one compiled call per row, no memo.

``ColumnMap(n_features).row(x)`` must give what the definition gives: name ``k`` in column
``stable_hash(k) % n_features``, the columns increasing, the values of names that share a
column added in the order the names come; compiled or not, and with memory that does not
grow with the number of names seen.
"""

import json
import os
import pickle

import numpy as np
import pytest

pytest.importorskip("river")
from aucopt.river import AUCClassifier  # noqa: E402
from aucopt.river._columns import ColumnMap, stable_hash  # noqa: E402

from ._jit_pair import compiled_output, interpreted_output


def _reference_row(x: dict, width: int):
    """The definition, one name at a time in Python."""
    by_column: dict[int, list[float]] = {}
    for name, value in x.items():
        by_column.setdefault(stable_hash(name) % width, []).append(float(value))
    cols = sorted(by_column)
    values = []
    for c in cols:
        total = 0.0
        for v in by_column[c]:
            total += v
        values.append(total)
    return np.array(cols), np.array(values)


def _rows(seed, n_rows=60):
    """Rows with str, unicode, int and tuple names, 1-80 names each, float values."""
    rng = np.random.default_rng(seed)
    pool = ([f"w{k}" for k in range(300)] + ["été", "名前", "", " ", "x" * 200]
            + list(range(40)) + [(1, "a"), (2, "b")])
    rows = []
    for _ in range(n_rows):
        picks = rng.choice(len(pool), size=int(rng.integers(1, 80)), replace=False)
        rows.append({pool[i]: float(v) for i, v in zip(picks, rng.normal(size=picks.size))})
    return rows


@pytest.mark.parametrize("width", [1, 3, 7, 64, 10**6, 2**31])
def test_a_row_equals_the_definition(width):
    mapper = ColumnMap(width)
    for x in _rows(width % 97):
        row = mapper.row(x, width, grow=True)
        cols, values = _reference_row(x, width)
        np.testing.assert_array_equal(row.indices, cols)
        np.testing.assert_array_equal(row.data, values)  # same sums, same order
        assert row.indices.dtype == (np.int64 if width >= 2**31 - 1 else np.int32)
        assert list(row.indptr) == [0, cols.size] and row.n_features == width


def test_the_same_keys_twice_use_the_cached_plan_and_new_values():
    mapper = ColumnMap(5)
    first = mapper.row({"a": 1.0, "b": 2.0, "c": 4.0}, 5, grow=True)
    again = mapper.row({"a": 10.0, "b": 20.0, "c": 40.0}, 5, grow=True)
    np.testing.assert_array_equal(first.indices, again.indices)
    np.testing.assert_array_equal(again.data, 10 * first.data)


_SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
from tests.test_river_hashing import _rows
from aucopt.river._columns import ColumnMap
out = []
for width in (3, 64, 10**6):
    mapper = ColumnMap(width)
    out += [[row.indices.tolist(), row.data.tolist()] for row in
            (mapper.row(x, width, grow=True) for x in _rows(width, 20))]
print(json.dumps(out))
"""


def test_numba_disable_jit_gives_the_same_rows():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert json.loads(compiled_output(_SCRIPT, root)) == json.loads(
        interpreted_output(_SCRIPT, root))


def test_memory_does_not_grow_with_the_names_seen():
    """No per-name memo: 60,000 distinct names leave the map as small as it was."""
    model = AUCClassifier("spam-l2", n_features=2**20, seed=0)
    rng = np.random.default_rng(0)
    for k in range(3000):
        x = {f"n{20 * k + j}": v for j, v in enumerate(rng.normal(size=20))}
        model.learn_one(x, bool(x[f"n{20 * k}"] > 0))
    assert model.columns == {}
    assert len(pickle.dumps(model._map)) < 5000
    for x in ({"n5": 1.0, "n9": -1.0}, {"n59999": 2.0, "brand new": 0.5}):
        row = model._map.row(x, 2**20, grow=True)
        np.testing.assert_array_equal(row.indices, _reference_row(x, 2**20)[0])


def test_numpy_scalar_names_fall_where_the_python_ones_do():
    """A dict's key np.int64(3) is the key 3: hashed through type name and repr, NumPy
    scalars (int32 indices of a CSR row, int64 ones of a larger matrix) fell into other
    columns than the Python values they equal, and a model trained on one scored the
    other with other weights (0.5772 against 0.4437)."""
    for names in ([3, np.int32(3), np.int64(3), np.uint8(3)], ["a", np.str_("a")],
                  [1.5, np.float64(1.5)], [True, np.bool_(True)]):
        assert len({stable_hash(name) for name in names}) == 1, names
    assert stable_hash(3) != stable_hash(3.0) != stable_hash("3")  # (as before: by type)
    rng = np.random.default_rng(0)
    model = AUCClassifier("spam-l2", n_features=2**18, seed=0)
    for _ in range(200):
        cols = rng.choice(1000, size=5, replace=False).astype(np.int32)
        model.learn_one(dict(zip(cols, rng.normal(size=5))), bool(rng.random() < 0.5))
    row = dict(zip(np.arange(0, 50, 10, dtype=np.int32), np.ones(5)))
    scores = {model.predict_proba_one({kind(k): v for k, v in row.items()})[True]
              for kind in (int, np.int32, np.int64)}
    assert len(scores) == 1


def test_numpy_scalars_within_tuple_names_fall_where_the_python_ones_do():
    """("city", np.int64(3)) is the key ("city", 3) (a model trained from a DataFrame, served
    from JSON): only top-level NumPy scalars were hashed as the Python ones."""
    assert stable_hash(("city", np.int64(3))) == stable_hash(("city", 3))
    assert stable_hash((np.float64(1.5), (np.int32(2), "a"))) == stable_hash((1.5, (2, "a")))
    assert stable_hash(("t", 1)) != stable_hash(("t", True))  # (as before: by type)


@pytest.mark.parametrize("bound", [{"n_features": 1024}, {"n_features": None, "max_features": 2}])
@pytest.mark.parametrize("names", [(("t", 1), ("t", True)), (0.0, -0.0), ((0.0,), (-0.0,))])
def test_equal_names_that_hash_apart_do_not_share_the_cached_plan(bound, names):
    """Keys equal to the last row's but hashed apart (tuples of 1 and True, 0.0 and -0.0)
    took the last row's columns: a row's columns depended on the row before it."""
    a, b = names
    fresh = ColumnMap(**bound)
    if bound.get("max_features"):  # a full vocabulary: later names are hashed
        fresh.row({"x": 1.0, "z": 1.0}, 2, grow=True)
    width = 1024 if bound["n_features"] else 2
    want = fresh.row({b: 1.0}, width, grow=True).indices.copy()
    cached = ColumnMap(**bound)
    if bound.get("max_features"):
        cached.row({"x": 1.0, "z": 1.0}, 2, grow=True)
    cached.row({a: 1.0}, width, grow=True)
    np.testing.assert_array_equal(cached.row({b: 1.0}, width, grow=True).indices, want)


def test_a_name_with_a_lone_surrogate_is_hashed():
    """Names decoded with errors='surrogateescape' hold lone surrogates, which strict UTF-8
    refuses: hashing raised UnicodeEncodeError in learn_one and predict_proba_one."""
    name = b"caf\xe9".decode("utf-8", errors="surrogateescape")
    model = AUCClassifier("spam-l2", n_features=1024, seed=0)
    model.learn_one({name: 1.0, "b": 0.5}, True)
    model.learn_one({name: -1.0, "b": 0.5}, False)
    assert model.predict_proba_one({name: 1.0})[True] > 0.5
    assert stable_hash(name) not in {stable_hash("caf"), stable_hash("café")}


def test_a_full_bounded_vocabulary_hashes_a_rows_new_names_in_one_call(monkeypatch):
    """One hash call per name cost 8x the hashed mode's test-then-train step on rows of
    new tokens; the columns are those of the names hashed one by one."""
    import aucopt.river._columns as columns

    full = ColumnMap(None, max_features=4)
    full.row({"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}, 4, grow=True)
    calls = []
    real = columns.stable_hashes
    monkeypatch.setattr(columns, "stable_hashes", lambda names: calls.append(1) or real(names))
    for grow in (True, False):  # (other names each time: a row of the same keys is cached)
        x = {f"new{grow}{i}": float(i + 1) for i in range(20)}
        calls.clear()
        row = full.row(x, 4, grow=grow)
        assert len(calls) == 1
    want = sorted({int(stable_hash(name) % 4) for name in x})
    np.testing.assert_array_equal(row.indices, want)
