"""One runner for every experiment config: parallel over cells, resumable, tidy rows.

A *cell* is one (dataset, algorithm, repeat, fold). Finished cells are appended,
one JSON line each, to ``OUT/cells.jsonl`` as soon as they finish, so an
interrupted run loses at most the cells in flight; a second run with the same
``OUT`` keeps the finished cells and skips them (cells that failed, or whose
algorithm or dataset was not available, are tried again). It may add datasets,
algorithms and repeats to the directory; a rerun with another protocol, another
text of the config or fewer repeats than the directory holds is refused
(:func:`~aucopt.experiments._rundir.check_resume`). At the end the runner
writes ``results.csv`` (tidy rows: ``dataset, algorithm, repeat, fold, auc,
fit_seconds``, the status and every chosen hyperparameter as ``param_<name>``),
``manifest.json`` (versions, seeds, git hash, machine, BLAS settings, data
sources and substitutions) and ``report.md``, each written atomically.

Smoke mode (``smoke=True``) never uses the network or a mirror: it runs at most
two datasets per config on 300 rows, the bundled german.numer where the config
lists it and a synthetic stand-in (``make_auc_problem`` of the dataset's
sparsity) for the others, with tiny grids (two points), one repeat, 2 folds
and a 2-fold inner search. Every substitution is logged, printed by the CLI and
recorded in the manifest, the rows (``data_source``) and the report.

Reduced protocols (``max_grid_points``, ``inner_folds``, ``repeats``, ``folds``)
trade fidelity for time when the paper's protocol does not fit a time budget:
``max_grid_points=N`` keeps at most N values of every grid parameter, evenly
spaced over the paper's list by position with both ends kept
(:func:`thin_grid`). The options are recorded in the manifest, so a reduced run is
never mistaken for a full one; ``max_grid_points``, ``inner_folds`` and ``folds`` are
part of the run's fingerprint, and ``repeats`` may only grow from one run into a
directory to the next (more repeats extend the run).
"""

from __future__ import annotations

import csv
import json
import logging
import re
import sys
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .._api import algorithm_info, list_algorithms
from ..datasets import dataset_info
from ..model_selection import evaluate_fold
from ..utils._atomic import replaced_on_success
from ._config import ExperimentConfig, load_config
from ._data import SMOKE_ROWS, data_record, load_data, outer_splits
from ._manifest import build_manifest, config_text, invocations, now
from ._rundir import MANIFEST, check_resume, fingerprint, read_cells, read_manifest, write_json
from ._values import fraction, plain

__all__ = ["RunOptions", "run_experiment", "run_cell", "thin_grid", "search_grid", "SMOKE_ROWS"]

logger = logging.getLogger(__name__)

SMOKE_DATASETS = 2
OK, ERROR = "ok", "error"
NOT_AVAILABLE, UNAVAILABLE = "algorithm-not-available", "dataset-unavailable"
CELLS, RESULTS, REPORT = "cells.jsonl", "results.csv", "report.md"
FIRST_COLUMNS = ["dataset", "algorithm", "repeat", "fold", "auc", "fit_seconds", "status",
                 "algorithm_id", "seed", "n_train", "n_test", "data_source", "preprocessing",
                 "binarize", "message", "warnings"]


@dataclass
class RunOptions:
    """What to run of a config.

    Attributes
    ----------
    smoke : bool
        Tiny offline run (see the module docstring).
    datasets, algorithms : list of str or None
        Restrict to these dataset names / algorithm keys (or registry ids).
    repeats, folds : int or None
        Override the protocol's repeats / outer folds.
    seed : int or None
        Override the protocol's base seed (splits and estimators).
    inner_folds : int or None
        Override the folds of the inner grid search (a reduced protocol).
    max_grid_points : int or None
        Reduced grid: keep at most this many values of every grid parameter
        (:func:`thin_grid`; both ends of the paper's range are kept). None: the
        config's (paper's) grid.
    n_jobs : int
        joblib workers over cells.
    progress : bool or None
        tqdm progress bar; None: only when stdout is a terminal.
    download : bool
        Allow :func:`aucopt.datasets.fetch` to use the network (the mirror and the
        cache are always used).
    """

    smoke: bool = False
    datasets: list | None = None
    algorithms: list | None = None
    repeats: int | None = None
    folds: int | None = None
    seed: int | None = None
    inner_folds: int | None = None
    max_grid_points: int | None = None
    n_jobs: int = 1
    progress: bool | None = None
    download: bool = True


# --------------------------------------------------------------------------- the protocol


