"""A test-then-train step converts its dict once: ``learn_one(x, y)`` after
``predict_proba_one(x)`` on the same unchanged dict takes the row the prediction made.

Whatever the reuse, predicting before learning must not change what is learnt (every
streaming id, bit for bit), and a dict changed between the two calls is learnt as it is
then.
"""

import pickle

import numpy as np
import pytest

pytest.importorskip("river")
from aucopt.river import AUCClassifier  # noqa: E402
from aucopt.river._columns import ColumnMap  # noqa: E402

from .test_river import NOT_GROWABLE, STREAMING, _stream  # noqa: E402


def _model(algorithm):
    n_features = 32 if algorithm in NOT_GROWABLE else None
    return AUCClassifier(algorithm, n_features=n_features, seed=0)


def _assert_same_state(a, b):
    sa, sb = a.estimator._state, b.estimator._state
    assert sa.keys() == sb.keys()
    for key in sa:
        np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)
    np.testing.assert_array_equal(a.estimator.intercept_, b.estimator.intercept_)


@pytest.mark.parametrize("algorithm", STREAMING)
def test_predicting_before_learning_changes_nothing_learnt(algorithm):
    data = _stream(n=80, emerging=True)
    tested, learnt = _model(algorithm), _model(algorithm)
    for x, y in data:
        tested.predict_proba_one(x)
        tested.learn_one(x, y)
        learnt.learn_one(x, y)
    _assert_same_state(tested, learnt)


@pytest.mark.parametrize("algorithm", ["spam-l2", "uni-log", "ftrl-auc", "oam-seq"])
def test_a_dict_changed_after_the_prediction_is_learnt_as_it_is_then(algorithm):
    data = _stream(n=60)
    tested, learnt = _model(algorithm), _model(algorithm)
    for i, (x, y) in enumerate(data):
        tested.predict_proba_one(x)
        if i % 3 == 0:
            x["f0"] = 2.5 + i  # a value changed in place
        elif i % 3 == 1:
            x[f"late{i % 4}"] = 1.0  # a name added
        tested.learn_one(x, y)
        learnt.learn_one(dict(x), y)
    _assert_same_state(tested, learnt)
    assert tested.columns == learnt.columns


def test_the_row_is_reused_only_for_the_same_unchanged_dict_and_width():
    mapper = ColumnMap(None)
    x = {"a": 1.0, "b": 2.0}
    first = mapper.row(x, 8, grow=True)
    assert mapper.row(x, 8, grow=False) is first
    assert mapper.row(dict(x), 8, grow=True) is not first  # an equal dict: converted again
    wider = mapper.row(x, 16, grow=True)
    assert wider is not first and wider.n_features == 16
    x["b"] = 3.0
    changed = mapper.row(x, 16, grow=True)
    assert changed is not wider and changed.data.tolist() == [1.0, 3.0]
    x["a"] = np.ones(3)  # no longer a number: refused as in any other dict
    with pytest.raises(TypeError, match="numbers"):
        mapper.row(x, 16, grow=True)
    # a dict whose names were not all known when the row was made is converted again
    y = {"a": 1.0, "new": 5.0}
    partial = mapper.row(y, 16, grow=False)
    assert partial.indices.tolist() == [0]
    grown = mapper.row(y, 16, grow=True)
    assert grown.indices.tolist() == [0, 2] and grown.data.tolist() == [1.0, 5.0]


def test_the_last_dict_is_not_pickled():
    model = AUCClassifier("spam-l2")
    x = {f"f{j}": float(j) for j in range(5)}
    model.learn_one(x, True)
    model.learn_one({k: -v for k, v in x.items()}, False)
    model.predict_proba_one(x)
    assert model._map._last_row is not None
    copy = pickle.loads(pickle.dumps(model))
    assert copy._map._last_row is None and copy._map._keyed_plan[0] == model._map._keyed_plan[0]
    assert copy.predict_proba_one(x) == model.predict_proba_one(x)
    old = pickle.loads(pickle.dumps(model._map))
    del old.__dict__["_last_row"]  # a map pickled before the row was kept
    assert old.row(x, 8, grow=False).data.tolist() == list(x.values())
