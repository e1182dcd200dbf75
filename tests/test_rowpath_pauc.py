"""The one-row path of the buffered partial-AUC learners (aucopt._kernels.pauc_rows,
aucopt.algorithms._pauc_rows): ``learn_one`` gives the bits of ``partial_fit`` row by row
and in chunks, every row on the row path, and a step that stops on the row path leaves the
state exactly as it was (the kernel puts back the columns and the slot it kept, the
transaction the rest), so that the general path redoes the row from there.
"""

import copy
import json

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

pytest.importorskip("river")

import aucopt  # noqa: E402
from aucopt._kernels import pauc_rows  # noqa: E402
from aucopt.algorithms._spec import RowData  # noqa: E402
from aucopt.exceptions import DivergenceError  # noqa: E402
from aucopt.river._columns import stable_hash  # noqa: E402

from ._general_path import general
from ._jit_pair import compiled_output, interpreted_output
from .test_rowpath import _assert_same_state, _csr_row, _learn_counting

IDS = ("pauc-1pmb", "pauc-sopa", "pauc-sopa-s", "pauc-sota-s")
# a small buffer: a step every 4 negatives; numbers for the step (no rebinding on a new
# largest row norm, no calibration in chunks) and no preconditioner, as the chunks compare
SETTINGS = {
    "pauc-1pmb": [{"eta": 0.05}, {"eta": 0.2, "loss": "hinge", "max_fpr": 0.5, "lam": 0.01,
                                  "schedule": "constant"}, {"eta": 0.05, "min_tpr": 0.5}],
    "pauc-sopa": [{"eta": 0.05}, {"eta": 0.02, "max_fpr": 0.3, "eta_s": 1.0, "momentum": 0.0}],
    "pauc-sopa-s": [{"eta": 0.05}, {"eta": 0.02, "lam": 0.3, "gamma": 1.0}],
    "pauc-sota-s": [{"eta": 0.05}, {"eta": 0.02, "lam": 3.0, "lam_pos": 0.3, "gamma_pos": 0.5}],
}
CASES = [(a, p) for a in IDS for p in SETTINGS[a]]


