"""Copy finished cells of one paper-protocol run directory into another whose config defines the
same computation (same dataset, preprocessing, outer split (repeat, fold, seed), grid, params and
inner folds). Run copy_audit.py afterwards; then an `aucopt experiment run` of the destination
finds the copied cells done and writes its results.csv / manifest.json.

usage: python copy_cells.py --runs RUNS SRC_CID DST_CID ALG_SRC[:ALG_DST] MAX_REPEAT_EXCLUSIVE DATASETS
prints "copied N cells SRC/ALG -> DST/ALG" (append it to copies.log)
"""
import argparse
import json
from pathlib import Path

from aucopt.experiments._config import load_config

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--runs", type=Path, required=True)
ap.add_argument("src"); ap.add_argument("dst"); ap.add_argument("alg")
ap.add_argument("maxrep", type=int); ap.add_argument("datasets")
a = ap.parse_args()
datasets = a.datasets.split(",")
a_src, _, a_dst = a.alg.partition(":")
a_dst = a_dst or a_src
cs, cd = load_config(a.src), load_config(a.dst)
ea = {x.key: x for x in cs.algorithms}[a_src]
eb = {x.key: x for x in cd.algorithms}[a_dst]
assert ea.id == eb.id and ea.grid == eb.grid and dict(ea.params) == dict(eb.params), (ea, eb)
ps, pd = cs.protocol, cd.protocol
assert (ps.kind, ps.folds, ps.inner_folds, ps.seed, ps.test_size) == (pd.kind, pd.folds, pd.inner_folds, pd.seed, pd.test_size)
pre_s = {d.name: d.preprocessing for d in cs.datasets}
pre_d = {d.name: d.preprocessing for d in cd.datasets}
for d in datasets:
    assert pre_s[d] == pre_d[d], d
rows = [json.loads(ln) for ln in (a.runs / a.src / "cells.jsonl").read_text().splitlines() if ln.strip()]
dpath = a.runs / a.dst / "cells.jsonl"
have = set()
if dpath.exists():
    have = {(r["dataset"], r["algorithm"], r["repeat"], r["fold"])
            for r in map(json.loads, dpath.read_text().splitlines()) if r.get("status") == "ok"}
dpath.parent.mkdir(parents=True, exist_ok=True)
n = 0
with dpath.open("a") as fh:
    for r in rows:
        if r["algorithm"] == a_src and r["status"] == "ok" and r["dataset"] in datasets and r["repeat"] < a.maxrep:
            r = {**r, "algorithm": a_dst}
            if (r["dataset"], a_dst, r["repeat"], r["fold"]) in have:
                continue
            fh.write(json.dumps(r) + "\n")
            n += 1
print(f"copied {n} cells {a.src}/{a_src} -> {a.dst}/{a_dst}")
