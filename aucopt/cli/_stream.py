"""``aucopt stream``: prequential (test-then-train) evaluation with exact AUC over time."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import typer

from ..utils._atomic import replaced_on_success
from ._app import app, friendly_errors, split_list
from ._commands import _parse_params

BASELINES = {
    "logreg": ("LogisticRegression", "linear_model.LogisticRegression"),
    "alma": ("ALMAClassifier", "linear_model.ALMAClassifier"),
    "pa": ("PAClassifier", "linear_model.PAClassifier"),
}


def _libsvm_rows(path: Path, zero_based=None):
    """Yield ``({column: value}, label > 0)`` from a LIBSVM file, one row at a time
    (``zero_based`` None: the base its first 1,000 data lines show).

    The labels must be -1/+1 or 0/1: with any other pair (e.g. 1/2) ``label > 0``
    would make every row positive, so they raise ``ValueError``.
    """
    import numpy as np

    from ..datasets import iter_svmlight

    start = 0  # the data rows before the chunk
    base = "auto" if zero_based is None else zero_based
    chunks = iter_svmlight(path, chunk_size=1000, zero_based=base)
    while True:
        try:
            X, y = next(chunks)
        except StopIteration:
            return
        except ValueError as exc:
            if "zero_based=True" not in str(exc):
                raise
            raise ValueError(f"{exc} (here: aucopt stream --zero-based)") from None
        odd = np.setdiff1d(y, (-1.0, 0.0, 1.0))
        if odd.size:
            raise ValueError(f"{path.name}: aucopt stream reads labels -1/+1 or 0/1 (label > 0 "
                             f"is positive); got {odd[:3].tolist()}. Relabel the file first "
                             "(the positive class to 1, the other to 0 or -1).")
        bad = np.flatnonzero(~np.isfinite(X.data))  # (a scaler in front would hide them)
        if bad.size:
            row = start + int(np.searchsorted(X.indptr, bad[0], side="right"))
            raise ValueError(f"{path.name}: data row {row} (counted from 1) holds "
                             f"{X.data[bad[0]]}; impute or drop the missing and infinite "
                             "values first.")
        start += X.shape[0]
        yield from _dict_rows(X, y)


def _dict_rows(X, y):
    """Yield ``({column: value}, label > 0)`` for every row of the CSR matrix ``X``."""
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        yield dict(zip(X.indices[lo:hi].tolist(), X.data[lo:hi].tolist())), y[i] > 0


def _registered(data: str):
    """The registry record that ``data`` names as :func:`aucopt.datasets.dataset_info` reads
    it (aliases, any letter case), or None; River's exact names stay River's (``Higgs`` is
    River's dataset, ``higgs`` and ``HIGGS`` the registry's)."""
    from ..datasets import dataset_info

    try:
        info = dataset_info(data)
    except ValueError:
        return None
    return None if info.name != data and _river_class(data) is not None else info


def _river_class(name: str):
    """River's dataset class called exactly ``name``, or None."""
    from river import datasets

    cls = getattr(datasets, name, None)
    return cls if isinstance(cls, type) else None


def _registered_rows(info):
    """Return ``(stream, n_samples)`` of a registered two-class dataset; refuse multi-class
    data, whose class labels ``fetch`` returns as they are."""
    import numpy as np
    import scipy.sparse as sp

    from ..datasets import fetch

    multi = info.binarize is not None
    if not multi:
        X, y = fetch(info.name)
        multi = np.setdiff1d(y, (-1, 1)).size > 0
    if multi:  # (checked before the fetch when the record says so: no download for nothing)
        scheme = info.binarize or "random-half"
        raise ValueError(
            f"{info.name} is a multi-class dataset ({info.positive_class}) and aucopt stream "
            "needs two classes: write a binarised copy and stream that file, e.g. python -c "
            f"\"from aucopt.datasets import fetch, binarize; from sklearn.datasets import "
            f"dump_svmlight_file; X, y = fetch('{info.name}'); dump_svmlight_file(X, "
            f"binarize(y, '{scheme}', random_state=0), '{info.name}-binary.svm')\" && aucopt "
            f"stream {info.name}-binary.svm.")
    X = sp.csr_matrix(X)
    return _dict_rows(X, y), X.shape[0]


def _river_rows(name: str):
    """Return ``(stream, n_samples)`` of the River dataset ``name`` (binary labels)."""
    from river import datasets

    cls = _river_class(name)
    if cls is None:
        known = sorted(n for n in dir(datasets) if n[:1].isupper())
        raise ValueError(f"{name!r} is neither a file nor a River dataset, nor a registered "
                         f"dataset ('aucopt datasets list'); River's datasets are {known}.")
    dataset = cls()

    def rows():
        from ..river._labels import is_positive

        for x, y in dataset:
            try:  # (True/False, and 1/0 or 1/-1 as some of River's binary datasets give)
                positive = is_positive(y)
            except ValueError:
                raise ValueError(f"River dataset {name!r} is not binary (label {y!r}); "
                                 "aucopt stream needs True/False (or 1/0) labels.") from None
            yield x, positive

    return rows(), getattr(dataset, "n_samples", None)


