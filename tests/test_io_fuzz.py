"""Tampered model files never crash the process and never load silently wrong.

Hypothesis draws hundreds of tamperings of saved models of every registered id
(truncated, reshaped and retyped arrays, NaN/inf, out-of-range counters and
indices, renamed/missing/extra arrays, .npy headers declaring huge shapes,
random bytes, edited JSON fields: hyperparameters, attributes, the random
generator's name, the hashes). Most tampered pairs are re-signed (their
SHA-256 hashes recomputed, as a deliberate forger would) so that the checks
behind the hashes are exercised; the others must be refused by the hashes.
One subprocess then loads each file, continues it with ``partial_fit`` and
scores it: the process must exit normally (no signal), every failure must be a
``ValueError`` (``ModelFileError``, ``InvalidParameterError``,
``DivergenceError``...), and no unsigned edit may load.
"""

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aucopt
import aucopt.io

from ._child_env import child_env
from ._model_files import changed, holds_json_object, read_pair, resign, write_pair

WORKER = Path(__file__).with_name("_fuzz_worker.py")
ROOT = Path(aucopt.__file__).resolve().parents[1]
N_FEATURES = 4
IDS = aucopt.list_algorithms()
N_TAMPERED = 600


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """One small fitted model of every id, saved; returns (dir, X path, y path)."""
    folder = tmp_path_factory.mktemp("models")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, N_FEATURES))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1, -1)
    for algorithm in IDS:
        aucopt.io.save(aucopt.make(algorithm, random_state=0).fit(X, y), folder / algorithm)
    np.save(folder / "X.npy", X)
    np.save(folder / "y.npy", y)
    return folder


