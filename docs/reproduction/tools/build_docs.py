"""Write the per-table reports and cells.csv of docs/reproduction from the run directories.

For every config: each (dataset, column) cell of the paper-protocol run directory
(RUNS/<config>, i.e. manifest.json + results.csv) with at least one finished run is used
(protocol = paper). A cell without a run there is taken from an older cells.csv
(protocol = reduced, marked with a dagger); none remains in the committed report. Writes
OUT/<config>.md, stamped with benchmarks/_stamp.py, and with --csv-out the cells.csv.

usage:
  python build_docs.py --runs RUNS --reduced-csv OLD_CELLS.csv --old-md OLD_MD_DIR \
      --out OUT_DIR [--csv-out OUT_DIR/cells.csv] [--no-md] [--facts FACTS.json]

RUNS           folder with one paper-protocol run directory per config
OLD_CELLS      an older cells.csv (git show 7005ad3:docs/reproduction/cells.csv)
OLD_MD_DIR     per-config .md files of that report (git show 7005ad3:docs/reproduction/<c>.md):
               the paper's grid lines, the "Not run" line and the Data lines come from them
FACTS          optional JSON {config: {"reduced": text}} describing reduced cells, if any
"""

import argparse
import csv
import io
import json
import math
import re
import sys
from pathlib import Path

from aucopt.experiments._config import load_config
from aucopt.experiments._report import _fmt, build_report

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from _stamp import stamp  # noqa: E402  (benchmarks/_stamp.py)

CONFIGS = [
    "alquabeh2024-t2",
    "dan-t1",
    "gao2013-t2",
    "gao2013-t3",
    "natole2020-t3.2",
    "natole2020-t4.2",
    "natole2020-t5.2",
    "natole2020-t6.3",
]
DAGGER = "†"
MARK = {"win": "●", "loss": "○"}


def merged_rows(cid, committed, runs):
    cfg = load_config(cid)
    d = runs / cid
    paper = list(csv.DictReader(io.StringIO(build_report(d, "csv")))) if d.exists() else []
    paper_ok = {(r["dataset"], r["algorithm"]): r for r in paper if int(r["runs"] or 0) > 0}
    old = {(r["dataset"], r["algorithm"]): r for r in committed if r["config"] == cid}
    out = []
    for ds in [x.name for x in cfg.datasets]:
        for a in [x.key for x in cfg.algorithms]:
            if (ds, a) in paper_ok:
                out.append({**paper_ok[ds, a], "protocol": "paper"})
            elif (ds, a) in old:
                out.append({**old[ds, a], "protocol": "reduced"})
    # a t-test mark compares a column with the reference cell over the same splits; keep it
    # only when both cells come from the same run (same protocol), else blank it
    refprot = {r["dataset"]: r["protocol"] for r in out if r["algorithm"] == cfg.reference}
    for r in out:
        if r["algorithm"] != cfg.reference and r["protocol"] != refprot.get(r["dataset"]):
            r["ttest_outcome"] = r["ttest_pvalue"] = ""
    return cfg, out


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def cell_text(r, with_mark=True):
    if int(r["runs"] or 0) == 0:
        return r["status"]
    m, e = num(r["auc_mean"]), num(r["auc_error"])
    text = f"{_fmt(m)}±{_fmt(e)}" if int(r["runs"]) > 1 else _fmt(m)
    if with_mark and MARK.get(r["ttest_outcome"]):
        text += " " + MARK[r["ttest_outcome"]]
    if r["protocol"] == "reduced":
        text += " " + DAGGER
    return text


def old_section(old_md, cid, start, stop=None):
    out, on = [], False
    for ln in (old_md / f"{cid}.md").read_text().splitlines():
        if ln.startswith(start):
            on = True
        elif on and stop and ln.startswith(stop):
            break
        if on:
            out.append(ln)
    return out