def _outputs(out: Path) -> tuple[Path, Path]:
    """Return ``(PREFIX.csv, PREFIX.png)`` of ``--out PREFIX``, the suffixes added to the whole
    prefix (``out.with_suffix`` would cut ``run.lr0.1`` to ``run.lr0``); a prefix ending in
    ``.csv`` or ``.png`` stands for the prefix without it. Refuse a prefix whose folder cannot
    be made (a file in the way) before any data is read; the folder is made when writing."""
    if out.suffix.lower() in (".csv", ".png"):
        out = out.with_suffix("")
    if not out.name or out.name in (".", ".."):
        raise ValueError(f"--out {out} names a folder; give a file prefix inside it, e.g. "
                         f"--out {out / 'prequential'}.")
    folder = next((p for p in (out.parent, *out.parent.parents) if p.exists()), Path("."))
    if not folder.is_dir():
        raise NotADirectoryError(f"cannot write {out}.csv: {folder} is a file, not a folder; "
                                 "choose another --out.")
    return out.with_name(out.name + ".csv"), out.with_name(out.name + ".png")


SCALINGS = ("auto", "maxabs", "standard", "none")


def _scaler(scale: str, sparse: bool):
    """Return the River scaler of ``--scale`` (None: no scaling).

    ``auto`` is ``maxabs`` for sparse rows (LIBSVM files and registered datasets, often
    one-hot) and ``standard`` for River's datasets (dense dicts). River's
    ``StandardScaler`` sees a sparse feature only in the rows that hold it, where a
    one-hot feature is always 1: its mean is 1 and its variance 0, so every scaled
    value is 0 and every learner scores every row the same. ``MaxAbsScaler`` divides
    by the largest absolute value seen, which keeps one-hot features at 1.
    """
    from river import preprocessing

    if scale not in SCALINGS:
        raise ValueError(f"--scale must be one of {SCALINGS}; got {scale!r}.")
    if scale == "auto":
        scale = "maxabs" if sparse else "standard"
    return {"maxabs": preprocessing.MaxAbsScaler, "standard": preprocessing.StandardScaler,
            "none": None}[scale]


def _learners(algorithms, baselines, n_features, scaler):
    """Name -> River classifier for each ``id[:param=value...]`` and each baseline, each
    behind a fresh ``scaler()`` unless it is None."""
    import importlib

    from ..river import AUCClassifier
    from ..river._classifier import FixedWidthError

    learners = {}
    if len(set(algorithms)) < len(algorithms):  # (a dict of them kept one: as compare)
        raise ValueError(f"An algorithm is named twice: {', '.join(algorithms)}.")
    for item in algorithms:
        algorithm, *pairs = item.split(":")
        params = _parse_params(pairs, algorithm)
        try:
            learners[item] = AUCClassifier(algorithm, n_features=n_features, seed=0, **params)
        except FixedWidthError as exc:  # a growing vocabulary: name the command's flag
            raise ValueError(
                f"{algorithm!r} cannot widen its state as new feature names arrive "
                f"({exc.reason}); pass --n-features N (e.g. --n-features 262144) to hash the "
                "features into N columns.") from None
    for key in baselines:
        if key not in BASELINES:
            raise ValueError(f"unknown baseline {key!r}; choose from {sorted(BASELINES)}.")
        name, path = BASELINES[key]
        module, _, cls = path.rpartition(".")
        learners[f"River {name}"] = getattr(importlib.import_module(f"river.{module}"), cls)()
    if scaler is not None:
        learners = {k: scaler() | m for k, m in learners.items()}
    return learners


def write_csv(records, path: Path) -> None:
    """Write the prequential records (one row per learner and point)."""
    with replaced_on_success(path) as tmp, open(tmp, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["n", "learner", "cumulative_auc", "window_auc"],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)


def plot_records(records, path: Path, window: int, title: str) -> None:
    """Plot the cumulative and windowed AUC of every learner against the samples seen."""
    from ..plotting import legend_outside, new_figure, save_figure, series_styles

    fig, axes = new_figure(1, 2, panel=(5.0, 4.0), legend_width=2.0, sharey=True)
    axes = axes[0]
    styles = series_styles(list(dict.fromkeys(r["learner"] for r in records)))
    for name, style in styles.items():
        mine = [r for r in records if r["learner"] == name]
        n = [r["n"] for r in mine]
        axes[0].plot(n, [r["cumulative_auc"] for r in mine], **style)
        axes[1].plot(n, [r["window_auc"] for r in mine], **style)
    axes[0].set_title("cumulative AUC")
    axes[1].set_title(f"AUC of the last {window:,} samples")
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    for ax in axes:
        ax.set_xlabel("samples seen")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))  # labels that fit
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("exact ROC AUC (test-then-train)")
    legend_outside(axes[1])
    fig.suptitle(title)
    save_figure(fig, path)


