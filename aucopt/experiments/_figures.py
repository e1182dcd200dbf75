"""The papers' figures, declared in a config's ``[[figures]]`` and drawn from fresh runs.

Two kinds (:class:`~aucopt.experiments.FigureSpec`):

* ``"convergence"``: test AUC against the number of training samples seen and
  against training seconds (Liu et al. 2018, Figs 1-2, Gao et al. 2013 Fig 6). For every outer
  split,
  each streaming column is tuned as in the table (:func:`evaluate_fold`, same
  grid, inner CV or validation set), then a fresh estimator with the chosen
  hyperparameters learns the shuffled training part with ``partial_fit`` over its
  ``max_iter`` passes, in ``points // max_iter`` chunks per pass (at least one;
  :func:`aucopt.model_selection.convergence_curve`), and is evaluated on the test part
  after every chunk. Seconds are the
  cumulative ``partial_fit`` time (evaluation excluded; the kernels are compiled
  before the clock starts). Estimators that size their schedule from the stream
  length get it (``n_samples_hint``); statistics estimated from the data (class
  means, kappa) grow with the stream, so the last point may differ slightly from
  a one-call ``fit`` (``fit_auc`` in the CSV).
* ``"auc-vs-param"``: test AUC against one hyperparameter (Gao et al. 2013, Figs 3-5): for
  every value and outer split the other grid parameters are tuned by inner CV
  with the value fixed, then the test AUC is measured. The varied parameter keeps
  all its values; ``max_grid_points`` thins only the tuned ones.

Outputs in ``out``: ``<config>-<name>.png`` (one panel per dataset; mean and
+-1 std band over the runs), ``<config>-<name>.csv`` (one tidy row per point,
run and algorithm or value) and ``<config>-<name>.json`` (options, protocol,
versions, git, data sources). Default runs: one repeat of k-fold (k runs) or the
protocol's repeats for the other split schemes.
"""

from __future__ import annotations

import logging
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.base import clone

from .._api import algorithm_info, list_algorithms, make
from ..datasets import make_preprocessor
from ..model_selection import convergence_curve, evaluate_fold
from ._config import AlgorithmEntry, ExperimentConfig, load_config
from ._data import data_record, load_data, outer_splits
from ._manifest import build_manifest, now
from ._rundir import write_json
from ._runner import (
    ERROR,
    OK,
    UNAVAILABLE,
    RunOptions,
    _algorithm_problem,
    _short,
    _write_csv,
    effective_protocol,
    search_grid,
    thin_grid,
)
from ._values import plain

__all__ = ["make_figures"]

logger = logging.getLogger(__name__)

FIRST_COLUMNS = {
    "convergence": ["dataset", "algorithm", "repeat", "fold", "point", "samples", "seconds", "auc",
                    "fit_auc", "status", "algorithm_id", "seed", "message", "warnings"],
    "auc-vs-param": ["dataset", "algorithm", "param", "value", "repeat", "fold", "auc",
                     "fit_seconds", "status", "algorithm_id", "seed", "message", "warnings"],
}
SMOKE_POINTS = 4
SMOKE_VALUES = 3
WARM_UP_ROWS = 64


class _TimedStream:
    """A streaming estimator whose ``partial_fit`` calls are timed (cumulative seconds)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self.seconds = []

    def get_params(self, deep=True):
        """The wrapped estimator's parameters (``convergence_curve`` reads ``max_iter``)."""
        return self.estimator.get_params(deep)

    def partial_fit(self, X, y, classes=None):
        """Learn one chunk and add its wall time to ``seconds``."""
        start = time.perf_counter()
        self.estimator.partial_fit(X, y, classes=classes)
        spent = time.perf_counter() - start
        self.seconds.append((self.seconds[-1] if self.seconds else 0.0) + spent)
        return self

    def decision_function(self, X):
        """The wrapped estimator's scores (not timed)."""
        return self.estimator.decision_function(X)


def _split_row(task) -> dict:
    split = task["split"]
    return {"dataset": task["dataset"], "algorithm": task["key"],
            "algorithm_id": task["algorithm_id"], "repeat": split.repeat, "fold": split.fold,
            "seed": split.seed}


