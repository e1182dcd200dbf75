"""The one-row path of ``learn_one`` (aucopt.algorithms._rowpath, _kernels.row_step,
_kernels.fused_rows).

It must give the bits of ``partial_fit`` on the same row, and whatever it cannot finish
(a divergence, a fold of the lazy scales, a bad row) must leave the state exactly as it
was, so that the general path redoes the row from there.
"""

import copy
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("river")

import aucopt  # noqa: E402
from aucopt.exceptions import DivergenceError  # noqa: E402
from aucopt.river import AUCClassifier  # noqa: E402
from aucopt.river._columns import stable_hash  # noqa: E402

from ._child_env import child_env
from ._general_path import general
from ._jit_pair import compiled_output, interpreted_output


def _rows(n=300, d=6, seed=0, positive_rate=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + 0.5 * rng.normal(size=n) > np.quantile(X[:, 0], 1 - positive_rate)
    return [({f"f{j}": float(v) for j, v in enumerate(row) if v > -1.2}, bool(t))
            for row, t in zip(X, y)]


def _counting(model):
    """Count the calls of the general path of ``model``'s estimator."""
    est = model.estimator
    general = est._fit_rows
    calls = []

    def counted(*args, **kwargs):
        calls.append(args[0].n_samples)
        return general(*args, **kwargs)

    est._fit_rows = counted
    return calls


def _csr_row(model, x):
    """``x`` as a one-row CSR matrix in ``model``'s columns."""
    cols = [model.columns[k] if model.n_features is None else stable_hash(k) % model.n_features
            for k in x]
    row = sp.csr_matrix((list(x.values()), (np.zeros(len(x), int), cols)),
                        shape=(1, model._width))
    row.sort_indices()
    return row


def _replay(model, data, ref=None, **params):
    """``partial_fit`` on each row as a one-row CSR chunk, with ``model``'s columns."""
    ref = general(aucopt.make("spam-l2", **params) if ref is None else ref)
    for x, y in data:
        ref.partial_fit(_csr_row(model, x), [y], classes=[False, True])
    return ref


def _learn_counting(data, warm, algorithm="spam-l2", **params):
    """Learn ``data`` row by row; return the model and the general-path calls after ``warm``."""
    model = AUCClassifier(algorithm, **params)
    for x, y in data[:warm]:
        model.learn_one(x, y)
    calls = _counting(model)
    for x, y in data[warm:]:
        model.learn_one(x, y)
    return model, calls


def _assert_same_state(a, b):
    assert a.t_ == b.t_
    assert set(a._state) == set(b._state)
    for key in a._state:
        np.testing.assert_array_equal(a._state[key], b._state[key], err_msg=key)


@pytest.mark.parametrize("params", [{}, {"stats": "online"}, {"eta0": 0.3},
                                    {"stats": "online", "decay": 0.01}])
def test_learn_one_takes_the_row_path_and_equals_partial_fit(params):
    data = _rows()
    model, calls = _learn_counting(data, 40, **params)
    assert len(calls) < 5, calls  # the general path only for the rare fold
    _assert_same_state(model.estimator, _replay(model, data, **params))


def test_a_row_that_diverges_is_undone_and_raises():
    data = _rows()
    model = AUCClassifier("spam-l2", eta0=1.0, precondition=None)  # (else refused as an
    for x, y in data:  # outlier: test_safety_stream.py)
        model.learn_one(x, y)
    assert model.estimator._row_path is not None
    before = copy.deepcopy(model.estimator._state)
    t = model.estimator.t_
    with pytest.raises(DivergenceError):
        model.learn_one({"f0": 1e150, "f1": -1e150}, True)
    assert model.estimator.t_ == t
    for key, value in before.items():  # the row path restored it before the general path ran
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)
    model.learn_one(*data[0])  # still usable
    assert model.estimator.t_ == t + 1


def test_a_bad_row_loses_nothing():
    data = _rows()
    model = AUCClassifier("spam-l2")
    for x, y in data[:100]:
        model.learn_one(x, y)
    before = copy.deepcopy(model.estimator._state)
    with pytest.raises(ValueError, match="NaN|infinit"):
        model.learn_one({"f0": float("nan"), "f1": 1.0}, True)
    for key, value in before.items():
        np.testing.assert_array_equal(model.estimator._state[key], value, err_msg=key)


def test_folds_of_the_lazy_scales_go_through_the_general_path_unchanged():
    data = _rows(n=400)
    params = {"eta0": 2.0, "beta": 5.0}  # the scale shrinks below the fold threshold often
    model, calls = _learn_counting(data, 20, **params)
    assert 5 < len(calls) < 380  # both paths ran
    _assert_same_state(model.estimator, _replay(model, data, **params))


