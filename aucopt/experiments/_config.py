"""Declarative experiment configs: one TOML file per reproduced paper table.

A config names the datasets (with preprocessing and binarisation), the
algorithms (registry ids, the paper's grids and fixed parameters), the protocol
(splits, repeats, folds, seeds) and the published numbers, transcribed verbatim
as strings (``".8309±.0350 ●"``) in the layout of the paper's table. See
``configs/gao2013-t2.toml`` for the annotated format.

Grids are lists or the papers' range notation (``"2^[-12:10]"``); that notation and
the published cells are read by :mod:`aucopt.experiments._values`, whose names are
importable from here too. The ``[[figures]]`` tables are read by
:mod:`aucopt.experiments._figure_specs`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..datasets import BINARIZATION_SCHEMES, PREPROCESSING_SCHEMES, dataset_info
from ..model_selection import PROTOCOLS
from ._fields import optional, require, unknown
from ._figure_specs import FigureSpec, config_dataset, figure_specs
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


def _build(data: dict, path: str) -> ExperimentConfig:
    unknown(data, {"id", "title", "source", "reference", "error", "scale", "notes", "protocol",
                   "datasets", "algorithms", "published", "figures"}, "")
    cid = require(data, "id", str, "")
    if path.endswith(".toml") and Path(path).stem != cid and Path(path).parent == _configs_dir():
        raise ConfigError(f"id {cid!r} does not match the file name.")
    error = data.get("error", "std")
    if error not in ERROR_KINDS:
        raise ConfigError(f"field 'error' must be one of {ERROR_KINDS}, got {error!r}.")
    scale = float(optional(data, "scale", (int, float), "", 1.0))
    if scale <= 0:
        raise ConfigError(f"field 'scale' must be positive, got {scale}.")

    proto_raw = require(data, "protocol", dict, "")
    unknown(proto_raw, {"kind", "folds", "repeats", "test_size", "ratios", "inner_folds", "seed",
                        "binarize_seed", "preprocessing", "max_fpr"}, "[protocol]")
    kind = proto_raw.get("kind", "kfold")
    if kind not in PROTOCOLS:
        raise ConfigError(f"[protocol] kind must be one of {PROTOCOLS}, got {kind!r}.")
    number = {k: optional(proto_raw, k, int, "protocol.", v) for k, v in (
        ("folds", 5), ("repeats", 5), ("inner_folds", 5), ("seed", 0), ("binarize_seed", 0))}
    protocol = ProtocolSpec(
        kind=kind, test_size=float(optional(proto_raw, "test_size", (int, float), "protocol.",
                                            0.2)),
        ratios=tuple(optional(proto_raw, "ratios", list, "protocol.", [4, 1, 1], (int, float))),
        max_fpr=optional(proto_raw, "max_fpr", (int, float), "protocol."), **number)
    if protocol.repeats < 1 or protocol.folds < 2 or protocol.inner_folds < 2:
        raise ConfigError("[protocol] needs repeats >= 1, folds >= 2 and inner_folds >= 2.")
    if not 0.0 < protocol.test_size < 1.0:
        raise ConfigError(f"[protocol] test_size must lie in (0, 1), got {protocol.test_size:g}.")
    if len(protocol.ratios) != 3 or not all(r > 0 for r in protocol.ratios):
        raise ConfigError("[protocol] ratios must be three positive numbers (train:validation:"
                          f"test), got {list(protocol.ratios)}.")
    if protocol.max_fpr is not None and not 0.0 < protocol.max_fpr <= 1.0:
        raise ConfigError(f"[protocol] max_fpr must lie in (0, 1], got {protocol.max_fpr:g}.")
    default_pre = proto_raw.get("preprocessing", "minmax")

    datasets = []
    for i, d in enumerate(require(data, "datasets", list, "")):
        where = f"datasets[{i}]."
        if not isinstance(d, dict):
            raise ConfigError(f"datasets[{i}] must be a table, got {d!r}.")
        unknown(d, {"name", "label", "preprocessing", "binarize", "test_set"}, f"datasets[{i}]")
        name = require(d, "name", str, where)
        label = optional(d, "label", str, where, name)
        test_set = optional(d, "test_set", str, where)
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
        if kind == "given-test" and test_set is None:
            raise ConfigError(f"{where}test_set is required by protocol 'given-test'.")
        if test_set is not None:
            try:
                test_set = dataset_info(test_set).name
            except ValueError as exc:
                raise ConfigError(f"{where}test_set: {exc}") from None
        datasets.append(DatasetEntry(info.name, label, pre, binarize, test_set))
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ConfigError(f"datasets are listed twice: {twice}.")

    algorithms = [_algorithm(a, i) for i, a in enumerate(require(data, "algorithms", list, ""))]
    keys = [a.key for a in algorithms]
    if len(set(keys)) != len(keys):
        raise ConfigError(f"algorithm keys are listed twice: {keys}; give one a distinct 'key'.")
    reference = optional(data, "reference", str, "")
    if reference is not None and reference not in keys:
        raise ConfigError(f"reference {reference!r} is not an algorithm key of the config "
                          f"({keys}).")

    published, wtl = _published(optional(data, "published", dict, "", {}), datasets, keys, scale)
    figures = figure_specs(data.get("figures", []), datasets, algorithms)
    return ExperimentConfig(
        id=cid, title=require(data, "title", str, ""), source=require(data, "source", str, ""),
        reference=reference, error=error, scale=scale, protocol=protocol,
        datasets=tuple(datasets), algorithms=tuple(algorithms), published=published,
        published_wtl=wtl, notes=tuple(optional(data, "notes", list, "", [], str)),
        figures=figures, path=path)


def _algorithm(a, i: int) -> AlgorithmEntry:
    """The column ``algorithms[i]`` of the config, every field checked."""
    where = f"algorithms[{i}]."
    if not isinstance(a, dict):
        raise ConfigError(f"algorithms[{i}] must be a table, got {a!r}.")
    unknown(a, {"id", "key", "label", "grid", "params", "id_by_dataset", "max_train",
                "max_train_by_dataset"}, f"algorithms[{i}]")
    aid = require(a, "id", str, where)
    grid = {}
    for param, values in optional(a, "grid", dict, where, {}).items():
        expanded = parse_values(values)
        if not expanded:
            raise ConfigError(f"{where}grid.{param} is empty.")
        grid[param] = expanded
    fixed = dict(optional(a, "params", dict, where, {}))
    both = sorted(set(fixed) & set(grid))
    if both:
        raise ConfigError(f"{where}params and {where}grid both set {both}: the grid's values "
                          "would replace the fixed one; keep it in one of them.")
    by_dataset = _by_dataset(a, "id_by_dataset", where, str)
    for checked in {aid, *by_dataset.values()}:
        _known_id(checked, f"{where}id" if checked == aid else f"{where}id_by_dataset")
        check_hyperparameters(checked, {**grid, **{k: [v] for k, v in fixed.items()}},
                              f"{where[:-1]} ({checked})")
    caps = _by_dataset(a, "max_train_by_dataset", where, int)
    cap = optional(a, "max_train", int, where)
    small = {k: v for k, v in {"max_train": cap, **caps}.items() if v is not None and v < 1}
    if small:
        raise ConfigError(f"{where}max_train must be a positive number of rows, got {small}.")
    return AlgorithmEntry(
        key=optional(a, "key", str, where, aid), id=aid,
        label=optional(a, "label", str, where, aid), grid=grid, params=fixed,
        id_by_dataset=by_dataset, max_train=cap, max_train_by_dataset=caps)


def _by_dataset(a: dict, field: str, where: str, kind) -> dict:
    """The per-dataset table ``field`` of a column, its keys resolved to registry names."""
    table = optional(a, field, dict, where, {}, kind)
    try:
        return {dataset_info(k).name: v for k, v in table.items()}
    except ValueError as exc:
        raise ConfigError(f"{where}{field}: {exc}") from None


def _known_id(aid: str, where: str) -> None:
    """Refuse an id that is not registered but close to one that is (a misspelling); an id
    unlike every registered one is left to the runner (a column not implemented yet)."""
    import difflib

    from .._api import list_algorithms

    known = list_algorithms()
    if aid not in known:
        close = difflib.get_close_matches(aid, known, n=3, cutoff=0.75)
        if close:
            raise ConfigError(f"{where}: {aid!r} is not a registered algorithm; did you mean "
                              f"{', '.join(map(repr, close))}?")


def _published(table: dict, datasets: list, keys: list, scale: float):
    unknown(table, {"columns", "rows", "win_tie_loss"}, "[published]")
    if not table:
        return {}, {}
    columns = require(table, "columns", list, "published.")
    strangers = [c for c in columns if c not in keys]
    if strangers:
        raise ConfigError(f"published.columns {strangers} are not algorithm keys ({keys}).")
    if len(set(columns)) != len(columns):
        raise ConfigError(f"published.columns lists a key twice: {columns}.")
    out = {}
    for j, row in enumerate(require(table, "rows", list, "published.")):
        if not isinstance(row, list) or len(row) != len(columns) + 1 or not isinstance(
                row[0], str):
            raise ConfigError(f"published.rows[{j}] must be [dataset name, {len(columns)} "
                              f"values], got {row!r}.")
        name = config_dataset(row[0], datasets, f"published.rows[{j}]")
        if name in out:
            raise ConfigError(f"published.rows[{j}]: dataset {row[0]!r} has a row already.")
        try:
            out[name] = {c: parse_published(str(v), scale=scale) for c, v in zip(columns, row[1:])}
        except ConfigError as exc:
            raise ConfigError(f"published.rows[{j}] ({row[0]}): {exc}") from None
    wtl = dict(optional(table, "win_tie_loss", dict, "published.", {}, str))
    bad = [k for k in wtl if k not in keys]
    if bad:
        raise ConfigError(f"published.win_tie_loss keys {bad} are not algorithm keys.")
    return out, wtl