def _tuned(task, params):
    """``evaluate_fold`` with the task's data, split, preprocessing and grid."""
    split = task["split"]
    return evaluate_fold(task["algorithm_id"], task["X"], task["y"], split.train, split.test,
                         dataset=task["dataset"], preprocessing=task["preprocessing"],
                         grid=task["grid"], inner_folds=task["inner_folds"],
                         random_state=split.seed, params=params, validation=split.validation,
                         error_score="raise")  # a failing run is an error row


def _curve_rows(task) -> list[dict]:
    """Convergence rows of one (dataset, algorithm, split); an error row on failure."""
    split, base = task["split"], _split_row(task)
    try:
        result = _tuned(task, task["params"])
        scaler = make_preprocessor(task["preprocessing"]).fit(task["X"][split.train])
        X_train, X_test = (scaler.transform(task["X"][idx]) for idx in (split.train, split.test))
        y_train, y_test = task["y"][split.train], task["y"][split.test]
        estimator = make(task["algorithm_id"], random_state=split.seed, **result.params)
        fixed = estimator.get_params()
        if "n_samples_hint" in fixed and fixed["n_samples_hint"] is None:
            estimator.set_params(n_samples_hint=len(y_train) * fixed.get("max_iter", 1))
        warm = np.arange(min(WARM_UP_ROWS, len(y_train)))  # compile before the clock starts
        clone(estimator).partial_fit(X_train[warm], y_train[warm], classes=np.unique(y_train))
        timed = _TimedStream(estimator)
        seen, aucs = convergence_curve(timed, X_train, y_train, X_test, y_test,
                                       n_points=task["points"], random_state=split.seed,
                                       copy=False)  # (the wrapper records its calls)
    except Exception as exc:  # noqa: BLE001  (a failing run is a result, not a crash)
        return [{**base, "status": ERROR, "message": _short(exc)}]
    params = {f"param_{k}": plain(v) for k, v in sorted(result.params.items())}
    return [{**base, "point": i + 1, "samples": int(n), "seconds": float(s), "auc": float(a),
             "fit_auc": float(result.auc), "status": OK, **params}
            for i, (n, s, a) in enumerate(zip(seen, timed.seconds, aucs))]


def _param_rows(task) -> list[dict]:
    """One row of AUC at a fixed value of the varied parameter (other parameters tuned)."""
    base = {**_split_row(task), "param": task["param"], "value": plain(task["value"])}
    try:
        result = _tuned(task, {**task["params"], task["param"]: task["value"]})
    except Exception as exc:  # noqa: BLE001
        return [{**base, "status": ERROR, "message": _short(exc)}]
    return [{**base, "auc": float(result.auc), "fit_seconds": float(result.fit_seconds),
             "status": OK, **{f"param_{k}": plain(v) for k, v in sorted(result.params.items())
                              if k != task["param"]}}]


