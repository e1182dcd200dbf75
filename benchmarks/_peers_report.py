"""docs/peers.md and its figures from the results of benchmarks/peers.py."""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["summary_rows", "write_figures", "write_report"]

TOLERANCE = 0.005  # the recommended aucopt choice within this of the best peer's test AUC
COLOURS = {"aucopt": "tab:red", "scikit-learn": "tab:blue", "Vowpal Wabbit": "tab:green",
           "River": "tab:purple", "LibAUC": "tab:orange"}


def _f(x, digits=4):
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _seconds(x):
    if x is None or math.isnan(x):
        return ""
    return f"{x:.3g}"


def summary_rows(cases: list[dict]) -> list[dict]:
    """Per case: the best peer, the recommended aucopt choice and whether it is within 0.005."""
    out = []
    for case in cases:
        rows = [r for r in case["rows"] if not math.isnan(r["auc"])]
        peers = [r for r in rows if r["tool"] != "aucopt"]
        ours = [r for r in rows if r["recommended"]]
        if not peers or not ours:
            continue
        best, rec = max(peers, key=lambda r: r["auc"]), ours[0]
        gap = rec["auc"] - best["auc"]
        out.append({"case": case["name"], "best": best, "recommended": rec, "gap": gap,
                    "met": gap >= -TOLERANCE})
    return out


