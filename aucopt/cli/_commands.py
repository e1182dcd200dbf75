"""The commands: demo, algorithms, datasets, fit, evaluate, compare."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path

import typer

from ..utils._seeds import MAX_SEED
from ._app import (
    VERBOSITY,
    app,
    check_jobs_and_scheme,
    datasets_app,
    friendly_errors,
    split_list,
)

DEFAULT_OUT = Path("aucopt-results")
STREAM_SHUFFLE_BUFFER = 50_000  # lines held by fit --stream's shuffle buffer by default

_LABEL_COLUMN_HELP = ("CSV files: the label column, a header name or a 0-based index "
                      "(negative counts from the end; default: the last column). Labels may "
                      "be numbers, strings or booleans; two distinct values, the larger "
                      "(sorted) one positive, as the Python estimators map them.")
_ZERO_BASED_HELP = ("Index base of a LIBSVM file (default: zero-based if it holds an index "
                    "0). Saved with the model: evaluate reads test files with the same base.")
_PREPROCESS_HELP = ("minmax | standard | robust | l2-rows | center-l2-rows | minmax-l2-rows | "
                    "none (see aucopt.datasets.make_preprocessor for which suits your data)")


#: The demo's default selection: the recommended id of each family of the decision table
#: (docs/user_guide/choosing.md), the exact least-squares optimum as the reference, and
#: scikit-learn's logistic regression as a plain baseline. ``--all`` runs every id.
DEMO_ALGORITHMS = ("spam-l2", "solam", "fsauc", "ftrl-auc", "uni-squ", "opauc", "oam-gra",
                   "vrspam-l2", "b-ls-svm", "logreg")


@app.command()
@friendly_errors
def demo(
    out: Path = typer.Option(DEFAULT_OUT, help="Directory for report.html, results.csv/.md "
                             "and the figures."),
    folds: int = typer.Option(5, min=2, help="Outer stratified folds."),
    n_jobs: int = typer.Option(2, help="Parallel workers (joblib)."),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="Seed of the splits and the "
                             "estimators."),
    algorithms: str = typer.Option(None, help="Comma-separated ids (default: one recommended "
                                   "id per family, b-ls-svm and logreg; see --all)."),
    all_: bool = typer.Option(False, "--all", help="Every registered id (and logreg): "
                              "several times longer."),
    progress: bool = typer.Option(None, "--progress/--no-progress",
                                  help="Progress bar on stderr (default: on a terminal)."),
):
    """Representative algorithms on bundled german.numer: CV AUC table, figures, report.html.

    By default one recommended algorithm of each family, the exact least-squares optimum
    (b-ls-svm) as the reference and scikit-learn's logistic regression (logreg) as a
    baseline; --all runs every registered id.
    """
    from .._api import list_algorithms
    from ..datasets import load
    from ._compare import run_comparison, text_table

    if all_ and algorithms:
        raise typer.BadParameter("give --algorithms or --all, not both")
    ids = split_list(algorithms) if algorithms is not None else (
        [*list_algorithms(), "logreg"] if all_ else list(DEMO_ALGORITHMS))
    X, y = load("german.numer")
    typer.echo(f"german.numer: {X.shape[0]} samples x {X.shape[1]} features, "
               f"{int((y > 0).sum())} positives; {len(ids)} algorithms, {folds}-fold CV, "
               "minmax scaling, quick grid tuned by inner 3-fold CV")
    command = shlex.join(["aucopt", "demo", "--out", str(out), "--folds", str(folds), "--seed",
                          str(seed), *(["--all"] if all_ else []),
                          *(["--algorithms", ",".join(ids)] if algorithms else [])])
    start = time.perf_counter()
    _, summary, written, _ = run_comparison(
        X, y, dataset="german.numer", algorithms=ids, folds=folds, seed=seed, n_jobs=n_jobs,
        out=out, progress=progress, command=command)
    typer.echo(text_table(summary))
    _echo_written(written, time.perf_counter() - start)


def _echo_written(written, seconds=None) -> None:
    """Name the files a comparison wrote (only those), the HTML report last."""
    took = f"{seconds:.1f} s; " if seconds is not None else ""
    others = ", ".join(p.name for p in written if p.suffix != ".html")
    typer.echo(f"{took}wrote {others} in {written[0].parent}/")
    for p in written:
        if p.suffix == ".html":
            typer.echo(f"report: {p}")


@app.command()
@friendly_errors
def compare(
    data: str = typer.Argument(..., help="Dataset name or LIBSVM/CSV path."),
    algorithms: str = typer.Option(..., help="Comma-separated registry ids (and 'logreg', "
                                   "scikit-learn's logistic regression)."),
    folds: int = typer.Option(5, min=2),
    repeats: int = typer.Option(1, min=1),
    n_jobs: int = typer.Option(2),
    seed: int = typer.Option(0, min=0, max=MAX_SEED),
    grid: str = typer.Option("quick", help="quick | paper | none"),
    preprocess: str = typer.Option("minmax", help=_PREPROCESS_HELP),
    out: Path = typer.Option(DEFAULT_OUT),
    label_column: str = typer.Option(None, help=_LABEL_COLUMN_HELP),
    progress: bool = typer.Option(None, "--progress/--no-progress",
                                  help="Progress bar on stderr (default: on a terminal)."),
    metric: str = typer.Option("auc", help="auc | pauc: select and rank by the (partial) AUC."),
    max_fpr: float = typer.Option(None, help="FPR bound of --metric pauc: 0 < x <= 1, "
                                  "0.1 if not given."),
):
    """Compare algorithms on one dataset with repeated stratified k-fold CV (writes report.html)."""
    from ._compare import run_comparison, text_table
    from ._data import load_data

    if metric not in ("auc", "pauc"):
        raise typer.BadParameter(f"--metric must be auc or pauc, got {metric!r}.")
    if max_fpr is not None and metric != "pauc":
        raise typer.BadParameter("--max-fpr bounds the partial AUC: give --metric pauc too.")
    max_fpr = 0.1 if max_fpr is None else max_fpr
    if not 0.0 < max_fpr <= 1.0:
        raise typer.BadParameter(f"--max-fpr must be in (0, 1], got {max_fpr:g}.")
    check_jobs_and_scheme(n_jobs, preprocess)
    X, y, name, _, _ = load_data(data, label_column=label_column)
    command = shlex.join([
        "aucopt", "compare", data, "--algorithms", algorithms, "--folds", str(folds),
        "--repeats", str(repeats), "--seed", str(seed), "--grid", grid, "--preprocess",
        preprocess, "--out", str(out),
        *(["--label-column", label_column] if label_column else []),
        *(["--metric", "pauc", "--max-fpr", repr(max_fpr)] if metric == "pauc" else [])])
    _, summary, written, described = run_comparison(
        X, y, dataset=name, algorithms=split_list(algorithms), folds=folds, repeats=repeats,
        seed=seed, n_jobs=n_jobs, grid=grid, preprocessing=preprocess, out=out,
        progress=progress, command=command, max_fpr=max_fpr if metric == "pauc" else None)
    typer.echo(described)  # (the files' own, with their timestamp)
    typer.echo(text_table(summary))
    _echo_written(written)


@app.command()
@friendly_errors
def warmup(
    algorithms: str = typer.Argument(None, help="Comma-separated ids (default: all)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Processes compiling at once."),
):
    """Compile every kernel into numba's on-disk cache, so that later first fits only load it."""
    from .._warmup import kernel_cache_dir
    from .._warmup import warmup as warm
    from ._tables import cached_tables

    ids = split_list(algorithms)
    if algorithms is not None and ids is None:  # "" names none (every id: no argument)
        ids = []
    start = time.perf_counter()
    seconds = warm(ids, jobs=jobs)
    cached_tables()  # and `aucopt algorithms`' tables
    slowest = max(seconds, key=seconds.get)
    typer.echo(f"{len(seconds)} algorithms ready in {time.perf_counter() - start:.1f} s "
               f"(slowest {slowest}: {seconds[slowest]:.1f} s); kernel cache: "
               f"{kernel_cache_dir()}")