def _quietly(work, task) -> list[dict]:
    """Run ``work(task)``, recording its warnings (e.g. failed grid points) in its first row."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = work(task)
    notes = " | ".join(dict.fromkeys(_short(w.category(str(w.message))) for w in caught))
    return [{**rows[0], "warnings": notes[:500]}, *rows[1:]]  # once per run


# --------------------------------------------------------------------------- planning


def _figure_datasets(config, spec, options) -> list:
    names = options.datasets or spec.datasets or [d.name for d in config.datasets]
    entries = [config.dataset(_dataset_name(config, n)) for n in names]
    if options.smoke and not options.datasets:  # one dataset, the bundled one if listed
        entries = sorted(entries, key=lambda d: d.name != "german.numer")[:1]
    return entries


def _dataset_name(config, name) -> str:
    for d in config.datasets:
        if name in (d.name, d.label):
            return d.name
    raise ValueError(f"{config.id} has no dataset {name!r}; it has "
                     f"{', '.join(d.name for d in config.datasets)}.")


def _columns(config, spec, entry, registered) -> list[tuple]:
    """``[(key, algorithm id, AlgorithmEntry)]`` drawn by ``spec`` on ``entry``."""
    if spec.kind == "auc-vs-param":
        column = next((a for a in config.algorithms if a.key == spec.algorithm), None)
        aid = column.id_for(entry.name) if column else spec.algorithm
        grid = {spec.param: list(spec.values), **spec.grid}
        return [(spec.algorithm, aid, AlgorithmEntry(spec.algorithm, aid, spec.algorithm,
                                                     grid=grid, params=dict(spec.params)))]
    keys = spec.algorithms or [a.key for a in config.algorithms]
    out = []
    for a in (config.algorithm(k) for k in keys):
        aid = a.id_for(entry.name)
        if aid in registered and not algorithm_info(aid)["streaming"]:
            if spec.algorithms:
                logger.warning("%s: %s is not a streaming estimator; no convergence curve.",
                               spec.name, aid)
            continue
        out.append((a.key, aid, replace(a, params={**a.params, **spec.params})))
    return out


def _tasks(spec, entry, data, protocol, options, columns) -> tuple[list, list]:
    """The tasks of one figure on one dataset, and the status rows of columns not run."""
    splits = outer_splits(entry, data, protocol)
    tasks, skipped = [], []
    registered = set(list_algorithms())
    for key, aid, column in columns:
        problem = _algorithm_problem(aid, column, registered)
        if problem:
            skipped.append({"dataset": entry.name, "algorithm": key, "algorithm_id": aid,
                            "status": problem[0], "message": problem[1]})
            logger.warning("%s / %s / %s: %s", spec.name, entry.name, aid, problem[1])
            continue
        common = {"dataset": entry.name, "key": key, "algorithm_id": aid, "X": data.X,
                  "y": data.y, "preprocessing": entry.preprocessing,
                  "inner_folds": protocol.inner_folds, "params": dict(column.params)}
        if spec.kind == "convergence":
            points = min(spec.points, SMOKE_POINTS) if options.smoke else spec.points
            grid = search_grid(column.grid, aid, options)
            tasks += [{**common, "split": s, "grid": grid, "points": points} for s in splits]
            continue
        others = {k: v for k, v in column.grid.items() if k != spec.param}
        grid = search_grid(others, aid, options) if others else {}
        values = thin_grid({spec.param: list(spec.values)},
                           SMOKE_VALUES if options.smoke else None)[spec.param]
        tasks += [{**common, "split": s, "grid": grid, "param": spec.param, "value": v}
                  for v in values for s in splits]
    return tasks, skipped


def _data_kind(source: str) -> str:
    """``"bundled"``, ``"mirror"`` or ``"downloaded"``: where a dataset row's data came from
    (its manifest ``source``)."""
    if source.startswith("bundled"):
        return "bundled"
    return "mirror" if "AUCOPT_DATA_MIRROR" in source else "downloaded"


def _footer(protocol, options, runs, sources) -> str:
    kinds = sorted({_data_kind(s) for s in sources})
    mode = ("SMOKE (synthetic / 300-row stand-ins)" if options.smoke
            else " + ".join(kinds) + " data")
    grid = ("two-point smoke grids" if options.smoke else
            f"tuned grids thinned to <= {options.max_grid_points} values"
            if options.max_grid_points else "paper grids")
    search = ("validation set" if protocol.kind in ("train-val-test", "given-test")
              else f"inner {protocol.inner_folds}-fold CV")
    return f"{mode}; {runs} runs per point; {search}; {grid}; mean +- 1 std"


# --------------------------------------------------------------------------- the entry point


def make_figures(config, out, options: RunOptions | None = None, *, names=None, draw=None,
                 **kwargs) -> list[dict]:
    """Draw a config's ``[[figures]]``: PNG, tidy CSV and JSON manifest per figure.

    Parameters
    ----------
    config : str, Path or ExperimentConfig
        A config id, a TOML path or a loaded config.
    out : str or Path
        Output directory (created); files are named ``<config id>-<figure name>.*``.
    options : RunOptions, optional
        ``datasets`` (replaces every figure's datasets), ``repeats``, ``folds``,
        ``inner_folds``, ``max_grid_points``, ``n_jobs``, ``smoke``, ``download``
        as for :func:`run_experiment`; ``algorithms`` is ignored. Default
        ``repeats``: 1 for k-fold protocols, else the protocol's.
    names : list of str, optional
        Figure names to draw (default: all).
    draw : callable, optional
        ``draw(kind, rows, *, labels, param, title, footer, path) -> bool`` renders
        one figure's rows as a PNG, e.g.
        :func:`aucopt.plotting.draw_experiment_figure` (what ``aucopt experiment
        figures`` passes). None writes the CSV and JSON only (``png`` is None): the
        experiments layer does not import the plotting layer.
    **kwargs
        Fields of :class:`RunOptions` (override ``options``).

    Returns
    -------
    list of dict
        One record per figure: ``name``, ``png`` (None when nothing ran or no
        ``draw`` was given), ``csv``,
        ``rows``, ``errors`` and ``runs``.

    Raises
    ------
    ValueError
        If the config has no figures, or ``names`` lists an unknown one.
    """
    from joblib import Parallel, delayed

    config = config if isinstance(config, ExperimentConfig) else load_config(config)
    options = replace(options or RunOptions(), **kwargs)
    if config.protocol.kind == "kfold" and options.repeats is None:
        options = replace(options, repeats=1)
    specs = [f for f in config.figures if not names or f.name in names]
    known = [f.name for f in config.figures]
    if not config.figures or (names and len(specs) != len(set(names))):
        raise ValueError(f"{config.id} has figures {known}; asked for {names or 'all'}.")
    protocol = effective_protocol(config, options)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    registered = set(list_algorithms())
    cache, records, summaries = {}, {}, []
    for spec in specs:
        started, mine = now(), {}
        tasks, rows, labels = [], [], {a.key: a.label for a in config.algorithms}
        for entry in _figure_datasets(config, spec, options):
            labels[entry.name] = entry.label
            if entry.name not in cache:
                cache[entry.name] = load_data(entry, config, options)
                records[entry.name] = data_record(entry, cache[entry.name])
            data, mine[entry.name] = cache[entry.name], records[entry.name]
            if data.error:
                logger.warning("%s: dataset unavailable: %s", entry.name, data.error)
                rows.append({"dataset": entry.name, "status": UNAVAILABLE,
                             "message": data.error})
                continue
            columns = _columns(config, spec, entry, registered)
            more, skipped = _tasks(spec, entry, data, protocol, options, columns)
            tasks += more
            rows += skipped
        work = _curve_rows if spec.kind == "convergence" else _param_rows
        for chunk in Parallel(n_jobs=options.n_jobs)(delayed(_quietly)(work, t) for t in tasks):
            rows += chunk
        stem = out / f"{config.id}-{spec.name}"
        _write_csv(rows, stem.with_suffix(".csv"), FIRST_COLUMNS[spec.kind])
        runs = len({(t["repeat"], t["fold"]) for t in (_split_row(t) for t in tasks)})
        png = stem.with_suffix(".png")
        png.unlink(missing_ok=True)
        drawn = draw is not None and draw(
            spec.kind, rows, labels=labels, param=spec.param,
            title=f"{config.id}: {spec.caption or spec.name}",
            footer=_footer(protocol, options, runs, [r["source"] for r in mine.values()]),
            path=png)
        errors = [r for r in rows if r.get("status") == ERROR]
        for r in errors:
            logger.warning("%s / %s / %s r%s f%s: %s", spec.name, r["dataset"], r["algorithm"],
                           r.get("repeat"), r.get("fold"), r["message"])
        summary = {"name": spec.name, "kind": spec.kind, "caption": spec.caption,
                   "png": str(png) if drawn else None, "csv": str(stem.with_suffix(".csv")),
                   "rows": len(rows), "errors": len(errors), "runs": runs}
        manifest = build_manifest(config, options, protocol, {}, mine, [], registered,
                                  [f"{k}: {r['source']}" for k, r in mine.items()
                                   if r.get("substituted")], started)
        manifest.update(figure=summary, finished=now())
        write_json(stem.with_suffix(".json"), manifest)
        summaries.append(summary)
    return summaries
