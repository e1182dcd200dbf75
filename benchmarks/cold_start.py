"""Cold start: what a fresh process pays before its first row, against scikit-learn and River.

Every case runs in a new Python process (the numba cache already on disk: run
``aucopt warmup`` first, or let the first repeat fill it) and reports the wall
seconds measured inside the child (interpreter start-up excluded) or, for the
commands, of the whole process. Cases are interleaved, each run ``--repeats`` times;
the report gives the median.

- ``import aucopt``; ``aucopt --help``, ``aucopt algorithms``; ``aucopt fit`` on a
  small LIBSVM file (200 rows);
- per algorithm family (the first registered id of each): ``import aucopt`` then the
  first ``fit`` on 200 x 5 dense rows, and a second ``fit`` in the same process (the
  work itself), so that *first - second* is the cold cost;
- peers: ``import sklearn.linear_model`` and a first ``LogisticRegression().fit`` on
  the same rows; ``import river`` and a first ``LogisticRegression().learn_one``.

aucopt's bytecode is compiled first, as a wheel install has it.

Writes ``docs/cold_start.md`` (``--out``), which ``docs/performance.md`` links. Usage:

    python benchmarks/cold_start.py [--repeats 5] [--out PATH]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stamp import stamp  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
AUCOPT = str(Path(PYTHON).with_name("aucopt"))
# a command is "instant" when it adds at most this to the interpreter's own start-up (about
# the delay a person notices)
INSTANT = 0.3

_PROBLEM = """
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5)) / 5
y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1, -1)
"""

# each child prints one JSON object of seconds measured inside it
_FIT = """
import json, time
t0 = time.perf_counter()
import aucopt
t1 = time.perf_counter()
""" + _PROBLEM + """
aucopt.make({algorithm!r}, random_state=0).fit(X, y)
t2 = time.perf_counter()
aucopt.make({algorithm!r}, random_state=0).fit(X, y)
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}}))
"""

_IMPORT = """
import json, time
t0 = time.perf_counter()
import aucopt
print(json.dumps({"import": time.perf_counter() - t0}))
"""

_SKLEARN = """
import json, time
t0 = time.perf_counter()
from sklearn.linear_model import LogisticRegression
t1 = time.perf_counter()
""" + _PROBLEM + """
LogisticRegression().fit(X, y)
t2 = time.perf_counter()
LogisticRegression().fit(X, y)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""

_RIVER = """
import json, time
t0 = time.perf_counter()
from river import linear_model
t1 = time.perf_counter()
row = {f"x{j}": 0.1 * j for j in range(5)}
linear_model.LogisticRegression().learn_one(row, True)
t2 = time.perf_counter()
linear_model.LogisticRegression().learn_one(row, True)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}))
"""

# River's test-then-train on 30 rows (the first rows take the general path, the next the
# one-row path and the O(nnz) score: compiled functions of their own, which `aucopt
# warmup` prepares too)
_LEARN_ONE = """
import json, random, time
t0 = time.perf_counter()
from aucopt.river import AUCClassifier
t1 = time.perf_counter()
r = random.Random(0)
rows = [({{f"x{{j}}": r.gauss(0, 1) for j in range(5)}}, i % 3 == 0) for i in range(30)]
times = []
for _ in range(2):
    model = AUCClassifier({algorithm!r}, seed=0)
    start = time.perf_counter()
    for x, y in rows:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    times.append(time.perf_counter() - start)
print(json.dumps({{"import": t1 - t0, "first": times[0], "second": times[1]}}))
"""
# the ids whose River stream the report starts in a fresh process
LEARN_ONE_IDS = ("spam-l2", "ftrl-auc", "oam-seq", "pauc-1pmb")


def families() -> dict[str, str]:
    """The first registered id of each algorithm family (imports the registry here only)."""
    import aucopt
    from aucopt.algorithms import get_algorithm

    out = {}
    for algorithm in aucopt.list_algorithms():
        out.setdefault(get_algorithm(algorithm).family, algorithm)
    return out


