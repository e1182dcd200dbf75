"""The fused one-row path of ``learn_one`` (aucopt.algorithms._rowpath, _kernels.spam_row).

It must give the bits of ``partial_fit`` on the same row, and whatever it cannot finish
(a divergence, a fold of the lazy scales, a bad row) must leave the state exactly as it
was, so that the general path redoes the row from there.
"""

import copy
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("river")

import aucopt  # noqa: E402
from aucopt.exceptions import DivergenceError  # noqa: E402
from aucopt.river import AUCClassifier  # noqa: E402


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
    cols = [model.columns[k] for k in x]
    row = sp.csr_matrix((list(x.values()), (np.zeros(len(x), int), cols)),
                        shape=(1, model._width))
    row.sort_indices()
    return row


def _replay(model, data, ref=None, **params):
    """``partial_fit`` on each row as a one-row CSR chunk, with ``model``'s columns."""
    ref = aucopt.make("spam-l2", **params) if ref is None else ref
    for x, y in data:
        ref.partial_fit(_csr_row(model, x), [y], classes=[False, True])
    return ref


def _learn_counting(data, warm, **params):
    """Learn ``data`` row by row; return the model and the general-path calls after ``warm``."""
    model = AUCClassifier("spam-l2", **params)
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
    model = AUCClassifier("spam-l2", eta0=1.0)
    for x, y in data:
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


def test_learn_one_without_numba_takes_the_general_path():
    code = (
        "from aucopt.river import AUCClassifier\n"
        "m = AUCClassifier('spam-l2')\n"
        "for i in range(40):\n"
        "    m.learn_one({'a': float(i % 7) - 3.0, 'b': 1.0}, i % 3 == 0)\n"
        "assert m.estimator.__dict__.get('_row_path') is None\n"
        "print(m.estimator.t_)\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 0