@app.command("algorithms")
@friendly_errors
def algorithms_(
    algorithm: str = typer.Argument(None, help="An id: show its hyperparameters."),
    markdown: bool = typer.Option(False, "--markdown", help="Markdown table."),
):
    """List the registered algorithms, or the hyperparameters of one (for --param)."""
    from ._tables import cached_tables, hyperparameters_text

    tables = cached_tables()  # (no registry import while the sources are unchanged)
    if algorithm:  # an unknown id: the registry's error, with close matches
        typer.echo(tables["params"].get(algorithm) or hyperparameters_text(algorithm))
    else:
        typer.echo(tables["markdown"] if markdown else tables["text"])


@datasets_app.command("list")
@friendly_errors
def datasets_list():
    """List the dataset registry."""
    from ..datasets import list_datasets

    rows = (f"{info.name:<16} {info.n_samples:>9} x {info.n_features:<9} "
            f"{'bundled' if info.bundled else 'fetch':<8} {', '.join(info.papers)}"
            for info in list_datasets())
    typer.echo("\n".join(rows))  # one write, as `aucopt algorithms`: `| head` reads it whole


@datasets_app.command("info")
@friendly_errors
def datasets_info(name: str):
    """Show one dataset's registry record."""
    from dataclasses import asdict

    from ..datasets import dataset_info

    for key, value in asdict(dataset_info(name)).items():
        typer.echo(f"{key}: {value}")


