"""Saved models and hyperparameters that cannot be trusted (issue items 1, 2, 5).

Each test names the issue item it covers; each fails on the code before the fix
(loading did not check the arrays, the random generator was looked up by name,
parameters were checked only at the first ``partial_fit``...).
"""

import json
import math

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import aucopt
import aucopt.io
from aucopt.algorithms import get_algorithm
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError, InvalidParameterError, ModelFileError

from ._model_files import as_version_1, resign

IDS = aucopt.list_algorithms()
STREAMING = [a for a in IDS if get_algorithm(a).streaming]
STEPPED = [a for a in IDS if get_algorithm(a).step_param]


@pytest.fixture(scope="module")
def problem():
    X, y = make_auc_problem(1500, 10, separation=1.5, random_state=0)
    return X[:1000], y[:1000], X[1000:], y[1000:]


def _saved(tmp_path, algorithm, X, y, **params):
    base = tmp_path / algorithm
    aucopt.io.save(aucopt.make(algorithm, random_state=0, **params).fit(X, y), base)
    return base


def _edit_npz(base, **changes):
    path = base.with_suffix(".npz")
    arrays = dict(np.load(path))
    for key, value in changes.items():
        if value is None:
            del arrays[key]
        else:
            arrays[key] = value(arrays[key]) if callable(value) else value
    np.savez(path, **arrays)
    resign(base)


def _edit_json(base, edit):
    path = base.with_suffix(".json")
    meta = json.loads(path.read_text())
    edit(meta)
    resign(base, meta)


# ---------------------------------------------------------------- item 1: the arrays


@pytest.mark.parametrize(("algorithm", "key", "change", "match"), [
    ("spam-l2", "state__w_avg", lambda a: a[:1], "shape"),  # the segfault of the issue
    ("solam", "state__w", lambda a: a[:1], "shape"),  # trained "fine" before
    ("solam", "state__w", lambda a: a.astype(np.int32), "int32"),
    ("spam-l2", "state__w", lambda a: a.astype(np.float32), "float32"),
    ("spam-l2", "state__run_count", lambda a: a - 5, "negative"),
    ("spam-l2", "state__w", lambda a: a * np.nan, "NaN"),
    ("oam-seq", "state__size", lambda a: a + 10**6, "exceed"),
    ("kar", "state__buf_nnz", lambda a: a + 10**6, "row lengths"),
    ("projection-pp", "state__head", lambda a: a + 10**6, "budget"),
    ("opauc", "state__n_pending", lambda a: a + 17, "n_pending"),
    ("opauc-f", "state__features", lambda a: a + 10**6, "feature indices"),
    ("ogd-fifo", "state__prev_nnz", lambda a: a - 5, "negative|support"),
    ("fsauc", "state__n0", lambda a: a * 0, "inconsistent"),
    ("spam-l2", "state__w", None, "missing"),
    ("spam-l2", "attr__coef_", lambda a: a[:, :3], "coef_"),
    ("spdam", "attr__coef_", lambda a: np.full_like(a, 1e308), "beyond"),  # inf scores before
    ("spam-l2", "attr__intercept_", lambda a: a - 1e250, "beyond"),
])
def test_item1_load_rejects_tampered_arrays(tmp_path, problem, algorithm, key, change, match):
    base = _saved(tmp_path, algorithm, *problem[:2])
    _edit_npz(base, **{key: change})
    with pytest.raises(ModelFileError, match=match):
        aucopt.io.load(base)


@pytest.mark.parametrize(("old", "new", "match"), [
    (b"(10,)", b"(10000000000000,)", "declares shape"),  # more than the file holds
    (b"False", b"True ", "Fortran"),
    (b"'<f8'", b"'|O8'", "object"),
    (b"'<f8'", b"'<q9'", "unknown dtype"),
    (b"'descr'", b"'dtype'", "header is not"),
])
def test_item1_load_rejects_a_header_that_declares_more_than_the_file_holds(
        tmp_path, problem, old, new, match):
    """The headers are matched by aucopt (not parsed by ast: tests/test_threads.py)."""
    import zipfile

    base = _saved(tmp_path, "spam-l2", *problem[:2])
    path = base.with_suffix(".npz")
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    assert old in members["state__w.npy"]
    members["state__w.npy"] = members["state__w.npy"].replace(old, new, 1)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    resign(base)
    with pytest.raises(ModelFileError, match=match):
        aucopt.io.load(base)


@pytest.mark.parametrize("algorithm", IDS)
def test_item1_round_trip_of_every_id_still_loads(tmp_path, problem, algorithm):
    X, y, Xte, _ = problem
    est = aucopt.make(algorithm, random_state=0).fit(X, y)
    aucopt.io.save(est, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded.decision_function(Xte), est.decision_function(Xte))


# ---------------------------------------------------------------- item 2: no code from the file


