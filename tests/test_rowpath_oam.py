"""The one-row path of the ids that draw random numbers per row: the reservoir learners
(``oam-seq``, ``oam-gra``, ``kar``; aucopt._kernels.reservoir_rows, the ``row_kernel`` of
aucopt.algorithms.oam and aucopt.algorithms.pairwise_buffer) and OPAUCr (``opauc-r``, its
Gaussian sketch rows): ``learn_one`` draws each row's numbers from the estimator's
generator as ``partial_fit`` on a one-row chunk does and gives its bits, row by row and in
chunks where the ids promise it (not Kar: its lazy pass rounds per call), every row on
the row path; a step that stops there leaves the state and the generator exactly as they
were, so that the general path redoes the row from there.
"""

import copy
import json

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

pytest.importorskip("river")

import aucopt  # noqa: E402
from aucopt.algorithms._spec import RowData  # noqa: E402
from aucopt.exceptions import DivergenceError  # noqa: E402

from ._general_path import general
from ._jit_pair import compiled_output, interpreted_output
from .test_rowpath import _assert_same_state, _csr_row, _learn_counting
from .test_rowpath_pauc import _rows  # rows of varying length, 12 names

IDS = ("oam-seq", "oam-gra", "kar")
# small reservoirs (many replacements); an "auto" step follows the largest row norm seen, so
# the step is bound again on the row path (and compared by rows only: chunks calibrate)
SETTINGS = {
    "oam-seq": [{"C": 0.05, "buffer_size": 4}, {"C": "auto", "buffer_size": 3}],
    "oam-gra": [{"C": 0.5, "buffer_size": 4}, {"C": "auto", "buffer_size": 3}],
    "kar": [{"eta": 0.05, "buffer_size": 4},
            {"eta": "auto", "buffer_size": 30, "loss": "hinge", "radius": 1.0, "lam": 0.01}],
    # OPAUCr draws a Gaussian sketch row per row (the generator's state is saved for it)
    "opauc-r": [{"eta": 0.05, "rank": 5}, {"eta": "auto", "rank": 3, "lam": 0.01}],
}
CASES = [(a, p) for a in SETTINGS for p in SETTINGS[a]]


def _model(algorithm, params, data, warm=20, seed=7):
    """Learn ``data`` row by row; return the model and the general-path calls after ``warm``
    (hashed into 16 columns: the slots take every row once they are as wide)."""
    return _learn_counting(data, warm, algorithm, n_features=16, precondition=None, seed=seed,
                           **params)


def _position(rng) -> str:
    """The state of ``rng``'s bit generator, comparable (arrays as lists)."""
    return json.dumps(rng.bit_generator.state, default=np.ndarray.tolist)


def _estimator(algorithm, params, seed=7):
    return general(aucopt.make(algorithm, precondition=None, random_state=seed, **params))


def assert_replayed_by_rows(model, data, ref):
    """Assert that ``partial_fit`` of ``ref`` on each row of ``data`` (learnt by ``model``)
    as a one-row CSR chunk in ``model``'s columns gives ``model``'s state and generator
    position; return those rows and their labels."""
    rows = [_csr_row(model, x) for x, _ in data]
    labels = [y for _, y in data]
    for row, y in zip(rows, labels):
        ref.partial_fit(row, [y], classes=[False, True])
    _assert_same_state(model.estimator, ref)
    assert _position(model.estimator._rng) == _position(ref._rng)
    return rows, labels


def in_chunks(ref, rows, labels, size=37):
    """Return ``ref`` after ``partial_fit`` on ``rows`` in chunks of ``size``."""
    for start in range(0, len(rows), size):
        ref.partial_fit(sp.vstack(rows[start:start + size], format="csr"),
                        labels[start:start + size], classes=[False, True])
    return ref


@pytest.mark.parametrize("algorithm, params", CASES)
def test_learn_one_equals_partial_fit_by_rows_and_in_chunks(algorithm, params):
    data = _rows()
    model, calls = _model(algorithm, params, data)
    est = model.estimator
    assert est._row_path is not None
    assert calls == [], calls  # every row after the first ones on the row path
    assert est.t_ > 100
    rows, labels = assert_replayed_by_rows(model, data, _estimator(algorithm, params))
    if "auto" in params.values():
        return
    chunks = in_chunks(_estimator(algorithm, params), rows, labels)
    if algorithm == "kar":  # the lazy pass's sums and scales are per call: to rounding
        assert chunks.t_ == est.t_
        assert_allclose(chunks.coef_, est.coef_, rtol=1e-12, atol=1e-13)
    else:
        _assert_same_state(est, chunks)


