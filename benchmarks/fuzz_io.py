"""Fuzz the model files and the saves of :mod:`aucopt.io`.

Counts, per attack class, the cases that crashed a process (a signal), hung
(past the time bound), loaded silently wrong, or raised an exception outside
the documented kinds (``ValueError`` subclasses; ``OSError`` from a save).
Every case runs in a subprocess (``tests/_fuzz_worker.py``)::

    python benchmarks/fuzz_io.py                      # long size, writes its section of
                                                      # docs/fuzz.md (about an hour)
    python benchmarks/fuzz_io.py --size small --out - # seconds to minutes, prints the table
    make bench-fuzz-io

Attack classes: tampered model files (bytes flipped or cut, JSON fields edited,
arrays swapped between two algorithms with the same state layout, hashes removed
or forged; each unsigned, or re-signed with recomputed hashes as a deliberate
forger would), interrupted saves (``SIGKILL`` at every file-system step and at
random moments, a simulated ``OSError`` at every step, ``RLIMIT_FSIZE``, a full
disk on a small tmpfs where ``mount`` is allowed), and concurrent saves and loads.
Exit status 1 if any bad count is not zero.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from _fuzz_report import BAD, headline, new_row, table, write_section  # noqa: E402
from _stamp import stamp  # noqa: E402

import aucopt  # noqa: E402
import aucopt.io  # noqa: E402
from tests._model_files import changed, holds_json_object, read_pair, resign, write_pair  # noqa: E402,E501

WORKER = ROOT / "tests" / "_fuzz_worker.py"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
SIZES = {  # files tampered, write points skipped between faults, random kills, loads, ...
    "small": {"files": 30, "every": 64, "kills": 2, "loads": 30, "algorithms": 1,
              "writers": (2,)},
    "long": {"files": 3000, "every": 1, "kills": 60, "loads": 1500, "algorithms": 4,
             "writers": (1, 2)},
}
SAME_LAYOUT = [("spam-l2", "spam-net"), ("oam-seq", "oam-gra"), ("uni-exp", "uni-squ"),
               ("solam", "reg-solam"), ("vrspam-l2", "vrspam-net")]
FAULT_MODELS = ["spam-l2", "projection-pp", "opauc", "oam-seq"]
COLUMNS = ["cases", "loaded", "refused", *BAD]
SECTION = ("<!-- fuzz_io: begin -->", "<!-- fuzz_io: end -->")


def _row(**counts):
    return new_row(COLUMNS, **counts)


# ------------------------------------------------------------------------ tampered files


def _flip(rng, path):
    blob = bytearray(path.read_bytes())
    start = rng.randrange(len(blob))
    if rng.random() < 0.3:
        del blob[start:]
    else:
        for i in range(start, min(len(blob), start + rng.randint(1, 16))):
            blob[i] = rng.randrange(256)
    path.write_bytes(bytes(blob))


_FIELD_VALUES = [-1, 0, 10**18, 1e308, -1e-300, 5e-324, float("nan"), "x", None, True, [1]]


def _edit_fields(rng, meta, arrays, ids):
    what = rng.choice(["param", "attribute", "algorithm", "rng", "classes", "version"])
    if what == "param" and meta["params"]:
        meta["params"][rng.choice(sorted(meta["params"]))] = rng.choice(_FIELD_VALUES)
    elif what == "attribute":
        name = rng.choice(["n_features_in_", "t_", "n_iter_"])
        meta["attributes"][name] = rng.choice(_FIELD_VALUES)
    elif what == "algorithm":
        meta["algorithm"] = rng.choice([*ids, "SPAM-L2", "spam-l2 ", ""])
    elif what == "rng":
        meta["rng_state"]["bit_generator"] = rng.choice(["seed", "MT19937", "__import__", 3])
    elif what == "classes":
        arrays.pop("attr__classes_", None)
        meta["attributes"]["classes_"] = {"object_array": rng.choice(
            [[1, -1], [1, 1], [float("nan"), 1], [None, 1], [{}, 1], ["a", 1], ["b", "a"]])}
    else:
        meta["format_version"] = rng.choice([0, 1, 3, "2"])


def _swap(rng, folder, base):
    a, b = rng.choice(SAME_LAYOUT)
    base.with_suffix(".npz").write_bytes((folder / f"{a}.npz").read_bytes())
    base.with_suffix(".json").write_bytes((folder / f"{b}.json").read_bytes())
    return rng.random() < 0.5  # re-signed half of the time


def _forge_hash(rng, folder, base, ids):
    """A hybrid (the .npz of another model) whose hashes are removed or forged."""
    one, other = rng.sample(ids, 2)
    meta, _ = read_pair(folder / one)
    base.with_suffix(".npz").write_bytes((folder / f"{other}.npz").read_bytes())
    how = rng.choice(["drop", "drop_both", "random", "other", "downgrade"])
    if how == "drop":
        del meta["npz_sha256"]
    elif how == "drop_both":
        del meta["npz_sha256"], meta["meta_sha256"]
    elif how == "random":
        meta["npz_sha256"] = hashlib.sha256(os.urandom(8)).hexdigest()
    elif how == "other":
        meta["npz_sha256"] = hashlib.sha256(base.with_suffix(".npz").read_bytes()).hexdigest()
    else:
        meta["format_version"] = 1
        del meta["npz_sha256"], meta["meta_sha256"]
    base.with_suffix(".json").write_text(json.dumps(meta))


def make_cases(rng, folder, out, n, ids):
    """Write ``n`` tampered pairs; return ``[(class, base, must_refuse), ...]``."""
    cases = []
    for i in range(n):
        kind = rng.choice(["bytes", "bytes", "fields", "swap", "hash"])
        algorithm = rng.choice(ids)
        base = out / f"c{i}"
        sign = rng.random() < 0.5
        if kind == "bytes":
            for s in (".json", ".npz"):
                base.with_suffix(s).write_bytes((folder / f"{algorithm}{s}").read_bytes())
            _flip(rng, base.with_suffix(rng.choice([".json", ".npz"])))
            sign = sign and holds_json_object(base)
            if sign:
                resign(base)
            must = not sign and changed(base, folder / algorithm)
        elif kind == "fields":
            meta, arrays = read_pair(folder / algorithm)
            _edit_fields(rng, meta, arrays, ids)
            write_pair(base, meta, arrays, sign=sign)
            must = not sign and changed(base, folder / algorithm)
        elif kind == "swap":
            sign = _swap(rng, folder, base)
            if sign:
                resign(base)
            must = True
        else:
            _forge_hash(rng, folder, base, ids)
            sign, must = False, True
        cases.append((f"tampered: {kind}" + (", re-signed" if sign else ""), base, must))
    return cases


def run_use(cases, folder, bound):
    """Use every case in worker processes restarted after a crash or a hang."""
    outcomes, left = {}, list(cases)
    while left:
        manifest = folder / "manifest.json"
        manifest.write_text(json.dumps({"X": str(folder / "X.npy"), "y": str(folder / "y.npy"),
                                        "models": [str(c[1]) for c in left]}))
        try:
            done = subprocess.run([sys.executable, str(WORKER), "use", str(manifest)],
                                  capture_output=True, text=True, env=ENV,
                                  timeout=120 + bound * len(left))
            stdout, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired as exc:
            stdout, code = (exc.stdout or b"").decode(), "hang"
        lines = [json.loads(x) for x in stdout.splitlines() if x.startswith("{")]
        for line in lines:
            outcomes[line["path"]] = line["outcome"]
        if len(lines) < len(left):  # the next case crashed or hung the worker
            outcomes[str(left[len(lines)][1])] = "hang" if code == "hang" else "crash"
        left = left[len(lines) + 1:]
    rows = {}
    for name, base, must in cases:
        got = outcomes[str(base)]
        row = rows.setdefault(name, _row())
        row["cases"] += 1
        if got == "ok":
            row["loaded"] += 1
            row["silent wrong"] += must
        elif got == "ValueError":
            row["refused"] += 1
        else:
            row[{"crash": "crashes", "hang": "hangs", "wrong": "silent wrong"}.get(
                got, "other exceptions")] += 1
    return rows


# ------------------------------------------------------------------ interrupted saves


def _worker(*args, timeout):
    try:
        done = subprocess.run([sys.executable, str(WORKER), *map(str, args)],
                              capture_output=True, text=True, env=ENV, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", None
    if done.returncode < 0:
        return "crash", None
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    return (None, json.loads(lines[-1])) if lines else ("other", done.stderr[-500:])


def faults(folder, kind, size):
    row = _row()
    for algorithm in FAULT_MODELS[:size["algorithms"]]:
        out = Path(tempfile.mkdtemp(dir=folder))
        problem, report = _worker("faults", folder / f"{algorithm}.old", folder / algorithm,
                                  out / "m", kind, size["every"], timeout=3600)
        row["cases"] += 1 if problem else report["points"]
        if problem:
            row[{"hang": "hangs", "crash": "crashes"}.get(problem, "other exceptions")] += 1
            continue
        row["loaded"] += report["old"] + report["new"]
        row["silent wrong"] += len(report["wrong"]) + len(report["left"])
        row["other exceptions"] += len(report["errors"])
    return row


def random_kills(folder, size):
    out = Path(tempfile.mkdtemp(dir=folder))
    problem, report = _worker("random-kills", folder / "spam-l2.old", folder / "spam-l2",
                              out / "m", size["kills"], 1, timeout=3600)
    if problem:
        return _row(cases=1, **{{"hang": "hangs", "crash": "crashes"}.get(
            problem, "other exceptions"): 1})
    return _row(cases=report["kills"], loaded=report["old"] + report["new"],
                **{"silent wrong": len(report["wrong"])})


def fsize_limit(folder):
    """RLIMIT_FSIZE below the size of the new model's .npz: EFBIG, the previous model intact."""
    out = Path(tempfile.mkdtemp(dir=folder))
    aucopt.io.save(aucopt.io.load(folder / "spam-l2"), out / "m")
    before = [(out / f"m.{s}").read_bytes() for s in ("json", "npz")]
    limit = (folder / "wide.npz").stat().st_size // 2
    problem, report = _worker("save-loop", folder / "spam-l2", folder / "wide", out / "m", 1,
                              limit, timeout=600)
    row = _row(cases=1)
    if problem:
        row[{"hang": "hangs", "crash": "crashes"}.get(problem, "other exceptions")] += 1
    elif report.get("error") != "OSError":
        row["other exceptions"] += 1
    elif [(out / f"m.{s}").read_bytes() for s in ("json", "npz")] != before or \
            [p for p in out.iterdir() if p.name.startswith(".")]:
        row["silent wrong"] += 1
    else:
        row["refused"] += 1
    return row


