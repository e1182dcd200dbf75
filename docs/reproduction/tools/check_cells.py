"""Recompute chosen outer cells with the installed aucopt and compare the test AUC with the
stored one (exact equality).

usage: python check_cells.py --runs RUNS CONFIG:DATASET:COLUMN:REPEAT:FOLD [...]
RUNS: folder of the run directories; the stored AUC is read from RUNS/<config>/results.csv.
"""

import argparse
import csv
import json
import time
from pathlib import Path

import aucopt
from aucopt.experiments._config import load_config
from aucopt.experiments._data import load_data, outer_splits
from aucopt.experiments._runner import RunOptions, effective_protocol, run_cell, search_grid

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--runs", type=Path, required=True)
ap.add_argument("cells", nargs="+")
a = ap.parse_args()
print("aucopt from", aucopt.__file__, flush=True)
stored = {}
for spec in a.cells:
    cid, ds, alg, rep, fold = spec.split(":")
    if cid not in stored:
        with (a.runs / cid / "results.csv").open(newline="") as fh:
            stored[cid] = {
                (r["dataset"], r["algorithm"], int(r["repeat"]), int(r["fold"])): r
                for r in csv.DictReader(fh)
                if r["status"] == "ok"
            }
    cfg = load_config(cid)
    opt = RunOptions()
    p = effective_protocol(cfg, opt)
    d = next(x for x in cfg.datasets if x.name == ds)
    alg_entry = next(x for x in cfg.algorithms if x.key == alg)
    data = load_data(d, cfg, opt)
    split = next(
        s for s in outer_splits(d, data, p) if s.repeat == int(rep) and s.fold == int(fold)
    )
    aid = alg_entry.id_for(ds)
    task = {
        "row": {"dataset": ds, "algorithm": alg, "preprocessing": d.preprocessing},
        "split": split,
        "X": data.X,
        "y": data.y,
        "algorithm_id": aid,
        "grid": search_grid(alg_entry.grid, aid, opt),
        "params": dict(alg_entry.params),
        "inner_folds": p.inner_folds,
        "max_train": alg_entry.max_train_for(ds),
    }
    s = time.time()
    r = run_cell(task)
    old = float(stored[cid][(ds, alg, int(rep), int(fold))]["auc"])
    print(
        json.dumps(
            {
                "cell": spec,
                "recomputed": r.get("auc"),
                "stored": old,
                "equal": r.get("auc") == old,
                "sec": round(time.time() - s, 1),
            }
        ),
        flush=True,
    )
