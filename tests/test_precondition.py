"""The diagonal preconditioner ``precondition="auto"`` (notes.md#preconditioning).

Against a slow NumPy transcription of preconditioned SPAM-L2 written in the original
coordinates (steps ``P G`` with ``P = diag(1/s^2)``, the penalty weighted by ``s^2``),
JIT on and off; invariance of the scores to the columns' units for every id that
declares it; the streaming rules; persistence.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms import get_algorithm, list_algorithms
from aucopt.algorithms._calibrate import MIN_ROWS
from aucopt.algorithms._precondition import (
    BOUND_KEY,
    DENSE_SHARE,
    SCALE_KEY,
    SHARED_KEY,
    SHIFT_KEY,
)
from aucopt.exceptions import ModelFileError
from aucopt.io import load, save

PRECONDITIONED = [a for a in list_algorithms()
                  if "precondition" in [p.name for p in get_algorithm(a).params]]
SPAM = {"beta": 1e-3, "eta0": 0.05, "stats": "train", "max_iter": 2, "shuffle": False,
        "output": "average"}


def _data(n=300, seed=0):
    """Columns of very different spreads: a dense one far from 0, a sparse heavy-tailed
    count (zero in 80% of rows), one in thousands."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.where(X @ rng.normal(size=5) + 0.5 * rng.normal(size=n) > 0, 1, -1)
    X[:, 1] = X[:, 1] * 0.01 + 3.0
    X[:, 2] = np.where(rng.random(n) < 0.2, np.exp(2 * np.abs(X[:, 2])), 0.0)
    X[:, 3] *= 1000.0
    return X, y


def preconditioned_spam(X, y, scale, shift, *, beta, eta0, passes, t0=30.0, bound=0.0):
    """Preconditioned SPAM-L2 (thesis Algorithm 20, class statistics of all of X, step
    ``eta0 / sqrt(t + t0)``) in the original coordinates: ``w <- (w - eta P G) / (1 +
    eta beta)`` with ``P = diag(1/s^2)`` on the centred rows ``x - c``, each multiplied
    by ``min(1, bound / |(x - c) / s|)`` (``bound`` 0: none). The l2 penalty
    ``beta/2 sum_j s_j^2 w_j^2`` has this proximal map in the metric of ``P^-1``.
    Returns the average of the iterates."""
    Xc = X - shift
    if bound > 0:
        norms = np.linalg.norm(Xc / scale, axis=1)
        Xc = Xc * np.minimum(1.0, bound / norms)[:, None]
    P = 1.0 / scale**2
    p = np.mean(y > 0)
    m_pos, m_neg = Xc[y > 0].mean(0), Xc[y < 0].mean(0)
    w, w_bar, t = np.zeros(X.shape[1]), np.zeros(X.shape[1]), 0
    for _ in range(passes):
        for i in range(len(y)):
            a, b = w @ m_pos, w @ m_neg
            x = Xc[i]
            if y[i] > 0:
                G = 2 * (1 - p) * (w @ x - a) * x - 2 * (1 + b - a) * (1 - p) * x
            else:
                G = 2 * p * (w @ x - b) * x + 2 * (1 + b - a) * p * x
            t += 1
            eta = eta0 / np.sqrt(t + t0)
            w = (w - eta * P * G) / (1 + eta * beta)
            w_bar += (w - w_bar) / t
    return w_bar


def test_scale_and_shift_follow_the_rule():
    X, y = _data()
    est = aucopt.make("spam-l2", **SPAM).fit(X, y)
    scale, shift = est._state[SCALE_KEY], est._state[SHIFT_KEY]
    dense = (X != 0).mean(0) >= DENSE_SHARE
    assert dense.tolist() == [True, True, False, True, True]
    assert_allclose(shift[dense], X[:, dense].mean(0), rtol=1e-12)
    # from sums of squares (O(nnz), no centred copy): cancellation for column 1 (mean 3, sd 0.01)
    assert_allclose(scale[dense], X[:, dense].std(0), rtol=1e-9)
    assert shift[2] == 0.0 and scale[2] == pytest.approx(np.sqrt(np.mean(X[X[:, 2] != 0, 2] ** 2)))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_equals_preconditioned_transcription(fmt):
    X, y = _data()
    est = aucopt.make("spam-l2", **SPAM).fit(X if fmt == "dense" else sp.csr_matrix(X), y)
    state = est._state
    w = preconditioned_spam(X, y, state[SCALE_KEY], state[SHIFT_KEY], beta=1e-3, eta0=0.05,
                            passes=2)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-14)
    assert_allclose(est.intercept_[0], -(w @ X[y > 0].mean(0) + w @ X[y < 0].mean(0)) / 2,
                    rtol=1e-10)
    ones = np.ones(X.shape[1])
    with np.errstate(all="ignore"):  # it diverges
        unscaled = preconditioned_spam(X, y, ones, 0 * ones, beta=1e-3, eta0=0.05, passes=2)
    assert not np.allclose(unscaled, w, rtol=1e-3)  # the test can tell P from no P