def protocol_block(cid, cfg, rows, manifest, facts, old_md):
    """The protocol of the committed cells: runs per cell, grids, what was not run, rerun."""
    L = ["## Protocol", ""]
    L += [
        re.sub(r"\bspec s\w+ E\b", "the paper's protocol", line)
        for line in old_section(old_md, cid, "- Paper (", "- This run")[:1]
    ]
    L.append(
        "- Ours: the paper's protocol for every cell (its splits and number of runs, its "
        "full grids, its inner CV)."
    )
    if any(r["protocol"] == "reduced" and int(r["runs"] or 0) > 0 for r in rows):
        L.append(f"- {DAGGER}: {facts[cid]['reduced']}")
    L.append("- Runs per cell (dataset: protocol, runs of each column):")
    by_ds = {}
    for r in rows:
        if int(r["runs"] or 0) == 0:
            continue
        key = (r["protocol"], r["runs"])
        by_ds.setdefault(r["dataset"], {}).setdefault(key, []).append(r["algorithm"])
    nalg = len(cfg.algorithms)
    for ds, groups in by_ds.items():
        parts = []
        for (prot, n), algs in groups.items():
            who = "every column" if len(algs) == nalg else ", ".join(algs)
            parts.append(f"{prot} {n} run(s) ({who})")
        notrun = [r["algorithm"] for r in rows if r["dataset"] == ds and int(r["runs"] or 0) == 0]
        if notrun:
            parts.append("not run: " + ", ".join(notrun))
        L.append(f"  - {ds}: " + "; ".join(parts))
    grids = old_section(old_md, cid, "- Grids (paper grid -> grid run):", "- Not run:")
    L.append("- Grids (the paper's, searched in full):")
    L += [re.sub(r" -> [^;]*", "", line) for line in grids[1:]]
    L += [
        re.sub(r"not in the offline mirror [^;)]+", "not available offline", line)
        for line in old_section(old_md, cid, "- Not run:", "- The generated line")[:1]
    ]
    L.append(
        f"- Run directory: `docs/reproduction/runs/{cid}/` (`manifest.json` with the versions, "
        "seeds, options and config text; `results.csv`, one row per outer run with the "
        f"selected hyperparameters), made by aucopt {manifest.get('git')}. Rerun: "
        f"`aucopt experiment run {cid} --out runs/{cid} --datasets ...`; "
        f"`aucopt experiment report runs/{cid}` renders one run directory."
    )
    return L


