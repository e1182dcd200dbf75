"""Diagnostic for reason N1 of README.md: the thesis normalisation x/||x|| on the raw mirror
files versus on [-1, 1]-scaled data (what LIBSVM's diabetes_scale / german.numer_scale hold).

Usage: python normalisation_diagnostic.py diabetes,german.numer [repeats]
(set AUCOPT_DATA_MIRROR to a directory holding the LIBSVM files to work offline)
Same outer folds as the runner (stratified 5-fold, seed 0), inner 3-fold CV, grids thinned to 5
values (a quick protocol: the effect is far larger than the grid's). One line per (dataset,
algorithm).
"""

import sys
import warnings

import numpy as np

from aucopt.datasets import fetch
from aucopt.experiments import parse_values
from aucopt.experiments._runner import thin_grid
from aucopt.model_selection import evaluate_fold, make_splits

warnings.filterwarnings("ignore")

grids = {
    "reg-solam": {"eta0": parse_values("[1:9:100]"), "lam": parse_values("10^[-5:5]")},
    "spam-l2": {"beta": parse_values("10^[-5:5]")},
    "spam-net": {"beta1": parse_values("10^[-5:5]")},
    "spdam": {"lam": parse_values("10^[-5:1]")},
    "b-ls-svm": {"lam": parse_values("2^[-10:10]")},
}
for name in sys.argv[1].split(","):
    X, y = fetch(name, download=False)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    lo, hi = X.min(0), X.max(0)
    Xs = np.where(
        hi > lo, 2 * (X - lo) / np.where(hi > lo, hi - lo, 1) - 1, 0
    )  # LIBSVM svm-scale -l -1 -u 1
    splits = make_splits(
        "kfold", y, folds=5, repeats=int(sys.argv[2]) if len(sys.argv) > 2 else 1, random_state=0
    )
    for aid, grid in grids.items():
        out = []
        for data, pre, tag in (
            (X, "minmax", "minmax"),
            (X, "l2-rows", "l2-rows raw"),
            (Xs, "l2-rows", "l2-rows on [-1,1]-scaled"),
        ):
            aucs = [
                evaluate_fold(
                    aid,
                    data,
                    y,
                    s.train,
                    s.test,
                    preprocessing=pre,
                    grid=thin_grid(grid, 5),
                    inner_folds=3,
                    random_state=s.seed,
                ).auc
                for s in splits
            ]
            out.append(f"{tag}: {np.mean(aucs):.4f}±{np.std(aucs, ddof=1):.4f}")
        print(f"{name:13s} {aid:10s} " + " | ".join(out), flush=True)
