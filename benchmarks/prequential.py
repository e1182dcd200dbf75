"""Prequential report on a drifting stream, and the cost of ``learn_one``: ``docs/prequential.md``.

1. Writes ``aucopt.datasets.make_drift_stream`` (abrupt drift to an orthogonal ranking rule
   half-way) to a LIBSVM file and runs ``aucopt stream`` on it (a subprocess, exactly as a
   user would), with River's ``LogisticRegression`` and ``ALMAClassifier`` as baselines.
   SPAM's class statistics with exponential forgetting (``stats="online"`` with ``decay``)
   run next to the same learner without forgetting whenever the estimator has a ``decay``
   parameter (``"decay" in est.get_params()``); otherwise the report says so.
2. Runs River's own ``ConceptDriftStream`` (two ``Agrawal`` concepts) test-then-train in
   Python, as a River user would (``benchmarks/_prequential_river.py``).
3. Runs bag-of-words dict streams test-then-train (``benchmarks/_prequential_tokens.py``).
4. Times ``learn_one`` against River's ``LogisticRegression.learn_one``
   (``benchmarks/river_learn_one.py``).

Usage: python benchmarks/prequential.py [--rows 20000] [--window 1000] [--decay 0.001]
           [--river-rows 20000] [--token-rows 40000] [--learn-one-rows 20000] [--repeats 5]
           [--out docs/prequential.md]
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import river_learn_one  # noqa: E402
from _prequential_river import river_drift_records, river_drift_section  # noqa: E402
from _prequential_tokens import token_records, token_section  # noqa: E402
from _stamp import stamp  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402

import aucopt  # noqa: E402
from aucopt.datasets import make_drift_stream  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ALGORITHMS = ("spam-l2:stats=online", "spam-l2:stats=online:output=last", "ftrl-auc",
              "ogd-fifo")
FORGETTING = ("spam-l2", "spam-net")  # ids whose online class statistics may forget
RECOVERED = 0.02  # windowed AUC back within this of its level just before the drift


def learners(decay: float) -> tuple[list[str], list[str]]:
    """The ``--algorithms`` items, and the ids that have no ``decay`` parameter."""
    items, without = list(ALGORITHMS), []
    for algorithm in FORGETTING:
        if "decay" in aucopt.make(algorithm).get_params():
            items.append(f"{algorithm}:stats=online:decay={decay}")
            items.append(f"{algorithm}:stats=online:decay={decay}:output=last")
        else:
            without.append(algorithm)
    return items, without


def recovery(rows, drift: int, window: int) -> dict:
    """Windowed AUC before the drift, its low after it, and the samples until it recovers."""
    before = [r for r in rows if r["n"] <= drift][-1]["window_auc"]
    after = [r for r in rows if r["n"] > drift]
    low = min(r["window_auc"] for r in after)
    back = next((r["n"] - drift for r in after if r["n"] >= drift + window
                 and r["window_auc"] >= before - RECOVERED), None)
    return {"before": before, "low": low, "back": back, "final": rows[-1]["cumulative_auc"],
            "end": rows[-1]["window_auc"]}


def run_stream(path: Path, items, window: int, out: Path) -> float:
    """Run ``aucopt stream`` in a subprocess; return its wall time in seconds."""
    cmd = [sys.executable, "-m", "aucopt", "stream", str(path), "--algorithms", ",".join(items),
           "--baselines", "logreg,alma", "--window", str(window), "--out", str(out),
           "--no-progress"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    return time.perf_counter() - start


def read_records(path: Path) -> dict[str, list[dict]]:
    by_learner: dict[str, list[dict]] = {}
    with open(path) as fh:
        for r in csv.DictReader(fh):
            by_learner.setdefault(r["learner"], []).append(
                {"n": int(r["n"]), "cumulative_auc": float(r["cumulative_auc"]),
                 "window_auc": float(r["window_auc"])})
    return by_learner


def _f(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.3f}"


def _last_output(by_learner, drift: int, window: int) -> str:
    """The reading of SPAM's ``output="last"`` rows against the averaged output and
    FTRL-AUC, from the measured rows (a sentence)."""
    ends = {name: recovery(rows, drift, window) for name, rows in by_learner.items()}
    last, average = "spam-l2:stats=online:output=last", "spam-l2:stats=online"
    if not {last, average, "ftrl-auc"} <= set(ends):
        return "compare the rows of each output."
    r, a, f = ends[last], ends[average], ends["ftrl-auc"]

    def back(x):
        return "does not recover within the stream" if x["back"] is None else \
            f"recovers within {RECOVERED} after {x['back']:,} samples"

    return (f"with `output=\"last\"` SPAM's windowed AUC ends at {_f(r['end'])} (averaged "
            f"output {_f(a['end'])}, FTRL-AUC {_f(f['end'])}): it {back(r)}, FTRL-AUC "
            f"{back(f)}.")


def report(args, by_learner, without, seconds, timing, river, tokens) -> str:
    drift = args.rows // 2
    lines = [
        "# Prequential evaluation: AUC over time on a drifting stream",
        "",
        f"Generated by `benchmarks/prequential.py` ({stamp()}). Rerun with "
        "`python benchmarks/prequential.py`.",
        "",
        "Every streaming algorithm of aucopt is a River classifier, and aucopt's exact AUC "
        "is a River metric:",
        "",
        "```python",
        "from river import datasets, evaluate, preprocessing",
        "from aucopt.river import AUCClassifier, ExactROCAUC",
        "",
        'model = preprocessing.StandardScaler() | AUCClassifier("ftrl-auc")',
        "evaluate.progressive_val_score(datasets.Phishing(), model, ExactROCAUC())",
        "```",
        "",
        "and `aucopt stream DATA --algorithms a,b --window N` runs test-then-train on a "
        "LIBSVM file or a River dataset, writing the cumulative and windowed exact AUC over "
        "time (CSV and plot). `predict_proba_one` is a monotone map of the ranking score, "
        "not a calibrated probability; River's `metrics.ROCAUC` thresholds it at a few "
        "points of [0, 1], `ExactROCAUC` and `ExactRollingROCAUC` count every pair.",
        "",
        f"**Stream.** `aucopt.datasets.make_drift_stream({args.rows}, 20, random_state=0)`: "
        "20 standard normal features, 30% positives, label noise 0.5; at row "
        f"{drift:,} the ranking rule switches abruptly to an orthogonal one (a model of the "
        "old rule ranks the new data at AUC 0.5).",
        "",
        f"**Protocol.** `aucopt stream drift.svm --window {args.window} --baselines "
        "logreg,alma`: test-then-train, every learner behind River's `MaxAbsScaler` (the "
        "command's `--scale auto` for a LIBSVM file), exact "
        f"AUC of all samples so far (cumulative) and of the last {args.window:,} (windowed), "
        f"recorded every {args.window // 10} samples; {seconds:.0f} s for the whole run.",
        "",
        f"![prequential AUC]({args.figure.name})",
        "",
        "| learner | windowed AUC before the drift | lowest after | samples to recover "
        f"(within {RECOVERED}) | windowed AUC at the end | cumulative AUC at the end |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, rows in by_learner.items():
        r = recovery(rows, drift, args.window)
        back = "not within the stream" if r["back"] is None else f"{r['back']:,}"
        lines.append(f"| {name} | {_f(r['before'])} | {_f(r['low'])} | {back} | "
                     f"{_f(r['end'])} | {_f(r['final'])} |")
    lines += [
        "",
        "Reading: right after the drift the old model ranks the new concept at random, so "
        "the windowed AUC falls towards 0.5 as post-drift scores fill the window. It cannot "
        "recover in fewer "
        f"than {args.window:,} samples (the window still holds pre-drift scores), so the "
        "recovery column counts from the first window entirely after the drift. Learners "
        "that average over the whole past (SPAM's class means, the averaged iterate of "
        "`ogd-fifo`, whose default `output` is `\"average\"`) carry the first half of the "
        "stream with them and recover slowly. SOLAM is left out: with `eta0=\"auto\"` "
        "its step is 4 / (largest squared row norm so far), and the all-zero first row of "
        "`StandardScaler` makes the first step weight 4e300, which then dominates SOLAM's "
        "weighted average output (scores ~1e-300, AUC 0.5); a fixed `kappa` avoids it.",
        "",
    ]
    if without:
        lines += [
            f"**Forgetting.** Not run: the estimators of {', '.join(without)} in this "
            "checkout have no `decay` parameter. The script adds "
            f"`spam-l2:stats=online:decay={args.decay}` (class statistics that forget with "
            f"rate {args.decay}, about {1 / args.decay:,.0f} samples of memory) next to "
            "the same learner without forgetting as soon as the estimator accepts "
            "`decay`.",
            "",
        ]
    else:
        lines += [
            f"**Forgetting.** `decay={args.decay}` multiplies the class statistics by "
            f"`1 - decay` before each new row (about {1 / args.decay:,.0f} samples of "
            "memory), an aucopt extension of SPAM's online statistics; compare its rows with "
            "`spam-l2:stats=online`, which never forgets. What decides recovery is the output: "
            "the default `output=\"average\"` scores with the average of every iterate since "
            "the start, pre-drift ones included, so it stays low whether or not the "
            f"statistics forget; {_last_output(by_learner, drift, args.window)}",
            "",
        ]
    lines += river_drift_section(*river, args.river_rows, args.window)
    lines += token_section(*tokens, args.token_rows)
    lines += [
        "## Cost of `learn_one`",
        "",
        "Same process, same stream of 20-feature dicts: `aucopt.river.AUCClassifier.learn_one` "
        "against River's `LogisticRegression.learn_one`. *dict -> row* is the conversion of "
        "the feature dict into a one-row CSR (vocabulary lookup, values array); *front-end "
        "alone* is `learn_one` with the core call replaced by a no-op; *core* is the "
        "estimator's `_learn_row` on prebuilt rows (the row path: the algorithm's own kernel "
        "on the row in one compiled call; the general `_fit_rows` for a row it cannot take, "
        "e.g. every row of the O(d^2) learners beyond 64 columns), timed separately. Ids "
        "whose state cannot grow with new names hash the 20 names into 256 columns. "
        "Rerun with `python benchmarks/river_learn_one.py`.",
        "",
        river_learn_one.markdown(timing, args.learn_one_rows, args.repeats),
        "",
        f"Machine: {os.cpu_count()} logical cores, load average "
        f"{', '.join(f'{v:.1f}' for v in os.getloadavg())} at the end of the run (shared; "
        "a load above the core count inflates every figure, River's included).",
        "",
        "Reading: learn_one is about front-end alone + core. For every streaming id "
        "the core is one compiled call, whose arguments (the state's arrays and the step's "
        "constants) are held in one numba structure built once, so that they cross from "
        "Python as one pointer: "
        "the preconditioner's step for the row (a new "
        "feature's scale, the row divided by the scales and shortened to the row bound), then "
        "the transaction: the row's columns and the small state are saved (O(nnz) for "
        "per-feature entries), the row joins the data statistics, the algorithm's own "
        "one-pass kernel makes the step, and a step that cannot finish (a divergence, a fold "
        "of lazy scales) is undone and redone by the general path. The O(d^2) learners "
        "(OPAUC, AdaOAM) take it up to 64 input columns. The partial-AUC ids `pauc-1pmb`, "
        "`pauc-sopa`, `pauc-sopa-s` and `pauc-sota-s` store the row in their buffers; the "
        "negative that completes a batch makes the step, before which their kernel keeps the "
        "iterate at the stored rows' columns (O(B K), once per batch). `oam-seq`, `oam-gra` "
        "and `kar` draw the row's reservoir uniforms from the estimator's generator before "
        "the step, as `partial_fit` does for a one-row chunk, and step the generator back "
        "when the row goes to the general path; OAM's kernel keeps the iterate at the other "
        "reservoir's columns and the slot the row takes (O(N K)), Kar's the slots the row "
        "takes; Kar's lazy pass is O(d) "
        "per call and its iterates are saved whole; `opauc-r` draws its Gaussian sketch row "
        "the same way (the generator's state saved), `aogd` its Bernoulli uniform and "
        "`projection-pp` its two reservoir uniforms; AOGD's kernel keeps its weights, means "
        "and representatives (O(D)), KOIL's its coefficients and weights, and writes the row "
        "into its slot of the support vectors and the Gram matrix only once the step has "
        "finished. "
        "*predict_proba_one + learn_one*: spam-l2, ftrl-auc, solam, reg-solam, uni-squ, "
        "uni-exp and ogd-fifo score a row from the lazy state at its columns in one compiled "
        "call, with the intercept's class-mean scores kept as running sums updated around "
        "each learnt row (O(nnz)); spam-net, solam-l1, fsauc, adaoam and opauc, whose steps "
        "write every weight (an l1 prox, an l1-ball projection, the average of a stage, a "
        "full-matrix step), score it from the state at its columns too, but form the "
        "class-mean scores afresh in the same compiled call (O(d), no more than their "
        "`learn_one`); so do opauc-r, oam-seq, oam-gra, kar and pauc-1pmb (and pauc-sopa, "
        "pauc-sopa-s and pauc-sota-s with `momentum=0`), whose steps write the weights whole "
        "or at the stored rows' columns besides the row's; the other ids (the KL-DRO and "
        "CVaR ids with momentum catch each weight up by a factor of its own) form `coef_` "
        "and `intercept_` in O(d) after every update. The dict is converted once per step: "
        "`learn_one` takes the row `predict_proba_one` made when it gets the same dict with "
        "the same values. What is left above River's step is "
        "Python around the compiled calls (the checks that the state still holds the arrays "
        "the row path was made for, the hyperparameters, the running sums): a few "
        "microseconds each.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--decay", type=float, default=1e-3)
    parser.add_argument("--river-rows", type=int, default=20_000,
                        help="rows of River's ConceptDriftStream (drift half-way)")
    parser.add_argument("--token-rows", type=int, default=40_000,
                        help="rows of each bag-of-words stream")
    parser.add_argument("--learn-one-rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--learn-one-algorithms", default=river_learn_one.ALGORITHMS,
                        help="ids whose learn_one is timed (comma-separated, or all)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "prequential.md")
    args = parser.parse_args(argv)
    args.figure = args.out.with_name(args.out.stem + "_drift.png")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    items, without = learners(args.decay)
    X, y = make_drift_stream(args.rows, 20, random_state=0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "drift.svm"
        dump_svmlight_file(X, 2 * y - 1, str(data))
        seconds = run_stream(data, items, args.window, Path(tmp) / "drift")
        by_learner = read_records(Path(tmp) / "drift.csv")
        args.figure.write_bytes((Path(tmp) / "drift.png").read_bytes())
    river = river_drift_records(args.river_rows, args.window, max(args.window // 10, 1))
    tokens = token_records(args.token_rows)
    timing = river_learn_one.measure(river_learn_one.streaming_ids(args.learn_one_algorithms),
                                     args.learn_one_rows, args.repeats)
    args.out.write_text(report(args, by_learner, without, seconds, timing, river, tokens))
    print(f"wrote {args.out} and {args.figure}")


if __name__ == "__main__":
    main()
