"""5-fold AUC of registered algorithms (quick grid) against the least-squares AUC optimum.

The yardstick is the batch pairwise square-loss minimiser ``(lam I + Sigma2)^-1 mu``
(spec section R) with ``lam`` chosen by inner 3-fold CV, on the same folds and the same
[-1, 1] scaling. Data come through ``aucopt.datasets.fetch`` (set ``AUCOPT_DATA_MIRROR``;
``../shared/data`` is used when it exists).

Usage: python benchmarks/auc_vs_ls.py --algorithms spam-l2,spam-net \
           [--datasets diabetes,german.numer,splice] [--folds 5]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

import aucopt
from aucopt.datasets import fetch, make_preprocessor
from aucopt.metrics import roc_auc_score
from aucopt.model_selection import evaluate_fold, fold_splits

MIRROR = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def ls_optimum(X, y, lam):
    """Return the minimiser of the regularised pairwise square loss (dense X)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X)
    pos, neg = X[y > 0], X[y < 0]
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    return np.linalg.solve(sigma2 + lam * np.eye(X.shape[1]), mu)


def ls_fold(X, y, train, test, lams=tuple(10.0**k for k in range(-6, 2))):
    """Tune lam by inner 3-fold CV and return the test AUC of the LS optimum."""
    scaler = make_preprocessor("minmax")
    Xtr, Xte = scaler.fit_transform(X[train]), scaler.transform(X[test])
    ytr = y[train]
    inner = StratifiedKFold(3, shuffle=True, random_state=0)
    best = max(lams, key=lambda lam: np.mean([
        roc_auc_score(ytr[b], Xtr[b] @ ls_optimum(Xtr[a], ytr[a], lam))
        for a, b in inner.split(Xtr, ytr)]))
    return roc_auc_score(y[test], Xte @ ls_optimum(Xtr, ytr, best))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", nargs="+", default=aucopt.list_algorithms(),
                        help="ids, separated by spaces or commas")
    parser.add_argument("--datasets", default="diabetes,german.numer,splice")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    if "AUCOPT_DATA_MIRROR" not in os.environ and MIRROR.exists():
        os.environ["AUCOPT_DATA_MIRROR"] = str(MIRROR)
    print("| dataset | algorithm | AUC | LS optimum | gap | fit s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in args.datasets.split(","):
        X, y = fetch(name)
        X = X.toarray() if hasattr(X, "toarray") else X
        splits = fold_splits(y, folds=args.folds, random_state=0)
        ls = np.mean([ls_fold(X, y, tr, te) for _, _, tr, te in splits])
        for algorithm in ",".join(args.algorithms).split(","):
            results = [evaluate_fold(algorithm, X, y, tr, te, dataset=name)
                       for _, _, tr, te in splits]
            auc = np.mean([r.auc for r in results])
            fit_s = np.mean([r.fit_seconds for r in results])
            print(f"| {name} | {algorithm} | {auc:.4f} | {ls:.4f} | {auc - ls:+.4f} | "
                  f"{fit_s:.4f} |", flush=True)


if __name__ == "__main__":
    main()