def test_changed_hyperparameters_give_a_new_row_path():
    data = _rows()
    model = AUCClassifier("spam-l2", eta0=0.2)
    for x, y in data[:150]:
        model.learn_one(x, y)
    model.estimator.set_params(beta=0.5)  # the inner estimator's, as a user could
    for x, y in data[150:]:
        model.learn_one(x, y)
    ref = _replay(model, data[:150], eta0=0.2)
    _replay(model, data[150:], ref.set_params(beta=0.5))
    _assert_same_state(model.estimator, ref)


def test_assigning_a_hyperparameter_refreshes_the_cached_values():
    est = aucopt.make("spam-l2", beta=1e-4)
    first = est._params()
    assert est._params() is first
    est.beta = 0.25
    assert est._params()["beta"] == 0.25 and est._params() is not first


def test_learn_one_without_numba_gives_the_same_bits():
    code = (
        "import numpy as np\n"
        "from aucopt.river import AUCClassifier\n"
        "m = AUCClassifier('spam-l2')\n"
        "for i in range(40):\n"
        "    m.learn_one({'a': float(i % 7) - 3.0, 'b': 1.0}, i % 3 == 0)\n"
        "print(m.estimator.t_, m.estimator.__dict__.get('_row_path') is not None,\n"
        "      repr(m.estimator.coef_.tolist()))\n"
    )
    runs = [compiled_output(code), interpreted_output(code)]
    assert runs[0] == runs[1]
    assert runs[0].split()[1] == "True"  # the row path ran in both


# Streaming ids whose rows always take the general path, and why. A new streaming id gets a
# row path from its spec's row_kernel; one that cannot have it must be listed here.
NO_ROW_PATH: dict = {}
FIXED_WIDTH = {"aogd", "fsauc", "opauc-f", "opauc-rp"}  # states that cannot grow with names
STREAMING = [a for a in aucopt.list_algorithms() if aucopt.algorithm_info(a)["streaming"]]


