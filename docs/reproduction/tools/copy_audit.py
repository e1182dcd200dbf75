"""Audit cells copied between paper-protocol run directories (copies.log of copy_cells.py).

For each copied (source config, destination config, column) and every dataset of the copied
rows, compare every input of the cell computation in both configs — data arrays (X, y),
preprocessing, algorithm id, searched grid, fixed parameters, inner folds, training-size cap,
the outer splits (train / test indices and seed of every (repeat, fold) of the destination) —
and check that each destination row equals its source row (all fields but the column key) and
that the destination has exactly one row per outer split of its protocol. Fits nothing.

usage: python copy_audit.py --runs RUNS --copies copies.log   (exit code 1 if a copy fails)
"""
import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from aucopt.experiments._config import load_config
from aucopt.experiments._data import load_data, outer_splits
from aucopt.experiments._runner import RunOptions, effective_protocol, search_grid


def eq(a, b):
    if sp.issparse(a) or sp.issparse(b):
        return sp.issparse(a) and sp.issparse(b) and a.shape == b.shape and (a != b).nnz == 0
    return np.array_equal(a, b)


def rows(runs, cid, alg):
    out = {}
    for ln in (runs / cid / "cells.jsonl").read_text().splitlines():
        if ln.strip():
            r = json.loads(ln)
            if r["algorithm"] == alg and r["status"] == "ok":
                out[(r["dataset"], r["repeat"], r["fold"])] = r
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=Path, required=True, help="folder of the run directories (with cells.jsonl)")
    ap.add_argument("--copies", type=Path, required=True)
    a = ap.parse_args()
    pairs = {}
    for ln in a.copies.read_text().splitlines():
        m = re.match(r"copied (\d+) cells (\S+)/(\S+) -> (\S+)/(\S+)", ln)
        if m:
            key = (m.group(2), m.group(4), m.group(3), m.group(5))
            pairs[key] = pairs.get(key, 0) + int(m.group(1))
    opt = RunOptions()
    cache = {}

    def data(cfg, entry):
        k = (cfg.id, entry.name)
        if k not in cache:
            cache[k] = load_data(entry, cfg, opt)
        return cache[k]

    failed = 0
    for (src, dst, alg_s, alg_d), n in pairs.items():
        cs, cd = load_config(src), load_config(dst)
        ps, pd = effective_protocol(cs, opt), effective_protocol(cd, opt)
        rs, rd = rows(a.runs, src, alg_s), rows(a.runs, dst, alg_d)
        a_s = next(x for x in cs.algorithms if x.key == alg_s)
        a_d = next(x for x in cd.algorithms if x.key == alg_d)
        probs, seen = [], []
        for ds in sorted({k[0] for k in rd}):
            if not any(k[0] == ds for k in rs):
                continue  # rows of this dataset were computed in dst itself, not copied
            seen.append(ds)
            es = next(x for x in cs.datasets if x.name == ds)
            ed = next(x for x in cd.datasets if x.name == ds)
            xs, xd = data(cs, es), data(cd, ed)
            if not (eq(xs.X, xd.X) and np.array_equal(xs.y, xd.y)):
                probs.append(f"{ds}: data differ")
            if es.preprocessing != ed.preprocessing:
                probs.append(f"{ds}: preprocessing {es.preprocessing} vs {ed.preprocessing}")
            if a_s.id_for(ds) != a_d.id_for(ds):
                probs.append(f"{ds}: id {a_s.id_for(ds)} vs {a_d.id_for(ds)}")
            gs = search_grid(a_s.grid, a_s.id_for(ds), opt)
            gd = search_grid(a_d.grid, a_d.id_for(ds), opt)
            if json.dumps(gs, sort_keys=True, default=str) != json.dumps(gd, sort_keys=True, default=str):
                probs.append(f"{ds}: grids differ")
            if dict(a_s.params) != dict(a_d.params):
                probs.append(f"{ds}: params {dict(a_s.params)} vs {dict(a_d.params)}")
            if ps.inner_folds != pd.inner_folds:
                probs.append("inner folds differ")
            if a_s.max_train_for(ds) != a_d.max_train_for(ds):
                probs.append(f"{ds}: max_train differs")
            ss = {(s.repeat, s.fold): s for s in outer_splits(es, xs, ps)}
            sd = {(s.repeat, s.fold): s for s in outer_splits(ed, xd, pd)}
            for k, s in sd.items():
                o = ss.get(k)
                if o is None:
                    probs.append(f"{ds}: split {k} missing in {src}")
                elif not (np.array_equal(o.train, s.train) and np.array_equal(o.test, s.test)
                          and o.seed == s.seed and o.validation is None and s.validation is None):
                    probs.append(f"{ds}: split {k} differs")
            mine = [k for k in rd if k[0] == ds]
            if len(mine) != len(sd):
                probs.append(f"{ds}: {dst} has {len(mine)} rows, its protocol {len(sd)} splits")
            for k in mine:
                x, y = rs.get(k), rd[k]
                if x is None or any(x[f] != y.get(f) for f in x if f != "algorithm"):
                    probs.append(f"{ds}: row {k} is not a copy of the source row")
        failed += bool(probs)
        print(f"{src}/{alg_s} -> {dst}/{alg_d} [{', '.join(seen)}]: copied {n}; outer repeats "
              f"{ps.repeats} -> {pd.repeats}; "
              + ("OK (identical inputs and rows)" if not probs else "PROBLEMS: " + "; ".join(probs[:8])),
              flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