@pytest.mark.parametrize("half_output", [False, True])
def test_the_generator_is_put_back_whatever_it_keeps(half_output):
    """The row path steps PCG64 back by the draws of a row that takes the general path;
    a PCG64 keeping half an output (after a 32-bit draw) or any other bit generator (here
    MT19937) gets its saved state back (through divergences)."""
    rng = np.random.default_rng(5)
    X = sp.random(200, 10, density=0.5, random_state=1, format="csr")
    X.data = rng.normal(size=X.data.size)
    y = rng.random(200) < 0.4
    models = [aucopt.make("oam-seq", C=3.0, buffer_size=3, precondition=None,
                          random_state=4 if half_output else np.random.Generator(
                              np.random.MT19937(4))) for _ in range(2)]
    _learn_both(models, X, y, np.ones(200), diverging=(20, 100), half_output=half_output)
    if half_output:
        assert models[0]._rng.bit_generator.state["has_uint32"] == 1


def _diverged(call, *args, **kwargs) -> int:
    """Return 1 if ``call(*args, **kwargs)`` raised DivergenceError, else 0."""
    try:
        call(*args, **kwargs)
    except DivergenceError:
        return 1
    return 0


def _learn_both(models, X, y, w, diverging=(), half_output=False):
    """Learn the rows of ``X`` with ``models[0]._learn_row`` (after a first chunk of 5) and
    ``models[1].partial_fit`` row by row, rows ``diverging`` made huge (and the generators
    made to keep half an output first); check the errors, the states and the generators
    agree; return the errors of the row path."""
    for m in models:
        m.partial_fit(X[:5], y[:5], classes=[False, True], sample_weight=w[:5])
        if half_output:
            m._rng.integers(2**32 - 1, dtype=np.uint32)
    errors = [0, 0]
    for i in range(5, X.shape[0]):
        row = X[i].copy()
        if i in diverging:
            row.data = row.data * 1e150
        errors[0] += _diverged(models[0]._learn_row,
                               RowData(row.data, row.indices, row.indptr, 1, X.shape[1]),
                               np.array([w[i] if y[i] else -w[i]]))
        errors[1] += _diverged(models[1].partial_fit, row, y[i:i + 1], sample_weight=w[i:i + 1])
    assert models[0]._row_path is not None
    assert errors[0] == errors[1], errors
    _assert_same_state(*models)
    assert _position(models[0]._rng) == _position(models[1]._rng)
    return errors[0]


# Kar's square loss on these rows diverges from time to time at this step; OAM's steps
# stay bounded (a proximal step, a hinge subgradient): huge rows make them stop
DIVERGING = {"oam-seq": {"C": 0.5}, "oam-gra": {"C": 0.5},
             "kar": {"eta": 5e-4, "schedule": "constant"}}


@pytest.mark.parametrize("algorithm", IDS)
def test_weighted_rows_and_diverging_steps_as_partial_fit(algorithm):
    """Signed weights (+-w) and steps that diverge (huge rows, and Kar's step): each row
    on the row path, undone and redone by the general path when it stops, gives the bits
    (and the errors) of partial_fit with sample_weight, and the generator's position."""
    rng = np.random.default_rng(5)
    X = sp.random(300, 10, density=0.4, random_state=1, format="csr")
    X.data = rng.normal(size=X.data.size) * rng.uniform(0.1, 30.0, size=X.data.size)
    y, w = rng.random(300) < 0.3, rng.uniform(0.2, 3.0, 300)
    models = [aucopt.make(algorithm, buffer_size=3, precondition=None, random_state=2,
                          **DIVERGING[algorithm]) for _ in range(2)]
    errors = _learn_both(models, X, y, w, diverging=range(20, 300, 7))
    assert 40 <= errors < 250, errors


@pytest.mark.parametrize("algorithm", list(SETTINGS))
def test_a_step_that_stops_on_the_row_path_leaves_the_state_as_it_was(algorithm):
    """A huge row stored (or not, by the coin) and then compared: the kernel stops, and the
    state, the counter and the generator are those before the row; many times, so that
    the row goes to a full reservoir's slot on some and to none on others."""
    data = _rows()
    model, _ = _model(algorithm, SETTINGS[algorithm][0], data[:60])
    est = model.estimator
    assert est._row_path is not None
    outcomes = set()
    for k in range(40):
        for x, y in data[60 + 3 * k:63 + 3 * k]:
            model.learn_one(x, y)
        state, rng = est._state, est._rng
        label = bool(k % 2)
        if algorithm.startswith("oam"):  # whether the huge row takes a slot of its reservoir
            c, u = int(label), copy.deepcopy(rng).random(2)
            size, seen, cap = (int(state["size"][c]), int(state["seen"][c]) + 1,
                                state["buf_sq"].shape[1])
            outcomes.add(size < cap or u[0] * seen < cap)
        before, position, t = copy.deepcopy(state), _position(rng), est.t_
        with pytest.raises(DivergenceError):
            model.learn_one({"f0": 1e150, "f1": -1e150, "f2": 1e150}, label)
        assert est.t_ == t and _position(rng) == position
        for key, value in before.items():
            np.testing.assert_array_equal(est._state[key], value, err_msg=key)
    if algorithm.startswith("oam"):
        assert outcomes == {True, False}
    assert est._row_path is not None