@pytest.mark.parametrize("name", ["seed", "RandomState", "default_rng", "__class__", 7])
def test_item2_the_file_cannot_name_a_function_to_run(tmp_path, problem, name, monkeypatch):
    base = _saved(tmp_path, "spam-l2", *problem[:2])
    _edit_json(base, lambda m: m["rng_state"].__setitem__("bit_generator", name))
    called = []
    monkeypatch.setattr(np.random, "seed", lambda *a: called.append(a))
    with pytest.raises(ModelFileError, match="bit generator"):
        aucopt.io.load(base)
    assert not called


# ------------------------------------------------------- item 5: hyperparameters at every call


def test_item5_set_params_between_partial_fit_calls_is_validated(problem):
    X, y = problem[:2]
    est = aucopt.make("spam-l2").partial_fit(X[:100], y[:100], classes=[-1, 1])
    coef = est.coef_.copy()
    est.set_params(beta=-5)
    with pytest.raises(InvalidParameterError, match="'beta'"):
        est.partial_fit(X[100:200], y[100:200])
    np.testing.assert_array_equal(est.coef_, coef)  # nothing learned from the bad call


def test_item5_loaded_hyperparameters_are_validated(tmp_path, problem):
    base = _saved(tmp_path, "spam-l2", *problem[:2])
    _edit_json(base, lambda m: m["params"].__setitem__("beta", -5))
    with pytest.raises(ModelFileError, match="'beta'"):
        aucopt.io.load(base)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_item5_infinite_hyperparameters_are_rejected(problem, value):
    with pytest.raises(InvalidParameterError, match="'beta'"):
        aucopt.make("spam-l2", beta=value).fit(*problem[:2])


@pytest.mark.parametrize(("algorithm", "params"), [
    ("aogd", {"n_components": 10**9}),
    ("projection-pp", {"budget": 10**6}),
    ("sparse-kernel", {"budget": 10**9}),
    ("oam-seq", {"buffer_size": 10**10}),
    ("kar", {"buffer_size": 10**10}),
    ("opauc-r", {"rank": 10**9}),
    ("opauc", {"max_memory_gb": 1e-9}),
])
def test_item5_memory_guard_before_any_large_allocation(problem, algorithm, params):
    # refused by the memory estimate, or earlier by the size's hard bound (MAX_SIZE)
    with pytest.raises(ValueError, match=r"max_memory_gb|must be an int in the range \[1, "):
        aucopt.make(algorithm, **params).fit(*problem[:2])


@pytest.mark.parametrize("algorithm", STEPPED)
def test_item5_an_absurd_step_is_divergence_or_harmless(problem, algorithm):
    """No silent wrong model: a step of 1e6 raises DivergenceError or still ranks well."""
    X, y, Xte, yte = problem
    est = aucopt.make(algorithm, random_state=0,
                      **{get_algorithm(algorithm).step_param: 1e6})
    try:
        est.fit(X, y)
    except DivergenceError as exc:
        assert get_algorithm(algorithm).step_param in str(exc)
        return
    assert est.score(Xte, yte) > 0.8


def test_item5_fsauc_eta1_1e6_diverges(problem):
    with pytest.raises(DivergenceError, match="eta1"):
        aucopt.make("fsauc", eta1=1e6).fit(*problem[:2])


# ---------------------------------------------------------------- item 8: save of a pipeline


def test_item8_save_of_a_pipeline_says_what_to_do(tmp_path, problem):
    pipe = make_pipeline(StandardScaler(), aucopt.make("spam-l2")).fit(*problem[:2])
    with pytest.raises(TypeError, match=r"Pipeline.*pipeline\[-1\]"):
        aucopt.io.save(pipe, tmp_path / "p")
    aucopt.io.save(pipe[-1], tmp_path / "p")  # the advice works
    assert aucopt.io.load(tmp_path / "p").n_features_in_ == 10


def test_files_saved_with_the_packed_fsauc_and_solam_layouts_still_load(tmp_path):
    """FSAUC's sched/counters and SOLAM's lazy array (earlier layouts) are unpacked on load."""
    import scipy.sparse as sp

    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(300, 8, separation=1.5, random_state=2)
    X = sp.csr_matrix(X)
    packed = {"fsauc": {"sched": ("radius", "dual_radius", "beta", "eta", "kappa"),
                        "counters": ("n0", "stage", "stage_steps", "root_steps")},
              "solam": {"lazy": ("sigma", "s_sum", "vsq")}}
    for algorithm, layouts in packed.items():
        est = aucopt.make(algorithm, random_state=0).fit(X, y)
        base = tmp_path / algorithm
        aucopt.io.save(est, base)
        npz = dict(np.load(f"{base}.npz"))
        for key, names in layouts.items():
            npz[f"state__{key}"] = np.concatenate([npz.pop(f"state__{n}") for n in names])
        np.savez(f"{base}.npz", **npz)
        as_version_1(base)  # a file of an earlier aucopt
        old = aucopt.io.load(base)
        np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))
        old.partial_fit(X[:50], y[:50])  # and it goes on learning
