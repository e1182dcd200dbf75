"""Saves are atomic and durable; load refuses hybrid, torn, edited and unusable models.

Real files, real subprocesses and real signals: a save is interrupted by
``SIGKILL`` at every file-system step and at random moments, by a simulated
``OSError`` at every step, and by ``RLIMIT_FSIZE``; readers and writers run
concurrently. Each test fails on the code that wrote ``PATH.npz`` then
``PATH.json`` in place without hashes.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import aucopt
import aucopt.io
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import ModelFileError

from ._model_files import as_version_1, read_pair, resign, write_pair

WORKER = Path(__file__).with_name("_fuzz_worker.py")
ROOT = Path(aucopt.__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def data():
    X, y = make_auc_problem(400, 6, separation=1.5, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def pair(data, tmp_path_factory):
    """Two different fitted spam-l2 models saved as ``old`` and ``new``."""
    X, y = data
    folder = tmp_path_factory.mktemp("pair")
    old = aucopt.make("spam-l2", random_state=0).fit(X[:200], y[:200])
    new = aucopt.make("spam-l2", random_state=1, beta=0.5).fit(X[200:], y[200:])
    aucopt.io.save(old, folder / "old")
    aucopt.io.save(new, folder / "new")
    assert not np.array_equal(old.decision_function(X), new.decision_function(X))
    return folder, old, new


def _worker(*args, timeout=600):
    done = subprocess.run([sys.executable, str(WORKER), *map(str, args)], capture_output=True,
                          text=True, env=ENV, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def _same(model, reference, X):
    return np.array_equal(model.decision_function(X), reference.decision_function(X))


def _leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("."))


# ------------------------------------------------------------------ the two parts are bound


def test_a_save_leaves_exactly_the_two_files_and_round_trips(tmp_path, data, pair):
    _, old, _ = pair
    for _ in range(2):  # the second save replaces the first
        aucopt.io.save(old, tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "m.npz"]
    assert _same(aucopt.io.load(tmp_path / "m"), old, data[0])


@pytest.mark.parametrize("kept", ["json", "npz"])
def test_a_hybrid_of_two_saves_does_not_load(tmp_path, pair, kept):
    """The .npz of one save beside the .json of another loaded before (new state, old meta)."""
    _, old, new = pair
    aucopt.io.save(old, tmp_path / "m")
    earlier = (tmp_path / f"m.{kept}").read_bytes()
    aucopt.io.save(new, tmp_path / "m")
    (tmp_path / f"m.{kept}").write_bytes(earlier)
    with pytest.raises(ModelFileError, match="different saves"):
        aucopt.io.load(tmp_path / "m")


def test_an_edited_json_does_not_load(tmp_path, pair):
    _, old, _ = pair
    aucopt.io.save(old, tmp_path / "m")
    path = tmp_path / "m.json"
    meta = json.loads(path.read_text())
    meta["params"]["beta"] = meta["params"]["beta"] * 2  # valid, but not the model saved
    path.write_text(json.dumps(meta))
    with pytest.raises(ModelFileError, match="modified"):
        aucopt.io.load(tmp_path / "m")


@pytest.mark.parametrize("forgery", ["drop_npz_hash", "drop_both", "zeros", "downgrade"])
def test_removed_or_forged_hashes_are_refused(tmp_path, pair, forgery):
    _, old, new = pair
    aucopt.io.save(old, tmp_path / "m")
    saved_npz = (tmp_path / "m.npz").read_bytes()
    aucopt.io.save(new, tmp_path / "m")
    (tmp_path / "m.npz").write_bytes(saved_npz)  # a hybrid whose hashes are then tampered
    meta = json.loads((tmp_path / "m.json").read_text())
    if forgery == "drop_npz_hash":
        del meta["npz_sha256"]
    elif forgery == "drop_both":
        del meta["npz_sha256"], meta["meta_sha256"]
    elif forgery == "zeros":
        meta["npz_sha256"] = "0" * 64
    else:  # pretend to be a file written before the hashes
        meta["format_version"] = 1
        del meta["npz_sha256"], meta["meta_sha256"]
    (tmp_path / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ModelFileError) as refused:
        aucopt.io.load(tmp_path / "m")
    if forgery == "downgrade":  # the .json records no hash: the message does not cite one
        assert "records no SHA-256" in str(refused.value), refused.value


@pytest.mark.parametrize(("a", "b"), [("spam-l2", "spam-net"), ("oam-seq", "oam-gra"),
                                      ("uni-exp", "uni-squ")])
def test_arrays_of_an_algorithm_with_the_same_layout_are_refused(tmp_path, data, a, b):
    """Two ids with one state layout: B's .json with A's arrays, re-hashed, still refused."""
    X, y = data
    for algorithm in (a, b):
        aucopt.io.save(aucopt.make(algorithm, random_state=0).fit(X, y), tmp_path / algorithm)
    (tmp_path / f"{b}.npz").write_bytes((tmp_path / f"{a}.npz").read_bytes())
    with pytest.raises(ModelFileError, match="different saves"):
        aucopt.io.load(tmp_path / b)
    resign(tmp_path / b)
    with pytest.raises(ModelFileError, match=f"arrays of algorithm '{a}'"):
        aucopt.io.load(tmp_path / b)


def test_files_of_format_version_1_still_load(tmp_path, data, pair):
    _, old, _ = pair
    aucopt.io.save(old, tmp_path / "m")
    as_version_1(tmp_path / "m")
    assert _same(aucopt.io.load(tmp_path / "m"), old, data[0])


# ------------------------------------------------------------- failed and interrupted saves


def test_an_oserror_at_any_step_leaves_the_previous_model(pair, tmp_path):
    folder, _, _ = pair
    report = _worker("faults", folder / "old", folder / "new", tmp_path / "m", "oserror", 8)
    assert report["points"] > 20, report
    assert report["wrong"] == [] and report["errors"] == [] and report["left"] == [], report
    assert report["old"] > 10 and report["new"] > 0, report


def test_kill_9_at_any_step_leaves_the_old_or_the_new_model(pair, tmp_path):
    folder, _, _ = pair
    report = _worker("faults", folder / "old", folder / "new", tmp_path / "m", "kill", 8)
    assert report["wrong"] == [] and report["errors"] == [], report
    assert report["old"] > 0 and report["new"] > 0, report  # kills before and after the commit
    assert report["old"] + report["new"] == report["points"]


def test_kill_9_at_random_moments_of_repeated_saves(pair, tmp_path):
    folder, _, _ = pair
    report = _worker("random-kills", folder / "old", folder / "new", tmp_path / "m", 6)
    assert report["wrong"] == [] and report["kills"] == 6, report


def test_a_file_size_limit_leaves_the_previous_model(tmp_path, data):
    """RLIMIT_FSIZE below the new model's size: EFBIG, the smaller previous model intact."""
    X, y = data
    small = aucopt.make("spam-l2", random_state=0).fit(X, y)
    wide = np.hstack([X, np.random.default_rng(0).normal(size=(X.shape[0], 20000))])
    large = aucopt.make("spam-l2", random_state=0).fit(wide, y)
    aucopt.io.save(small, tmp_path / "small")
    aucopt.io.save(large, tmp_path / "large")
    aucopt.io.save(small, tmp_path / "m")
    before = [(tmp_path / f"m.{s}").read_bytes() for s in ("json", "npz")]
    limit = 4 * len(before[1])
    assert (tmp_path / "large.npz").stat().st_size > limit
    done = subprocess.run([sys.executable, str(WORKER), "save-loop", str(tmp_path / "small"),
                           str(tmp_path / "large"), str(tmp_path / "m"), "1", str(limit)],
                          capture_output=True,
                          text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    error = json.loads(done.stdout.splitlines()[-1])
    assert error["error"] == "OSError" and error["errno"] == 27, error  # EFBIG
    assert [(tmp_path / f"m.{s}").read_bytes() for s in ("json", "npz")] == before
    assert _leftovers(tmp_path) == []
    assert _same(aucopt.io.load(tmp_path / "m"), small, X)


def test_concurrent_readers_see_the_old_or_the_new_model(pair, tmp_path):
    """A reader got torn files in 157-300 of 300-400 loads before."""
    folder, old, _ = pair
    aucopt.io.save(old, tmp_path / "m")
    saver = subprocess.Popen([sys.executable, str(WORKER), "save-loop", str(folder / "old"),
                              str(folder / "new"), str(tmp_path / "m"), "1000000"], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert saver.stdout.readline().startswith("saved")
        report = _worker("load-loop", tmp_path / "m", 100, folder / "old", folder / "new")
    finally:
        saver.kill()
        saver.wait()
    assert report["errors"] == {} and report["neither"] == 0, report
    assert report["old"] > 0 and report["new"] > 0, report  # saves went on while reading


def test_concurrent_writers_do_not_interleave(pair, tmp_path, data):
    """Two processes save to one path while a third loads: the renames never interleave.
    The writers are then killed; the next save removes what they left."""
    folder, old, new = pair
    aucopt.io.save(old, tmp_path / "m")
    savers = [subprocess.Popen([sys.executable, str(WORKER), "save-loop", str(folder / a),
                                str(folder / b), str(tmp_path / "m"), "1000000"], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
              for a, b in (("old", "new"), ("new", "old"))]
    try:
        for saver in savers:
            assert saver.stdout.readline().startswith("saved")
        report = _worker("load-loop", tmp_path / "m", 60, folder / "old", folder / "new")
    finally:
        for saver in savers:
            saver.kill()
            saver.wait()
    assert report["errors"] == {} and report["neither"] == 0, report
    loaded = aucopt.io.load(tmp_path / "m")
    assert _same(loaded, old, data[0]) or _same(loaded, new, data[0])
    aucopt.io.save(new, tmp_path / "m")
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------- what load refuses at once


def _load_in_subprocess(base):
    code = ("import sys, aucopt.io\n"
            "try:\n    aucopt.io.load(sys.argv[1])\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(base)], capture_output=True,
                          text=True, env=ENV, timeout=120)
    return done.stdout


def test_load_refuses_what_is_not_a_regular_file_without_reading(tmp_path, pair):
    """A FIFO blocked ``load`` and /dev/zero was read without end before."""
    _, old, _ = pair
    bases = []
    for part in ("json", "npz"):
        for kind in ("fifo", "dev-zero", "directory"):
            base = tmp_path / f"{kind}-{part}"
            aucopt.io.save(old, base)
            target = base.with_name(f"{base.name}.{part}")
            target.unlink()
            if kind == "fifo":
                os.mkfifo(target)
            elif kind == "dev-zero":
                target.symlink_to("/dev/zero")
            else:
                target.mkdir()
            bases.append(base)
    done = subprocess.run([sys.executable, str(WORKER), "load-each", *map(str, bases)],
                          capture_output=True, text=True, env=ENV, timeout=600)
    outcomes = [json.loads(line)["outcome"] for line in done.stdout.splitlines()]
    assert len(outcomes) == len(bases), (outcomes, done.stderr[-2000:])
    for outcome in outcomes:
        assert outcome.startswith("ModelFileError") and (
            "regular file" in outcome or "directory" in outcome), outcome


def test_save_onto_a_directory_is_a_model_file_error(tmp_path, pair):
    _, old, _ = pair
    (tmp_path / "m.npz").mkdir()
    with pytest.raises(ModelFileError, match="not a regular file"):
        aucopt.io.save(old, tmp_path / "m")
    assert not (tmp_path / "m.json").exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("classes", [[1, -1], [1, 1], [float("nan"), 1], [None, 1],
                                     [{}, 1], ["a", 1], [-1, float("inf")], ["b", "a"]])
def test_load_refuses_classes_fit_never_forms(tmp_path, pair, classes):
    """Out of order (every prediction inverted before), duplicate, NaN, None, objects, mixed."""
    _, old, _ = pair
    aucopt.io.save(old, tmp_path / "m")
    meta, arrays = read_pair(tmp_path / "m")
    del arrays["attr__classes_"]
    meta["attributes"]["classes_"] = {"object_array": classes}
    write_pair(tmp_path / "m", meta, arrays)
    with pytest.raises(ModelFileError, match="classes_"):
        aucopt.io.load(tmp_path / "m")


def _edited_then_refused(base, estimator, edit, match):
    """Save ``estimator`` at ``base``, edit (meta, arrays) and re-sign: load must refuse."""
    aucopt.io.save(estimator, base)
    meta, arrays = read_pair(base)
    edit(meta, arrays)
    write_pair(base, meta, arrays)
    with pytest.raises(ModelFileError, match=match):
        aucopt.io.load(base)


@pytest.mark.parametrize("algorithm", ["projection-pp", "sparse-kernel"])
@pytest.mark.parametrize("sigma", [1e-310, 1e-160, 1e300])
def test_load_refuses_an_unusable_kernel_width(tmp_path, data, algorithm, sigma):
    """A subnormal or tiny bandwidth gave NaN scores, a huge one a constant model."""
    X, y = data
    _edited_then_refused(tmp_path / "m",
                         aucopt.make(algorithm, random_state=0).fit(X[:150], y[:150]),
                         lambda meta, arrays: arrays.update(state__bandwidth=np.array([sigma])),
                         "bandwidth")


def test_load_refuses_a_subnormal_hyperparameter(tmp_path, pair):
    _edited_then_refused(tmp_path / "m", pair[1],
                         lambda meta, arrays: meta["params"].update(beta=5e-324), "subnormal")


@pytest.mark.parametrize(("algorithm", "key"), [("projection-pp", "state__alpha"),
                                                ("sparse-kernel", "state__beta")])
def test_load_refuses_states_whose_scores_overflow(tmp_path, data, algorithm, key):
    X, y = data

    def overflow(meta, arrays):
        arrays[key] = np.where(arrays[key] != 0, 1e308, 0.0)

    _edited_then_refused(tmp_path / "m",
                         aucopt.make(algorithm, random_state=0).fit(X[:150], y[:150]),
                         overflow, "overflow")


def test_save_refuses_a_model_load_would_refuse_and_keeps_the_previous(tmp_path, pair):
    _, old, new = pair
    aucopt.io.save(old, tmp_path / "m")
    before = [(tmp_path / f"m.{s}").read_bytes() for s in ("json", "npz")]
    broken = aucopt.io.load(tmp_path / "m")
    broken.classes_ = broken.classes_[::-1].copy()
    with pytest.raises(ModelFileError, match="classes_") as refused:
        aucopt.io.save(broken, tmp_path / "m")
    assert [(tmp_path / f"m.{s}").read_bytes() for s in ("json", "npz")] == before
    assert _leftovers(tmp_path) == []
    # named by the path asked for, not by the temporary file since removed
    message = str(refused.value)
    assert str(tmp_path / "m.json") in message and ".tmp" not in message, message
    assert "nothing was saved" in message