def _rows(n=300, d=12, seed=0, positive_rate=0.3):
    """Rows of varying length (a value is left out when below -0.8), so that columns lag
    behind the steps (the lazy momentum catches them up)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + 0.5 * rng.normal(size=n) > np.quantile(X[:, 0], 1 - positive_rate)
    return [({f"f{j}": float(v) for j, v in enumerate(row) if v > -0.8}, bool(t))
            for row, t in zip(X, y)]


def _model(algorithm, params, data, warm=20):
    """Learn ``data`` row by row; return the model and the general-path calls after ``warm``
    (hashed into 16 columns: the slots take every row once they are as wide)."""
    return _learn_counting(data, warm, algorithm, n_features=16, buffer_size=4,
                           precondition=None, **params)


def _estimator(algorithm, params):
    return general(aucopt.make(algorithm, buffer_size=4, precondition=None, **params))


@pytest.mark.parametrize("algorithm, params", CASES)
def test_learn_one_equals_partial_fit_by_rows_and_in_chunks(algorithm, params):
    data = _rows()
    model, calls = _model(algorithm, params, data)
    assert model.estimator._row_path is not None
    assert calls == [], calls  # every row after the first ones on the row path
    assert model.estimator.t_ > 40  # steps were made on it
    rows = [_csr_row(model, x) for x, _ in data]
    labels = [y for _, y in data]
    by_rows = _estimator(algorithm, params)
    for row, y in zip(rows, labels):
        by_rows.partial_fit(row, [y], classes=[False, True])
    _assert_same_state(model.estimator, by_rows)
    chunks = _estimator(algorithm, params)
    for start in range(0, len(rows), 37):
        chunks.partial_fit(sp.vstack(rows[start:start + 37], format="csr"),
                           labels[start:start + 37], classes=[False, True])
    _assert_same_state(model.estimator, chunks)


def test_a_step_with_more_columns_than_kept_takes_the_general_path(monkeypatch):
    monkeypatch.setattr(pauc_rows, "KEEP_CAP", 20)  # fewer than the stored rows' values
    data = _rows()
    for algorithm in ("pauc-1pmb", "pauc-sopa-s"):
        model, calls = _model(algorithm, {"eta": 0.05}, data)
        assert model.estimator._row_path is not None
        assert 20 < len(calls) < 100, calls  # the steps: one row of every batch
        ref = _estimator(algorithm, {"eta": 0.05})
        for x, y in data:
            ref.partial_fit(_csr_row(model, x), [y], classes=[False, True])
        _assert_same_state(model.estimator, ref)


def _to_a_step(model, data):
    """Learn rows of ``data`` until the next negative completes a batch with positives
    stored; return the rows left."""
    state = model.estimator._state
    for i, (x, y) in enumerate(data):
        capacity = state["buf_w"].shape[1]
        length = min(capacity, 2 ** int(state["batches"][0]))
        if state["size"][1] > 0 and state["size"][0] + 1 == length:
            return data[i:]
        model.learn_one(x, y)
    raise AssertionError("no step ahead")


DIVERGING_ETA = {"pauc-1pmb": 2.5, "pauc-sopa": 1.0, "pauc-sopa-s": 5.0, "pauc-sota-s": 5.0}


@pytest.mark.parametrize("algorithm", IDS)
def test_weighted_rows_and_diverging_steps_as_partial_fit(algorithm):
    """Signed weights (+-w) and a step so large that many steps diverge: each row on the
    row path, undone and redone by the general path when it stops, gives the bits (and
    the errors) of partial_fit with sample_weight."""
    rng = np.random.default_rng(5)
    X = sp.random(300, 10, density=0.4, random_state=1, format="csr")
    X.data = rng.normal(size=X.data.size)
    y, w = rng.random(300) < 0.3, rng.uniform(0.2, 3.0, 300)
    params = {"buffer_size": 3, "eta": DIVERGING_ETA[algorithm], "precondition": None}
    models = [aucopt.make(algorithm, **params) for _ in range(2)]
    for m in models:
        m.partial_fit(X[:5], y[:5], classes=[False, True], sample_weight=w[:5])
    errors = [0, 0]
    for i in range(5, 300):
        row = X[i]
        rows = RowData(row.data, row.indices, row.indptr, 1, 10)
        try:
            models[0]._learn_row(rows, np.array([w[i] if y[i] else -w[i]]))
        except DivergenceError:
            errors[0] += 1
        try:
            models[1].partial_fit(row, y[i:i + 1], sample_weight=w[i:i + 1])
        except DivergenceError:
            errors[1] += 1
    assert models[0]._row_path is not None
    assert errors[0] == errors[1] and 0 < errors[0] < 200, errors
    _assert_same_state(*models)


def _rare_name(width=16, d=12):
    """A feature name hashed into a column of its own (none of ``_rows``'s)."""
    taken = {stable_hash(f"f{j}") % width for j in range(d)}
    return next(name for name in (f"g{k}" for k in range(100))
                if stable_hash(name) % width not in taken)


@pytest.mark.parametrize("algorithm", IDS)
def test_a_step_that_stops_on_the_row_path_leaves_the_state_as_it_was(algorithm):
    data, rare = _rows(), _rare_name()
    model, _ = _model(algorithm, SETTINGS[algorithm][0], data[:150])
    model.learn_one({**data[150][0], rare: 1.0}, True)  # in the ring for a step or two
    for x, y in data[151:190]:  # then out of it: its column lags behind the steps
        model.learn_one(x, y)
    rest = _to_a_step(model, data[190:])
    state = model.estimator._state
    if "last" in state:  # the lazy momentum: the step catches that column up first
        col = stable_hash(rare) % 16
        assert state["last"][col] < state["steps"][0] and state["mom"][col] != 0.0
    assert model.estimator._row_path is not None
    before = copy.deepcopy(state)
    t = model.estimator.t_
    huge = {"f0": 1e150, "f1": -1e150, rare: 1e150}  # stored, then scored: it explodes
    with pytest.raises(DivergenceError):
        model.learn_one(huge, False)
    assert model.estimator.t_ == t
    for key, value in before.items():
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)
    for x, y in rest[:40]:  # still usable, on the row path
        model.learn_one(x, y)
    assert model.estimator.t_ > t and model.estimator._row_path is not None


_NOJIT_SCRIPT = """
import json
import numpy as np
import scipy.sparse as sp
from numpy.testing import assert_allclose
import aucopt
from aucopt.river import AUCClassifier
from aucopt.river._columns import stable_hash

out = {}
for a in ("pauc-1pmb", "pauc-sopa-s"):
    m = AUCClassifier(a, buffer_size=2, eta=0.1, n_features=8)
    ref = aucopt.make(a, buffer_size=2, eta=0.1)
    ref._one_row_path = False  # the general path
    for i in range(60):
        x = {"a": float(i % 7) - 3.0, "b": 1.0}
        if i % 4:
            x["c"] = float(i % 5) - 2.0
        m.learn_one(x, i % 3 == 0)
        cols = [stable_hash(k) % 8 for k in x]
        row = sp.csr_matrix((list(x.values()), ([0] * len(x), cols)), shape=(1, 8))
        row.sort_indices()
        ref.partial_fit(row, [i % 3 == 0], classes=[False, True])
    est = m.estimator
    same = all(np.array_equal(est._state[k], ref._state[k]) for k in ref._state)
    out[a] = [est.t_, est.__dict__.get("_row_path") is not None, same, est.coef_.tolist()]
print(json.dumps(out))
"""


def test_learn_one_without_numba_equals_partial_fit_and_the_compiled_run():
    """With and without numba: learn_one gives the bits of partial_fit by rows, on the row
    path; the two runs agree to rounding (numba's and NumPy's exp and log differ)."""
    jit = json.loads(compiled_output(_NOJIT_SCRIPT))
    nojit = json.loads(interpreted_output(_NOJIT_SCRIPT))
    for a, run in jit.items():
        assert run[:3] == nojit[a][:3] and run[0] > 10 and run[1] and run[2], (a, run, nojit[a])
        assert_allclose(run[3], nojit[a][3], rtol=1e-10, atol=1e-12, err_msg=a)
