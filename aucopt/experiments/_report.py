"""Reports: our results against the published table (Markdown or CSV).

For every config run directory (``manifest.json`` + ``results.csv``) the
report gives

* our table in the paper's layout, mean ± std (or ± standard error where the
  paper reports it) over the runs, with the OPAUC-paper marks: ``●`` / ``○``
  when the table's reference method is significantly better / worse than that
  column (two-sided paired t-test at 95 % over the same splits) and a
  win/tie/loss row (ours, and the published one where the paper has it);
* ours versus published, cell by cell, with the difference and ``!`` where
  ``|ours - published| >`` the published std (or standard error);
* what could not be run (datasets that could not be had, algorithms not yet
  registered, failed cells, cells with fewer runs than the protocol) and, in
  smoke mode, the data substitutions.

Only the runs of the protocol the manifest records are averaged (its repeats
and folds), so the protocol the report states is the one of every number in it.
"""

from __future__ import annotations

import csv
import io
import math
import tomllib
from pathlib import Path

import numpy as np

from ..model_selection import BETTER, WORSE, paired_ttest
from ..utils._atomic import write_atomic
from ._config import _build
from ._manifest import commits_line
from ._rundir import MANIFEST, read_manifest
from ._values import ConfigError

__all__ = ["build_report", "write_report", "summarise_run"]

EXCEEDS = "!"