def full_disk(folder):
    """Fill a 4 MiB tmpfs, then save a larger model over a smaller one; None if no mount."""
    mount = Path(tempfile.mkdtemp(dir="/tmp"))
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
                        capture_output=True).returncode == 0
    if not ok:
        mount.rmdir()
        return None
    try:
        small = aucopt.io.load(folder / "spam-l2")
        aucopt.io.save(small, mount / "m")
        before = [(mount / f"m.{s}").read_bytes() for s in ("json", "npz")]
        filler = mount / "filler"
        free = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize
        filler.write_bytes(b"\0" * max(free - 64 * 1024, 0))
        row = _row(cases=1)
        try:
            aucopt.io.save(aucopt.io.load(folder / "wide"), mount / "m")
            row["other exceptions"] += 1  # the save should not fit
        except OSError:
            same = [(mount / f"m.{s}").read_bytes() for s in ("json", "npz")] == before
            tidy = not [p for p in mount.iterdir() if p.name.startswith(".")]
            row["refused" if same and tidy else "silent wrong"] += 1
        return row
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)
        mount.rmdir()


def concurrent(folder, size, writers, notes):
    """Loads while ``writers`` processes save the two models alternately without pause."""
    out = Path(tempfile.mkdtemp(dir=folder))
    aucopt.io.save(aucopt.io.load(folder / "spam-l2.old"), out / "m")
    savers = [subprocess.Popen([sys.executable, str(WORKER), "save-loop", str(folder / a),
                                str(folder / b), str(out / "m"), "1000000"], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
              for a, b in [("spam-l2.old", "spam-l2"), ("spam-l2", "spam-l2.old")][:writers]]
    for saver in savers:
        saver.stdout.readline()  # saving has begun
    problem, report = _worker("load-loop", out / "m", size["loads"], folder / "spam-l2.old",
                              folder / "spam-l2", timeout=3600)
    row, saves = _row(cases=size["loads"]), len(savers)  # the first lines were read
    for saver in savers:
        if saver.poll() is not None:  # a saver ended before the loads did
            row["crashes" if saver.returncode < 0 else "other exceptions"] += 1
        saver.kill()
        rest = saver.communicate(timeout=600)[0]
        saves += rest.count("saved")
    if problem:
        row[{"hang": "hangs", "crash": "crashes"}.get(problem, "other exceptions")] += 1
        return row
    notes[f"{writers} writer(s)"] = (f"{saves} saves ran during the {size['loads']} loads, "
                                     f"which saw the first model {report['old']} times and "
                                     f"the second {report['new']} times.")
    row["loaded"] += report["old"] + report["new"]
    row["silent wrong"] += report["neither"] + sum(
        n for e, n in report["errors"].items() if e.startswith("ModelFileError"))
    row["other exceptions"] += sum(n for e, n in report["errors"].items()
                                   if not e.startswith("ModelFileError"))
    return row


# ------------------------------------------------------------------------------ driver


def originals(folder, ids):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1, -1)
    for algorithm in ids:
        aucopt.io.save(aucopt.make(algorithm, random_state=0).fit(X, y), folder / algorithm)
    for algorithm in FAULT_MODELS:
        aucopt.io.save(aucopt.make(algorithm, random_state=1).fit(X[::-1], y[::-1]),
                       folder / f"{algorithm}.old")
    wide = np.hstack([X, rng.normal(size=(60, 40000))])
    aucopt.io.save(aucopt.make("spam-l2", random_state=0).fit(wide, y), folder / "wide")
    np.save(folder / "X.npy", X)
    np.save(folder / "y.npy", y)