def _write(base: Path, meta, arrays, raw=None, sign=True):
    write_pair(base, meta, arrays, sign=False)
    if raw is not None:  # (member name, bytes): replace one member by hand-made bytes
        path = base.with_suffix(".npz")
        with zipfile.ZipFile(path) as z:
            members = {n: z.read(n) for n in z.namelist()}
        members[raw[0]] = raw[1]
        with zipfile.ZipFile(path, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
    if sign:
        resign(base, meta)


def _huge_header(array, shape):
    out = io.BytesIO()
    out.write(np.lib.format.magic(1, 0))
    np.lib.format.write_array_header_1_0(
        out, {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False,
              "shape": shape})
    return out.getvalue() + array.tobytes()


_DTYPES = ["int32", "float32", "int64", "float64", "bool", ">f8", "U3", "complex128", "uint8"]
_INTS = [-1, -(2**62), 2**62, 10**6, N_FEATURES, N_FEATURES + 1, 17, 101, 201, 0]
_FLOATS = [np.nan, np.inf, -np.inf, 1e308, -1e308, 0.0]
_PARAMS = [-5, 0, float("inf"), float("-inf"), float("nan"), 10**9, 10**18, "auto", "x", True,
           None, 1e308, -1e-300, 2.5]
_ATTRS = {"n_features_in_": [0, -1, N_FEATURES + 1, 10**12, "4", 2.5, None],
          "t_": [-1, 2**63, 1.5], "n_iter_": [-1, "x"],
          "_auto_step_value": [-1.0, 0, "x", True, float("inf")],
          "classes_": [{"object_array": [1, 1]}, {"object_array": [[1], [2]]},
                       {"object_array": [1, 2, 3]}, [1, 2], "ab"]}
_GENERATORS = ["seed", "RandomState", "__import__", "PCG64DXSM", "MT19937", "Philox", 5, None,
               "default_rng"]


def _tamper(data, meta, arrays):
    """Apply one drawn tampering to (meta, arrays) in place; return a raw member or None."""
    op = data.draw(st.sampled_from([
        "truncate", "shorten", "reshape", "retype", "nonfinite", "int_value", "int_value",
        "int_value", "rename", "drop", "add", "huge_header", "param", "param", "attribute",
        "generator", "rng_state", "algorithm", "format", "drop_field", "classes"]))
    kinds = {"nonfinite": "f", "int_value": "i"}.get(op, "fiub")
    keys = sorted(k for k, v in arrays.items() if v.dtype.kind in kinds and v.size)
    key = data.draw(st.sampled_from(keys))
    a = arrays[key]
    if op == "truncate":
        arrays[key] = a.ravel()[:data.draw(st.integers(0, max(a.size - 1, 0)))]
    elif op == "shorten" and a.ndim and a.shape[0]:
        arrays[key] = a[:-1]
    elif op == "reshape":
        arrays[key] = a.reshape(-1) if a.ndim != 1 else a[None]
    elif op == "retype":
        arrays[key] = a.astype(data.draw(st.sampled_from(_DTYPES)))
    elif op == "nonfinite":
        a.ravel()[data.draw(st.integers(0, a.size - 1))] = data.draw(st.sampled_from(_FLOATS))
    elif op == "int_value":
        a.ravel()[data.draw(st.integers(0, a.size - 1))] = data.draw(st.sampled_from(_INTS))
    elif op == "rename":
        arrays[key + "x"] = arrays.pop(key)
    elif op == "drop":
        del arrays[key]
    elif op == "add":
        arrays["state__extra"] = np.zeros(3)
    elif op == "huge_header":
        shape = data.draw(st.sampled_from([(10**12,), (2**40, 2**30), (10**6, 10**6)]))
        return key + ".npy", _huge_header(a, shape)
    elif op == "param" and meta["params"]:
        name = data.draw(st.sampled_from(sorted(meta["params"])))
        meta["params"][name] = data.draw(st.sampled_from(_PARAMS))
    elif op == "attribute":
        name = data.draw(st.sampled_from(sorted(_ATTRS)))
        meta["attributes"][name] = data.draw(st.sampled_from(_ATTRS[name]))
        if name == "classes_":
            arrays.pop("attr__classes_", None)
    elif op == "generator":
        meta["rng_state"]["bit_generator"] = data.draw(st.sampled_from(_GENERATORS))
    elif op == "rng_state":
        meta["rng_state"]["state"] = data.draw(st.sampled_from([-1, "x", None, {"state": -1}]))
    elif op == "algorithm":
        meta["algorithm"] = data.draw(st.sampled_from(IDS + ["nope"]))
    elif op == "format":
        meta["format_version"] = data.draw(st.sampled_from([0, 99, "1", None]))
    elif op == "drop_field":
        del meta[data.draw(st.sampled_from(sorted(meta)))]
    elif op == "classes":  # out of order, duplicate, non-finite, not numbers or strings
        arrays.pop("attr__classes_", None)
        meta["attributes"]["classes_"] = {"object_array": data.draw(st.sampled_from(
            [[1, -1], [1, 1], [float("nan"), 1], [None, 1], ["a", 1], [{}, 1], [1, True],
             [-1, float("inf")], ["b", "a"]]))}
    return None


def _corrupt_bytes(data, base):
    """Overwrite or cut one of the two files with random bytes."""
    path = base.with_suffix(data.draw(st.sampled_from([".npz", ".json"])))
    blob = bytearray(path.read_bytes())
    start = data.draw(st.integers(0, len(blob) - 1))
    if data.draw(st.booleans()):
        del blob[start:]
    else:
        noise = data.draw(st.binary(min_size=1, max_size=64))
        blob[start:start + len(noise)] = noise
    path.write_bytes(bytes(blob))


def test_tampered_files_never_crash(originals, tmp_path):
    made, unsigned = [], []

    @settings(max_examples=N_TAMPERED, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def tamper(data):
        algorithm = data.draw(st.sampled_from(IDS))
        meta, arrays = read_pair(originals / algorithm)
        base = tmp_path / f"t{len(made)}-{algorithm}"
        sign = data.draw(st.integers(0, 4)) > 0  # one in five must be refused by the hashes
        if data.draw(st.integers(0, 9)) == 0:
            _write(base, meta, arrays)
            _corrupt_bytes(data, base)
            sign = sign and holds_json_object(base)
            if sign:
                resign(base)
        else:
            raw = _tamper(data, meta, arrays)
            _write(base, meta, arrays, raw, sign)
        if not sign and changed(base, originals / algorithm):
            unsigned.append(str(base))
        made.append(str(base))

    tamper()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"X": str(originals / "X.npy"), "y": str(originals / "y.npy"),
                                    "models": made}))
    done = subprocess.run([sys.executable, str(WORKER), str(manifest)], capture_output=True,
                          text=True, env=child_env(), timeout=600)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if os.environ.get("AUCOPT_FUZZ_DUMP"):
        Path(os.environ["AUCOPT_FUZZ_DUMP"]).write_text(done.stdout + done.stderr)
    assert done.returncode == 0, (
        f"worker died with code {done.returncode} after {len(results)} of {len(made)} files; "
        f"next file {made[len(results)] if len(results) < len(made) else None}\n"
        f"{done.stderr[-2000:]}")
    assert len(results) == len(made) >= 400
    others = [r for r in results if r["outcome"] in ("other", "wrong")]
    assert not others, others[:5]
    rejected = [r for r in results if r["outcome"] == "ValueError"]
    assert len(rejected) > 0.8 * len(results)
    loaded_unsigned = [r for r in results if r["path"] in set(unsigned) and r["outcome"] == "ok"]
    assert not loaded_unsigned, loaded_unsigned[:5]  # an edit the hashes did not catch
    assert all(len(r["error"]) > 40 for r in rejected), [r for r in rejected
                                                          if len(r["error"]) <= 40][:5]


@pytest.mark.slow
def test_the_fuzz_benchmark_at_its_small_size_finds_nothing():
    """``benchmarks/fuzz_io.py`` (``make bench-fuzz-io`` runs the long size) on every attack
    class at a small size: tampered files, interrupted saves, concurrent saves and loads."""
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_io.py"), "--size",
                           "small", "--out", "-"], capture_output=True, text=True, cwd=ROOT,
                          env=child_env(), timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "**0 bad outcomes**" in done.stdout
    for name in ("tampered: swap", "tampered: hash", "SIGKILL at every step",
                 "SIGKILL at random moments", "OSError (ENOSPC) at every step", "RLIMIT_FSIZE",
                 "concurrent: loads while 2 process(es) save"):
        assert name in done.stdout, name