def summary(records) -> list[tuple[str, float, float]]:
    """``(learner, final cumulative AUC, mean windowed AUC)`` for each learner."""
    out = []
    for name in dict.fromkeys(r["learner"] for r in records):
        mine = [r for r in records if r["learner"] == name]
        windows = [r["window_auc"] for r in mine if not math.isnan(r["window_auc"])]
        out.append((name, mine[-1]["cumulative_auc"],
                    sum(windows) / len(windows) if windows else math.nan))
    return out


@app.command("stream")
@friendly_errors
def stream(
    data: str = typer.Argument(..., help="LIBSVM file (labels -1/+1 or 0/1), a registered "
                               "two-class dataset ('aucopt datasets list', e.g. a9a; aliases "
                               "and any letter case, as every command) or a binary River "
                               "dataset, e.g. Phishing (River's exact names first: Higgs is "
                               "River's, HIGGS the registry's)."),
    algorithms: str = typer.Option("spam-l2", "--algorithms", "-a", help="Comma-separated "
                                   "streaming ids, each optionally with :param=value, e.g. "
                                   "spam-l2:stats=online,ftrl-auc."),
    baselines: str = typer.Option("logreg,alma", help="River baselines run alongside "
                                  f"({', '.join(BASELINES)}); empty for none."),
    window: int = typer.Option(1000, min=1, help="Samples of the windowed AUC."),
    every: int = typer.Option(None, min=1, help="Samples between records "
                              "(default: window / 10)."),
    n_features: int = typer.Option(None, min=1, help="Hash features into this many columns "
                                   "(default: a growing vocabulary)."),
    scale: str = typer.Option("auto", help="Scaler before every learner: auto (maxabs for "
                              "LIBSVM files and registered datasets, whose rows are sparse, "
                              "standard for River's datasets), maxabs, standard (River's "
                              "StandardScaler: it maps sparse one-hot features to 0) or none."),
    no_scale: bool = typer.Option(False, "--no-scale", help="Same as --scale none."),
    limit: int = typer.Option(None, min=1, help="Stop after this many samples."),
    out: Path = typer.Option(Path("prequential"), help="Output prefix: writes PREFIX.csv "
                             "and PREFIX.png, the suffixes added to the whole prefix "
                             "(run.lr0.1 -> run.lr0.1.csv); a prefix ending in .csv or .png "
                             "is taken without it (run.csv -> run.csv and run.png)."),
    progress: bool = typer.Option(True, help="Show a progress bar."),
    zero_based: bool = typer.Option(
        None, "--zero-based/--one-based", help="Index base of a LIBSVM file (default: "
        "zero-based if its first 1,000 data lines hold an index 0)."),
):
    """Test-then-train on a stream: the exact AUC of each learner over time (CSV + plot)."""
    from itertools import islice

    from ..river import prequential
    from ._data import refuse_missing

    if no_scale and scale not in ("auto", "none"):  # (one of them is not what was asked)
        raise typer.BadParameter(f"--no-scale and --scale {scale} contradict each other; "
                                 "give one of them.")
    path = Path(data)
    info = None if path.is_file() else _registered(data)
    refuse_missing(data, {data} if info else set())
    csv_path, png_path = _outputs(out)  # (checked before the stream is read)
    sparse = True
    if path.is_file():
        rows, total, title = _libsvm_rows(path, zero_based), None, path.name
    elif info is not None:
        (rows, total), title = _registered_rows(info), info.name
    else:
        (rows, total), title, sparse = _river_rows(data), data, False
    scaler = _scaler("none" if no_scale else scale, sparse)
    if limit is not None:
        rows, total = islice(rows, limit), min(limit, total or limit)
    learners = _learners(split_list(algorithms) or [], split_list(baselines) or [],
                         n_features, scaler)
    records = prequential(rows, learners, window=window, every=every or max(window // 10, 1),
                          progress=progress, total=total)
    if not records:
        raise ValueError(f"{data} holds no samples.")
    if all(math.isnan(r["cumulative_auc"]) for r in records if r["n"] == records[-1]["n"]):
        raise ValueError(f"{data} holds one class only in its {records[-1]['n']:,} samples: "
                         "AUC ranks positives above negatives and needs both (a stream "
                         "sorted by label? shuffle it, or take more with --limit).")
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    write_csv(records, csv_path)
    plot_records(records, png_path, window, f"{title}: prequential exact AUC")
    typer.echo(f"{records[-1]['n']:,} samples of {title}; wrote {csv_path} and {png_path}")
    typer.echo(f"{'learner':<40} {'final cumulative AUC':>21} {'mean windowed AUC':>18}")
    constant = {r["learner"] for r in records if r["n"] == records[-1]["n"] and r["constant"]}
    for name, final, mean in summary(records):
        if name in constant:
            typer.echo(f"{name:<40} {'constant scores':>21} {'':>18}")
        else:
            typer.echo(f"{name:<40} {final:>21.4f} {mean:>18.4f}")
    if constant:
        typer.echo(
            f"warning: {', '.join(sorted(constant))} scored every sample the same, so its AUC "
            "(0.5) says nothing. Check the scaling (--scale maxabs or --scale none for sparse "
            "one-hot rows: a standard scaler maps them to 0) and the hyperparameters.",
            err=True)
        raise typer.Exit(code=1)