def run(size_name: str, seed: int) -> tuple[dict, dict]:
    size = SIZES[size_name]
    ids = aucopt.list_algorithms()
    rows, notes = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        originals(folder, ids)
        cases_dir = folder / "cases"
        cases_dir.mkdir()
        cases = make_cases(random.Random(seed), folder, cases_dir, size["files"], ids)
        rows.update(dict(sorted(run_use(cases, folder, bound=30).items())))
        rows["save: SIGKILL at every step"] = faults(folder, "kill", size)
        rows["save: SIGKILL at random moments"] = random_kills(folder, size)
        rows["save: OSError (ENOSPC) at every step"] = faults(folder, "oserror", size)
        rows["save: RLIMIT_FSIZE"] = fsize_limit(folder)
        disk = full_disk(folder)
        if disk is None:
            notes["full disk"] = ("`mount -t tmpfs` is not allowed here: the full disk is "
                                  "covered by the simulated ENOSPC row only.")
        else:
            rows["save: full tmpfs (ENOSPC)"] = disk
        for writers in size["writers"]:
            rows[f"concurrent: loads while {writers} process(es) save"] = \
                concurrent(folder, size, writers, notes)
    return rows, notes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "fuzz.md"),
                        help="file whose fuzz_io section is written; '-' prints only")
    args = parser.parse_args(argv)
    started = time.monotonic()
    rows, notes = run(args.size, args.seed)
    minutes = (time.monotonic() - started) / 60
    bad = sum(row[c] for row in rows.values() for c in BAD)
    text = "\n".join([
        "## Model files and saves",
        "",
        f"Generated by `python benchmarks/fuzz_io.py --size {args.size} --seed {args.seed}` "
        f"({stamp()}; {minutes:.1f} min). Rerun: `make bench-fuzz-io`.",
        "",
        headline(rows),
        "",
        table(rows, COLUMNS),
        "",
        "Definitions. *loaded*: the file loaded (tampered files: re-signed ones that are "
        "still a valid model; saves: the old or the new model, bit for bit on a probe). "
        "*refused*: a documented error (`ModelFileError` and other `ValueError`s; an "
        "`OSError` from a save with the previous model unchanged). *silent wrong*: a file "
        "that must be refused (an unsigned edit, arrays of another algorithm, removed or "
        "forged hashes) loaded, a loaded model with non-finite scores or unsorted "
        "`classes_`, or after a save a model that is neither the old nor the new one, "
        "changed files or temporary files left by a failed save. *crashes*: a worker "
        "killed by a signal; *hangs*: past the bound of 30 s per case.",
        "",
        *[f"- {k}: {v}" for k, v in notes.items()],
    ])
    if args.out == "-":
        print(text)
    else:
        write_section(Path(args.out), text, SECTION)
        print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
