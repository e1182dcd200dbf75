"""Subprocess worker of the model-file fuzz tests (tests/test_io_fuzz.py,
tests/test_save_atomic.py, benchmarks/fuzz_io.py).

``python tests/_fuzz_worker.py MODE ARGS...`` with MODE

``use MANIFEST.json``
    Load each model listed, continue it with ``partial_fit`` (streaming ids, dense
    then CSR rows where accepted) and score it with ``decision_function``. One
    JSON line per model: ``{"path", "outcome": "ok" | "ValueError" | "wrong" |
    "other", "error", "scores"}`` (``wrong``: loaded with unsorted ``classes_`` or
    non-finite scores) (``scores``: SHA-256 of the score bytes after load,
    before ``partial_fit``). A crash (signal) of this process is what the caller
    looks for; an exception that is not a ``ValueError`` is ``"other"``.
``faults OLD NEW TARGET KIND [EVERY]``
    Save ``OLD`` at ``TARGET``, then save ``NEW`` there once per fault point
    (every ``os.open/write/fsync/link/replace/unlink`` and every write to a
    file of the save), failing at that point: ``KIND=kill`` forks a child that
    kills itself with SIGKILL there, ``KIND=oserror`` raises ``OSError(ENOSPC)``.
    After each, ``TARGET`` must load as ``OLD`` or ``NEW`` bit for bit
    (``oserror``: as ``OLD`` with both files byte-identical and no temporary file
    left if the save raised, as ``NEW`` if it returned: the steps after its renames
    are best effort).
    Prints one JSON summary line.
``save-loop OLD NEW TARGET COUNT [FSIZE]``
    Save ``NEW`` and ``OLD`` at ``TARGET`` alternately ``COUNT`` times (``FSIZE``:
    set ``RLIMIT_FSIZE`` first); prints ``saved N`` lines and one JSON line on error.
``load-loop TARGET COUNT OLD NEW``
    Load ``TARGET`` ``COUNT`` times; prints one JSON line: how often it was ``OLD``,
    ``NEW`` or neither (bit for bit on a probe), and the errors by type.
``random-kills OLD NEW TARGET KILLS [SEED]``
    ``KILLS`` times: fork a child saving ``NEW`` and ``OLD`` alternately at ``TARGET``,
    ``SIGKILL`` it at a random moment, check that ``TARGET`` loads as one of them.
``load-each BASE...``
    Load each model; one JSON line per model with the outcome.
"""

import contextlib
import errno
import hashlib
import json
import os
import signal
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import aucopt.io
from aucopt.algorithms import get_algorithm

PROBE = np.random.default_rng(7).normal(size=(16, 64))