_NOJIT = """
import json, sys
import numpy as np, scipy.sparse as sp, aucopt
sys.path.insert(0, sys.argv[1])
from test_precondition import SPAM, _data
X, y = _data()
X[json.loads(sys.argv[2])] *= 100.0
out = {}
for fmt, data in (("dense", X), ("csr", sp.csr_matrix(X))):
    est = aucopt.make("spam-l2", **SPAM).fit(data, y)
    out[fmt] = est.coef_[0].tolist()
json.dump(out, sys.stdout)
"""


def nojit_coefs(long_rows=()) -> dict:
    """Return SPAM-L2's ``coef_`` on ``_data()`` (the ``long_rows`` times 100), dense and
    CSR, fitted with NUMBA_DISABLE_JIT=1 in a subprocess."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    result = subprocess.run([sys.executable, "-c", _NOJIT, os.path.dirname(__file__),
                             json.dumps(list(long_rows))],
                            env=env, check=True, capture_output=True, text=True, timeout=600)
    return json.loads(result.stdout)


def test_numba_disable_jit_equals_transcription():
    coefs = nojit_coefs()
    X, y = _data()
    state = aucopt.make("spam-l2", **SPAM).fit(X, y)._state
    w = preconditioned_spam(X, y, state[SCALE_KEY], state[SHIFT_KEY], beta=1e-3, eta0=0.05,
                            passes=2)
    for fmt, coef in coefs.items():
        assert_allclose(coef, w, rtol=1e-10, atol=1e-14, err_msg=fmt)


@pytest.mark.parametrize("algorithm_id", PRECONDITIONED)
def test_scores_do_not_depend_on_the_columns_units(algorithm_id):
    X, y = _data(n=240)
    # (column 1 then 10^4 times its spread from 0, as a pressure in Pa: its spread is its own)
    moved = X * np.array([1.0, 1000.0, 0.001, 1.0, 1.0]) + np.array([0, 1e5, 0, 0, 50.0])
    one = aucopt.make(algorithm_id, random_state=0, precondition="auto").fit(X, y)
    two = aucopt.make(algorithm_id, random_state=0, precondition="auto").fit(moved, y)
    s1, s2 = one.decision_function(X), two.decision_function(moved)
    # (the one-pass variance of column 1 keeps about 16 - 2 * 4 digits: rtol 1e-5, not 1e-7)
    assert_allclose(s2, s1, rtol=1e-5, atol=1e-7 * np.abs(s1).max())
    plain = aucopt.make(algorithm_id, random_state=0, precondition=None)
    far = plain.fit(moved, y).decision_function(moved)
    near = plain.fit(X, y).decision_function(X)
    # without it they do depend on them (svm-pauc: at lam="auto", w = 0 minimises its
    # objective on both, certified; it ranks only with the preconditioner)
    assert not np.allclose(far, near, rtol=1e-3) or (np.ptp(far) == np.ptp(near) == 0.0
                                                     and np.ptp(s1) > 0.0)


def test_stream_fixes_the_transform_on_its_first_chunk():
    X, y = _data(n=200)
    X[:100, 4] = 0.0  # column 4 first seen in the second chunk
    est = aucopt.make("spam-l2", random_state=0)
    est.partial_fit(X[:100], y[:100], classes=[-1, 1])
    scale = est._state[SCALE_KEY].copy()
    assert scale[4] == 0.0 and np.all(scale[:4] > 0)
    shared = est._state[SHARED_KEY][0]  # of the sparse column 2 in the first chunk
    values = X[:100, 2][X[:100, 2] != 0]
    assert shared == scale[2] == pytest.approx(np.sqrt(np.mean(values**2)))
    est.partial_fit(X[100:150], y[100:150])
    assert_allclose(est._state[SCALE_KEY][:4], scale[:4], rtol=0)  # never moves
    # a later feature dense in its chunk: its root mean square there, not centred
    assert est._state[SCALE_KEY][4] == pytest.approx(np.sqrt(np.mean(X[100:150, 4] ** 2)))
    assert est._state[SHIFT_KEY][4] == 0.0 and est._state[SHARED_KEY][0] == shared
    rare = aucopt.make("spam-l2", random_state=0).partial_fit(X[:100], y[:100], classes=[-1, 1])
    once = X[100:150].copy()
    once[1:, 4] = 0.0  # non-zero in one row of its chunk: the shared sparse scale
    rare.partial_fit(once, y[100:150])
    assert rare._state[SCALE_KEY][4] == shared
    few = slice(0, MIN_ROWS - 1)
    small = aucopt.make("spam-l2", random_state=0).partial_fit(X[few], y[few], classes=[-1, 1])
    seen = X[few].any(axis=0)
    assert set(small._state[SCALE_KEY][seen]) == {1.0}  # too few rows: no preconditioning
    assert not small._state[SCALE_KEY][~seen].any()
    assert not small._state[SHIFT_KEY].any()
    assert small._state[SHARED_KEY].tolist() == [1.0]  # nor for the features seen later


@pytest.mark.parametrize("algorithm", ["spam-l2", "uni-log", "ftrl-auc"])
def test_a_dense_feature_first_seen_in_a_later_chunk_does_not_depend_on_its_units(algorithm):
    """It took the shared scale of the first chunk's sparse columns, so its units decided
    its weight: x1000 took spam-l2's test AUC from 0.863 to 0.680, below the model
    without the column (0.809)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(2400, 4))
    y = np.where(X @ [1.0, 0.5, -0.5, 1.5] + rng.normal(size=2400) > 0, 1, -1)
    X[:300, 3] = 0.0  # the informative column 3 arrives with the second chunk
    scores = []
    for units in (1.0, 1000.0):
        Xu = X * [1.0, 1.0, 1.0, units]
        est = aucopt.make(algorithm, random_state=0)
        for start in range(0, 1800, 300):
            est.partial_fit(Xu[start:start + 300], y[start:start + 300], classes=[-1, 1])
        scores.append(est.decision_function(Xu[1800:]))
    assert_allclose(scores[1], scores[0], rtol=1e-9, atol=1e-12 * np.abs(scores[0]).max())