@datasets_app.command("fetch")
@friendly_errors
def datasets_fetch(name: str):
    """Download (or copy from AUCOPT_DATA_MIRROR) and verify a dataset into the cache."""
    import numpy as np

    from ..datasets import dataset_info, fetch, get_data_home

    info = dataset_info(name)
    X, y = fetch(info.name)
    classes = np.unique(y)
    if info.binarize is not None or classes.size > 2:  # fetch keeps the class labels
        labels = (f"{classes.size} classes (multi-class: aucopt.datasets.binarize(y, "
                  f"{info.binarize or 'random-half'!r}) makes two)")
    else:
        labels = f"{int((y == 1).sum())} positives ({info.positive_class})"
    where = ("bundled with aucopt" if info.bundled  # (load: no cache is made or read)
             else f"cached in {get_data_home()}")
    typer.echo(f"{info.name}: {X.shape[0]} x {X.shape[1]}, {labels}, {where}")


def _parse_params(pairs: list[str], algorithm: str | None = None) -> dict:
    """Parse ``key=value`` pairs (JSON values, Python's ``True``, ``False``, ``None`` and
    number spellings too, else strings); check the names if an id is given.

    The names are checked against the algorithm's declared hyperparameters, so that a
    typo is reported with the list of names (``aucopt algorithms ID`` describes them).
    """
    from ..algorithms import get_algorithm

    declared = [p.name for p in get_algorithm(algorithm).params] if algorithm else []
    params = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--param expects key=value, got {pair!r}")
        if declared and key not in declared:
            raise typer.BadParameter(
                f"{algorithm} has no hyperparameter {key!r}; its hyperparameters are "
                f"{', '.join(declared)} (see: aucopt algorithms {algorithm})."
            )
        try:
            params[key] = _PYTHON_WORDS[raw] if raw in _PYTHON_WORDS else json.loads(raw)
        except json.JSONDecodeError:
            params[key] = _as_number(raw)
    return params


def _as_number(raw: str):
    """``raw`` as Python reads a number (``05``, ``.5``, ``5.``, ``+0.5``, ``inf``: not JSON),
    else the string itself."""
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


# the Python spellings of JSON's true, false and null, as users write them after -p
_PYTHON_WORDS = {"True": True, "False": False, "None": None}


