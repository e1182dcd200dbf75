"""The row bound of ``precondition="auto"`` (notes.md#preconditioning): a transformed row
longer than ``ROW_CLIP`` times the median length is shortened to that length, against a
slow NumPy transcription (JIT on and off), on a few rows of 100x the typical norm, in
streams, and for models saved before it.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms import _precondition
from aucopt.algorithms._precondition import BOUND_KEY, ROW_CLIP, SCALE_KEY, SHIFT_KEY
from aucopt.io import load, save
from aucopt.metrics import roc_auc_score

from .test_precondition import SPAM, _data, nojit_coefs, preconditioned_spam

WEIGHTS = np.random.default_rng(99).normal(size=20)
LONG_ROWS = [3, 50, 200]


def outlier_rows(n=800, seed=0, outliers=3):
    """Gaussian rows labelled by a noisy linear score; ``outliers`` of them times 100."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    y = np.where(X @ WEIGHTS + 2.0 * rng.normal(size=n) > 1.0, 1, -1)
    X[rng.choice(n, outliers, replace=False)] *= 100.0
    return X, y


def _with_outliers():
    X, y = _data()
    X[LONG_ROWS] *= 100.0  # rows of both classes
    return X, y


def _bound(X, state, weight, stride=1):
    """ROW_CLIP times the weighted median norm of the transformed rows ``0, stride, ...``:
    the smallest norm with at least half of their weight at or below it."""
    X, weight = X[::stride], weight[::stride]
    norms = np.linalg.norm((X - state[SHIFT_KEY]) / state[SCALE_KEY], axis=1)
    order = np.argsort(norms)
    cumulative = np.cumsum(weight[order])
    return ROW_CLIP * norms[order][np.argmax(cumulative >= cumulative[-1] / 2)]


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("at_most", [None, 100])
def test_the_bound_follows_the_rule(fmt, weighted, at_most, monkeypatch):
    if at_most is not None:  # the median over every third row of 300
        monkeypatch.setattr(_precondition, "MEDIAN_ROWS", at_most)
    X, y = _with_outliers()
    weight = 1.0 + np.arange(len(y)) % 4 if weighted else np.ones(len(y))
    data = X if fmt == "dense" else sp.csr_matrix(X)
    state = aucopt.make("spam-l2", **SPAM).fit(data, y, sample_weight=weight)._state
    stride = 1 if at_most is None else 3
    assert state[BOUND_KEY][0] == pytest.approx(_bound(X, state, weight, stride), rel=1e-9)
    if at_most is not None:
        assert state[BOUND_KEY][0] != pytest.approx(_bound(X, state, weight), rel=1e-6)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_equals_the_clipped_transcription(fmt):
    X, y = _with_outliers()
    est = aucopt.make("spam-l2", **SPAM).fit(X if fmt == "dense" else sp.csr_matrix(X), y)
    state = est._state
    bound = state[BOUND_KEY][0]
    norms = np.linalg.norm((X - state[SHIFT_KEY]) / state[SCALE_KEY], axis=1)
    assert 3 <= (norms > bound).sum() < 30  # a few rows of 300 clipped
    w = preconditioned_spam(X, y, state[SCALE_KEY], state[SHIFT_KEY], beta=1e-3, eta0=0.05,
                            passes=2, bound=bound)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-14)
    plain = preconditioned_spam(X, y, state[SCALE_KEY], state[SHIFT_KEY], beta=1e-3,
                                eta0=0.05, passes=2)
    assert not np.allclose(plain, w, rtol=1e-3)


def test_numba_disable_jit_equals_the_clipped_transcription():
    coefs = nojit_coefs(LONG_ROWS)
    X, y = _with_outliers()
    state = aucopt.make("spam-l2", **SPAM).fit(X, y)._state
    w = preconditioned_spam(X, y, state[SCALE_KEY], state[SHIFT_KEY], beta=1e-3, eta0=0.05,
                            passes=2, bound=state[BOUND_KEY][0])
    for fmt, coef in coefs.items():
        assert_allclose(coef, w, rtol=1e-10, atol=1e-14, err_msg=fmt)


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "solam"])
def test_a_few_long_rows_do_not_dominate(algorithm_id):
    """Unclipped, three rows of 100x the typical norm cost 0.05-0.06 test AUC."""
    X, y = outlier_rows()
    Xt, yt = outlier_rows(4000, seed=1, outliers=0)
    keep = np.linalg.norm(X, axis=1) < 50
    est = aucopt.make(algorithm_id, random_state=0)
    with_them = roc_auc_score(yt, est.fit(X, y).decision_function(Xt))
    without = roc_auc_score(yt, est.fit(X[keep], y[keep]).decision_function(Xt))
    assert with_them == pytest.approx(without, abs=0.01)


def test_a_stream_keeps_the_bound_of_its_first_chunk():
    X, y = _with_outliers()
    est = aucopt.make("spam-l2", random_state=0).partial_fit(X[:150], y[:150],
                                                                classes=[-1, 1])
    bound = est._state[BOUND_KEY][0]
    assert bound == pytest.approx(_bound(X[:150], est._state, np.ones(150)), rel=1e-9)
    est.partial_fit(X[150:], y[150:])
    assert est._state[BOUND_KEY][0] == bound
    few = aucopt.make("spam-l2", random_state=0).partial_fit(X[:5], y[:5], classes=[-1, 1])
    assert few._state[BOUND_KEY].tolist() == [0.0]  # too few rows: no bound