def effective_protocol(config: ExperimentConfig, options: RunOptions):
    """The protocol after ``--smoke`` / ``--repeats`` / ``--folds`` / ``--inner-folds``."""
    p = config.protocol
    if options.smoke:
        p = replace(p, repeats=1, folds=2, inner_folds=2)
    if options.repeats is not None:
        p = replace(p, repeats=int(options.repeats))
    if options.folds is not None:
        p = replace(p, folds=int(options.folds))
    if options.seed is not None:
        p = replace(p, seed=int(options.seed))
    if options.inner_folds is not None:
        p = replace(p, inner_folds=int(options.inner_folds))
    if p.repeats < 1 or p.folds < 2 or p.inner_folds < 2:
        raise ValueError(f"need repeats >= 1, folds >= 2 and inner_folds >= 2, got "
                         f"{p.repeats}, {p.folds} and {p.inner_folds}.")
    return replace(p, max_fpr=fraction(p.max_fpr, f"{config.id}: [protocol] max_fpr"))


def thin_grid(grid: dict, max_points: int | None) -> dict:
    """A reduced grid: at most ``max_points`` values per parameter.

    The kept values are evenly spaced by position over the paper's list
    (``round(linspace(0, len - 1, max_points))``), so both ends of the range are
    kept and a power grid stays evenly spaced in log scale. Parameters with at
    most ``max_points`` values are unchanged.

    Parameters
    ----------
    grid : dict
        ``{param: [values]}``.
    max_points : int or None
        None returns ``grid`` unchanged.

    Returns
    -------
    dict
    """
    if max_points is None:
        return grid
    if int(max_points) < 1:
        raise ValueError(f"max_grid_points must be >= 1, got {max_points}.")
    out = {}
    for name, values in grid.items():
        values = list(values)
        if len(values) <= max_points:
            out[name] = values
        elif max_points == 1:
            out[name] = [values[len(values) // 2]]
        else:
            idx = sorted({int(round(i)) for i in np.linspace(0, len(values) - 1, max_points)})
            out[name] = [values[i] for i in idx]
    return out


def smoke_grid(grid: dict, defaults: dict | None = None) -> dict:
    """A two-point grid near the estimator's defaults (which are meant to be good).

    A parameter whose default is a number keeps the grid value closest to it
    (in log scale); one whose default is a string (e.g. ``eta="auto"``) keeps
    the default; others keep the middle value. The first parameter with a
    numeric default also keeps the next grid value, so the search is exercised.
    """
    defaults = defaults or {}
    out, widened = {}, False
    for name in sorted(grid):
        values = list(grid[name])
        default = defaults.get(name)
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                      for v in values + [default])
        if isinstance(default, str):
            out[name] = [default]
            continue
        if not numeric:
            out[name] = [values[len(values) // 2]]
            continue
        best = int(np.argmin([abs(np.log(v) - np.log(default)) for v in values]))
        if not widened and len(values) > 1:
            best = min(best, len(values) - 2)
            out[name], widened = values[best: best + 2], True
        else:
            out[name] = [values[best]]
    return out


def search_grid(grid: dict, algorithm_id: str, options: RunOptions) -> dict:
    """The grid searched: two points near the defaults (smoke) or the thinned paper grid."""
    if options.smoke:
        return smoke_grid(grid, algorithm_info(algorithm_id)["defaults"])
    return thin_grid(grid, options.max_grid_points)


def _select(config: ExperimentConfig, options: RunOptions):
    datasets = list(config.datasets)
    if options.datasets:
        known = {d.name: d.name for d in datasets} | {d.label: d.name for d in datasets}
        wanted = set()
        for name in options.datasets:
            if name not in known:
                try:
                    name = dataset_info(name).name
                except ValueError:
                    pass
            if name not in known:
                raise ValueError(f"{config.id} has no dataset {name!r}; it has "
                                 f"{', '.join(d.name for d in config.datasets)}.")
            wanted.add(known[name])
        datasets = [d for d in datasets if d.name in wanted]
    elif options.smoke:
        german = [d for d in datasets if d.name == "german.numer"]
        others = [d for d in datasets if d.name != "german.numer"]
        datasets = (german + others)[:SMOKE_DATASETS]
    algorithms = list(config.algorithms)
    if options.algorithms:
        keys = {a.key for a in algorithms} | {a.id for a in algorithms}
        bad = [a for a in options.algorithms if a not in keys]
        if bad:
            raise ValueError(f"{config.id} has no algorithm(s) {bad}; it has "
                             f"{', '.join(a.key for a in config.algorithms)}.")
        algorithms = [a for a in algorithms if a.key in options.algorithms
                      or a.id in options.algorithms]
    return datasets, algorithms


# --------------------------------------------------------------------------- one cell


def run_cell(task: dict) -> dict:
    """Evaluate one (dataset, algorithm, repeat, fold) cell; never raises.

    Parameters
    ----------
    task : dict
        Built by :func:`run_experiment` (data, split, algorithm, grid, ...).

    Returns
    -------
    dict
        The tidy row (``status`` is ``"ok"`` or ``"error"`` with a ``message``).
    """
    row = dict(task["row"])
    split = task["split"]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = evaluate_fold(
                task["algorithm_id"], task["X"], task["y"], split.train, split.test,
                dataset=row["dataset"], repeat=split.repeat, fold=split.fold,
                preprocessing=row["preprocessing"], grid=task["grid"],
                inner_folds=task["inner_folds"], random_state=split.seed,
                params=task["params"], validation=split.validation,
                max_train=task["max_train"], error_score="raise",  # an error row
                max_fpr=task.get("max_fpr"))
    except Exception as exc:  # noqa: BLE001  (a failing cell is a result, not a crash)
        row.update(status=ERROR, message=_short(exc))
        return row
    notes = dict.fromkeys(_short(w.message if isinstance(w.message, Warning)
                                 else w.category(str(w.message))) for w in caught)
    row.update(auc=float(result.auc), fit_seconds=float(result.fit_seconds), status=OK,
               warnings=" | ".join(notes)[:500],
               n_train=int(min(len(split.train), task["max_train"] or len(split.train))))
    if result.pauc is not None:
        row["pauc"] = float(result.pauc)
    row.update({f"param_{k}": plain(v) for k, v in sorted(result.params.items())})
    return row


def _short(exc) -> str:
    """One line: the first line of the message, plus the root error of a failed grid search."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    causes = [ln for ln in lines[1:] if re.match(r"^[\w.]+(Error|Exception): ", ln)]
    if causes:
        text += f" ... {causes[-1]}"
    return text[:600]


def _cell_key(row) -> tuple:
    return (row["dataset"], row["algorithm"], int(row["repeat"]), int(row["fold"]))


# --------------------------------------------------------------------------- the run


def run_experiment(config, out, options: RunOptions | None = None, **kwargs) -> dict:
    """Run (or resume) a config and write results, manifest and report to ``out``.

    Parameters
    ----------
    config : str, Path or ExperimentConfig
        A config id, a TOML path or a loaded config.
    out : str or Path
        Output directory (created). Reusing it resumes the run (see the module docstring).
    options : RunOptions, optional
    **kwargs
        Fields of :class:`RunOptions` (override ``options``).

    Returns
    -------
    dict
        Counts: ``cells`` (planned), ``run``, ``skipped`` (already finished), ``ok``,
        ``errors``, ``not_available`` (algorithms), ``unavailable`` (datasets), and
        ``substitutions`` (smoke stand-ins), ``out``.
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    config = config if isinstance(config, ExperimentConfig) else load_config(config)
    options = replace(options or RunOptions(), **kwargs)
    out = Path(out)
    protocol = effective_protocol(config, options)
    datasets, algorithms = _select(config, options)
    marks = fingerprint(config, protocol, options)
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / MANIFEST
    previous = read_manifest(manifest_path) if manifest_path.exists() else {}
    done = [r for r in read_cells(out / CELLS) if r.get("status") == OK]
    check_resume(out, previous, done, fingerprint=marks, config_sha256=config_text(config)[1],
                 repeats=protocol.repeats)
    started = now()
    registered = set(list_algorithms())
    finished = {_cell_key(r) for r in done}
    # keep only finished cells (retry the rest); a failed write leaves the old file whole
    with replaced_on_success(out / CELLS) as tmp, tmp.open("w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in done)

    data_records, status_rows, tasks = {}, [], []
    substitutions = []
    skipped = 0
    for entry in datasets:
        data = load_data(entry, config, options)
        data_records[entry.name] = data_record(entry, data)
        if data.substituted:
            substitutions.append(f"{entry.name}: {data.source}")
            logger.warning("smoke: %s", data.source)
        base = {"dataset": entry.name, "preprocessing": entry.preprocessing,
                "data_source": data.source, "binarize": data.binarize or ""}
        if data.error:
            logger.warning("%s: dataset unavailable: %s", entry.name, data.error)
            status_rows += [{**base, "algorithm": a.key, "algorithm_id": a.id_for(entry.name),
                             "repeat": "", "fold": "", "status": UNAVAILABLE,
                             "message": data.error} for a in algorithms]
            continue
        splits = outer_splits(entry, data, protocol)
        for a in algorithms:
            aid = a.id_for(entry.name)
            problem = _algorithm_problem(aid, a, registered)
            if problem:
                status_rows.append({**base, "algorithm": a.key, "algorithm_id": aid,
                                    "repeat": "", "fold": "", "status": problem[0],
                                    "message": problem[1]})
                continue
            grid = search_grid(a.grid, aid, options)
            for split in splits:
                row = {**base, "algorithm": a.key, "algorithm_id": aid, "repeat": split.repeat,
                       "fold": split.fold, "seed": split.seed, "n_test": len(split.test),
                       "n_train": len(split.train)}
                if _cell_key(row) in finished:
                    skipped += 1
                    continue
                tasks.append({"row": row, "split": split, "X": data.X, "y": data.y,
                              "algorithm_id": aid, "grid": grid, "params": dict(a.params),
                              "inner_folds": protocol.inner_folds,
                              "max_train": a.max_train_for(entry.name),
                              "max_fpr": protocol.max_fpr})

    manifest = build_manifest(config, options, protocol, marks, data_records, algorithms,
                         registered, substitutions, started)
    manifest["invocations"] = invocations(previous, manifest, len(tasks))
    if not options.smoke:
        manifest["grids_used"] = {
            a.key: {k: [plain(v) for v in vals]
                    for k, vals in thin_grid(a.grid, options.max_grid_points).items()}
            for a in algorithms}
        manifest["reduced_grid"] = options.max_grid_points is not None
    # a resumed run directory accumulates: datasets and algorithms run by earlier
    # invocations (e.g. --datasets a9a --algorithms opauc after the small datasets)
    # stay in the manifest, so the report covers every cell of the directory
    for section in ("datasets", "algorithms", "grids_used"):
        if section in manifest:
            manifest[section] = {**previous.get(section, {}), **manifest[section]}
    order = {d.name: i for i, d in enumerate(config.datasets)}
    manifest["datasets"] = dict(sorted(manifest["datasets"].items(),
                                       key=lambda kv: order.get(kv[0], len(order))))
    order = {a.key: i for i, a in enumerate(config.algorithms)}
    manifest["algorithms"] = dict(sorted(manifest["algorithms"].items(),
                                         key=lambda kv: order.get(kv[0], len(order))))
    manifest["not_selected"] = {
        "datasets": [d.name for d in config.datasets if d.name not in manifest["datasets"]],
        "algorithms": [a.key for a in config.algorithms if a.key not in manifest["algorithms"]],
        "why": {"datasets": "smoke mode runs at most two datasets"
                if options.smoke and not options.datasets else "--datasets",
                "algorithms": "--algorithms"},
    }
    write_json(manifest_path, manifest)

    counts = {"ok": 0, "errors": 0}
    show = sys.stdout.isatty() if options.progress is None else options.progress
    with (out / CELLS).open("a") as fh:
        runner = Parallel(n_jobs=options.n_jobs, return_as="generator_unordered")
        results = runner(delayed(run_cell)(t) for t in tasks)
        for row in tqdm(results, total=len(tasks), desc=config.id, unit="cell",
                        disable=not show or not tasks):
            fh.write(json.dumps(row, default=plain) + "\n")
            fh.flush()
            counts["ok" if row["status"] == OK else "errors"] += 1
            if row["status"] != OK:
                logger.warning("%s / %s / r%s f%s: %s", row["dataset"], row["algorithm"],
                               row["repeat"], row["fold"], row["message"])

    rows = read_cells(out / CELLS) + status_rows
    _write_csv(rows, out / RESULTS)
    summary = {
        "out": str(out), "cells": len(tasks) + skipped, "run": len(tasks), "skipped": skipped,
        "ok": counts["ok"] + skipped, "errors": counts["errors"],
        "not_available": sorted({f"{r['algorithm_id']}" for r in status_rows
                                 if r["status"] == NOT_AVAILABLE}),
        "unavailable": sorted({r["dataset"] for r in status_rows if r["status"] == UNAVAILABLE}),
        "substitutions": substitutions,
        "not_selected": manifest["not_selected"],
    }
    manifest.update(finished=now(), summary=summary)
    write_json(manifest_path, manifest)
    from ._report import write_report

    write_report(out)
    return summary


def _algorithm_problem(aid, entry, registered):
    if aid not in registered:
        return NOT_AVAILABLE, f"{aid!r} is not registered in this aucopt (not implemented yet)"
    accepted = set(algorithm_info(aid)["defaults"])
    unknown = sorted((set(entry.grid) | set(entry.params)) - accepted)
    if unknown:
        return ERROR, (f"config error: {aid} has no parameter(s) {unknown}; its parameters are "
                       f"{sorted(accepted)}")
    return None


def _write_csv(rows: list[dict], path: Path, first: list | None = None) -> None:
    first = list(first or FIRST_COLUMNS)
    columns = first + sorted({k for r in rows for k in r if k not in first})
    rows = sorted(rows, key=lambda r: (str(r["dataset"]), str(r.get("algorithm", "")),
                                       str(r.get("repeat", "")).zfill(4),
                                       str(r.get("fold", "")).zfill(4)))
    with replaced_on_success(path) as tmp, tmp.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(rows)
