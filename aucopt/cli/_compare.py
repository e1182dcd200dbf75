"""Run several algorithms under one cross-validation protocol and write the results."""

from __future__ import annotations

import csv
import logging
import sys
from collections import Counter
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


def run_comparison(X, y, *, dataset, algorithms, folds=5, repeats=1, seed=0, n_jobs=2,
                   grid="quick", preprocessing="minmax", out: Path, curve_points=20):
    """Evaluate ``algorithms`` on ``(X, y)``; write CSV, Markdown and PNG files to ``out``.

    Returns
    -------
    (results, summary) : list of FoldResult, list of dict
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    from .._api import algorithm_info
    from ..model_selection import evaluate_fold, fold_splits

    for a in algorithms:
        algorithm_info(a)  # unknown ids fail before any work
    splits = fold_splits(y, folds=folds, repeats=repeats, random_state=seed)
    tasks = [
        delayed(evaluate_fold)(
            a, X, y, train, test, dataset=dataset, repeat=r, fold=f, preprocessing=preprocessing,
            grid=grid, random_state=seed, with_roc=(r == 0 and f == 0),
            curve_points=curve_points if (r == 0 and f == 0) else 0,
        )
        for a in algorithms
        for r, f, train, test in splits
    ]
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    results = list(tqdm(runner(tasks), total=len(tasks), desc=dataset, unit="fit",
                        disable=not sys.stdout.isatty(), leave=False))
    summary = summarise(results, algorithms)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(results, out / "results.csv")
    described = describe_run(X, y, dataset, folds=folds, repeats=repeats, seed=seed, grid=grid,
                             preprocessing=preprocessing)
    (out / "results.md").write_text(markdown_table(summary, dataset, described))
    write_plots(results, out, dataset)
    return results, summary


def summarise(results, algorithms) -> list[dict]:
    """Return one row per algorithm: AUC mean/std, fit seconds, most chosen parameters."""
    rows = []
    for a in algorithms:
        mine = [r for r in results if r.algorithm == a]
        aucs = np.array([r.auc for r in mine])
        chosen = Counter(tuple(sorted(r.params.items())) for r in mine).most_common(1)
        rows.append({
            "algorithm": a,
            "auc_mean": float(np.mean(aucs)),
            "auc_std": float(np.std(aucs)),
            "fit_seconds": float(np.mean([r.fit_seconds for r in mine])),
            "params": dict(chosen[0][0]) if chosen else {},
        })
    return rows


def write_csv(results, path: Path) -> None:
    """Write tidy rows, one per (algorithm, repeat, fold)."""
    rows = [r.row() for r in results]
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items())


_GRIDS = {"quick": "each algorithm's quick grid (at most 9 points) tuned by inner 3-fold CV",
          "paper": "each algorithm's paper grid tuned by inner 3-fold CV",
          "none": "the estimators' default hyperparameters, no tuning"}


def describe_run(X, y, dataset, *, folds, repeats, seed, grid, preprocessing) -> str:
    """Return one paragraph saying what a comparison ran: data, protocol, tuning, timing."""
    import datetime

    from .. import __version__

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    positives = int(np.sum(np.asarray(y) == np.max(y)))
    kind = "CSR" if hasattr(X, "tocsr") else "dense"
    return (
        f"{dataset}: {X.shape[0]} samples x {X.shape[1]} features ({kind}), {positives} "
        f"positives. {repeats} x {folds}-fold stratified CV (seed {seed}); features scaled "
        f"with '{preprocessing}' fitted on each training part; "
        f"{_GRIDS.get(grid, f'grid {grid!r}')}, then refitted on the training part. AUC on "
        "the test part; fit seconds = that refit alone, after a warm-up fit that compiles "
        f"the kernels. aucopt {__version__}, {now}."
    )


def markdown_table(summary, dataset, description: str = "") -> str:
    """Return the summary as a Markdown table, after the description of the run."""
    lines = [
        f"# AUC on {dataset}",
        "",
        *([description, ""] if description else []),
        "| algorithm | AUC mean | AUC std | fit seconds | most chosen parameters |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in summary:
        lines.append(f"| {row['algorithm']} | {row['auc_mean']:.4f} | {row['auc_std']:.4f} | "
                     f"{row['fit_seconds']:.4f} | {_fmt_params(row['params'])} |")
    return "\n".join(lines) + "\n"


def text_table(summary) -> str:
    """Return the summary as a fixed-width text table for the terminal."""
    width = max([len(r["algorithm"]) for r in summary] + [9])
    lines = [f"{'algorithm':<{width}}  {'AUC (mean +- std)':<19}  fit seconds  parameters"]
    for r in summary:
        lines.append(f"{r['algorithm']:<{width}}  {r['auc_mean']:.4f} +- {r['auc_std']:.4f}  "
                     f"{r['fit_seconds']:>11.4f}  {_fmt_params(r['params'])}")
    return "\n".join(lines)


def write_plots(results, out: Path, dataset: str = "data") -> None:
    """Write roc.png and convergence.png (skipped with a warning without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        logger.warning("matplotlib is not installed: no plots (pip install 'aucopt[plot]').")
        return
    from ..plotting import plot_convergence, plot_roc

    rocs = {r.algorithm: r.roc for r in results if r.roc is not None}
    curves = {r.algorithm: r.curve for r in results if r.curve is not None}
    jobs = (
        ("roc.png", rocs, plot_roc, f"ROC on {dataset} (test part of fold 1)"),
        ("convergence.png", curves, plot_convergence,
         f"Test AUC vs training samples seen on {dataset} (fold 1)"),
    )
    for name, data, plot, title in jobs:
        if not data:
            continue
        fig, ax = plt.subplots(figsize=(7, 5))
        plot(data, ax=ax, title=title)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