@app.command()
@friendly_errors
def fit(
    algorithm: str = typer.Argument(..., help="Registry id, or auto: aucopt.AUCClassifier "
                                    "picks one from the data (saved as the one it picked)."),
    data: str = typer.Argument(..., help="Dataset name or LIBSVM/CSV path."),
    param: list[str] = typer.Option(None, "--param", "-p", help="Hyperparameter key=value (a "
                                    "number, true/True, false/False, null/None or a string)."),
    out: str = typer.Option("model", help="Base path of the saved model (.json and .npz are "
                            "added; models/spam writes in the folder models)."),
    stream: bool = typer.Option(False, help="Read a LIBSVM file in chunks with partial_fit "
                                "(constant memory, one pass)."),
    chunk_size: int = typer.Option(10_000, min=1, help="Rows per chunk with --stream."),
    n_features: int = typer.Option(None, help="Feature count of the data (needed with --stream "
                                   "and --distributed: the model's width)."),
    classes: str = typer.Option("-1,1", help="The two labels of the file (--stream)."),
    shuffle_buffer: int = typer.Option(
        STREAM_SHUFFLE_BUFFER, min=0,
        help="With --stream: shuffle the rows through a buffer of this many lines (seeded by "
        "--seed, else 0; memory: that many raw lines), because one-pass learners follow the "
        "file's order and many files are sorted by label. 0 keeps the file's order."),
    seed: int = typer.Option(None, min=0, max=MAX_SEED, help="random_state of the estimator "
                             "(sample order, "
                             "random features; -p random_state=... takes precedence) and "
                             "seed of the --stream shuffle buffer."),
    distributed: bool = typer.Option(False, help="Train on a Dask cluster; DATA is a glob of "
                                     "LIBSVM parts ('parts/*.svm'); needs --n-features."),
    scheduler: str = typer.Option(None, help="Dask scheduler address (--distributed)."),
    workers: int = typer.Option(None, min=1, help="Local worker processes (--distributed)."),
    strategy: str = typer.Option("auto", help="statistics | sequential | average | svrg | auto "
                                 "(--distributed)."),
    rounds: int = typer.Option(None, min=1, help="Rounds of 'average'/'svrg' (--distributed)."),
    preprocess: str = typer.Option("none", help=_PREPROCESS_HELP + ". Per-feature affine "
                                   "schemes only (minmax, standard, robust) and linear models: "
                                   "the saved model takes the raw features. With 'none' on "
                                   "unscaled features, a warning names the fix."),
    label_column: str = typer.Option(None, help=_LABEL_COLUMN_HELP),
    zero_based: bool = typer.Option(None, "--zero-based/--one-based", help=_ZERO_BASED_HELP),
):
    """Fit one algorithm on a dataset and save the model (.json + .npz)."""
    from .._api import make, picked
    from ..io import save
    from ._fitting import fit_scaled, fit_stream, warn_unscaled

    if stream and preprocess != "none":
        raise typer.BadParameter("--preprocess needs the whole data set (its statistics); "
                                 "with --stream, scale the file beforehand.")
    auto = algorithm == "auto"
    if auto and distributed:
        raise typer.BadParameter("auto picks its learner from the whole data in one process; "
                                 "with --distributed, name a registry id (aucopt algorithms).")
    params = _parse_params(param, None if auto else algorithm)
    est = make(algorithm, **params)
    _apply_cli_options(est, seed, explicit=params)
    start, features = time.perf_counter(), None  # (features: a CSV header's names)
    if distributed:
        from ._distributed import fit_distributed

        zero_based = bool(zero_based)  # the parts are read one-based unless told
        est, summary = fit_distributed(est, data, n_features=n_features, scheduler=scheduler,
                                       workers=workers, strategy=strategy, rounds=rounds,
                                       verbose=VERBOSITY["level"], zero_based=zero_based)
        name = data
        seconds = time.perf_counter() - start
    elif stream:
        buffer_seed = 0 if seed is None else seed
        name, seen, zero_based = fit_stream(est, data, chunk_size, n_features, classes,
                                             shuffle_buffer, buffer_seed, zero_based)
        seconds = time.perf_counter() - start
        summary = f"streamed {seen} rows" + (
            f" through a shuffle buffer of {shuffle_buffer} lines (seed {buffer_seed})"
            if shuffle_buffer else " in file order")
    else:
        from ..model_selection._evaluate import warm_up
        from ._data import load_data

        X, y, name, zero_based, features = load_data(data, label_column=label_column,
                                                     zero_based=zero_based)
        if preprocess == "none" and not auto:  # auto: once it has picked (below)
            warn_unscaled(est, X, algorithm)
        warm_up(est, X, y)  # compile the kernels outside the reported time
        start = time.perf_counter()
        if preprocess == "none":
            est.fit(X, y)
        else:
            fit_scaled(est, X, y, preprocess)
        seconds = time.perf_counter() - start
        summary = f"training AUC {est.score(X, y):.4f}"
        if preprocess == "none" and auto:
            warn_unscaled(est.estimator_, X, est.algorithm_)
    if auto:
        algorithm = f"auto ({est.algorithm_})"
    if zero_based is not None:  # a LIBSVM file: evaluate reads test files with its base
        picked(est).libsvm_zero_based_ = zero_based
    if features is not None:  # a CSV header: evaluate matches its columns by these names
        import numpy as np

        picked(est).feature_names_in_ = np.asarray(features, dtype=object)  # (as pandas')
    json_path, _ = save(est, out)
    typer.echo(f"{algorithm} on {name}: fitted in {seconds:.3f} s, {summary}; saved {json_path}")


