"""Run several algorithms under one cross-validation protocol and write the results."""

from __future__ import annotations

import csv
import logging
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from ..utils._atomic import replaced_on_success, write_atomic
from ._html import ranked_by
from ._warned import collecting, reissue

logger = logging.getLogger(__name__)


#: Plain baselines beside the registry ids (``name -> description``): scikit-learn's logistic
#: regression is the strong, well-known yardstick a newcomer compares with. Its C grid
#: (``_LOGREG_GRID``) is tuned by the same inner CV as the ids' quick grids.
BASELINES = {"logreg": "scikit-learn LogisticRegression (C tuned by inner CV)"}
_LOGREG_GRID = {"C": (0.01, 0.1, 1.0, 10.0)}


def run_comparison(X, y, *, dataset, algorithms, folds=5, repeats=1, seed=0, n_jobs=2,
                   grid="quick", preprocessing="minmax", out: Path, curve_points=20,
                   progress=None, command=None, max_fpr=None):
    """Evaluate ``algorithms`` on ``(X, y)``; write CSV, Markdown, PNG and HTML files to ``out``.

    ``algorithms`` are registry ids or names of :data:`BASELINES`. ``progress`` shows a
    progress bar on stderr (``None``: when stderr is a terminal). ``command`` is the
    command line that reruns the comparison, written in the HTML report.

    With ``max_fpr``, the inner search selects by the partial AUC over FPR in
    [0, max_fpr], every fold records it (column ``pauc``) and the summary is ranked by it.

    Returns
    -------
    (results, summary, written, described) : list of FoldResult, list of dict, list of
        Path, str
        ``summary`` is sorted by mean AUC, best first; ``written`` lists the files
        written (the figures only when matplotlib is installed); ``described`` is the
        run's description as the files give it (one timestamp).
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    from .._api import list_algorithms
    from ..algorithms._registry import unknown_algorithm_message
    from ..model_selection import evaluate_fold, fold_splits
    from ..model_selection._evaluate import check_grid

    if not algorithms:
        raise ValueError("No algorithm to compare: give registry ids (and 'logreg'), "
                         "e.g. --algorithms spam-l2,logreg.")
    known = set(list_algorithms())
    for a in algorithms:  # unknown ids fail before any work
        if a not in BASELINES and a not in known:
            raise ValueError(unknown_algorithm_message(a, tuple(BASELINES)))
    if len(set(algorithms)) < len(algorithms):
        raise ValueError(f"An algorithm is named twice: {', '.join(algorithms)}.")
    check_grid(grid)
    splits = fold_splits(y, folds=folds, repeats=repeats, random_state=seed)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file: give a directory for the results.")
    out.mkdir(parents=True, exist_ok=True)  # (an --out that cannot be made: before any work)
    if n_jobs != 1:
        compile_once(algorithms, X, y, splits[0][2], preprocessing, seed)
    tasks = [  # each fit's warnings come back with it, shown once each below
        delayed(collecting)(
            baseline_fold if a in BASELINES else evaluate_fold, a, X, y, train, test,
            dataset=dataset, repeat=r, fold=f, preprocessing=preprocessing,
            grid=grid, random_state=seed, with_roc=(r == 0 and f == 0),
            curve_points=curve_points if (r == 0 and f == 0) else 0, max_fpr=max_fpr,
            **({} if a in BASELINES else {"params": trained_for(a, max_fpr)}),
        )
        for a in algorithms
        for r, f, train, test in splits
    ]
    runner = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    bar = tqdm(runner(tasks), total=len(tasks), desc=f"{dataset}: fits", unit="fit",
               disable=None if progress is None else not progress, leave=False,
               file=sys.stderr, dynamic_ncols=True)
    results, caught = [], []
    for result, warned in bar:
        results.append(result)
        caught += warned
    reissue(caught)
    order = {a: k for k, a in enumerate(algorithms)}
    results.sort(key=lambda r: (order[r.algorithm], r.repeat, r.fold))
    summary = sort_by_auc(summarise(results, algorithms))
    if max_fpr is not None:  # ranked by the partial AUC, best first
        summary.sort(key=lambda row: -np.nan_to_num(row["pauc_mean"], nan=-np.inf))
    write_csv(results, out / "results.csv")
    described = describe_run(X, y, dataset, folds=folds, repeats=repeats, seed=seed, grid=grid,
                             preprocessing=preprocessing, max_fpr=max_fpr)
    write_atomic(out / "results.md", markdown_table(summary, dataset, described, max_fpr))
    written = [out / "results.csv", out / "results.md"]
    figures = write_plots(results, out, dataset, ranked=[r["algorithm"] for r in summary],
                          by=ranked_by(max_fpr))
    written += figures
    from ._html import write_html_report

    written.append(write_html_report(
        out / "report.html", title=run_title(dataset, max_fpr), description=described,
        summary=summary, figures=figures, command=command, files=written, max_fpr=max_fpr))
    return results, summary, written, described


def compile_once(algorithms, X, y, train, preprocessing, seed) -> None:
    """Compile the kernels of ``algorithms`` in this process before the workers start.

    numba caches compiled kernels on disk: compiled here once, the parallel workers load
    them instead of each compiling the same kernels again (on a fresh install that halves
    the CPU time of ``aucopt demo`` with two workers). Warm-up fits on a few scaled rows,
    with ``partial_fit`` too for the streaming ids (the convergence curves use it).
    """
    import warnings

    from sklearn.base import clone

    from .._api import make
    from ..datasets import make_preprocessor
    from ..model_selection._evaluate import warm_up

    X_train = make_preprocessor(preprocessing).fit_transform(X[train])
    y_train = np.asarray(y)[train]
    rows = np.concatenate([np.flatnonzero(y_train == c)[:20] for c in np.unique(y_train)])
    for a in algorithms:
        if a in BASELINES:
            continue
        est = make(a, random_state=seed)
        warm_up(est, X_train, y_train)
        if hasattr(est, "partial_fit"):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    clone(est).partial_fit(X_train[rows], y_train[rows],
                                           classes=np.unique(y_train))
            except (ValueError, ArithmeticError, RuntimeError):
                logger.debug("partial_fit warm-up of %s failed; its workers compile", a)


def sort_by_auc(summary) -> list[dict]:
    """The summary rows sorted by mean AUC, best first (failed runs, NaN, last)."""
    return sorted(summary, key=lambda r: (not np.isfinite(r["auc_mean"]), -r["auc_mean"]
                                          if np.isfinite(r["auc_mean"]) else 0.0))


def baseline_fold(name, X, y, train, test, *, dataset="data", repeat=0, fold=0,
                  preprocessing="minmax", grid="quick", random_state=0, with_roc=False,
                  curve_points=0, inner_folds=3, max_fpr=None):
    """One outer fold of a :data:`BASELINES` model, under the protocol of ``evaluate_fold``.

    Scaled as the registry ids are, ``C`` tuned by inner stratified CV on the training
    part (``grid="none"``: ``C=1``), refitted and timed; it has no convergence curve. With
    ``max_fpr``, ``C`` is chosen by the partial AUC over FPR in [0, max_fpr] and recorded.
    """
    import time

    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from ..datasets import make_preprocessor
    from ..metrics import partial_roc_auc_score, pauc_scorer, roc_auc_score, roc_curve
    from ..model_selection import FoldResult, check_inner_folds

    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; baselines: {', '.join(BASELINES)}")
    scaler = make_preprocessor(preprocessing)
    X_train, X_test = scaler.fit_transform(X[train]), scaler.transform(X[test])
    y_train, y_test = y[train], y[test]
    model = LogisticRegression(max_iter=1000)
    params = {"C": 1.0}
    if grid != "none":
        check_inner_folds(y_train, inner_folds)  # (else every C scores NaN, the first wins)
        cv = StratifiedKFold(inner_folds, shuffle=True, random_state=random_state)
        search = GridSearchCV(model, {k: list(v) for k, v in _LOGREG_GRID.items()},
                              scoring="roc_auc" if max_fpr is None else pauc_scorer(max_fpr),
                              cv=cv, refit=False).fit(X_train, y_train)
        params = dict(search.best_params_)
    model.set_params(**params)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    scores = model.decision_function(X_test)
    result = FoldResult(dataset, name, repeat, fold, roc_auc_score(y_test, scores), seconds,
                        params)
    if max_fpr is not None:
        result.pauc = partial_roc_auc_score(y_test, scores, max_fpr=max_fpr)
    if with_roc:
        fpr, tpr, _ = roc_curve(y_test, scores)
        result.roc = (fpr, tpr)
    return result


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
            "auc_std": float(np.std(aucs, ddof=1)),  # (at least two folds: the sample std)
            "fit_seconds": float(np.mean([r.fit_seconds for r in mine])),
            "params": dict(chosen[0][0]) if chosen else {},
        })
        paucs = [r.pauc for r in mine if r.pauc is not None]
        if paucs:
            rows[-1].update(pauc_mean=float(np.mean(paucs)), pauc_std=float(np.std(paucs, ddof=1)))
    return rows


def write_csv(results, path: Path) -> None:
    """Write tidy rows, one per (algorithm, repeat, fold)."""
    rows = [r.row() for r in results]
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with replaced_on_success(path) as tmp, tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items())


_GRIDS = {"quick": "each algorithm's quick grid (at most 9 points) tuned by inner 3-fold CV",
          "paper": "each algorithm's paper grid tuned by inner 3-fold CV",
          "none": "the estimators' default hyperparameters, no tuning"}


def trained_for(algorithm: str, max_fpr) -> dict:
    """Return the fixed parameters of ``algorithm`` in a comparison ranked by the partial AUC
    over FPR in [0, max_fpr]: a learner with a ``max_fpr`` parameter is trained for that
    bound (``{}``: its own defaults, as in a comparison by AUC)."""
    from .._api import algorithm_info

    if max_fpr is None:
        return {}
    names = {p["name"] for p in algorithm_info(algorithm)["params"]}
    return {"max_fpr": max_fpr} if "max_fpr" in names else {}


def run_title(dataset, max_fpr=None) -> str:
    """Return the title of a comparison's reports: what it ranks by, on which data."""
    return (f"AUC on {dataset}" if max_fpr is None else
            f"Partial AUC (FPR <= {max_fpr:.15g}, McClish) on {dataset}")


