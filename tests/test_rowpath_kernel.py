"""The one-row path of the kernel-model ids: AOGD (``aogd``; aucopt._kernels.aogd.aogd_row,
the ``row_kernel`` of aucopt.algorithms.aogd) and Projection++ (``projection-pp``;
aucopt._kernels.kernel_budget.projection_pp_row, the ``row_kernel`` of
aucopt.algorithms.kernel_budget).

``learn_one`` draws each row's uniforms from the estimator's generator as ``partial_fit``
on a one-row chunk does and gives its bits, row by row and in chunks, every row after the
first on the row path. A step that stops there leaves the state and the generator exactly
as they were (the kernels put back what they keep: AOGD's weights, means and
representatives, KOIL's coefficients and weights; KOIL writes the row into its slot of the
support vectors and the Gram matrix only once the step has finished), so that the general
path redoes the row from there.
"""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("river")

import aucopt  # noqa: E402
from aucopt._kernels._checks import DIVERGED  # noqa: E402
from aucopt._kernels.row_step import NOT_HERE  # noqa: E402
from aucopt.algorithms._data import identity_order  # noqa: E402
from aucopt.algorithms._spec import RowData  # noqa: E402
from aucopt.exceptions import DivergenceError  # noqa: E402
from aucopt.river import AUCClassifier  # noqa: E402

from ._general_path import general
from .test_rowpath import _assert_same_state, _counting, _csr_row, _learn_counting
from .test_rowpath_oam import (
    _learn_both,
    _position,
    assert_replayed_by_rows,
    check_without_numba,
    in_chunks,
)

IDS = ("aogd", "projection-pp")
# small models (a buffer of a few support vectors: many replacements); an "auto" bandwidth
# or step is fixed by the first chunk, so those settings are compared by rows only
SETTINGS = {
    "aogd": [{"eta": 0.05, "n_components": 20, "bandwidth": 1.0},
             {"eta": 0.1, "eta_random": 0.02, "n_components": 16, "averaging": "global",
              "q": 0.8, "lam": 0.01, "bandwidth": 2.0},
             {"n_components": 10}],
    "projection-pp": [{"eta": 0.1, "budget": 4, "bandwidth": 1.0},
                      {"eta": 0.3, "budget": 3, "n_neighbors": 2, "lam": 0.01,
                       "replacement": "fifo", "bandwidth": 3.0},
                      {"budget": 5, "n_neighbors": 1}],
}
CASES = [(a, p) for a in IDS for p in SETTINGS[a]]


def _rows(dense: bool, n=300, d=12, seed=0, positive_rate=0.3):
    """Feature dicts of ``d`` names: every name (``dense``) or those whose value is above
    -0.8 (rows of varying length)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + 0.5 * rng.normal(size=n) > np.quantile(X[:, 0], 1 - positive_rate)
    return [({f"f{j}": float(v) for j, v in enumerate(row) if dense or v > -0.8}, bool(t))
            for row, t in zip(X, y)]


def _model(algorithm, params, data, warm=1, seed=7):
    """Learn ``data`` row by row (hashed into 16 columns); return the model and the
    general-path calls after ``warm``."""
    return _learn_counting(data, warm, algorithm, n_features=16, seed=seed, **params)


def _estimator(algorithm, params, seed=7):
    return general(aucopt.make(algorithm, random_state=seed, **params))


@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
@pytest.mark.parametrize("algorithm, params", CASES)
def test_learn_one_equals_partial_fit_by_rows_and_in_chunks(algorithm, params, dense):
    data = _rows(dense)
    model, calls = _model(algorithm, params, data)
    est = model.estimator
    assert est._row_path is not None
    assert calls == [], calls  # every row after the first on the row path
    assert est.t_ > 200
    if algorithm == "projection-pp":  # the buffers were full and rows replaced others
        assert (est._state["seen"] > est._state["size"]).all()
    rows, labels = assert_replayed_by_rows(model, data, _estimator(algorithm, params))
    if "eta" not in params:
        return
    chunks = in_chunks(_estimator(algorithm, params), rows, labels)
    _assert_same_state(est, chunks)
    assert _position(est._rng) == _position(chunks._rng)
    assert _position(est._rng) == _position(chunks._rng)


# a step so large that the steps of the rows of a huge sample weight diverge (AOGD's
# pair coefficients, KOIL's new coefficient), and the others do not
DIVERGING = {"aogd": {"eta": 0.05, "n_components": 12, "bandwidth": 1.0},
             "projection-pp": {"eta": 0.1, "budget": 3, "bandwidth": 1.0}}


@pytest.mark.parametrize("algorithm", IDS)
def test_weighted_rows_and_diverging_steps_as_partial_fit(algorithm):
    """Signed weights (+-w) and rows of a huge weight whose steps diverge: each row on
    the row path, undone and redone by the general path when it stops, gives the bits
    (and the errors) of partial_fit with sample_weight, and the generator's position."""
    rng = np.random.default_rng(5)
    X = sp.random(300, 10, density=0.4, random_state=1, format="csr")
    X.data = rng.normal(size=X.data.size)
    y, w = rng.random(300) < 0.3, rng.uniform(0.2, 3.0, 300)
    w[20::7] = 1e30
    models = [_estimator(algorithm, DIVERGING[algorithm], seed=2) for _ in range(2)]
    errors = _learn_both(models, X, y, w)
    assert 10 <= errors <= 41, errors