def markdown(cid, cfg, rows, runs, facts, old_md):
    manifest = json.loads((runs / cid / "manifest.json").read_text())
    generated = build_report(runs / cid, "md")
    err = "standard error" if cfg.error == "stderr" else "std"
    keys = [a.key for a in cfg.algorithms]
    labels = {a.key: a.label for a in cfg.algorithms}
    datasets = []
    for r in rows:
        if r["dataset"] not in datasets:
            datasets.append(r["dataset"])
    dlabel = {d.name: d.label for d in cfg.datasets}
    by = {(r["dataset"], r["algorithm"]): r for r in rows}
    L = [
        f"# {cid}: {cfg.title}",
        "",
        f"{stamp()}. Rebuilt from the run directory by `docs/reproduction/tools/build_docs.py`.",
        "",
        f"Source: {cfg.source}",
        "",
    ]
    L += protocol_block(cid, cfg, rows, manifest, facts, old_md)
    L += [
        "",
        f"## Ours (mean±{err} over runs)",
        "",
        "| dataset | " + " | ".join(labels[k] for k in keys) + " |",
        "| --- |" + " --- |" * len(keys),
    ]
    for d in datasets:
        L.append(
            f"| {dlabel.get(d, d)} | "
            + " | ".join(cell_text(by[d, k]) if (d, k) in by else "not run" for k in keys)
            + " |"
        )
    ref = cfg.reference
    wtl = []
    for k in keys:
        outs = [
            by[d, k]["ttest_outcome"]
            for d in datasets
            if (d, k) in by and by[d, k]["ttest_outcome"]
        ]
        wtl.append(
            ""
            if k == ref or not outs
            else f"{outs.count('win')}/{outs.count('tie')}/{outs.count('loss')}"
        )
    L.append(f"| win/tie/loss ({labels[ref]} vs column, ours) | " + " | ".join(wtl) + " |")
    if cfg.published_wtl:
        L.append(
            "| win/tie/loss (published) | "
            + " | ".join(cfg.published_wtl.get(k, "") for k in keys)
            + " |"
        )
    L += [
        "",
        f"● / ○: {labels[ref]} is significantly better / worse than that column (two-sided "
        f"paired t-test at 95 % over the same splits). {DAGGER}: reduced protocol (see above).",
    ]
    L += [
        "",
        f"## Ours vs published (published ± is the paper's {err})",
        "",
        "| dataset | algorithm | ours | runs | protocol | published | difference | |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        pub = cfg.published.get(r["dataset"], {}).get(r["algorithm"])
        if pub is None and int(r["runs"] or 0) == 0:
            continue
        ptxt = "-" if pub is None else pub.raw + (" (repaired)" if pub.repaired else "")
        if pub is not None and cfg.scale != 1:
            ptxt += f" = {_fmt(pub.mean)}±{_fmt(pub.error)}"
        diff = num(r["difference"])
        exceeds = r["exceeds_published_error"] == "True"
        L.append(
            f"| {dlabel.get(r['dataset'], r['dataset'])} | {labels[r['algorithm']]} | "
            f"{cell_text(r, with_mark=False)} | {r['runs']} | {r['protocol']} | {ptxt} | "
            f"{_fmt(diff, signed=True)} | {'!' if exceeds else ''} |"
        )
    L += ["", f"!: |ours - published| is larger than the published {err}."]
    # generated sections of the paper-protocol report: Not run / Data / Notes
    gen = generated.split("\n## ")
    sections = {s.split("\n", 1)[0]: s.split("\n", 1)[1] for s in gen[1:]}
    if "Not run or failed" in sections:
        L += [
            "",
            "## Not run or failed (paper-protocol run directory)",
            "",
            sections["Not run or failed"].strip(),
        ]
        L.append(
            f"- (cells of datasets / columns not run in the paper-protocol directory are "
            f"the reduced {DAGGER} cells above, where the earlier runs had them)"
        )
    data = sections["Data"].strip().splitlines()
    have = {ln.split(":", 1)[0] for ln in data}
    for ln in old_section(old_md, cid, "## Data", "## Notes")[2:]:
        if ln.startswith("- ") and ln.split(":", 1)[0] not in have:
            data.append(ln + f" (reduced {DAGGER} run)")
    L += ["", "## Data", ""] + data
    L += ["", "## Notes", "", sections["Notes"].strip()]
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=Path, required=True)
    ap.add_argument("--reduced-csv", type=Path, required=True)
    ap.add_argument("--old-md", type=Path, required=True)
    ap.add_argument(
        "--facts",
        type=Path,
        default=None,
        help="JSON with the description of reduced cells, if any remain",
    )
    ap.add_argument("--out", type=Path, required=True, help="folder for the per-config .md files")
    ap.add_argument("--csv-out", type=Path, help="write the merged cells.csv here")
    ap.add_argument("--no-md", action="store_true", help="only the csv")
    a = ap.parse_args()
    facts = json.loads(a.facts.read_text()) if a.facts else {}
    with a.reduced_csv.open(newline="") as fh:
        committed = list(csv.DictReader(fh))
    all_rows = []
    fields = list(committed[0]) + ["protocol"]
    for cid in CONFIGS:
        cfg, rows = merged_rows(cid, committed, a.runs)
        all_rows += rows
        if not a.no_md:
            (a.out / f"{cid}.md").write_text(markdown(cid, cfg, rows, a.runs, facts, a.old_md))
    for r in committed:
        if r["config"] == "liu2018-t2":
            all_rows.append({**r, "protocol": "paper"})
    order = {}
    for r in committed:
        order.setdefault(r["config"], len(order))
    all_rows.sort(key=lambda r: order.get(r["config"], 99))  # stable: keeps dataset order
    if a.csv_out:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\r\n")
        w.writeheader()
        for r in all_rows:
            w.writerow({k: r.get(k, "") for k in fields})
        a.csv_out.write_text(buf.getvalue())
        print("wrote", a.csv_out, len(all_rows), "rows")


if __name__ == "__main__":
    main()