def _hashed_rows(n=240, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = X[:, 0] + 0.5 * rng.normal(size=n) > 0
    return [({f"f{j}": float(v) for j, v in enumerate(row) if v > -1.2}, bool(t))
            for row, t in zip(X, y)]


def _learn_and_replay(algorithm, data, width=16, fused=True, monkeypatch=None):
    """Learn ``data`` with learn_one (hashed into ``width`` columns) and with one-row
    partial_fit calls; return both estimators and the general-path calls after 20 rows."""
    if not fused:
        from aucopt._kernels import fused_rows

        monkeypatch.setattr(fused_rows, "FUSED", {})
        import aucopt.algorithms._rowpath as rowpath

        monkeypatch.setattr(rowpath, "FUSED", {})
    model = AUCClassifier(algorithm, n_features=width, seed=3)
    for x, y in data[:20]:
        model.learn_one(x, y)
    calls = _counting(model)
    for x, y in data[20:]:
        model.learn_one(x, y)
    ref = general(aucopt.make(algorithm, random_state=3))
    for x, y in data:
        ref.partial_fit(_csr_row(model, x), [y], classes=[False, True])
    return model.estimator, ref, calls


@pytest.mark.parametrize("algorithm", STREAMING)
def test_every_streaming_id_learns_a_row_as_partial_fit_does(algorithm):
    est, ref, calls = _learn_and_replay(algorithm, _hashed_rows())
    _assert_same_state(est, ref)
    if algorithm in NO_ROW_PATH:
        assert est.__dict__.get("_row_path") is None, "has a row path now: unlist it"
        return
    assert est._row_path is not None
    assert len(calls) <= 5, calls  # folds, stage and run changes only


@pytest.mark.parametrize("algorithm", [a for a in STREAMING if a not in NO_ROW_PATH])
def test_the_two_call_path_equals_the_fused_one(algorithm, monkeypatch):
    data = _hashed_rows(n=120)
    est, ref, _ = _learn_and_replay(algorithm, data, fused=False, monkeypatch=monkeypatch)
    assert est._row_path.fused is None
    _assert_same_state(est, ref)


def test_the_state_may_change_under_a_row_path_without_harm():
    """Replace, resize, reload or free the state arrays between rows: never a crash, and the
    model learns on from the state it holds now."""
    code = r"""
import gc, pickle
import numpy as np
import aucopt
from aucopt.river import AUCClassifier

# the objects of the imports can never be garbage: a collection then reads only what the
# loop makes (0.1 s less per gc.collect, which ran 144 times)
gc.freeze()
rng = np.random.default_rng(0)
rows = [({f"f{j}": float(v) for j, v in enumerate(r)}, bool(r[0] > 0))
        for r in rng.normal(size=(400, 5))]
for algorithm in ("spam-l2", "ftrl-auc", "ogd-fifo", "solam", "pauc-1pmb", "pauc-sopa-s",
                  "oam-seq", "kar", "projection-pp"):
    m = AUCClassifier(algorithm, seed=0)
    for i, (x, y) in enumerate(rows):
        m.learn_one(x, y)
        est = m.estimator
        if i % 50 == 10:  # a replaced array (a copy), and the old one freed
            key = next(iter(k for k in est._state if est._state[k].ndim == 2))
            est._state[key] = est._state[key].copy()
            gc.collect()
        if i % 50 == 20:  # resizing an array the path holds is refused by NumPy
            key = next(iter(est._state))
            try:
                est._state[key].resize(10**6)
            except ValueError:
                pass
        if i % 50 == 30:
            est.set_params(**{k: v for k, v in est.get_params().items() if k == "verbose"})
            est.verbose = 0
        if i % 50 == 40:  # a reloaded copy replaces the estimator, the old one freed
            m.estimator = pickle.loads(pickle.dumps(est))
            del est
            gc.collect()
    est = m.estimator
    X = rng.normal(size=(30, m._width))
    est.partial_fit(X, X[:, 0] > 0)  # a chunk through the general path
    try:
        est.partial_fit(rng.normal(size=(3, m._width + 2)), [True, False, True])
    except ValueError:
        pass  # another width is refused; the model is unchanged
    m.learn_one(*rows[0])
    est.set_params(warm_start=True)
    try:  # another width with warm_start is refused; without it, a new narrower state
        est.fit(rng.normal(size=(50, 3)), rng.normal(size=50) > 0)
    except ValueError:
        est.set_params(warm_start=False).fit(rng.normal(size=(50, 3)), rng.normal(size=50) > 0)
    del m, est
    gc.collect()
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=child_env(), timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("algorithm", ["spam-l2", "solam", "ftrl-auc", "uni-squ"])
def test_a_step_set_after_the_calibration_is_the_step_the_row_path_takes(algorithm):
    """A numeric step given by set_params after a stream calibrated its "auto" step: the
    row path kept learning with the calibrated one (a user's number changed), the general
    path took the user's."""
    data = _rows(n=200)
    model = AUCClassifier(algorithm, n_features=16, seed=3)
    first = [x for x, _ in data[:100]]
    ref = general(aucopt.make(algorithm, random_state=3))
    ref.partial_fit(sp.vstack([_csr_row(model, x) for x in first], format="csr"),
                    [y for _, y in data[:100]], classes=[False, True])
    model.learn_many(__import__("pandas").DataFrame(first).fillna(0.0),
                     __import__("pandas").Series([y for _, y in data[:100]]))
    name = ref._spec().step_param
    assert model.estimator.__dict__[name + "_"] == ref.__dict__[name + "_"] != 0.5
    for est in (model.estimator, ref):
        est.set_params(**{name: 0.5})
    for x, y in data[100:]:
        model.learn_one(x, y)
        ref.partial_fit(_csr_row(model, x), [y])
    assert model.estimator._row_path is not None
    _assert_same_state(model.estimator, ref)
    assert model.estimator.__dict__[name + "_"] == ref.__dict__[name + "_"] == 0.5


@pytest.mark.parametrize("algorithm", STREAMING)
def test_a_one_row_csr_chunk_of_partial_fit_takes_the_row_path(algorithm):
    """partial_fit on one CSR row of a started stream learns it on the row path of
    learn_one (one compiled call), with the bits, step_ and n_iter_ of the general path."""
    X = sp.random(240, 16, density=0.4, format="csr", random_state=5)
    y = np.arange(240) % 3 == 0
    ours, ref = aucopt.make(algorithm, random_state=3), general(aucopt.make(algorithm,
                                                                            random_state=3))
    for est in (ours, ref):
        est.fit(X[:60], y[:60])  # n_iter_ of fit, then one per partial_fit call
    calls = []
    general_path = ours._fit_rows
    ours._fit_rows = lambda *a, **k: calls.append(1) or general_path(*a, **k)
    for i in range(60, 240):
        ours.partial_fit(X[i], y[i:i + 1])
        ref.partial_fit(X[i], y[i:i + 1])
    assert ours.__dict__.get("_row_path") is not None and len(calls) < 30, len(calls)
    _assert_same_state(ours, ref)
    assert ours.n_iter_ == ref.n_iter_ == 1
    name = ours._spec().step_param
    assert ours.__dict__.get(f"{name}_") == ref.__dict__.get(f"{name}_")
    np.testing.assert_array_equal(ours.decision_function(X), ref.decision_function(X))