def _child(code: str, env=None) -> dict:
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True,
                         env=env, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _command(args: list[str], cwd) -> dict:
    start = time.perf_counter()
    subprocess.run([AUCOPT, *args], capture_output=True, text=True, check=True, cwd=cwd)
    return {"process": time.perf_counter() - start}


def _small_file(folder: Path) -> Path:
    import numpy as np
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)) / 5
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1, -1)
    path = folder / "small.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def cases(folder: Path) -> dict:
    """Name -> a function returning one run's seconds (a dict)."""
    small = _small_file(folder)
    out = {
        "python -c pass": lambda: _command_python("pass"),
        "import aucopt": lambda: _child(_IMPORT),
        "aucopt --help": lambda: _command(["--help"], folder),
        "aucopt algorithms": lambda: _command(["algorithms"], folder),
        "aucopt fit spam-l2 small.svm": lambda: _command(
            ["fit", "spam-l2", str(small), "--out", str(folder / "model")], folder),
    }
    for family, algorithm in families().items():
        out[f"fit {algorithm} ({family})"] = lambda a=algorithm: _child(
            _FIT.format(algorithm=a))
    for algorithm in LEARN_ONE_IDS:
        out[f"learn_one {algorithm} (River, 30 rows)"] = lambda a=algorithm: _child(
            _LEARN_ONE.format(algorithm=a))
    out["peer: scikit-learn LogisticRegression"] = lambda: _child(_SKLEARN)
    out["peer: River LogisticRegression.learn_one"] = lambda: _child(_RIVER)
    return out


def _command_python(code: str) -> dict:
    start = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], check=True)
    return {"process": time.perf_counter() - start}


def measure(repeats: int, fill: bool = True, after_repeat=None, only=()) -> dict:
    """Run every case ``repeats`` times, interleaved; return name -> list of runs.

    ``after_repeat(runs, done)`` is called after each repeat (the report so far); ``only``
    keeps the cases whose names contain one of its strings (all when empty)."""
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        table = {name: run for name, run in cases(Path(tmp)).items()
                 if not only or any(part in name for part in only)}
        for run in table.values() if fill else ():  # fill the numba cache; not recorded
            run()
        for r in range(repeats):
            for name, run in table.items():
                runs.setdefault(name, []).append(run())
            print(f"repeat {r + 1}/{repeats} done", flush=True)
            if after_repeat is not None:
                after_repeat(runs, r + 1)
    return runs


def _median(runs, key):
    values = [run[key] for run in runs if key in run]
    return statistics.median(values) if values else None


def _s(value):
    return "" if value is None else f"{value:.3f}"