def digest(model) -> str:
    """Return the SHA-256 of the model's scores on a fixed probe (its first columns)."""
    X = PROBE[:, :model.n_features_in_]
    if X.shape[1] < model.n_features_in_:
        X = np.hstack([X, np.zeros((X.shape[0], model.n_features_in_ - X.shape[1]))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hashlib.sha256(np.ascontiguousarray(model.decision_function(X)).tobytes()
                              ).hexdigest()


class SilentlyWrong(Exception):
    """A model loaded and trained "fine" but its scores or classes are garbage."""


def use(path, X, y):
    """Load, continue and score one model file; return the digest of its loaded scores."""
    model = aucopt.io.load(path)
    if not model.classes_[0] < model.classes_[1]:
        raise SilentlyWrong(f"classes_ {model.classes_!r} are not sorted")
    loaded = digest(model)
    spec = get_algorithm(model._algorithm)
    if spec.streaming:
        model.partial_fit(X, y)
        if spec.sparse:
            model.partial_fit(sp.csr_matrix(X), y)
    scores = model.decision_function(X)
    if spec.sparse:
        scores = np.concatenate([scores, model.decision_function(sp.csr_matrix(X))])
    if not np.isfinite(scores).all():
        raise SilentlyWrong("non-finite scores after load + partial_fit")
    return loaded


def run_use(manifest_path):
    """Use every model of the manifest; print one JSON line each."""
    manifest = json.loads(Path(manifest_path).read_text())
    X = np.load(manifest["X"])
    y = np.load(manifest["y"])
    warnings.simplefilter("ignore")
    for path in manifest["models"]:
        scores = None
        try:
            scores = use(path, X, y)
            outcome, error = "ok", ""
        except ValueError as exc:
            outcome, error = "ValueError", f"{type(exc).__name__}: {exc}"
        except SilentlyWrong as exc:
            outcome, error = "wrong", str(exc)
        except Exception as exc:  # noqa: BLE001 - reported to the caller, which fails on it
            outcome, error = "other", f"{type(exc).__name__}: {exc}"
        print(json.dumps({"path": path, "outcome": outcome, "error": error[:500],
                          "scores": scores}), flush=True)


class _Faults:
    """Count the file-system steps of a save; fail at step ``at`` (kill or OSError)."""

    NAMES = ("open", "write", "fsync", "link", "replace", "unlink")  # a failed close frees

    def __init__(self, at=None, kind="count"):
        self.at, self.kind, self.count, self.failed, self.names = at, kind, 0, None, []
        self.saved = {n: getattr(os, n) for n in self.NAMES}

    def point(self, name="write"):
        self.names.append(name)
        self.count += 1
        if self.count - 1 == self.at:
            self.failed = name
            if self.kind == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            raise OSError(errno.ENOSPC, "No space left on device (simulated)")

    def wrap(self, function):
        def wrapped(*args, **kwargs):
            self.point(function.__name__)
            return function(*args, **kwargs)
        return wrapped

    def file(self, handle):
        faults = self

        class Counted:  # delegates to the real file; every write is a fault point
            def write(self, data):
                faults.point()
                return handle.write(data)

            def __getattr__(self, name):
                return getattr(handle, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

        return Counted()

    @contextlib.contextmanager
    def installed(self):
        from aucopt.io import _files

        for name, function in self.saved.items():
            setattr(os, name, self.wrap(function))
        _files.open = lambda *a, **k: self.file(open(*a, **k))
        try:
            yield self
        finally:
            for name, function in self.saved.items():
                setattr(os, name, function)
            del _files.open


def _bytes(target):
    return [Path(f"{target}{s}").read_bytes() for s in (".json", ".npz")]


def run_faults(old_path, new_path, target, kind, every=1):
    """Fail a save of NEW over OLD at every fault point (of the writes into the files, every
    ``every``-th only); print a JSON summary."""
    from aucopt.io import _files

    old, new = aucopt.io.load(old_path), aucopt.io.load(new_path)
    expected = {digest(old): "old", digest(new): "new"}
    target = Path(target)
    scratch = target.parent / "count"
    scratch.mkdir(exist_ok=True)
    aucopt.io.save(old, scratch / "m")
    with _Faults().installed() as counter:
        aucopt.io.save(new, scratch / "m")
    chosen = [at for at, name in enumerate(counter.names) if name != "write"
              or at % int(every) == 0]
    summary = {"points": len(chosen), "old": 0, "new": 0, "wrong": [], "errors": [], "left": []}
    for at in chosen:
        aucopt.io.save(old, target)
        before = _bytes(target)
        if kind == "kill":
            pid = os.fork()
            if pid == 0:  # the child saves and dies at the fault point
                try:
                    with _Faults(at, "kill").installed():
                        aucopt.io.save(new, target)
                finally:
                    os._exit(3)
            _, status = os.waitpid(pid, 0)
            if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
                summary["errors"].append(f"point {at}: child status {status}")
        else:
            raised = False
            try:
                with _Faults(at, "oserror").installed() as faults:
                    aucopt.io.save(new, target)
            except OSError:
                raised = True
            if raised and _bytes(target) != before:
                summary["wrong"].append(f"point {at}: the failed save changed the files")
            left = _files.pending_files(Path(f"{target}.npz")) + \
                _files.pending_files(Path(f"{target}.json"))
            if raised and left and faults.failed != "unlink":  # one it could not remove
                summary["left"].append(f"point {at}: {[p.name for p in left]}")
            want = "old" if raised else "new"
        try:
            seen = expected.get(digest(aucopt.io.load(target)))
        except Exception as exc:  # noqa: BLE001 - any failure to load is what we count
            summary["wrong"].append(f"point {at}: {type(exc).__name__}: {exc}"[:300])
            continue
        if seen is None:
            summary["wrong"].append(f"point {at}: loads neither the old nor the new model")
        else:
            summary[seen] += 1
            if kind == "oserror" and seen != want:
                summary["wrong"].append(f"point {at}: the save {'raised' if raised else 'returned'}"
                                        f" but the {seen} model is in place")
    print(json.dumps(summary), flush=True)


def run_save_loop(old_path, new_path, target, count, fsize=None):
    """Save NEW and OLD alternately at TARGET."""
    if fsize is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (int(fsize), int(fsize)))
    models = [aucopt.io.load(new_path), aucopt.io.load(old_path)]
    for i in range(int(count)):
        try:
            aucopt.io.save(models[i % 2], target)
        except Exception as exc:  # noqa: BLE001 - reported to the caller
            print(json.dumps({"error": type(exc).__name__, "errno": getattr(exc, "errno", None),
                              "message": str(exc)[:300]}), flush=True)
            return
        print(f"saved {i + 1}", flush=True)


def run_load_loop(target, count, old_path, new_path):
    """Load TARGET repeatedly; print how often it was OLD, NEW, neither, or an error."""
    names = {digest(aucopt.io.load(old_path)): "old", digest(aucopt.io.load(new_path)): "new"}
    seen, errors = {"old": 0, "new": 0, "neither": 0}, {}
    for _ in range(int(count)):
        try:
            seen[names.get(digest(aucopt.io.load(target)), "neither")] += 1
        except Exception as exc:  # noqa: BLE001 - reported to the caller
            name = f"{type(exc).__name__}: {str(exc)[:120]}"
            errors[name] = errors.get(name, 0) + 1
    print(json.dumps({**seen, "errors": errors}), flush=True)


def run_random_kills(old_path, new_path, target, kills, seed=0):
    """Kill (SIGKILL) a process saving OLD and NEW alternately at random moments, KILLS
    times; after each kill TARGET must load as OLD or NEW. Prints a JSON summary."""
    import random
    import time

    old, new = aucopt.io.load(old_path), aucopt.io.load(new_path)
    names = {digest(old): "old", digest(new): "new"}
    rng = random.Random(int(seed))
    summary = {"kills": 0, "old": 0, "new": 0, "wrong": []}
    aucopt.io.save(old, target)
    for kill in range(int(kills)):
        ready, go = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(ready)
                for i in range(10**9):
                    aucopt.io.save((new, old)[i % 2], target)
                    if i == 0:
                        os.write(go, b"x")
            finally:
                os._exit(3)
        os.close(go)
        os.read(ready, 1)  # the first save is done: the next ones are under way
        os.close(ready)
        time.sleep(rng.uniform(0.0, 0.05))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        summary["kills"] += 1
        try:
            summary[names[digest(aucopt.io.load(target))]] += 1
        except Exception as exc:  # noqa: BLE001 - any failure to load is what we count
            summary["wrong"].append(f"kill {kill}: {type(exc).__name__}: {exc}"[:300])
    print(json.dumps(summary), flush=True)


def run_load_each(*bases):
    """Load each base path; print one line ``NAME: outcome`` (used where a load may block)."""
    for base in bases:
        try:
            aucopt.io.load(base)
            outcome = "ok"
        except Exception as exc:  # noqa: BLE001 - reported to the caller
            outcome = f"{type(exc).__name__}: {exc}"
        print(json.dumps({"path": base, "outcome": outcome[:300]}), flush=True)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if len(sys.argv) == 2:  # the earlier call form: a manifest only
        mode, args = "use", sys.argv[1:]
    {"use": run_use, "faults": run_faults, "save-loop": run_save_loop,
     "load-loop": run_load_loop, "random-kills": run_random_kills,
     "load-each": run_load_each}[mode](*args)