def write_figures(cases: list[dict], stream: dict | None, out: Path) -> list[str]:
    """AUC against fit time per case, peak memory, prequential AUC; return the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    names = []
    n = len(cases)
    if n:
        cols = min(3, n)
        fig, axes = plt.subplots(math.ceil(n / cols), cols, figsize=(5.2 * cols,
                                                                     3.9 * math.ceil(n / cols)),
                                 squeeze=False)
        for ax, case in zip(axes.ravel(), cases):
            for r in case["rows"]:
                if math.isnan(r["auc"]) or not r["seconds"] > 0:
                    continue
                ax.scatter(r["seconds"], r["auc"], color=COLOURS.get(r["tool"], "k"),
                           marker="*" if r["recommended"] else ("s" if r["tuned"] else "o"),
                           s=140 if r["recommended"] else 30, alpha=0.85)
            top = max((r["auc"] for r in case["rows"] if not math.isnan(r["auc"])), default=1)
            ax.set_ylim(max(top - 0.08, 0.45), top + 0.01)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # labels of decades only
            ax.set_title(case["name"], fontsize=10)
            ax.set_xlabel("fit time (s, log scale)")
            ax.set_ylabel("test AUC")
            ax.grid(alpha=0.3)
        for ax in axes.ravel()[n:]:
            ax.axis("off")
        handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=t)
                   for t, c in COLOURS.items()]
        handles += [plt.Line2D([], [], color="k", marker=m, ls="", label=lab) for m, lab in
                    (("*", "aucopt recommended (auto)"), ("s", "tuned"), ("o", "defaults"))]
        fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8)
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        fig.savefig(out / "peers_auc_time.png", dpi=90)
        plt.close(fig)
        names.append("peers_auc_time.png")

        big = [c for c in cases if c.get("memory_figure")]
        if big:
            fig, axes = plt.subplots(1, len(big), figsize=(6.5 * len(big), 4.6), squeeze=False)
            for ax, case in zip(axes.ravel(), big):
                rows = [r for r in case["rows"]
                        if not r["tuned"] and not math.isnan(r["memory_mb"])]
                ax.barh([r["label"] for r in rows], [r["memory_mb"] for r in rows],
                        color=[COLOURS.get(r["tool"], "k") for r in rows])
                ax.set_xlabel("peak resident memory added by fit (MB)")
                ax.set_title(case["name"], fontsize=10)
                ax.tick_params(axis="y", labelsize=7)
            fig.tight_layout()
            fig.savefig(out / "peers_memory.png", dpi=90)
            plt.close(fig)
            names.append("peers_memory.png")

    if stream:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for name, res in stream["learners"].items():
            t, auc = zip(*res["curve"])
            ax.plot(t, auc, label=name, lw=1.4)
        ax.axvline(stream["drift_at"], color="k", ls=":", lw=1)
        ax.set_xlabel("rows seen")
        ax.set_ylabel(f"AUC of the last {stream['window']} predictions")
        ax.set_title("prequential AUC on a drifting stream (abrupt drift at the dotted line)")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "peers_prequential.png", dpi=90)
        plt.close(fig)
        names.append("peers_prequential.png")
    return names


def _case_table(case: dict) -> list[str]:
    lines = [f"### {case['name']}", "", case["note"], "",
             "| method | tool | test AUC | fit (s) | tuning (s) | peak MB | settings |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(case["rows"], key=lambda r: -r["auc"] if not math.isnan(r["auc"]) else 1):
        label = f"**{r['label']}**" if r["recommended"] else r["label"]
        settings = ", ".join(f"{k}={v}" for k, v in r["params"].items())
        if r.get("chosen"):
            settings = f"chose {r['chosen']}" + (f"; {settings}" if settings else "")
        lines.append(f"| {label} | {r['tool']} | {_f(r['auc'])} | {_seconds(r['seconds'])} | "
                     f"{_seconds(r['tune_seconds']) if r['tuned'] else ''} | "
                     f"{_f(r['memory_mb'], 0)} | {settings} |")
    if case.get("skipped"):
        lines += ["", "Not run here: " + "; ".join(case["skipped"]) + "."]
    return lines + [""]


def write_report(path: Path, *, stamp: str, minutes: float, command: str, peers: dict,
                 cases: list[dict], stream: dict | None, one_pass: dict | None,
                 messages: list[str], figures: list[str]) -> None:
    """Write the markdown report."""
    summary = summary_rows(cases)
    shown = {row["tool"] for case in cases for row in case.get("rows", [])
             if not math.isnan(row["auc"])}
    ran = [name for name, ok in peers.items() if (ok or name in shown) and name != "torch"]
    # torch is LibAUC's: installed wherever LibAUC's rows were made
    missing = [name for name, ok in peers.items() if not ok and name not in shown
               and not (name == "torch" and "LibAUC" in shown)]
    lines = [
        "# aucopt against its peers", "",
        f"{stamp}. Generated by `make bench-peers` (`{command}`) in {minutes:.1f} min on 2 "
        "shared cores: one run per cell, so times are indicative (ratios within a row of the "
        "one-pass table below are medians of interleaved runs).", "",
        "Peers run: " + ", ".join(["scikit-learn", *ran]) + "."
        + (f" Not installed here (skipped): {', '.join(missing)}." if missing else ""), "",
    ]
    lines += [f"- {m}" for m in messages] + ([""] if messages else [])
    lines += [
        "## Results", "",
        f"The recommended aucopt choice is `aucopt.make(\"auto\")` (`aucopt.AUCClassifier`), "
        f"which picks its algorithm from the data. It should end within {TOLERANCE} test AUC "
        "of the best peer, or above it.", "",
        "| case | best peer | its AUC | its fit (s) | aucopt auto (choice) | AUC | fit (s) | "
        "difference | within 0.005 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in summary:
        b, r = s["best"], s["recommended"]
        lines.append(f"| {s['case']} | {b['tool']} {b['label']} | {_f(b['auc'])} | "
                     f"{_seconds(b['seconds'])} | {r.get('chosen', '')} | {_f(r['auc'])} | "
                     f"{_seconds(r['seconds'])} | {s['gap']:+.4f} | "
                     f"{'yes' if s['met'] else 'NO'} |")
    lines.append("")
    if one_pass:
        lines += ["## The hashed sparse stream: the peers' one pass against aucopt's choice", "",
                  one_pass["note"], "",
                  "| learner | test AUC | fit (s), median | runs |", "| --- | --- | --- | --- |"]
        for name, r in one_pass["learners"].items():
            lines.append(f"| {name} | {_f(r['auc'])} | {_seconds(r['median'])} | "
                         f"{', '.join(_seconds(t) for t in r['times'])} |")
        lines += ["", one_pass["verdict"], ""]
    if figures:
        lines += ["## Figures", ""]
        lines += [f"![{name}]({name})" for name in figures] + [""]
    lines += ["## Method", "",
              "- Every tool gets the same splits and the same preprocessed arrays, and its test "
              "AUC is computed by the same function (`aucopt.metrics.roc_auc_score`, exact, ties "
              "count 1/2). Dense datasets are standardised (`make_preprocessor(\"standard\")`, "
              "fitted on the training part); a9a's binary features are used as they are.",
              "- Splits: datasets up to 5,000 rows: 3 stratified outer folds (the table shows "
              "the mean); larger ones a stratified 30% test part; a9a: a9a.t is the test set. "
              "Tuned methods pick their grid point by the mean AUC over the same 3 stratified "
              "inner folds of the training part (on its first rows for the large cases, see "
              "each case), then refit on the whole training part; \"fit\" is that refit, "
              "\"tuning\" the grid search.",
              "- Defaults are each tool's documented ones. SGDClassifier \"one pass\" is "
              "`partial_fit` over chunks of 10,000 rows once; \"epochs\" is `fit` (its own "
              "stopping rule). Vowpal Wabbit runs in-process on a file it reads itself "
              "(`--loss_function logistic`, one pass, 2^18 hashed weights, adaptive normalised "
              "invariant updates: its defaults); writing the file is not timed, its parsing is. "
              "River learns each row once (`learn_one`). LibAUC trains `torch.nn.Linear` with "
              "a sigmoid output (20 epochs, batches of 128, lr 0.1 divided by 10 at epochs 10 "
              "and 15; one torch thread).",
              "- Before any timing every aucopt kernel used is compiled by a warm-up fit on a "
              "small problem (numba caches compiled kernels on disk; the warm-up keeps a first "
              "call's compilation out of every timed fit).",
              "- Peak memory: growth of the process's peak resident set during the fit "
              "(Linux `VmHWM`, reset before each fit), so it counts the tool's copies of the "
              "data and its model.", "",
              "## Per case", ""]
    for case in cases:
        lines += _case_table(case)
    if stream:
        lines += ["## Prequential run on a drifting stream", "",
                  f"`make_drift_stream({stream['n_samples']}, 20, drift_at=0.5)`: the ranking "
                  "rule turns orthogonal half-way. Each chunk of 100 rows is scored, then "
                  "learned.", "",
                  "| learner | prequential AUC | after the drift | time (s) |",
                  "| --- | --- | --- | --- |"]
        for name, r in sorted(stream["learners"].items(), key=lambda kv: -kv[1]["auc"]):
            lines.append(f"| {name} | {_f(r['auc'])} | {_f(r['after_drift'])} | "
                         f"{_seconds(r['seconds'])} |")
        lines.append("")
    lines += ["## Rerun", "", "```",
              f"make bench-peers            # every case: about {minutes:.0f} minutes here",
              "python benchmarks/peers.py --quick   # a smoke run of a minute",
              "```", "",
              "The real datasets come from a LIBSVM mirror directory "
              "(`AUCOPT_DATA_MIRROR=DIR`); without one they are skipped. The optional peers: "
              "`pip install -e \".[peers]\"` (Vowpal Wabbit, River, a CPU torch) and "
              "`pip install --no-deps libauc` (LibAUC's linear losses and optimisers need torch "
              "only).", ""]
    path.write_text("\n".join(lines))
