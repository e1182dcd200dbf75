"""Write facts.json (how the paper-protocol cells of each config were run) from the run log.

usage: python gen_facts.py --log invocations.log --copies copies.log --runs-label LABEL --out facts.json

invocations.log  one block per `aucopt experiment run` invocation, written by the wrapper
                 (lines "=== START <time> <config> <args> --n-jobs N HEAD=<git>", then
                 "rc=<code> wall=<s>s END <time> HEAD=<git>", "modified-during-run: <files>");
                 a line "SKIPPED (deadline) <config> ..." is an invocation that was not started
copies.log       lines "copied N cells SRC/ALG -> DST/ALG" written by copy_cells.py
LABEL            how the run directories are named in the text (e.g. "runs/<config>")
"""
import argparse
import collections
import json
import re
from pathlib import Path

SMALL = "diabetes,german.numer,splice"
REDUCED = {
    "alquabeh2024-t2": "the committed run of 2026-11-22: the paper's outer split (1 x 5-fold) and inner 3-fold CV, but every grid thinned from 8 to at most 5 values (`--max-grid-points 5`).",
    "dan-t1": "the committed run of 2026-11-22 (a9a): inner 3-fold CV instead of 5-fold, grids thinned to at most 5 values per parameter (`--max-grid-points 5`) and 5 instead of 20 holdout runs.",
    "gao2013-t2": "the committed run of 2026-11-22 (a9a): the paper's 25 outer runs, but inner 3-fold CV instead of 5-fold and grids thinned to at most 5 values per parameter (`--max-grid-points 5`).",
    "gao2013-t3": "the committed run of 2026-11-22 (a9a): the paper's 25 outer runs, but inner 3-fold CV instead of 5-fold and grids thinned to at most 5 values per parameter (`--max-grid-points 5`).",
}
for _c in ["natole2020-t3.2", "natole2020-t4.2", "natole2020-t5.2", "natole2020-t6.3"]:
    REDUCED[_c] = ("the committed N1 re-run of 2026-11-24 (a9a): inner 3-fold CV instead of 5-fold, grids thinned to at most 5 values per parameter (`--max-grid-points 5`) and 1 x 5-fold = 5 outer runs instead of the paper's "
                   + ("20" if _c.endswith("t4.2") else "25") + ".")


def parse(log_text):
    inv = collections.defaultdict(list)
    skipped = collections.defaultdict(list)
    for ln in log_text.splitlines():
        m = re.match(r"SKIPPED \(deadline\) (\S+) (.*)", ln)
        if m:
            skipped[m.group(1)].append(m.group(2))
    for b in log_text.split("=== START ")[1:]:
        head = b.splitlines()[0]
        m = re.match(r"(\S+) (\S+) (.*) --n-jobs (\d+) HEAD=(\w+)", head)
        ts, cid, args, nj, git = m.groups()
        w = re.search(r"rc=(\d+) wall=([\d.]+)s END (\S+) HEAD=(\w+)", b)
        if not w:  # still running (or killed without an END line)
            inv[cid].append(dict(start=ts, args=args, nj=nj, git=git, rc=None, wall=None, end=None, mod=[]))
            continue
        mod = re.search(r"modified-during-run: (.*)", b)
        inv[cid].append(dict(start=ts, args=args, nj=nj, git=git, rc=int(w.group(1)),
                             wall=float(w.group(2)), end=w.group(3), git_end=w.group(4),
                             mod=(mod.group(1).split() if mod else [])))
    return inv, skipped


def _option(args, name):
    m = re.search(rf"--{name} (\S+)", args)
    return m.group(1) if m else None


def _covered(skipped_args, runs):
    """Whether invocations in ``runs`` ran every algorithm of a skipped invocation on its datasets."""
    datasets = _option(skipped_args, "datasets")
    wanted = set((_option(skipped_args, "algorithms") or "").split(","))
    done = set()
    for r in runs:
        if r["wall"] is not None and r["rc"] == 0 and _option(r["args"], "datasets") == datasets:
            done |= set((_option(r["args"], "algorithms") or "").split(","))
    return wanted <= done


