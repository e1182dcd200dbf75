"""
A reproduction cell
===================

One cell of a paper's table, rerun with the paper's protocol machinery: SPAM-L2 on german
in Natole 2020, Table 4.2 (config ``natole2020-t4.2``). The config fixes the preprocessing,
the split protocol, the grid and the published value; here it runs 1 x 5-fold CV with the
grid thinned to 3 values so that it takes seconds (``aucopt experiment run natole2020-t4.2
--datasets german.numer --algorithms spam-l2`` runs the full protocol). The published mean
and standard deviation are drawn as a band.
"""

import csv
import tempfile

import matplotlib.pyplot as plt
import numpy as np

from aucopt.experiments import load_config, run_experiment
from aucopt.plotting import legend_outside

config = load_config("natole2020-t4.2")
out = tempfile.mkdtemp()
run_experiment(config, out, datasets=["german.numer"], algorithms=["spam-l2"], repeats=1,
               inner_folds=3, max_grid_points=3)
rows = list(csv.DictReader(open(f"{out}/results.csv")))
ours = np.array([float(r["auc"]) for r in rows])
published = dict(((d, a), v) for d, a, v in config.published_cells())[("german.numer", "spam-l2")]

fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
ax.axhspan(published.mean - published.error, published.mean + published.error, alpha=0.2,
           label=f"published {published.raw}")
ax.axhline(published.mean, lw=1)
ax.plot(np.arange(1, len(ours) + 1), ours, "o", label=f"ours per fold, mean {ours.mean():.4f}")
ax.set_xlabel("outer fold")
ax.set_ylabel("test AUC")
ax.set_title("SPAM-L2 on german (Natole 2020, Table 4.2)")
legend_outside(ax)
print(f"ours {ours.mean():.4f} +- {ours.std():.4f} ({len(ours)} runs); published {published.raw}")