# rows (values, label) after a first negative [1, -1, 2, 1], the last one diverging after
# its step wrote the iterate (and the row its slot): OAM_seq's second comparison meets a
# huge row stored while the other reservoir was empty; OAM_gra's and Kar's steps overflow
AFTER_A_WRITE = {
    "oam-seq": ({"C": 10.0}, [([1.0, 2.0, -1.0, 0.5], False),
                              ([1e14, -1e14, 1e14, 1e14], False), ([0.5, -1.0, 2.0, 1.0], True)]),
    "oam-gra": ({"C": 1e300}, [([1.0, 2.0, -1.0, 0.5], False), ([1e10, -1e10, 1e10, 1e10], True)]),
    "kar": ({"eta": 1e300, "schedule": "constant"}, [([1.0, 2.0, -1.0, 0.5], False),
                                                      ([1e10, -1e10, 1e10, 1e10], True)]),
}


@pytest.mark.parametrize("algorithm", sorted(AFTER_A_WRITE))
def test_a_step_that_stops_after_writing_puts_the_iterate_back(algorithm):
    params, rows = AFTER_A_WRITE[algorithm]
    est = aucopt.make(algorithm, buffer_size=3, precondition=None, random_state=0, **params)
    est.partial_fit(sp.csr_matrix([[1.0, -1.0, 2.0, 1.0]]), [False], classes=[False, True])
    for values, label in rows[:-1]:
        est._learn_row(RowData(np.array(values), np.arange(4, dtype=np.int32),
                               np.array([0, 4], dtype=np.int32), 1, 4),
                       np.array([1.0 if label else -1.0]))
    assert est._row_path is not None and est._state["size"].sum() == len(rows)
    before, position = copy.deepcopy(est._state), _position(est._rng)
    values, label = rows[-1]
    with pytest.raises(DivergenceError):
        est._learn_row(RowData(np.array(values), np.arange(4, dtype=np.int32),
                               np.array([0, 4], dtype=np.int32), 1, 4),
                       np.array([1.0 if label else -1.0]))
    assert _position(est._rng) == position
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value, err_msg=key)


_NOJIT_SCRIPT = """
import json
import sys
import numpy as np
import scipy.sparse as sp
import aucopt
from aucopt.algorithms._spec import RowData

X = sp.random(80, 6, density=0.6, random_state=0, format="csr")
X.data = np.linspace(-2.0, 2.0, X.data.size)
y = np.arange(80) % 3 == 0
out = {}
for a, params in json.loads(sys.argv[1]):
    by_path, by_fit = (aucopt.make(a, random_state=1, **params) for _ in range(2))
    by_fit._one_row_path = False  # the general path
    for i in range(80):
        row = X[i]
        if i:
            by_path._learn_row(RowData(row.data, row.indices, row.indptr, 1, 6),
                               np.array([1.0 if y[i] else -1.0]))
        else:
            by_path.partial_fit(row, y[:1], classes=[False, True])
        by_fit.partial_fit(row, y[i:i + 1], classes=[False, True])
    same = all(np.array_equal(by_path._state[k], by_fit._state[k]) for k in by_fit._state)
    out[a] = [by_path.t_, by_path.__dict__.get("_row_path") is not None, same,
              by_path.decision_function(X[:20].toarray()).tolist()]
print(json.dumps(out))
"""


def check_without_numba(cases):
    """Learn 80 rows with each ``(id, params)`` of ``cases`` on the row path, compiled and
    with ``NUMBA_DISABLE_JIT=1``: in both runs each row gives the bits of ``partial_fit``;
    the two runs' scores agree to rounding (numba's and NumPy's elementary functions may
    differ)."""
    arg = json.dumps(cases)
    runs = [json.loads(f(_NOJIT_SCRIPT, arg)) for f in (compiled_output, interpreted_output)]
    for a, _ in cases:
        (t, on_path, same, scores), other = runs[0][a], runs[1][a]
        assert on_path and same and t > 10 and other[:3] == [t, on_path, same], (a, other)
        assert_allclose(scores, other[3], rtol=1e-10, atol=1e-12, err_msg=a)


def test_learn_one_without_numba_equals_partial_fit_and_the_compiled_run():
    check_without_numba([("oam-seq", {"buffer_size": 3}), ("oam-gra", {"buffer_size": 3}),
                         ("kar", {"buffer_size": 3}), ("opauc-r", {"rank": 3, "eta": 0.05})])