def _stopping(est, x, signed):
    """Run the general path's pass on a copy of ``est``'s state for the one-row chunk ``x``
    (values at columns 0, 1, ...) of signed weight ``signed``; return its status and the
    entries it wrote."""
    state, rng = copy.deepcopy(est._state), copy.deepcopy(est._rng)
    rows = _row(x)
    spec = est._spec()
    _, status = spec.run(state, rows, signed, identity_order(1), est._params(), est.t_, True,
                         rng)
    written = {k for k in state if not np.array_equal(state[k], est._state[k], equal_nan=True)}
    return status, written


def _row(x):
    return RowData(np.array(x, dtype=float), np.arange(len(x)), np.array([0, len(x)]), 1, 4)


# (params, rows before: (values, label) after a first negative, the last row (values,
# signed weight), what the general path's pass writes before it stops on the last row):
# AOGD's global average with
# a same-label representative takes one step of 1e308 (w overflows), then adds the row to
# the mean and the representative before its final check; KOIL's shrink factor
# 1 - eta lam = -1e9 overflows the coefficients on the 34th row, to which its full FIFO
# buffer gave a slot of the support vectors and the Gram matrix
AFTER_A_WRITE = {
    "aogd": ({"eta": 1e308, "averaging": "global", "q": 1.0, "n_components": 4,
              "bandwidth": 1.0}, [], ([0.5, -1.0, 2.0, 1.0], -2.0),
             {"w", "phi_mean", "rep"}),
    "projection-pp": ({"eta": 1e6, "lam": 1e3, "budget": 2, "replacement": "fifo",
                       "bandwidth": 1.0},
                      [([0.5 * k, -1.0, 2.0 - k, 1.0], k % 2 == 0) for k in range(1, 34)],
                      ([17.0, -1.0, -32.0, 1.0], 2.0),
                      {"alpha", "sv_w", "sv", "sv_sq", "gram"}),
}


@pytest.mark.parametrize("algorithm", sorted(AFTER_A_WRITE))
def test_a_step_that_stops_after_writing_leaves_the_state_as_it_was(algorithm):
    """The row path's call itself returns ``NOT_HERE`` with the state and the generator as
    they were; ``_learn_row`` then raises the general path's DivergenceError."""
    params, before, (values, weight), writes = AFTER_A_WRITE[algorithm]
    est = _estimator(algorithm, params, seed=0)
    est.partial_fit(sp.csr_matrix([[1.0, -1.0, 2.0, 1.0]]), [False], classes=[False, True])
    for x, y in before:
        est._learn_row(_row(x), np.array([1.0 if y else -1.0]))
    row, signed = _row(values), np.array([weight])
    status, written = _stopping(est, values, signed)
    assert status == DIVERGED and writes <= written, written  # what the row path withholds
    state, position, t = copy.deepcopy(est._state), _position(est._rng), est.t_
    path = est._new_row_path(est._params())
    assert path is not None
    assert path(row.data, row.indices, row.indptr, signed, t, est._rng) == (t, NOT_HERE)
    assert _position(est._rng) == position
    for key, value in state.items():
        np.testing.assert_array_equal(est._state[key], value, err_msg=key)
    with pytest.raises(DivergenceError):
        est._learn_row(row, signed)
    assert est.t_ == t and _position(est._rng) == position and est._row_path is not None
    for key, value in state.items():
        np.testing.assert_array_equal(est._state[key], value, err_msg=key)


@pytest.mark.parametrize("algorithm", IDS)
def test_a_reloaded_model_goes_back_to_the_row_path(algorithm):
    """A pickled model holds writable copies of AOGD's frequencies: its first row takes
    the general path (which makes them read-only again), the next ones the row path."""
    data = _rows(False)
    params = SETTINGS[algorithm][0]
    model = AUCClassifier(algorithm, n_features=16, seed=7, **params)
    for x, y in data[:100]:
        model.learn_one(x, y)
    model = pickle.loads(pickle.dumps(model))
    if algorithm == "aogd":
        assert model.estimator._state["freq"].flags.writeable
    calls = _counting(model)
    for x, y in data[100:]:
        model.learn_one(x, y)
    assert len(calls) <= 1 and model.estimator._row_path is not None, calls
    ref = _estimator(algorithm, params)
    for x, y in data:
        ref.partial_fit(_csr_row(model, x), [y], classes=[False, True])
    _assert_same_state(model.estimator, ref)


def test_learn_one_without_numba_equals_partial_fit_and_the_compiled_run():
    check_without_numba([("aogd", {"n_components": 8, "eta": 0.1}),
                         ("projection-pp", {"budget": 3, "eta": 0.2})])