def test_learn_one_equals_partial_fit_row_by_row():
    """River: a first mini-batch fixes the transform; features that appear later in single
    rows get its shared sparse scale; learn_one equals partial_fit on the same rows (state
    widened)."""
    from aucopt.river import AUCClassifier

    from .test_river import _csr, _stream

    data = _stream(n=90, emerging=True)
    model = AUCClassifier("spam-l2", seed=0, eta0=0.5)
    head = [x for x, _ in data[:30]]
    model.learn_many(_frame(head), _series([t for _, t in data[:30]]))
    for x, t in data[30:]:
        model.learn_one(x, t)
    ref = aucopt.make("spam-l2", random_state=0, eta0=0.5)
    width = model._width
    ref.partial_fit(_csr(head, model.columns, width), [t for _, t in data[:30]],
                    classes=[False, True])
    for x, t in data[30:]:
        ref.partial_fit(_csr([x], model.columns, width), [t])
    probe = [x for x, _ in _stream(n=10, seed=1)]
    assert_allclose([model.score_one(x) for x in probe],
                    ref.decision_function(_csr(probe, model.columns, width)), rtol=1e-12)
    scale = ref._state[SCALE_KEY]
    late = [model.columns[f"f{j}"] for j in range(11, 12)]  # first seen after row 30
    shared = ref._state[SHARED_KEY][0]
    assert shared not in (0.0, 1.0) and scale[late].tolist() == [shared]
    assert (scale[:8] > 0).all()


def _frame(xs):
    import pandas as pd
    return pd.DataFrame(xs).fillna(0.0)


def _series(ys):
    import pandas as pd
    return pd.Series(ys)


