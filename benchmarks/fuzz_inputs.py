"""Fuzz the inputs of every estimator and count what goes wrong.

Cases are drawn by hypothesis (derandomised: the same cases on every run) in three classes:

* ``csr``: CSR matrices whose index arrays are damaged after construction (indices out
  of range, 2^31-1, 2^40, negative; ``indptr`` decreasing, negative, past the entries,
  not from 0, too short; fewer values than indices), given to ``fit``, ``partial_fit``
  and ``decision_function`` of the sparse ids;
* ``sequence``: sequences of ``set_params`` (values drawn from each declaration: its
  grid, default, bounds, other options), ``partial_fit``, ``fit`` and save + load on the
  streaming ids;
* ``extreme``: ``fit`` then ``partial_fit`` with an extreme hyperparameter (1e-300,
  1e300, the largest accepted size...), extreme ``sample_weight`` (1e308, 2^62,
  1e-300, mixed) or extreme data (scales 1e150 / 1e-150, constant, two rows...).

Each case runs in a subprocess worker (:mod:`_fuzz_inputs_worker`), with a time limit
per case. Counted: **crashes** (the worker died), **hangs** (over the time limit),
**silent wrong results** (an invalid input accepted, non-finite scores, a model changed
by a failed call, a saved model that loads back different or is refused) and **undocumented
exceptions** (anything but ``ValueError`` and ``OSError``).

Run: ``python benchmarks/fuzz_inputs.py --size long`` (``make bench-fuzz-inputs``), which
writes its section of docs/fuzz.md (``--out FILE`` another page, ``--out -`` prints only);
``--size small`` (printed only, unless ``--out`` is given) is the version
``tests/test_fuzz_inputs.py`` runs. Exit status 1 if any bad count is not zero.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import select
import subprocess
import sys
import time
from collections import Counter
from numbers import Integral
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "docs" / "fuzz.md"
SECTION = ("<!-- fuzz_inputs: begin -->", "<!-- fuzz_inputs: end -->")
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _fuzz_report import BAD, headline, new_row, table, write_section  # noqa: E402
from _stamp import stamp  # noqa: E402

import aucopt  # noqa: E402
from aucopt.algorithms import get_algorithm  # noqa: E402
from aucopt.utils._param_validation import Interval, Options  # noqa: E402

WORKER = HERE / "_fuzz_inputs_worker.py"
COLUMNS = ["cases", "ok", "refused", *BAD]
SIZES = {"small": {"csr": 8, "sequence": 6, "extreme": 10, "limit": 120.0},
         "long": {"csr": 400, "sequence": 400, "extreme": 1200, "limit": 120.0}}
IDS = aucopt.list_algorithms()
SPARSE = [a for a in IDS if get_algorithm(a).sparse]
STREAMING = [a for a in IDS if get_algorithm(a).streaming]
MAX_TIME = 20.0  # seconds: fit's budget in the extreme cases (well below the time limit)
SKIP = {"shuffle", "random_state", "warm_start", "verbose", "max_time", "max_memory_gb"}


def _values(p, extreme: bool) -> list:
    """Candidate values of a declared hyperparameter (all valid by its constraints)."""
    out = [p.default]
    for c in p.constraints:
        if isinstance(c, Options):
            out += sorted(c.options, key=str)
        elif isinstance(c, Interval):
            lo = c.left if c.left is not None else -1e300
            hi = c.right if c.right is not None else 1e300
            if c.type_ is Integral:
                lo = int(lo) + (c.closed in ("right", "neither"))
                hi = int(min(hi, 10**9)) - (c.closed in ("left", "neither"))
                out += [lo, lo + 1, 3] if not extreme else [lo, hi, min(hi, 2**31)]
            else:
                tiny = lo if c.closed in ("left", "both") else (lo + 1e-300 if lo == 0 else lo)
                out += [tiny, 0.5, 2.0] if not extreme else [tiny, 1e-300, hi if math.isfinite(
                    hi) and hi < 1e300 else 1e300, 5e-324 if lo <= 0 < 5e-324 else tiny]
    valid = []
    for v in out:
        if isinstance(v, float) and not math.isfinite(v):
            continue
        if any(_accepts(c, v) for c in p.constraints) and v not in valid:
            valid.append(v)
    return valid


def _accepts(c, v) -> bool:
    if c is None:
        return v is None
    if isinstance(c, str):
        return c == "boolean" and isinstance(v, bool)
    try:
        return c.is_satisfied_by(v)
    except Exception:  # noqa: BLE001
        return False


def _param_choices(algorithm: str, extreme: bool) -> dict:
    spec = get_algorithm(algorithm)
    return {p.name: _values(p, extreme) for p in spec.params if p.name not in SKIP}


@st.composite
def csr_cases(draw):
    algorithm = draw(st.sampled_from(SPARSE))
    calls = ["fit", "decision_function"] + (["partial_fit"] if algorithm in STREAMING else [])
    return {"kind": "csr", "algorithm": algorithm,
            "damage": draw(st.sampled_from(["index", "indptr", "short_indptr", "short_data"])),
            "position": draw(st.integers(0, 200)),
            "value": draw(st.sampled_from([-1, -7, 8, 9, 2**31 - 1, 2**31, 2**40, -2**31,
                                           10**6, 2**63 - 1])),
            "call": draw(st.sampled_from(calls)),
            "seed": draw(st.integers(0, 1000))}


@st.composite
def sequence_cases(draw):
    algorithm = draw(st.sampled_from(STREAMING))
    choices = _param_choices(algorithm, extreme=False)
    names = sorted(choices)
    ops = []
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["set", "set", "partial_fit", "fit", "save_load"]))
        if op == "set" and names:
            name = draw(st.sampled_from(names))
            ops.append(["set", name, draw(st.sampled_from(choices[name]))])
        elif op == "partial_fit":
            ops.append(["partial_fit", draw(st.integers(0, 4))])
        else:
            ops.append([op])
    return {"kind": "sequence", "algorithm": algorithm, "ops": ops,
            "seed": draw(st.integers(0, 1000))}


@st.composite
def extreme_cases(draw):
    algorithm = draw(st.sampled_from(IDS))
    choices = _param_choices(algorithm, extreme=True)
    params = {"max_time": MAX_TIME}  # the documented bound of long but legitimate work
    if choices and draw(st.booleans()):
        name = draw(st.sampled_from(sorted(choices)))
        params[name] = draw(st.sampled_from(choices[name]))
    return {"kind": "extreme", "algorithm": algorithm, "params": params,
            "weights": draw(st.sampled_from([None, "1e308", "2^62", "1e-300", "mixed",
                                             "one_heavy", "ints"])),
            "data": draw(st.sampled_from(["normal", "huge", "tiny", "constant", "binary",
                                          "two_rows", "one_column", "duplicates",
                                          "sparse"])),
            "seed": draw(st.integers(0, 1000))}


def draw_cases(strategy, n: int, seed: int) -> list:
    """Return ``n`` cases drawn by hypothesis (derandomised by ``seed``)."""
    found = []

    @settings(max_examples=n, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def collect(case):
        found.append(case)

    collect._hypothesis_internal_use_seed = seed
    collect()
    return json.loads(json.dumps(found[:n]))


class Worker:
    """A worker subprocess fed one case at a time."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)

    def run(self, case: dict, limit: float):
        """Return the worker's result line, ``"crash"`` or ``"hang"``."""
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return "hang"
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            return f"crash (exit {self.proc.returncode})"
        return json.loads(line)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self):
        if self.alive():
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def attack_class(case: dict) -> str:
    """Return the row of the report a case counts in."""
    if case["kind"] == "csr":
        return f"CSR structure: {case['damage']}"
    if case["kind"] == "sequence":
        return "set_params sequences"
    if len(case["params"]) > 1:  # a hyperparameter besides max_time
        return "extreme hyperparameter"
    return "extreme sample_weight" if case["weights"] else "extreme data"