def render(runs: dict, repeats: int, elapsed: float, provenance: str) -> str:
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [
        "# Cold start", "",
        f"Generated by `benchmarks/cold_start.py` ({provenance}) in {elapsed / 60:.1f} min on a "
        f"{os.cpu_count()}-core machine (load average {load} at the end; a load above the core "
        "count means other jobs shared it and inflate every figure). Every case is a new Python "
        f"process with numba's cache already on disk (`aucopt warmup`); median of {repeats} "
        "interleaved runs, seconds of wall time.", "",
        "## Commands (whole process, interpreter start-up included)", "",
        "| command | seconds |", "| --- | --- |",
    ]
    for name, value in runs.items():
        if "process" in value[0]:
            lines.append(f"| `{name}` | {_s(_median(value, 'process'))} |")
    lines += [
        "", "## Import and first fit (measured inside the process)", "",
        "*import*: `import aucopt` (or the peer's import); *first fit*: the first `fit` of "
        "200 x 5 dense rows after it (aucopt: the estimator module, scikit-learn and the "
        "algorithm's kernels load here); *second fit*: the same fit again in the same process "
        "(the work itself); *cold cost* = first - second. The `learn_one` rows: *import* is "
        "`from aucopt.river import AUCClassifier` (River included), *first fit* 30 rows of "
        "`predict_proba_one` then `learn_one` by a new model, *second fit* the same 30 rows "
        "by another new model.", "",
        "| case | import | first fit | second fit | cold cost | import + first fit |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, value in runs.items():
        if "process" in value[0]:
            continue
        imp, first, second = (_median(value, k) for k in ("import", "first", "second"))
        cold = None if first is None else first - second
        total = None if first is None else imp + first
        lines.append(f"| {name} | {_s(imp)} | {_s(first)} | {_s(second)} | {_s(cold)} | "
                     f"{_s(total)} |")
    lines += _verdict(runs)
    lines += ["", "Rerun: `python benchmarks/cold_start.py` (after `aucopt warmup`).", ""]
    return "\n".join(lines)


def _verdict(runs: dict) -> list[str]:
    """The cold-start targets, judged on the medians: ``import aucopt`` under 1 s, and each
    family's first fit under 1 s; the same first fit against scikit-learn's own start-up
    (import of ``LogisticRegression`` and its first fit) plus 1 s: aucopt's estimators are
    scikit-learn estimators, so their first fit loads scikit-learn too."""
    fits = {name: value for name, value in runs.items() if name.startswith("fit ")}
    peer = runs.get("peer: scikit-learn LogisticRegression")
    imported = runs.get("import aucopt")
    commands = [_command_line(runs, name) for name in ("aucopt --help", "aucopt algorithms")]
    commands = [line for line in commands if line]
    if not fits or peer is None or imported is None:
        return ["", "## Targets", "", *commands] if commands else []
    floor = _median(peer, "import") + _median(peer, "first")
    first = {name: _median(value, "first") for name, value in fits.items()}
    total = {name: _median(value, "import") + first[name] for name, value in fits.items()}
    under = sum(v < 1.0 for v in first.values())
    near = sum(v <= floor + 1.0 for v in total.values())
    worst = max(total, key=total.get)
    return [
        "", "## Targets", "",
        f"- `import aucopt` under 1 s: {_median(imported, 'import'):.3f} s "
        f"({'met' if _median(imported, 'import') < 1.0 else 'NOT MET'}).",
        f"- First small fit under 1 s after the import: {under} of {len(first)} families "
        f"(slowest {max(first.values()):.3f} s).",
        f"- Import + first fit within scikit-learn's own import + first fit ({floor:.3f} s) "
        f"plus 1 s: {near} of {len(total)} families (slowest: {worst}, {total[worst]:.3f} s, "
        f"{total[worst] - floor:+.3f} s beyond scikit-learn's).",
        *commands,
    ]


def _command_line(runs: dict, name: str) -> str:
    """The target of a command that should be instant: within ``INSTANT`` seconds of a bare
    ``python -c pass`` (interpreter start-up), its tables read from their cache."""
    if name not in runs or "python -c pass" not in runs:
        return ""
    took, bare = _median(runs[name], "process"), _median(runs["python -c pass"], "process")
    met = "met" if took - bare <= INSTANT else "NOT MET"
    return (f"- `{name}` instant (within {INSTANT} s of `python -c pass`): {took:.3f} s, "
            f"{took - bare:+.3f} s ({met}).")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "cold_start.md")
    parser.add_argument("--no-fill", action="store_true",
                        help="skip the unrecorded first round (the cache is full: aucopt warmup)")
    parser.add_argument("--cases", default="",
                        help="comma-separated substrings of the case names to run (all)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    provenance = stamp()  # before the first write: the report itself would make it -dirty
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # the package's bytecode, as a wheel install has it (pip compiles it): with
    # PYTHONDONTWRITEBYTECODE set, an editable install would compile its sources in every child
    compileall.compile_dir(ROOT / "aucopt", quiet=1)

    def write(runs, done):
        args.out.write_text(render(runs, done, time.perf_counter() - began, provenance))
        args.out.with_suffix(".json").write_text(json.dumps(runs, indent=1))
        print(f"wrote {args.out} ({done} repeats)", flush=True)

    measure(args.repeats, fill=not args.no_fill, after_repeat=write,
            only=[part for part in args.cases.split(",") if part])


if __name__ == "__main__":
    main()
