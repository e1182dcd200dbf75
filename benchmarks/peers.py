"""aucopt against the tools a practitioner would pick instead: ``docs/peers.md``.

scikit-learn (LogisticRegression, SGDClassifier, LinearSVC), Vowpal Wabbit, River and LibAUC,
each with its documented defaults and tuned on the same inner folds, on the mirror's real
datasets, imbalanced synthetic data (1% and 0.1% positives), a hashed sparse stream
(d = 2^20, 10^6 rows of 50 tokens) and a drifting stream (prequential). The optional peers
are used when installed (``pip install -e ".[peers]"`` and ``pip install --no-deps libauc``).

Usage: python benchmarks/peers.py [--quick] [--rows 1000000] [--out docs/peers.md]
           [--cases SUBSTRING,...] [--merge a.json,b.json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers_cases import MIRROR_DATASETS, NO_MIRROR, hashed_stream, imbalanced, real_cases  # noqa: E402
from _peers_measure import fit_and_score, inner_folds, tune  # noqa: E402
from _peers_report import write_figures, write_report  # noqa: E402
from _peers_stream import prequential  # noqa: E402
from _peers_tools import Method, OnePass, VowpalWabbit, available, methods  # noqa: E402
from _stamp import stamp  # noqa: E402
from sklearn.linear_model import SGDClassifier  # noqa: E402

import aucopt  # noqa: E402
from aucopt.datasets import make_auc_problem  # noqa: E402
from aucopt.linear_model import choose  # noqa: E402
from aucopt.linear_model._auto import has_one_scale  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ONE_PASS_REPEATS = 3


def warm_up() -> None:
    """Compile every aucopt kernel the timed fits use (dense and CSR), outside the timers."""
    X, y = make_auc_problem(400, 8, random_state=0)
    for data in (X, sp.csr_matrix(X)):
        for algorithm, params in (("spam-l2", {}), ("spam-l2", {"stats": "online",
                                                                 "decay": 1e-3}),
                                  ("uni-log-batch", {})):
            est = aucopt.make(algorithm, random_state=0, **params).fit(data, y)
            est.decision_function(data)
            if hasattr(est, "partial_fit"):
                aucopt.make(algorithm, **params).partial_fit(data, y, classes=[-1, 1])
        aucopt.make("auto").fit(data, y).decision_function(data)


def run_case(case, all_methods: list[Method], log) -> dict:
    """Every method on every outer split of ``case``; the mean over the splits."""
    per_method = {(m.tool, m.label): [] for m in all_methods}
    skipped = set()
    for Xtr, ytr, Xte, yte in case.splits():
        folds = inner_folds(Xtr, ytr, case.tune_rows)
        for m in all_methods:
            if (m.max_rows and Xtr.shape[0] > m.max_rows) or (
                    m.max_features and Xtr.shape[1] > m.max_features):
                skipped.add(f"{m.tool} {m.label} (too slow at this size)")
                continue
            params, tuning = tune(m, folds) if m.tuned else ({}, 0.0)
            result = fit_and_score(m, params, Xtr, ytr, Xte, yte)
            result["tune_seconds"] = tuning
            per_method[m.tool, m.label].append(result)
            log(f"  {case.name:32s} {m.tool:13s} {m.label:36s} AUC {result['auc']:.4f} "
                f"fit {result['seconds']:8.3f}s tune {tuning:7.1f}s")
        VowpalWabbit.clear()
    rows = []
    for m in all_methods:
        results = per_method[m.tool, m.label]
        if not results:
            continue
        rows.append({"label": m.label, "tool": m.tool, "tuned": m.tuned,
                     "recommended": m.recommended,
                     "auc": float(np.mean([r["auc"] for r in results])),
                     "seconds": float(np.mean([r["seconds"] for r in results])),
                     "tune_seconds": float(np.mean([r["tune_seconds"] for r in results])),
                     "memory_mb": float(np.max([r["memory_mb"] for r in results])),
                     "params": {**m.params, **results[0]["params"]},
                     "chosen": results[0].get("chosen", "")})
    return {"name": case.name, "note": case.note, "rows": rows, "skipped": sorted(skipped),
            "memory_figure": case.sparse_high_dim or case.name.startswith(("a9a", "synthetic 0.1"))}


def one_pass_race(case, peers: dict, log) -> dict:
    """Interleaved repeats of the one-pass learners on the full hashed stream."""
    (Xtr, ytr, Xte, yte), = case.splits()
    contenders = {"aucopt AUCClassifier (auto)": Method("aucopt", "auto", lambda: _Est(
        aucopt.make("auto", random_state=0))),
        "scikit-learn SGDClassifier log-loss one pass": Method(
            "scikit-learn", "sgd", lambda: OnePass(SGDClassifier(loss="log_loss",
                                                                 random_state=0)))}
    if peers.get("Vowpal Wabbit"):
        contenders["Vowpal Wabbit one pass (defaults)"] = Method("Vowpal Wabbit", "vw",
                                                                 lambda: VowpalWabbit())
    results = {name: {"times": [], "auc": math.nan} for name in contenders}
    for _ in range(ONE_PASS_REPEATS):
        for name, m in contenders.items():
            r = fit_and_score(m, {}, Xtr, ytr, Xte, yte, memory=False)
            results[name]["times"].append(r["seconds"])
            results[name]["auc"] = r["auc"]
            log(f"  one pass {name:45s} AUC {r['auc']:.4f} fit {r['seconds']:.3f}s")
    VowpalWabbit.clear()
    for r in results.values():
        r["median"] = statistics.median(r["times"])
    algorithm, params = choose(*Xtr.shape, Xtr.nnz, one_scale=has_one_scale(Xtr))
    note = (f"{Xtr.shape[0]:,} training rows, {Xte.shape[0]:,} test rows, d = {Xtr.shape[1]:,}; "
            f"{ONE_PASS_REPEATS} interleaved runs each. aucopt and scikit-learn fit the CSR "
            "matrix in memory; Vowpal Wabbit reads its own text file (its fastest input path). "
            f"aucopt's choice on these rows: `{algorithm}` with "
            + ", ".join(f"`{k}={v!r}`" for k, v in params.items()) + ".")
    verdict = ""
    vw = results.get("Vowpal Wabbit one pass (defaults)")
    ours = results["aucopt AUCClassifier (auto)"]
    if vw:
        reached = ours["auc"] >= vw["auc"] - 1e-4
        faster = ours["median"] < vw["median"]
        verdict = (f"aucopt's choice {'reaches' if reached else 'does NOT reach'} "
                   f"Vowpal Wabbit's one-pass test AUC ({ours['auc']:.4f} vs {vw['auc']:.4f}) "
                   f"in {ours['median'] / vw['median']:.2f}x its wall time "
                   f"({'met' if reached and faster else 'NOT MET'}).")
    return {"note": note, "learners": results, "verdict": verdict}


class _Est:
    def __init__(self, est):
        self.est = est

    def fit(self, X, y):
        self.est.fit(X, y)

    def scores(self, X):
        return self.est.decision_function(X)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    p.add_argument("--rows", type=int, default=1_000_000, help="hashed stream training rows")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "peers.md")
    p.add_argument("--cases", default="", help="comma-separated substrings of case names")
    p.add_argument("--no-peers", action="store_true", help="scikit-learn only (for tests)")
    p.add_argument("--one-pass-only", action="store_true",
                   help="on the hashed stream, only the one-pass race (no per-method table)")
    p.add_argument("--merge", default="", help="comma-separated JSON results of earlier runs "
                   "(each run writes its results beside its report): write one report of "
                   "them, running nothing")
    return p.parse_args(argv)


def _report(args, results: dict, minutes: float, command: str) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({**results, "minutes": minutes,
                                                         "command": command, "stamp": stamp()},
                                                        indent=1))
    figures = write_figures(results["cases"], results["stream"], args.out.parent)
    write_report(args.out, stamp=stamp(), minutes=minutes, command=command,
                 peers=results["peers"], cases=results["cases"], stream=results["stream"],
                 one_pass=results["one_pass"], messages=results["messages"], figures=figures)


def merge(args) -> None:
    """One report of the results of several runs (e.g. cases run in parallel)."""
    parts = [json.loads(Path(p).read_text()) for p in args.merge.split(",")]
    names = dict.fromkeys(name for p in parts for name in p["peers"])
    # a peer ran if it was installed for any of the runs (their cases show its rows)
    results = {"peers": {name: any(p["peers"].get(name, False) for p in parts)
                         for name in names},
               "messages": sorted({m for p in parts for m in p["messages"]} - (
                   {NO_MIRROR} if any(c["name"] in MIRROR_DATASETS for p in parts
                                      for c in p["cases"]) else set())),
               "cases": [c for p in parts for c in p["cases"]],
               "stream": next((p["stream"] for p in parts if p["stream"]), None),
               "one_pass": next((p["one_pass"] for p in parts if p["one_pass"]), None)}
    # each part names the commit it ran at (a part run before the merged commit says so; a
    # merged part names those of its own parts already)
    _report(args, results, sum(p["minutes"] for p in parts),
            " + ".join(f"{p['command']} [{p['stamp']}]"
                       if "stamp" in p and "[aucopt " not in p["command"] else p["command"]
                       for p in parts))


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.merge:
        merge(args)
        return
    start = time.perf_counter()
    warnings.filterwarnings("ignore")
    peers = available()
    if args.no_peers:
        peers = dict.fromkeys(peers, False)
    log = print
    rows = 3_000 if args.quick else args.rows
    cases, message = real_cases("standard", quick=args.quick)
    if args.quick:
        cases = cases[:2]
    # (a run of other cases only, e.g. --cases hashed, skips no real dataset)
    wanted = args.cases.split(",") if args.cases else [""]
    messages = [message] if message and any(w in name for w in wanted
                                            for name in MIRROR_DATASETS) else []
    cases += [imbalanced(0.01, 3_000 if args.quick else 100_000),
              imbalanced(0.001, 10_000 if args.quick else 300_000),
              hashed_stream(rows, max(rows // 10, 1_000), d=2**14 if args.quick else 2**20,
                            tune_rows=min(rows, 1_500 if args.quick else 100_000))]
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in cases if any(w in c.name for w in wanted)]
    all_methods = methods(peers)
    if args.quick:  # the fixed settings only, a small grid for the tuned ones
        tools = {m.tool for m in all_methods}
        all_methods = [m for m in all_methods if m.recommended] + [
            next(m for m in all_methods if m.tool == t and not m.tuned and not m.recommended)
            for t in sorted(tools)] + [next(m for m in all_methods if m.tool == t and m.tuned)
                                       for t in sorted(tools)]
        for m in all_methods:
            m.grid = {k: v[:2] for k, v in m.grid.items()}
    log(f"peers: {peers}")
    warm_up()
    results, one_pass = [], None
    for case in cases:
        log(f"case {case.name}")
        if not (args.one_pass_only and case.sparse_high_dim):
            results.append(run_case(case, all_methods, log))
        if case.sparse_high_dim:
            one_pass = one_pass_race(case, peers, log)
    stream = None
    if not args.cases or "drift" in args.cases:
        log("prequential run on a drifting stream")
        stream = prequential(peers, n_samples=2_000 if args.quick else 20_000)
    command = "python benchmarks/peers.py" + (" --quick" if args.quick else "") + (
        f" --cases {args.cases}" if args.cases else "") + (
        " --one-pass-only" if args.one_pass_only else "")
    _report(args, {"peers": peers, "messages": messages, "cases": results, "stream": stream,
                   "one_pass": one_pass}, (time.perf_counter() - start) / 60, command)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