def _apply_cli_options(est, seed, *, explicit: dict) -> None:
    """Set ``random_state`` from ``--seed`` and ``verbose`` from ``-v`` unless given by ``-p``."""
    params = est.get_params(deep=False)
    if seed is not None and "random_state" in params and "random_state" not in explicit:
        est.set_params(random_state=seed)
    if VERBOSITY["level"] and "verbose" in params and "verbose" not in explicit:
        est.set_params(verbose=VERBOSITY["level"])


@app.command()
@friendly_errors
def evaluate(
    model: Path = typer.Argument(..., help="Saved model (base path, .json or .npz)."),
    data: str = typer.Argument(..., help="Dataset name, LIBSVM/CSV path, or a quoted glob of "
                               "LIBSVM parts ('parts/*.svm', read one part at a time)."),
    plot: Path = typer.Option(None, help="Write the ROC curve to this PNG."),
    label_column: str = typer.Option(None, help=_LABEL_COLUMN_HELP),
    zero_based: bool = typer.Option(
        None, "--zero-based/--one-based", help="Index base of LIBSVM files (default: the "
        "base the model's training file was read with by aucopt fit, else zero-based if "
        "the file, or one of the parts, holds an index 0)."),
):
    """Report the AUC of a saved model on a dataset."""
    from ..io import load
    from ..metrics import roc_auc_score
    from ._data import columns_by_name, load_data
    from ._distributed import evaluate_parts, is_glob

    est = load(model)
    if zero_based is None:
        zero_based = getattr(est, "libsvm_zero_based_", None)
    if is_glob(data) and not Path(data).exists():
        y, scores, n_parts = evaluate_parts(est, data, zero_based)
        name = f"{data} ({n_parts} part{'s' if n_parts != 1 else ''})"
    else:
        X, y, name, _, features = load_data(data, n_features=est.n_features_in_,
                                            label_column=label_column, zero_based=zero_based)
        X = columns_by_name(X, features, getattr(est, "feature_names_in_", None), name)
        scores = None
    _check_labels(y, est.classes_, name)
    if scores is None:
        import warnings

        with warnings.catch_warnings():  # (the columns are matched by name above)
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            scores = est.decision_function(X)
    auc = roc_auc_score(y == est.classes_[1], scores)
    typer.echo(f"AUC on {name}: {auc:.4f}")
    if plot is not None:
        from ..plotting import new_figure, plot_roc, save_figure

        fig, axes = new_figure(1, 1, panel=(4.5, 4.5), legend_width=2.4)
        plot_roc({est._algorithm: (y == est.classes_[1], scores)}, ax=axes[0, 0],
                 from_scores=True, title=f"ROC of {est._algorithm} on {name}")
        plot.parent.mkdir(parents=True, exist_ok=True)  # (as fit --out and stream --out)
        save_figure(fig, plot)
        typer.echo(f"ROC curve written to {plot}")


def _check_labels(y, classes, name) -> None:
    """Refuse labels that are not the model's two classes (the AUC would be meaningless)."""
    import numpy as np

    found = np.unique(y)
    unknown = np.setdiff1d(found, classes)
    if unknown.size:
        raise ValueError(
            f"{name} has labels {unknown.tolist()[:5]} that are not the model's classes "
            f"{classes.tolist()} (positive: {classes.tolist()[1]!r}); relabel the file to these "
            "classes first, or evaluate a model trained with the file's labels.")
    if found.size < 2:
        raise ValueError(f"{name} holds only the label {found.tolist()}: the AUC needs rows "
                         f"of both classes {classes.tolist()}.")