def run(size: str, seed: int = 0, verbose: bool = False) -> dict:
    """Draw and run the cases of ``size``; return the counts and the failures."""
    plan = SIZES[size]
    cases = (draw_cases(csr_cases(), plan["csr"], seed)
             + draw_cases(sequence_cases(), plan["sequence"], seed)
             + draw_cases(extreme_cases(), plan["extreme"], seed))
    for i, case in enumerate(cases):
        case["id"] = i
    rows, failures = {}, []
    worker = Worker()
    start = time.perf_counter()
    for case in cases:
        if not worker.alive():
            worker = Worker()
        result = worker.run(case, plan["limit"])
        row = rows.setdefault(attack_class(case), new_row(COLUMNS))
        row["cases"] += 1
        if isinstance(result, str):
            row["crashes" if result.startswith("crash") else "hangs"] += 1
            failures.append({"case": case, "what": result})
            worker = Worker()
            continue
        if result["wrong"]:
            row["silent wrong"] += 1
            failures.append({"case": case, "what": result["wrong"]})
        elif result["outcome"] == "undocumented":
            row["other exceptions"] += 1
            failures.append({"case": case, "what": result["error"]})
        else:
            row["ok" if result["outcome"] == "ok" else "refused"] += 1
        if verbose:
            print(case["id"], case["kind"], result["outcome"], result["wrong"] or "",
                  result["error"][:100], flush=True)
    worker.close()
    total = {c: sum(r[c] for r in rows.values()) for c in COLUMNS}
    return {"size": size, "seed": seed, "cases": len(cases),
            "by_class": dict(Counter(c["kind"] for c in cases)),
            "seconds": round(time.perf_counter() - start, 1),
            "crashes": total["crashes"], "hangs": total["hangs"],
            "silent wrong results": total["silent wrong"],
            "undocumented exceptions": total["other exceptions"],
            "ok": total["ok"], "documented errors": total["refused"],
            "rows": dict(sorted(rows.items())), "failures": failures}