def test_a_model_saved_without_the_bound_loads_unbounded(tmp_path):
    from ._model_files import resign

    X, y = _with_outliers()
    est = aucopt.make("solam", random_state=0).partial_fit(X[:150], y[:150], classes=[-1, 1])
    save(est, tmp_path / "m")
    npz = next(tmp_path.glob("m*.npz"))
    arrays = dict(np.load(npz))
    del arrays["state__" + BOUND_KEY]
    np.savez(npz, **arrays)
    resign(tmp_path / "m")
    back = load(tmp_path / "m")
    assert_allclose(back.decision_function(X), est.decision_function(X), rtol=0)
    assert back._state[BOUND_KEY].tolist() == [0.0]
    back.partial_fit(X[150:], y[150:])
    assert np.isfinite(back.decision_function(X)).all()


def _given(kind, X):
    """``X`` in the container ``kind``, and whether aucopt's checks copy its values."""
    return {
        "float64": (X, False),
        "float32": (X.astype(np.float32), True),
        "fortran": (np.asfortranarray(X), True),
        "list": (X.tolist(), True),
        "csr float32": (sp.csr_matrix(X.astype(np.float32)), True),
        "csr float64": (sp.csr_matrix(X), False),
        "lil": (sp.lil_matrix(X), True),
        "frame": (pytest.importorskip("pandas").DataFrame(X), False),
    }[kind]


@pytest.mark.parametrize("kind", ["float64", "float32", "fortran", "list", "csr float32",
                                  "csr float64", "lil", "frame"])
def test_rows_converted_by_the_checks_are_transformed_in_place(kind):
    """The preconditioner transforms the copy that converting the input made, rather than
    a second copy (a float32 fit held 2.08x the float64 rows at its peak, now 1.08x: as
    much as with precondition=None, plus its estimates), and never the caller's values;
    the model is the float64 input's, bit for bit."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(4000, 30)) * 256) / 256  # exact in float32 too
    X[:, 1] *= 1024
    y = np.where(X[:, 0] + rng.normal(size=4000) > 0, 1, -1)
    sparse = kind.startswith("csr") or kind == "lil"
    if sparse:  # sparse columns: transformed entry by entry
        X[rng.random(X.shape) < 0.9] = 0.0
    given, copied = _given(kind, X)
    size = sp.csr_matrix(X).data.nbytes if sparse else X.nbytes
    before = X.copy()
    plain = sp.csr_matrix(X) if sp.issparse(given) else X  # float64, as the kernels take it
    reference = aucopt.make("spam-l2", random_state=0).fit(plain, y)
    peaks = []
    for precondition in (None, "auto"):
        tracemalloc.start()
        model = aucopt.make("spam-l2", random_state=0, precondition=precondition).fit(given, y)
        peaks.append(tracemalloc.get_traced_memory()[1] / size)
        tracemalloc.stop()
    streamed = aucopt.make("spam-l2", random_state=0)
    for part in np.array_split(np.arange(4000), 4):
        chunk = given[part[0]:part[-1] + 1] if kind != "frame" else given.iloc[part]
        streamed.partial_fit(chunk, y[part], classes=[-1, 1])
    twin = aucopt.make("spam-l2", random_state=0)
    for part in np.array_split(np.arange(4000), 4):
        twin.partial_fit(plain[part], y[part], classes=[-1, 1])
    assert np.array_equal(model.coef_, reference.coef_)
    assert np.array_equal(streamed.coef_, twin.coef_)
    assert np.array_equal(np.asarray(given.toarray() if sp.issparse(given) else given,
                                     dtype=np.float64), before)
    if copied:  # the preconditioner's estimates only, not a second copy of the values
        assert peaks[1] - peaks[0] < 0.5, f"peaks {peaks} x the float64 values"


@pytest.mark.parametrize("algorithm", ["spam-l2", "uni-log"])
def test_a_column_constant_in_the_first_chunk_is_not_blown_up_later(algorithm):
    """A stream fixes the scales on its first chunk. A column constant there (a reading
    stuck at 20) got the floor of its spread, 1e-6 of its size, and its later values were
    multiplied by 5e4: test AUC 0.49 where the same stream with the column varying gives
    0.97. It is scaled by its root mean square now."""
    rng = np.random.default_rng(0)
    beta = np.array([1.0, -1.0, 0.5, 0.5, -0.5])

    def draw(n):
        X = rng.normal(size=(n, 6))
        X[:, 5] = 20.0 + rng.normal(size=n)  # noise around 20
        return X, np.where(X[:, :5] @ beta + 0.5 * rng.normal(size=n) > 0, 1, -1)

    (X, y), (Xt, yt) = draw(1600), draw(1000)
    stuck = X.copy()
    stuck[:200, 5] = 20.0
    scores = []
    for data in (X, stuck):
        model = aucopt.make(algorithm, random_state=0)
        for s in range(0, 1600, 200):
            model.partial_fit(data[s:s + 200], y[s:s + 200], classes=[-1, 1])
        scores.append(model.score(Xt, yt))
    assert model._state["feature_scale"][5] == pytest.approx(20.0)
    assert scores[1] > scores[0] - 0.01 and scores[0] > 0.9, scores