def describe_run(X, y, dataset, *, folds, repeats, seed, grid, preprocessing,
                 max_fpr=None) -> str:
    """Return one paragraph saying what a comparison ran: data, protocol, tuning, timing
    (with ``max_fpr``: selected and ranked by the partial AUC over FPR in [0, max_fpr])."""
    import datetime

    from .. import __version__

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    positives = int(np.sum(np.asarray(y) == np.unique(y)[-1]))  # the estimators' positive class
    kind = "CSR" if hasattr(X, "tocsr") else "dense"
    return (
        f"{dataset}: {X.shape[0]} samples x {X.shape[1]} features ({kind}), {positives} "
        f"positives. {repeats} x {folds}-fold stratified CV (seed {seed}); features scaled "
        f"with '{preprocessing}' fitted on each training part; "
        f"{_GRIDS.get(grid, f'grid {grid!r}')}"
        f"{'' if max_fpr is None or grid == 'none' else f' (selected by {ranked_by(max_fpr)})'}"
        ", then refitted on the training part"
        f"{'' if max_fpr is None else f'; learners with a max_fpr trained for {max_fpr:.15g}'}"
        ". AUC"
        f"{'' if max_fpr is None else f' and partial AUC over FPR <= {max_fpr:.15g}'} on "
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
    head = "" if max_fpr is None else f"{ranked_by(max_fpr)} mean | {ranked_by(max_fpr)} std | "
    lines = [
        f"# {run_title(dataset, max_fpr)}",
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


def write_plots(results, out: Path, dataset: str = "data", ranked=None,
                by: str = "AUC") -> list[Path]:
    """Write roc.png and convergence.png; return the files written (a figure of an earlier
    run into ``out`` that this one does not draw is removed).

    Without matplotlib nothing is drawn: a warning says so and the list is empty.
    ``roc.png`` has two panels, the whole curve and the low false-positive region
    (FPR <= 0.2); both figures colour the first few algorithms of ``ranked`` (default:
    the order of ``results``), each in the same colour in both, and draw the rest grey.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        logger.warning("matplotlib is not installed: no figures (pip install 'aucopt[plot]').")
        return []
    from ..plotting import new_figure, plot_convergence, plot_roc, save_figure, series_styles

    rocs = {r.algorithm: r.roc for r in results if r.roc is not None}
    curves = {r.algorithm: r.curve for r in results if r.curve is not None}
    styles = series_styles(list(dict.fromkeys(ranked or [r.algorithm for r in results])))
    written = []
    if rocs:
        fig, axes = new_figure(1, 2, panel=(4.0, 4.0), legend_width=2.6)
        plot_roc(rocs, ax=axes[0, 0], title="ROC, whole curve", legend=False, styles=styles)
        plot_roc(rocs, ax=axes[0, 1], title="low false-positive region", fpr_max=0.2,
                 styles=styles)
        fig.suptitle(f"ROC on {dataset}: test part of fold 1 (colours: best CV {by} first)")
        written.append(save_figure(fig, out / "roc.png"))
    if curves:
        fig, axes = new_figure(1, 1, panel=(6.0, 4.0), legend_width=2.6)
        ax = axes[0, 0]
        plot_convergence(curves, ax=ax, xlabel="training samples seen (rows, log scale)",
                         ylabel="test AUC", styles=styles,
                         title=f"Test AUC during training on {dataset} (fold 1)")
        ax.set_xscale("log")
        written.append(save_figure(fig, out / "convergence.png"))
    for name in ("roc.png", "convergence.png"):  # (not this run's: it would be shown as such)
        if out / name not in written:
            (out / name).unlink(missing_ok=True)
    return written