def _no_folders(text: str) -> str:
    """Return ``text`` with the folders of absolute paths removed (temporary files of a run)."""
    return re.sub(r"(?:/[^\s/:]+)+/", "", text)


def report(summary: dict) -> str:
    """Return the markdown section of a run (for docs/fuzz.md)."""
    size, seed, rows = summary["size"], summary["seed"], summary["rows"]
    lines = [
        "## Estimator inputs",
        "",
        f"Generated by `python benchmarks/fuzz_inputs.py --size {size} --seed {seed}` "
        f"({stamp()}; {summary['seconds'] / 60:.1f} min). Rerun: `make bench-fuzz-inputs`.",
        "",
        headline(rows),
        "",
        table(rows, COLUMNS),
        "",
        "Attack classes. *CSR structure*: a scipy CSR matrix whose index arrays were damaged "
        "after construction (an index out of range, 2^31 - 1, 2^40 or negative; `indptr` "
        "decreasing, negative, past the entries, not from 0 or too short; fewer values than "
        "indices), given to `fit`, `partial_fit` or `decision_function` of a sparse "
        "estimator. *set_params sequences*: up to 6 calls of `set_params` (values drawn from "
        "each hyperparameter's declaration), `partial_fit`, `fit` and save + load on a "
        "streaming estimator. *extreme hyperparameter*, *sample_weight*, *data*: `fit` then "
        "`partial_fit` with a hyperparameter at an end of its range (1e-300, 1e300, the "
        "largest accepted size...), weights such as 1e308, 2^62, 1e-300 or 1e-300 and 1e300 "
        f"in turn, or data scaled by 1e150 or 1e-150, constant, binary, of two rows..., "
        f"under `max_time={MAX_TIME:g}`.",
        "",
        "Definitions. *ok*: the calls succeeded and the model scores finitely (and loads "
        "back equal after a save). *refused*: a documented error (a `ValueError` subclass "
        "or an `OSError`) with the model unchanged. *silent wrong*: a damaged CSR matrix "
        "accepted, non-finite scores after a successful call, a failed call that changed "
        "the model, or a saved model that loads back different or is refused by `load`. "
        "*crashes*: a worker that "
        "died; *hangs*: past the bound of "
        f"{SIZES[size]['limit']:g} s per case.",
    ]
    lines += [f"- {_no_folders(f['what'])}: `{json.dumps(f['case'])}`"
              for f in summary["failures"]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="long")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="page whose fuzz_inputs section is written (default: "
                        "docs/fuzz.md at the long size); '-' prints only")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    out = args.out or (str(PAGE) if args.size == "long" else "-")
    summary = run(args.size, args.seed, args.verbose)
    text = report(summary)
    if out != "-":
        write_section(Path(out), text, SECTION)
    print(json.dumps(summary) if args.json else text)
    bad = sum(summary[k] for k in ("crashes", "hangs", "silent wrong results",
                                   "undocumented exceptions"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
