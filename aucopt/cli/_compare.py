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
                   grid="quick", preprocessing="minmax", out: Path, curve_points=20,
                   max_fpr=None):
    """Evaluate ``algorithms`` on ``(X, y)``; write CSV, Markdown and PNG files to ``out``.

    With ``max_fpr``, the inner search selects by the partial AUC over FPR in
    [0, max_fpr], every fold records it (column ``pauc``) and the summary is ranked by it.

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
            curve_points=curve_points if (r == 0 and f == 0) else 0, max_fpr=max_fpr,
        )
        for a in algorithms
        for r, f, train, test in splits
    ]
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    results = list(tqdm(runner(tasks), total=len(tasks), desc=dataset, unit="fit",
                        disable=not sys.stdout.isatty(), leave=False))
    summary = summarise(results, algorithms)
    if max_fpr is not None:  # ranked by the partial AUC, best first
        summary.sort(key=lambda row: -np.nan_to_num(row["pauc_mean"], nan=-np.inf))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(results, out / "results.csv")
    described = describe_run(X, y, dataset, folds=folds, repeats=repeats, seed=seed, grid=grid,
                             preprocessing=preprocessing)
    (out / "results.md").write_text(markdown_table(summary, dataset, described, max_fpr))
    write_plots(results, out, dataset)
    return results, summary


def summarise(results, algorithms) -> list[dict]:
    """Return one row per algorithm: AUC mean/std (and the partial AUC's, if recorded), fit
    seconds, most chosen parameters."""
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
        paucs = [r.pauc for r in mine if r.pauc is not None]
        if paucs:
            rows[-1].update(pauc_mean=float(np.mean(paucs)), pauc_std=float(np.std(paucs)))
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


def _pauc_cells(row, sep: str, end: str) -> str:
    """The partial-AUC cells of a summary row (empty when it has none)."""
    if "pauc_mean" not in row:
        return ""
    return f"{row['pauc_mean']:.4f}{sep}{row['pauc_std']:.4f}{end}"


def markdown_table(summary, dataset, description: str = "", max_fpr=None) -> str:
    """Return the summary as a Markdown table, after the description of the run (ranked by
    the partial AUC at ``max_fpr`` when given)."""
    head = f"pAUC@{max_fpr:g} mean | pAUC@{max_fpr:g} std | " if max_fpr is not None else ""
    lines = [
        f"# AUC on {dataset}" if max_fpr is None else
        f"# Partial AUC (FPR <= {max_fpr:g}, McClish) on {dataset}",
        "",
        *([description, ""] if description else []),
        f"| algorithm | {head}AUC mean | AUC std | fit seconds | most chosen parameters |",
        "| --- | " + "--- | " * (2 if max_fpr is not None else 0) + "--- | --- | --- | --- |",
    ]
    for row in summary:
        lines.append(f"| {row['algorithm']} | {_pauc_cells(row, ' | ', ' | ')}"
                     f"{row['auc_mean']:.4f} | "
                     f"{row['auc_std']:.4f} | {row['fit_seconds']:.4f} | "
                     f"{_fmt_params(row['params'])} |")
    return "\n".join(lines) + "\n"


def text_table(summary) -> str:
    """Return the summary as a fixed-width text table for the terminal."""
    width = max([len(r["algorithm"]) for r in summary] + [9])
    partial = any("pauc_mean" in r for r in summary)
    head = f"{'pAUC (mean +- std)':<19}  " if partial else ""
    lines = [f"{'algorithm':<{width}}  {head}{'AUC (mean +- std)':<19}  fit seconds  parameters"]
    for r in summary:
        lines.append(f"{r['algorithm']:<{width}}  {_pauc_cells(r, ' +- ', '     ')}"
                     f"{r['auc_mean']:.4f} +- {r['auc_std']:.4f}  "
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