def _fmt(x, digits=4, signed=False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    text = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return text.replace("0.", ".", 1) if abs(x) < 1 else text


def _load_run(run_dir: Path):
    manifest = read_manifest(run_dir / MANIFEST)
    config = _build(tomllib.loads(manifest["config_toml"]), manifest.get("config_path", ""))
    if not (run_dir / "results.csv").exists():
        raise ConfigError(
            f"{run_dir} has no results.csv: its run did not finish (the cells done so far are "
            "in cells.jsonl). Run the same config with --out pointing there again: it goes on "
            "from those cells and writes the results and the report.")
    with (run_dir / "results.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    repeats = manifest["protocol"]["repeats"]  # rows of more repeats are not of this protocol
    return manifest, config, [r for r in rows if r.get("repeat", "") == ""
                              or int(r["repeat"]) < repeats]


def _planned_runs(manifest, config, dataset: str) -> int:
    """Runs per cell of ``dataset`` under the manifest's protocol."""
    p = manifest["protocol"]
    kfold = p["kind"] == "kfold" and config.dataset(dataset).test_set is None
    return p["repeats"] * (p["folds"] if kfold else 1)


def summarise_run(run_dir) -> tuple[dict, object, list[dict]]:
    """Summarise one run directory, one record per (dataset, algorithm).

    Parameters
    ----------
    run_dir : str or Path

    Returns
    -------
    (manifest, config, records) : tuple
        Each record has ``dataset, algorithm, label, algorithm_id, status, runs, auc_mean,
        auc_error, published (PublishedValue or None), difference, exceeds, ttest
        (TTestResult vs the reference or None), message``.
    """
    run_dir = Path(run_dir)
    manifest, config, rows = _load_run(run_dir)
    stderr = config.error == "stderr"
    ran_datasets = list(manifest["datasets"])
    keys = list(manifest["algorithms"])
    by_cell: dict = {}
    for r in rows:
        by_cell.setdefault((r["dataset"], r["algorithm"]), []).append(r)
    records = []
    metric = "auc" if config.protocol.max_fpr is None else "pauc"  # the column scored
    for d in ran_datasets:
        ref_scores = (_scores(by_cell.get((d, config.reference), []), metric)
                      if config.reference else {})
        for k in keys:
            cell = by_cell.get((d, k), [])
            scores = _scores(cell, metric)
            aucs = np.array(list(scores.values()), dtype=float)
            published = config.published.get(d, {}).get(k)
            rec = {"dataset": d, "algorithm": k, "label": config.algorithm(k).label,
                   "algorithm_id": (cell[0]["algorithm_id"] if cell
                                    else config.algorithm(k).id_for(d)),
                   "runs": int(aucs.size), "published": published, "ttest": None,
                   "auc_mean": math.nan, "auc_error": math.nan, "difference": math.nan,
                   "exceeds": False, "message": ""}
            bad = [r for r in cell if r["status"] != "ok"]
            planned = _planned_runs(manifest, config, d)
            if aucs.size:
                rec["status"] = "ok" if not bad else f"ok ({len(bad)} failed)"
                if aucs.size + len(bad) < planned:
                    rec["message"] = (f"{aucs.size} of the protocol's {planned} runs (run the "
                                      "experiment into this directory again to add the others)")
                rec["auc_mean"] = float(aucs.mean())
                sd = float(aucs.std(ddof=1)) if aucs.size > 1 else math.nan
                rec["auc_error"] = sd / math.sqrt(aucs.size) if stderr else sd
                if published is not None:
                    rec["difference"] = rec["auc_mean"] - published.mean
                    rec["exceeds"] = abs(rec["difference"]) > published.error
                if config.reference and k != config.reference and ref_scores:
                    common = sorted(set(ref_scores) & set(scores))
                    if common:
                        rec["ttest"] = paired_ttest([ref_scores[c] for c in common],
                                                    [scores[c] for c in common])
            else:
                rec["status"] = bad[0]["status"] if bad else "not run"
            if bad:
                rec["message"] = bad[0].get("message", "")
            records.append(rec)
    return manifest, config, records


def _scores(cell_rows, metric="auc") -> dict:
    """``{(repeat, fold): score}`` of the ok rows: the AUC, or the partial AUC (``pauc``)."""
    return {(int(r["repeat"]), int(r["fold"])): float(r[metric]) for r in cell_rows
            if r["status"] == "ok" and r.get(metric, "") != ""}


def _cell_text(rec) -> str:
    if not rec["runs"]:
        return {"algorithm-not-available": "n/a", "dataset-unavailable": "no data"}.get(
            rec["status"], rec["status"])
    text = f"{_fmt(rec['auc_mean'])}±{_fmt(rec['auc_error'])}" if rec["runs"] > 1 else \
        _fmt(rec["auc_mean"])
    if rec["ttest"] is not None and rec["ttest"].mark:
        text += f" {rec['ttest'].mark}"
    return text


def _markdown(run_dir: Path) -> str:
    manifest, config, records = summarise_run(run_dir)
    keys = list(manifest["algorithms"])
    labels = {k: config.algorithm(k).label for k in keys}
    datasets = list(manifest["datasets"])
    p = manifest["protocol"]
    err = "standard error" if config.error == "stderr" else "std"
    smoke = manifest["mode"] == "smoke"
    runs = p["repeats"] * (p["folds"] if p["kind"] == "kfold" else 1)
    lines = [f"# {config.id}: {config.title}", "", f"Source: {config.source}", ""]
    lines.append(f"Protocol of this run: {p['kind']}, {p['repeats']} repeat(s)"
                 + (f" x {p['folds']} folds" if p["kind"] == "kfold" else "")
                 + f" = {runs} runs per cell, seed {p['seed']}; paper: "
                 f"{config.protocol.runs} runs. Mode: **{manifest['mode']}**. aucopt "
                 f"{manifest['versions'].get('aucopt')}"
                 + (f", git {manifest['git']}" if manifest.get("git") else "")
                 + f", finished {manifest.get('finished', 'not finished')}.")
    resumed = commits_line(manifest)
    if resumed is not None:
        lines += ["", resumed]
    if smoke:
        lines += ["", "> **SMOKE RUN**: tiny grids, one repeat, 2 folds, 300 rows; datasets "
                      "that are not bundled are replaced by synthetic stand-ins. The numbers "
                      "check the pipeline only and are NOT comparable with the paper."]
    if config.protocol.max_fpr is not None:
        lines += ["", f"Scores: partial AUC over FPR in [0, {config.protocol.max_fpr:g}] "
                      "(McClish's standardisation), also used by the inner grid search."]
    lines += ["", f"## Ours (mean±{err} over runs)", "",
              "| dataset | " + " | ".join(labels[k] for k in keys) + " |",
              "| --- |" + " --- |" * len(keys)]
    by = {(r["dataset"], r["algorithm"]): r for r in records}
    for d in datasets:
        label = manifest["datasets"][d].get("label", d)
        lines.append(f"| {label} | " + " | ".join(_cell_text(by[d, k]) for k in keys) + " |")
    if config.reference and config.reference in keys:
        wtl = []
        for k in keys:
            outcomes = [by[d, k]["ttest"].outcome for d in datasets if by[d, k]["ttest"]]
            wtl.append("" if k == config.reference or not outcomes else
                       f"{outcomes.count('win')}/{outcomes.count('tie')}/{outcomes.count('loss')}")
        lines.append(f"| win/tie/loss ({labels[config.reference]} vs column, ours) | "
                     + " | ".join(wtl) + " |")
        if config.published_wtl:
            lines.append("| win/tie/loss (published) | "
                         + " | ".join(config.published_wtl.get(k, "") for k in keys) + " |")
        lines += ["", f"{BETTER} / {WORSE}: {labels[config.reference]} is significantly "
                      "better / worse than that column (two-sided paired t-test at 95 % over the "
                      "same splits). n/a: algorithm not registered yet; no data: dataset could "
                      "not be had."]
    lines += ["", f"## Ours vs published (published ± is the paper's {err})", "",
              "| dataset | algorithm | ours | runs | published | difference | |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for rec in records:
        pub = rec["published"]
        if pub is None and not rec["runs"]:
            continue
        ours = (f"{_fmt(rec['auc_mean'])}±{_fmt(rec['auc_error'])}" if rec["runs"] > 1 else
                _fmt(rec["auc_mean"])) if rec["runs"] else _cell_text(rec)
        pub_text = "-" if pub is None else pub.raw + (" (repaired)" if pub.repaired else "")
        if pub is not None and config.scale != 1:
            pub_text += f" = {_fmt(pub.mean)}±{_fmt(pub.error)}"
        label = manifest["datasets"][rec["dataset"]].get("label", rec["dataset"])
        lines.append(f"| {label} | {rec['label']} | {ours} | {rec['runs']} | {pub_text} | "
                     f"{_fmt(rec['difference'], signed=True)} | "
                     f"{EXCEEDS if rec['exceeds'] else ''} |")
    lines += ["", f"{EXCEEDS}: |ours - published| is larger than the published {err}."]
    problems = _problems(manifest, records)
    if problems:
        lines += ["", "## Not run or failed", ""] + problems
    lines += ["", "## Data", ""]
    for d, rec in manifest["datasets"].items():
        if "unavailable" in rec:
            lines.append(f"- {d}: UNAVAILABLE: {rec['unavailable']}")
            continue
        extra = f", binarised {rec['binarize']} -> +1 = {rec['positive_classes']}" \
            if rec.get("binarize") else ""
        lines.append(f"- {d}: {rec['source']}; {rec['n_samples']} x {rec['n_features']}, "
                     f"positive rate {rec['positive_rate']:.3f}, preprocessing "
                     f"{rec['preprocessing']}{extra}")
    if config.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in config.notes]
    return "\n".join(lines) + "\n"


def not_selected_why(skipped: dict, kind: str) -> str:
    """Why a run left out the ``kind`` ("datasets" or "algorithms") of its config (runs made
    before the reasons were told apart give one for both)."""
    why = skipped["why"]
    return why if isinstance(why, str) else why[kind]


def _problems(manifest, records) -> list[str]:
    out = []
    skipped = manifest.get("not_selected", {})
    for kind in ("datasets", "algorithms"):
        if skipped.get(kind):
            out.append(f"- {kind} not run in this run ({not_selected_why(skipped, kind)}): "
                       f"{', '.join(skipped[kind])}")
    missing = sorted({r["algorithm_id"] for r in records
                      if r["status"] == "algorithm-not-available"})
    if missing:
        out.append(f"- algorithms not available (not registered in this aucopt): "
                   f"{', '.join(missing)}")
    nodata = sorted({r["dataset"] for r in records if r["status"] == "dataset-unavailable"})
    for d in nodata:
        out.append(f"- dataset {d} could not be had: "
                   f"{manifest['datasets'][d].get('unavailable', '')}")
    for r in records:
        if r["message"] and r["status"] not in ("algorithm-not-available",
                                                "dataset-unavailable"):
            status = "" if r["status"] == "ok" else f"{r['status']}: "
            out.append(f"- {r['dataset']} / {r['algorithm']}: {status}{r['message']}")
    return out


def _csv(run_dir: Path) -> list[dict]:
    manifest, config, records = summarise_run(run_dir)
    out = []
    for rec in records:
        pub, tt = rec["published"], rec["ttest"]
        out.append({
            "config": config.id, "mode": manifest["mode"], "dataset": rec["dataset"],
            "algorithm": rec["algorithm"], "algorithm_id": rec["algorithm_id"],
            "status": rec["status"], "runs": rec["runs"], "auc_mean": rec["auc_mean"],
            "auc_error": rec["auc_error"], "error_kind": config.error,
            "published": pub.raw if pub else "", "published_mean": pub.mean if pub else "",
            "published_error": pub.error if pub else "",
            "difference": rec["difference"], "exceeds_published_error": rec["exceeds"],
            "reference": config.reference or "",
            "ttest_outcome": tt.outcome if tt else "", "ttest_pvalue": tt.pvalue if tt else "",
            "message": rec["message"],
        })
    return out


def _run_dirs(path: Path) -> list[Path]:
    if (path / MANIFEST).exists():
        return [path]
    runs = sorted(p.parent for p in path.glob(f"*/{MANIFEST}"))
    if not runs:
        raise FileNotFoundError(f"{path} holds no experiment results (no manifest.json in it or "
                                "in its subdirectories); run 'aucopt experiment run' first.")
    return runs


def build_report(path, fmt="md") -> str:
    """Return the report of a run directory (or of every run directory below ``path``).

    Parameters
    ----------
    path : str or Path
    fmt : {"md", "csv"}

    Returns
    -------
    str
    """
    path = Path(path)
    runs = _run_dirs(path)
    if fmt == "md":
        return "\n".join(_markdown(r) for r in runs)
    if fmt == "csv":
        rows = [row for r in runs for row in _csv(r)]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["config"])
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue()
    raise ValueError(f"Unknown report format {fmt!r}; use 'md' or 'csv'.")


def write_report(run_dir, fmt="md") -> Path:
    """Write ``report.md`` (or ``report.csv``) into a run directory and return its path.

    Parameters
    ----------
    run_dir : str or Path
    fmt : {"md", "csv"}

    Returns
    -------
    Path
    """
    return write_atomic(Path(run_dir) / f"report.{fmt}", build_report(run_dir, fmt))