def test_save_load_continue(tmp_path):
    X, y = _data(n=300)
    est = aucopt.make("solam", random_state=0).partial_fit(X[:150], y[:150], classes=[-1, 1])
    save(est, tmp_path / "m")
    back = load(tmp_path / "m")
    assert_allclose(back.decision_function(X), est.decision_function(X), rtol=0)
    est.partial_fit(X[150:], y[150:])
    back.partial_fit(X[150:], y[150:])
    assert_allclose(back.decision_function(X), est.decision_function(X), rtol=0)
    warm = aucopt.make("solam", random_state=0, warm_start=True).fit(X, y)
    scale = warm._state[SCALE_KEY].copy()
    warm.fit(X[:100] * 3.0, y[:100])  # warm_start keeps the scale of the first fit
    assert_allclose(warm._state[SCALE_KEY], scale, rtol=0)


@pytest.mark.parametrize("aid", ["spam-l2", "solam", "ftrl-auc", "kar", "opauc"])
@pytest.mark.parametrize("first, then", [("auto", None), (None, "auto")])
def test_warm_start_refuses_a_changed_precondition(aid, first, then):
    """The previous iterates are in the coordinates of the previous setting: a warm fit
    under the other one would read them in the wrong ones (and be far off the model)."""
    X, y = _data(n=200)
    X = X * np.geomspace(1e-3, 1e3, X.shape[1])
    est = aucopt.make(aid, random_state=0, max_iter=2, precondition=first).fit(X, y)
    before = est.decision_function(X)
    est.set_params(warm_start=True, precondition=then)
    with pytest.raises(ValueError, match=r"cannot continue a model learnt with precondition"):
        est.fit(X, y)
    assert_allclose(est.decision_function(X), before, rtol=0)  # unchanged
    est.set_params(precondition=first).fit(X, y)  # the same setting continues


def test_load_rejects_a_negative_scale(tmp_path):
    from ._model_files import resign  # here: subprocesses import this module by its path

    X, y = _data(n=100)
    save(aucopt.make("spam-l2", random_state=0).fit(X, y), tmp_path / "m")
    npz = next(tmp_path.glob("m*.npz"))
    arrays = dict(np.load(npz))
    arrays["state__" + SCALE_KEY][0] = -1.0
    np.savez(npz, **arrays)
    resign(tmp_path / "m")  # a consistent pair: the state's own check must refuse it
    with pytest.raises(ModelFileError, match="negative scales"):
        load(tmp_path / "m")


@pytest.mark.parametrize("key", [SCALE_KEY, "sparse_scale", "row_bound"])
def test_load_rejects_scales_stored_as_strings(tmp_path, key):
    """The type of a scale is checked before its sign (a string array once reached
    ``< 0`` and raised numpy's UFuncTypeError instead of the loader's error)."""
    from ._model_files import resign

    X, y = _data(n=100)
    save(aucopt.make("spam-net", random_state=0).fit(X, y), tmp_path / "m")
    npz = next(tmp_path.glob("m*.npz"))
    arrays = dict(np.load(npz))
    arrays["state__" + key] = arrays["state__" + key].astype("U3")
    np.savez(npz, **arrays)
    resign(tmp_path / "m")
    with pytest.raises(ModelFileError, match=f"state entry '{key}' is <U3"):
        load(tmp_path / "m")


def test_one_row_is_transformed_as_it_is_in_a_block():
    """A single CSR row (River's ``learn_one``, ``partial_fit`` row by row) takes a shorter
    path than a block; both give the same columns and bits, centred columns, explicit
    zeros, values that cancel and long rows included."""
    from aucopt.algorithms._data import as_rows
    from aucopt.algorithms._precondition import (
        BOUND_KEY,
        centred_columns,
        new_transform,
        transform_rows,
    )

    rng = np.random.default_rng(5)
    for trial in range(200):
        d = int(rng.integers(2, 40))
        state = new_transform(d)
        state[SCALE_KEY][:] = rng.uniform(0.5, 2.0, size=d)
        dense = rng.random(d) < 0.5
        state[SHIFT_KEY][dense] = rng.normal(size=dense.sum())
        state[BOUND_KEY][0] = 3.0 if trial % 2 else 0.0
        X = sp.random(6, d, density=0.4, format="csr", random_state=trial)
        X.data[rng.random(X.nnz) < 0.2] = 0.0  # explicit zeros
        centred = centred_columns(state)
        if centred.size and X.nnz:  # a value that the shift cancels exactly
            j = X.indices[0]
            state[SHIFT_KEY][j] = X.data[0]
            centred = centred_columns(state)
        block = transform_rows(as_rows(X), state, centred)
        for i in range(X.shape[0]):
            one = transform_rows(as_rows(X[i]), state, centred)
            lo, hi = block.indptr[i], block.indptr[i + 1]
            np.testing.assert_array_equal(one.indices, block.indices[lo:hi])
            np.testing.assert_array_equal(one.data, block.data[lo:hi])
            assert one.indices.dtype == block.indices.dtype


