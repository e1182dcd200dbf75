"""Declarative experiment configs: one TOML file per reproduced paper table.

A config names the datasets (with preprocessing and binarisation), the
algorithms (registry ids, the paper's grids and fixed parameters), the protocol
(splits, repeats, folds, seeds) and the published numbers, transcribed verbatim
as strings (``".8309±.0350 ●"``) in the layout of the paper's table. See
``configs/gao2013-t2.toml`` for the annotated format.

Grids are lists or the papers' range notation (``"2^[-12:10]"``); that notation and
the published cells are read by :mod:`aucopt.experiments._values`, whose names are
importable from here too.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..datasets import BINARIZATION_SCHEMES, PREPROCESSING_SCHEMES, dataset_info
from ..model_selection import PROTOCOLS
from ._values import (
    ConfigError,
    PublishedValue,
    check_hyperparameters,
    parse_published,
    parse_values,
)

__all__ = ["ExperimentConfig", "DatasetEntry", "AlgorithmEntry", "ProtocolSpec",
           "PublishedValue", "FigureSpec", "ConfigError", "list_configs", "load_config",
           "parse_values", "parse_published"]

ERROR_KINDS = ("std", "stderr")
FIGURE_KINDS = ("convergence", "auc-vs-param")


@dataclass(frozen=True)
class DatasetEntry:
    """A dataset row of the table.

    Attributes
    ----------
    name : str
        Registry name (:func:`aucopt.datasets.dataset_info`).
    label : str
        The paper's spelling.
    preprocessing : str
        Scheme of :func:`aucopt.datasets.make_preprocessor`, fitted on each training part.
    binarize : str or None
        Scheme of :func:`aucopt.datasets.binarize` for multi-class labels (None: as given).
    test_set : str or None
        Registry name of the official test set (protocol ``given-test``).
    """

    name: str
    label: str
    preprocessing: str
    binarize: str | None = None
    test_set: str | None = None


@dataclass(frozen=True)
class AlgorithmEntry:
    """A column of the table.

    Attributes
    ----------
    key : str
        Column key (unique in the config; the registry id unless a table needs two
        columns of one algorithm).
    id : str
        Registry id.
    label : str
        The paper's column name.
    grid : dict
        The paper's grid, ``{param: [values]}``.
    params : dict
        Fixed hyperparameters.
    id_by_dataset : dict
        Per-dataset registry id (e.g. OPAUCr instead of OPAUC on high-dimensional data).
    max_train : int or None
        Cap on training rows (batch baselines of Gao et al. 2013).
    max_train_by_dataset : dict
        Per-dataset caps.
    """

    key: str
    id: str
    label: str
    grid: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    id_by_dataset: dict = field(default_factory=dict)
    max_train: int | None = None
    max_train_by_dataset: dict = field(default_factory=dict)

    def id_for(self, dataset: str) -> str:
        """Registry id used on ``dataset``."""
        return self.id_by_dataset.get(dataset, self.id)

    def max_train_for(self, dataset: str) -> int | None:
        """Training-row cap on ``dataset``."""
        return self.max_train_by_dataset.get(dataset, self.max_train)


@dataclass(frozen=True)
class ProtocolSpec:
    """How the table's runs are split (the paper's protocol).

    Attributes
    ----------
    kind : {"kfold", "holdout", "train-val-test", "given-test"}
    folds, repeats : int
    test_size : float
        Holdout share.
    ratios : tuple
        Train:validation:test ratios of ``train-val-test``.
    inner_folds : int
        Folds of the inner grid search (no inner CV with a validation set).
    seed : int
        Base seed of the splits and estimators.
    binarize_seed : int
        Seed of random class groupings (recorded in the manifest; notes.md#binarisation).
    """

    kind: str = "kfold"
    folds: int = 5
    repeats: int = 5
    test_size: float = 0.2
    ratios: tuple = (4, 1, 1)
    inner_folds: int = 5
    seed: int = 0
    binarize_seed: int = 0
    max_fpr: float | None = None  # select and report by the pAUC over FPR in [0, max_fpr]

    @property
    def runs(self) -> int:
        """Runs per (dataset, algorithm) of the full protocol."""
        return self.repeats * (self.folds if self.kind == "kfold" else 1)


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the paper, made by ``aucopt experiment figures`` (``[[figures]]``).

    Attributes
    ----------
    name : str
        File stem (``<config id>-<name>.png`` / ``.csv``); unique in the config.
    kind : {"convergence", "auc-vs-param"}
        ``"convergence"``: test AUC against the number of training samples seen
        and against training seconds, one pass delivered in chunks
        (``partial_fit``). ``"auc-vs-param"``: test AUC against one
        hyperparameter, the table's other grid parameters tuned by inner CV.
    datasets : tuple of str
        Registry names (empty: every dataset of the config).
    algorithms : tuple of str
        ``"convergence"``: column keys (empty: every streaming column).
    algorithm : str or None
        ``"auc-vs-param"``: a column key, or a registry id with its own ``grid``.
    param : str or None
        ``"auc-vs-param"``: the hyperparameter on the x axis.
    values : tuple
        Its values (default: the column's grid of ``param``).
    grid : dict
        Grid of the other tuned parameters (default: the column's).
    params : dict
        Fixed hyperparameters (added to the column's).
    points : int
        ``"convergence"``: evaluations per pass.
    caption : str
        Which figure of the paper this mirrors.
    """

    name: str
    kind: str
    datasets: tuple = ()
    algorithms: tuple = ()
    algorithm: str | None = None
    param: str | None = None
    values: tuple = ()
    grid: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    points: int = 20
    caption: str = ""


@dataclass(frozen=True)
class ExperimentConfig:
    """A reproduced paper table.

    Attributes
    ----------
    id, title, source : str
    reference : str or None
        Column key of the table's proposed method: paired t-tests and
        win/tie/loss compare it with every other column.
    error : {"std", "stderr"}
        What the published ``±`` means.
    scale : float
        Published numbers are AUC x scale (100 for AlQuabeh et al. 2024). Only on scale 1 is a
        number without a decimal point read as a dropped point (``0386`` -> ``.0386``).
    protocol : ProtocolSpec
    datasets : tuple of DatasetEntry
    algorithms : tuple of AlgorithmEntry
    published : dict
        ``{dataset: {column key: PublishedValue or None}}`` (None: "-" or "N/A").
    published_wtl : dict
        ``{column key: "w/t/l"}`` as printed.
    notes : tuple of str
    figures : tuple of FigureSpec
        The paper's figures this config can draw (``aucopt experiment figures``).
    path : str
    """

    id: str
    title: str
    source: str
    reference: str | None
    error: str
    scale: float
    protocol: ProtocolSpec
    datasets: tuple
    algorithms: tuple
    published: dict
    published_wtl: dict = field(default_factory=dict)
    notes: tuple = ()
    figures: tuple = ()
    path: str = ""

    def dataset(self, name: str) -> DatasetEntry:
        """The entry of dataset ``name``."""
        for d in self.datasets:
            if d.name == name:
                return d
        raise KeyError(f"{self.id} has no dataset {name!r}; it has "
                       f"{[d.name for d in self.datasets]}.")

    def algorithm(self, key: str) -> AlgorithmEntry:
        """The entry of column ``key``."""
        for a in self.algorithms:
            if a.key == key:
                return a
        raise KeyError(f"{self.id} has no algorithm {key!r}; it has "
                       f"{[a.key for a in self.algorithms]}.")

    def published_cells(self) -> list[tuple[str, str, PublishedValue]]:
        """Every published (dataset, column key, value) with a number."""
        return [(d, k, v) for d, row in self.published.items() for k, v in row.items()
                if v is not None]


def _configs_dir() -> Path:
    return Path(__file__).resolve().parent / "configs"


def list_configs() -> list[str]:
    """Return the ids of the bundled configs (one per reproduced paper table).

    Returns
    -------
    list of str
    """
    return sorted(p.stem for p in _configs_dir().glob("*.toml"))


def load_config(id_or_path) -> ExperimentConfig:
    """Load and validate a config by id (bundled) or by path to a TOML file.

    Parameters
    ----------
    id_or_path : str or Path

    Returns
    -------
    ExperimentConfig

    Raises
    ------
    ConfigError
        With the file and the offending field in the message.
    """
    path = Path(id_or_path)
    if not path.suffix == ".toml":
        path = _configs_dir() / f"{id_or_path}.toml"
        if not path.exists():
            import difflib

            close = difflib.get_close_matches(str(id_or_path), list_configs(), n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ConfigError(f"Unknown experiment {id_or_path!r}.{hint} Known: "
                              f"{', '.join(list_configs())}.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    try:
        return _build(data, str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _require(table: dict, key: str, kind, where: str):
    if key not in table:
        raise ConfigError(f"missing required field {where}{key!r}.")
    value = table[key]
    if not isinstance(value, kind):
        name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ConfigError(f"field {where}{key!r} must be {name}, got {value!r}.")
    return value


def _unknown(table: dict, allowed: set, where: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise ConfigError(f"unknown field(s) {extra} in {where or 'the top level'}; allowed: "
                          f"{sorted(allowed)}.")


def _build(data: dict, path: str) -> ExperimentConfig:
    _unknown(data, {"id", "title", "source", "reference", "error", "scale", "notes", "protocol",
                    "datasets", "algorithms", "published", "figures"}, "")
    cid = _require(data, "id", str, "")
    if path.endswith(".toml") and Path(path).stem != cid and Path(path).parent == _configs_dir():
        raise ConfigError(f"id {cid!r} does not match the file name.")
    error = data.get("error", "std")
    if error not in ERROR_KINDS:
        raise ConfigError(f"field 'error' must be one of {ERROR_KINDS}, got {error!r}.")
    scale = float(data.get("scale", 1.0))
    if scale <= 0:
        raise ConfigError(f"field 'scale' must be positive, got {scale}.")

    proto_raw = _require(data, "protocol", dict, "")
    _unknown(proto_raw, {"kind", "folds", "repeats", "test_size", "ratios", "inner_folds", "seed",
                         "binarize_seed", "preprocessing", "max_fpr"}, "[protocol]")
    kind = proto_raw.get("kind", "kfold")
    if kind not in PROTOCOLS:
        raise ConfigError(f"[protocol] kind must be one of {PROTOCOLS}, got {kind!r}.")
    protocol = ProtocolSpec(kind=kind, folds=int(proto_raw.get("folds", 5)),
                            repeats=int(proto_raw.get("repeats", 5)),
                            test_size=float(proto_raw.get("test_size", 0.2)),
                            ratios=tuple(proto_raw.get("ratios", (4, 1, 1))),
                            inner_folds=int(proto_raw.get("inner_folds", 5)),
                            seed=int(proto_raw.get("seed", 0)),
                            binarize_seed=int(proto_raw.get("binarize_seed", 0)),
                            max_fpr=proto_raw.get("max_fpr"))
    if protocol.repeats < 1 or protocol.folds < 2 or protocol.inner_folds < 2:
        raise ConfigError("[protocol] needs repeats >= 1, folds >= 2 and inner_folds >= 2.")
    default_pre = proto_raw.get("preprocessing", "minmax")

    datasets = []
    for i, d in enumerate(_require(data, "datasets", list, "")):
        where = f"datasets[{i}]."
        if not isinstance(d, dict):
            raise ConfigError(f"datasets[{i}] must be a table, got {d!r}.")
        _unknown(d, {"name", "label", "preprocessing", "binarize", "test_set"}, f"datasets[{i}]")
        name = _require(d, "name", str, where)
        try:
            info = dataset_info(name)
        except ValueError as exc:
            raise ConfigError(f"{where}name: {exc}") from None
        pre = d.get("preprocessing", default_pre)
        if pre not in PREPROCESSING_SCHEMES:
            raise ConfigError(f"{where}preprocessing must be one of {PREPROCESSING_SCHEMES}, "
                              f"got {pre!r}.")
        binarize = d.get("binarize", info.binarize)
        if binarize is not None and binarize not in BINARIZATION_SCHEMES:
            raise ConfigError(f"{where}binarize must be one of {BINARIZATION_SCHEMES}, got "
                              f"{binarize!r}.")
        test_set = d.get("test_set")
        if kind == "given-test" and test_set is None:
            raise ConfigError(f"{where}test_set is required by protocol 'given-test'.")
        datasets.append(DatasetEntry(info.name, d.get("label", name), pre, binarize, test_set))
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ConfigError(f"datasets are listed twice: {twice}.")

    algorithms = []
    for i, a in enumerate(_require(data, "algorithms", list, "")):
        where = f"algorithms[{i}]."
        if not isinstance(a, dict):
            raise ConfigError(f"algorithms[{i}] must be a table, got {a!r}.")
        _unknown(a, {"id", "key", "label", "grid", "params", "id_by_dataset", "max_train",
                     "max_train_by_dataset"}, f"algorithms[{i}]")
        aid = _require(a, "id", str, where)
        grid = {}
        for param, values in a.get("grid", {}).items():
            expanded = parse_values(values)
            if not expanded:
                raise ConfigError(f"{where}grid.{param} is empty.")
            grid[param] = expanded
        fixed = dict(a.get("params", {}))
        for checked in {aid, *a.get("id_by_dataset", {}).values()}:
            check_hyperparameters(checked, {**grid, **{k: [v] for k, v in fixed.items()}},
                                  f"{where[:-1]} ({checked})")
        algorithms.append(AlgorithmEntry(
            key=a.get("key", aid), id=aid, label=a.get("label", aid), grid=grid,
            params=dict(a.get("params", {})), id_by_dataset=dict(a.get("id_by_dataset", {})),
            max_train=a.get("max_train"),
            max_train_by_dataset={dataset_info(k).name: v
                                  for k, v in a.get("max_train_by_dataset", {}).items()}))
    keys = [a.key for a in algorithms]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"algorithm keys are listed twice: {keys}; give one a distinct 'key'.")
    reference = data.get("reference")
    if reference is not None and reference not in keys:
        raise ConfigError(f"reference {reference!r} is not an algorithm key of the config "
                          f"({keys}).")

    published, wtl = _published(data.get("published", {}), datasets, keys, scale)
    figures = _figures(data.get("figures", []), datasets, algorithms)
    return ExperimentConfig(
        id=cid, title=_require(data, "title", str, ""), source=_require(data, "source", str, ""),
        reference=reference, error=error, scale=scale, protocol=protocol,
        datasets=tuple(datasets), algorithms=tuple(algorithms), published=published,
        published_wtl=wtl, notes=tuple(data.get("notes", ())), figures=figures, path=path)


def _figures(entries, datasets: list, algorithms: list) -> tuple:
    if not isinstance(entries, list):
        raise ConfigError(f"'figures' must be an array of tables ([[figures]]), got {entries!r}.")
    names = {d.name: d.name for d in datasets} | {d.label: d.name for d in datasets}
    columns = {a.key: a for a in algorithms}
    out = []
    for i, f in enumerate(entries):
        where = f"figures[{i}]."
        if not isinstance(f, dict):
            raise ConfigError(f"figures[{i}] must be a table, got {f!r}.")
        _unknown(f, {"name", "kind", "datasets", "algorithms", "algorithm", "param", "values",
                     "grid", "params", "points", "caption"}, f"figures[{i}]")
        kind = _require(f, "kind", str, where)
        if kind not in FIGURE_KINDS:
            raise ConfigError(f"{where}kind must be one of {FIGURE_KINDS}, got {kind!r}.")
        unknown = [d for d in f.get("datasets", []) if d not in names]
        if unknown:
            raise ConfigError(f"{where}datasets {unknown} are not datasets of the config.")
        spec = {"name": f.get("name", kind), "kind": kind,
                "datasets": tuple(names[d] for d in f.get("datasets", [])),
                "params": dict(f.get("params", {})), "caption": f.get("caption", ""),
                "points": int(f.get("points", 20))}
        if kind == "convergence":
            bad = [a for a in f.get("algorithms", []) if a not in columns]
            if bad:
                raise ConfigError(f"{where}algorithms {bad} are not algorithm keys "
                                  f"({list(columns)}).")
            spec["algorithms"] = tuple(f.get("algorithms", ()))
        else:
            algorithm = _require(f, "algorithm", str, where)
            param = _require(f, "param", str, where)
            column = columns.get(algorithm)
            values = parse_values(f["values"]) if "values" in f else list(
                column.grid.get(param, []) if column else [])
            if not values:
                raise ConfigError(f"{where}values: give the values of {param!r} (the "
                                  f"{algorithm!r} column has no grid for it).")
            grid = {k: parse_values(v) for k, v in f["grid"].items()} if "grid" in f else {
                k: v for k, v in (column.grid if column else {}).items() if k != param}
            spec.update(algorithm=algorithm, param=param, values=tuple(values), grid=grid,
                        params={**(column.params if column else {}), **spec["params"]})
        out.append(FigureSpec(**spec))
    stems = [f.name for f in out]
    if len(set(stems)) != len(stems):
        raise ConfigError(f"figure names are listed twice: {stems}; give each a distinct 'name'.")
    return tuple(out)


def _published(table: dict, datasets: list, keys: list, scale: float):
    labels = {d.label: d.name for d in datasets} | {d.name: d.name for d in datasets}
    _unknown(table, {"columns", "rows", "win_tie_loss"}, "[published]")
    if not table:
        return {}, {}
    columns = _require(table, "columns", list, "published.")
    unknown = [c for c in columns if c not in keys]
    if unknown:
        raise ConfigError(f"published.columns {unknown} are not algorithm keys ({keys}).")
    out = {}
    for j, row in enumerate(_require(table, "rows", list, "published.")):
        if not isinstance(row, list) or len(row) != len(columns) + 1:
            raise ConfigError(f"published.rows[{j}] must be [dataset, {len(columns)} values], "
                              f"got {row!r}.")
        name = labels.get(row[0])
        if name is None:
            try:
                name = dataset_info(row[0]).name
            except ValueError as exc:
                raise ConfigError(f"published.rows[{j}]: {exc}") from None
        if name not in labels.values():
            raise ConfigError(f"published.rows[{j}]: dataset {row[0]!r} is not in datasets.")
        try:
            out[name] = {c: parse_published(str(v), scale=scale) for c, v in zip(columns, row[1:])}
        except ConfigError as exc:
            raise ConfigError(f"published.rows[{j}] ({row[0]}): {exc}") from None
    wtl = dict(table.get("win_tie_loss", {}))
    bad = [k for k in wtl if k not in keys]
    if bad:
        raise ConfigError(f"published.win_tie_loss keys {bad} are not algorithm keys.")
    return out, wtl