def group_text(runs, label):
    done = [r for r in runs if r["wall"] is not None]
    wall = sum(r["wall"] for r in done)
    gits = sorted({r["git"] for r in runs} | {r.get("git_end") for r in done if r.get("git_end")})
    njobs = sorted({r["nj"] for r in runs})
    t = (f"{label}: {len(runs)} invocation(s), {runs[0]['start'][11:16]}–"
         f"{(done[-1]['end'] or '')[11:16] if done else '?'} UTC, {wall:.0f} s wall, "
         f"`--n-jobs {'/'.join(njobs)}`, git {' / '.join(gits)}")
    bad = [r for r in done if r["rc"]]
    if bad:
        t += "; " + "; ".join(f"the invocation of {r['start'][11:16]} ended with exit code {r['rc']} after {r['wall']:.0f} s (its finished cells were kept and resumed by the next invocation)" for r in bad)
    unfinished = [r for r in runs if r["wall"] is None]
    if unfinished:
        t += f"; {len(unfinished)} invocation(s) without an end line in the log"
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--copies", type=Path, required=True)
    ap.add_argument("--runs-label", default="runs/<config>")
    ap.add_argument("--gap", type=float, default=20, help="minutes of idle time that start a new session")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    inv, skipped = parse(a.log.read_text())
    copies = collections.defaultdict(list)
    for ln in a.copies.read_text().splitlines():
        m = re.match(r"copied (\d+) cells (\S+)/(\S+) -> (\S+)/(\S+)", ln)
        if m:
            copies[m.group(4)].append((m.group(3), m.group(2), int(m.group(1))))
    # sessions: invocations separated by more than --gap minutes of idle time
    from datetime import datetime
    allr = sorted((r for rs in inv.values() for r in rs), key=lambda r: r["start"])
    ts = lambda x: datetime.strptime(x, "%Y-%m-%dT%H:%M:%SZ")
    session, k, last_end = {}, 0, None
    for r in allr:
        if last_end is None or (ts(r["start"]) - last_end).total_seconds() > a.gap * 60:
            k += 1
        session[r["start"]] = k
        last_end = ts(r["end"]) if r["end"] else ts(r["start"])
    facts = {}
    for cid, runs in inv.items():
        groups = collections.OrderedDict()
        for r in runs:
            ds = "a9a" if "--datasets a9a" in r["args"] else "diabetes / german / splice"
            groups.setdefault((session[r["start"]], ds), []).append(r)
        parts = [group_text(g, f"{ds} (session {s})") for (s, ds), g in
                 sorted(groups.items(), key=lambda kv: kv[1][0]["start"])]
        txt = (f"full paper grids and the paper's inner CV and number of outer runs (`aucopt experiment run {cid} "
               f"--out {a.runs_label.replace('<config>', cid)} --datasets ... --algorithms ... --n-jobs N` without "
               "`--inner-folds` / `--max-grid-points` / `--repeats`) on 2026-11-24 — " + "; ".join(parts)
               + (" (cells copied from another directory were computed, and timed, there)" if copies.get(cid) else "")
               + ". Every invocation and its wall time: README.md, 'What was run'.")
        extra = []
        if copies.get(cid):
            agg = collections.OrderedDict()
            for alg, src, n in copies[cid]:
                agg[(alg, src)] = agg.get((alg, src), 0) + n
            extra.append("Cells copied from another paper-protocol run directory with identical inputs (same data, preprocessing, outer splits and seeds, grid, fixed parameters and inner folds; checked cell by cell, README.md): "
                         + ", ".join(f"{alg} ({n} cells from {src})" for (alg, src), n in agg.items()) + ".")
        modded = sorted({f for r in runs for f in r["mod"] if f.startswith("aucopt/")})
        if modded:
            extra.append("Source files of the package edited by another engineer while some of these invocations ran: "
                         + ", ".join(f"`{f}`" for f in modded) + "; recomputed cells agree exactly with the committed code (README.md).")
        later = [s for s in skipped.get(cid, []) if _covered(s, runs)]
        pending = [s for s in skipped.get(cid, []) if s not in later]
        if later:
            extra.append("Skipped at the time limit of a session's run script and run in a later session: "
                         + "; ".join(f"`{s}`" for s in later) + ".")
        if pending:
            extra.append("Planned but not started (time limit of the run script): "
                         + "; ".join(f"`{s}`" for s in pending) + " — those cells stay reduced (†).")
        facts[cid] = {"paper_run": txt, "reduced": REDUCED[cid], "extra": extra}
    a.out.write_text(json.dumps(facts, indent=1, ensure_ascii=False))
    for k, v in facts.items():
        print(k, json.dumps(v, ensure_ascii=False)[:400], "\n")


if __name__ == "__main__":
    main()
