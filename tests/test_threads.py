"""aucopt from several threads, as a thread pool, a web service or scikit-learn's threading
backend use it: different models at once, and one fitted model read by many threads."""

import ast
import gc
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import aucopt
import aucopt.io


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond, so that races show within a few rounds."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def test_loading_models_in_threads_leaves_the_warning_filters_as_they_were(tmp_path,
                                                                         fast_switching):
    """Each load silences the warnings of its score check with catch_warnings, which saves
    and restores the process's filters: interleaved, the loads left "ignore every warning"
    in place (4 runs of 10 with 8 loads in 4 threads)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8)) / 8
    y = np.where(X[:, 0] > 0, 1, -1)
    for k in range(8):
        aucopt.io.save(aucopt.make("spam-l2", random_state=k).fit(X, y), tmp_path / f"m{k}")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        before = list(warnings.filters)
        for _ in range(5):
            with ThreadPoolExecutor(4) as pool:
                list(pool.map(lambda k: aucopt.io.load(tmp_path / f"m{k}"), range(8)))
            assert warnings.filters == before


class _Finalised:
    """Cyclic garbage whose finalizer runs Python code: a collection inside another call
    then lets other threads run in the middle of it."""

    def __init__(self):
        self.me = self

    def __del__(self):
        sum(range(50))


def test_loading_models_in_threads_never_fails(tmp_path, fast_switching, monkeypatch):
    """numpy reads a .npy header with ast.literal_eval, whose recursion counter CPython 3.11
    shares between threads (gh-106905): loads in threads raised SystemError 'AST
    constructor recursion depth mismatch' (12 of 80,000 parses with collections running
    finalizers). aucopt reads the headers without ast."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8)) / 8
    y = np.where(X[:, 0] > 0, 1, -1)
    for k in range(4):
        aucopt.io.save(aucopt.make("spam-l2", random_state=k).fit(X, y), tmp_path / f"m{k}")
    threshold = gc.get_threshold()
    gc.set_threshold(20, 1, 1)
    try:
        def load_many(k):
            for _ in range(60):
                _Finalised()
                aucopt.io.load(tmp_path / f"m{k}")

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(load_many, range(4)))
    finally:
        gc.set_threshold(*threshold)
    monkeypatch.setattr(ast, "literal_eval", None)
    aucopt.io.load(tmp_path / "m0")


@pytest.mark.parametrize("algorithm", ["spam-l2", "reg-solam"])
def test_one_river_model_read_by_threads_scores_as_read_alone(algorithm, fast_switching):
    """A score completes, in place, the terms the last learnt row left to its path: four
    threads scoring at once got other scores than one thread (10-37 rounds of 100)."""
    river = pytest.importorskip("river")  # noqa: F841
    from aucopt.river import AUCClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 20)) / 20

    def row(x):
        return {f"f{j}": float(v) for j, v in enumerate(x)}

    queries = [row(x) for x in rng.normal(size=(8, 20)) / 20]
    alone, shared = AUCClassifier(algorithm, seed=0), AUCClassifier(algorithm, seed=0)
    for i, x in enumerate(X):
        for model in (alone, shared):
            model.learn_one(row(x), bool(x[0] > 0))
        if i < 300 or i % 5:
            continue
        expected = [alone.score_one(q) for q in queries]
        got, start = [None] * 4, threading.Barrier(4)

        def read(k, got=got, start=start):
            start.wait()
            got[k] = [shared.score_one(q) for q in queries]

        threads = [threading.Thread(target=read, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(g == expected for g in got), (i, expected, got)


def test_fits_in_threads_leave_blas_with_its_thread_count():
    """OPAUC and AdaOAM run BLAS on one thread during their per-sample calls. Set and
    restored from pool threads, OpenBLAS's process-wide count stayed at 1 for good (8 of
    8 rounds); only the main thread changes it now."""
    from threadpoolctl import threadpool_info

    def counts():
        return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 20))
    y = np.where(X[:, 0] > 0, 1, -1)
    aucopt.make("opauc", random_state=0).fit(X, y)  # the libraries a fit loads
    before = counts()
    for _ in range(3):
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda k: aucopt.make(("opauc", "adaoam")[k % 2],
                                                random_state=k).fit(X, y), range(8)))
        assert counts() == before
    aucopt.make("opauc", random_state=0).fit(X, y)
    assert counts() == before


def test_a_river_row_mapped_while_another_thread_maps_other_keys_keeps_its_columns(monkeypatch):
    """Threads scoring one hashed River model: a thread that found its keys equal to the last
    ones, then lost the interpreter to a thread mapping other keys, laid its values on that
    thread's columns (another row's score, seen 3-14 times in 300,000 calls per thread). The
    switch is made here at that point, deterministically."""
    from aucopt.river import AUCClassifier, _columns

    model = AUCClassifier(algorithm="spam-l2", n_features=64)
    rng = np.random.default_rng(0)
    for _ in range(300):
        x = {f"f{j}": float(v) for j, v in enumerate(rng.normal(size=8))}
        model.learn_one(x, x["f0"] + x["f3"] > 0)
    rows = [{"f0": 1.0, "f1": -2.0}, {"f2": 2.0, "f3": -2.0}]
    expected = [model.score_one(dict(row)) for row in rows]
    model.score_one(dict(rows[0]))  # its keys are the last ones mapped
    same_types = _columns._same_types

    def switched(keys, others):  # the other thread runs here
        monkeypatch.setattr(_columns, "_same_types", same_types)
        assert model.score_one(dict(rows[1])) == expected[1]
        return same_types(keys, others)

    monkeypatch.setattr(_columns, "_same_types", switched)
    assert model.score_one(dict(rows[0])) == expected[0]


def test_scores_made_while_a_row_is_learnt_leave_the_scores_exact():
    """River scores from other threads during learn_one added the terms of a half-learnt row
    to the intercept's running dots: every later score_one was off by about the intercept
    (0.06, still after 1,000 more rows), silently."""
    from aucopt.river import AUCClassifier

    rng = np.random.default_rng(0)
    names = [f"f{j}" for j in range(20)]
    X = rng.normal(size=(4000, 20))
    y = X[:, 0] + X[:, 1] + rng.normal(size=4000) > 0.5
    rows = [dict(zip(names, r)) for r in X]
    model = AUCClassifier("spam-l2", seed=0)
    for x, label in zip(rows[:1000], y[:1000]):
        model.learn_one(x, bool(label))
    stop = threading.Event()

    def score():
        while not stop.is_set():
            for x in rows[:50]:
                model.score_one(x)

    scorers = [threading.Thread(target=score) for _ in range(3)]
    for thread in scorers:
        thread.start()
    try:
        for x, label in zip(rows[1000:], y[1000:]):
            model.learn_one(x, bool(label))
    finally:
        stop.set()
        for thread in scorers:
            thread.join()
    probe = X[:100]
    cols = [model.columns[n] for n in names]
    dense = np.zeros((100, model.estimator.coef_.shape[1]))
    dense[:, cols] = probe
    np.testing.assert_allclose([model.score_one(x) for x in rows[:100]],
                               model.estimator.decision_function(dense), atol=1e-12)