def test_the_partial_auc_svm_is_preconditioned_without_shortening_rows():
    """``svm-pauc`` (``clip_rows=False``) fits the rows only centred and scaled: its scores
    equal the papers' solver on those rows, long rows included (a bound would reshape the
    top-scored negatives its loss is about); ``svm-perf`` shortens them."""
    X, y = _data(n=240)
    X[:6] *= 40.0  # rows far beyond 3 median lengths
    est = aucopt.make("svm-pauc").fit(X, y)
    state = est._state
    assert state[BOUND_KEY][0] == 0.0 and np.all(state[SCALE_KEY] > 0)
    centred = state[SHIFT_KEY] != 0.0
    moved = (X - np.where(centred, state[SHIFT_KEY], 0.0)) / state[SCALE_KEY]
    plain = aucopt.make("svm-pauc", precondition=None).fit(moved, y)
    s1, s2 = est.decision_function(X), plain.decision_function(moved)
    assert_allclose(s1 - s1.mean(), s2 - s2.mean(), rtol=1e-7, atol=1e-9 * np.abs(s1).max())
    assert aucopt.make("svm-perf").fit(X, y)._state[BOUND_KEY][0] > 0.0


@pytest.mark.parametrize("n", [2000, 25_000])  # all rows read; every third (MEDIAN_ROWS)
@pytest.mark.parametrize("as_format", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("algorithm", ["spam-l2", "solam", "uni-squ"])
def test_a_date_in_seconds_keeps_its_own_spread(algorithm, as_format, n):
    """A column of 1.7e9 + 500 z (a date in seconds, spread 500): its variance, taken in one
    pass as mean square minus squared mean, lost all its digits, and the column was taken
    for a constant: scaled by its root mean square (1.7e9), its signal was gone (AUC 0.51
    against 0.94 at offset 0). It is now computed again in two passes; the same model comes
    out at either offset, as notes.md#preconditioning says."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    z = rng.normal(size=(n, 3))
    y = np.where(z[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    scales, aucs = [], []
    for offset in (0.0, 1.7e9):
        X = z.copy()
        X[:, 0] = offset + 500.0 * z[:, 0]
        est = aucopt.make(algorithm, random_state=0).fit(as_format(X), y)
        scales.append(est._state[SCALE_KEY][0])
        aucs.append(roc_auc_score(y, est.decision_function(as_format(X))))
    assert scales[0] == pytest.approx(500.0, rel=0.05)
    assert scales[1] == pytest.approx(scales[0], rel=1e-6)
    assert aucs[1] == pytest.approx(aucs[0], abs=1e-4) and aucs[0] > 0.85


def test_a_constant_column_is_shifted_to_exact_zeros():
    """Rows all equal to (0.1, 0.7, -0.3): the mean of a constant column may differ from its
    value in the last bit, and the rows became of length 3e-15 instead of 0; OPAUCr then
    tripped its divergence guard, blaming an extreme scale the data did not have. A column
    that holds one value in the rows read is now shifted by that value itself."""
    X = np.tile([[0.1, 0.7, -0.3]], (100, 1))
    y = np.r_[np.ones(50), -np.ones(50)]
    for algorithm in ("opauc-r", "spam-l2"):
        est = aucopt.make(algorithm, random_state=0).fit(X, y)
        assert np.array_equal(est._state[SHIFT_KEY], X[0])
        assert np.unique(est.decision_function(X)).size == 1
    rng = np.random.default_rng(0)
    Z = np.c_[rng.normal(size=(200, 2)), np.full(200, 0.1)]  # one constant column among others
    est = aucopt.make("spam-l2", random_state=0).fit(Z, np.where(Z[:, 0] > 0, 1, -1))
    assert est._state[SHIFT_KEY][2] == 0.1 and est._state[SCALE_KEY][2] == pytest.approx(0.1)
