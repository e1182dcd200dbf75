"""The ``[[figures]]`` of an experiment config: :class:`FigureSpec` and its reader.

A figure names a kind (``"convergence"`` or ``"auc-vs-param"``), the datasets
and the columns it draws, and for ``"auc-vs-param"`` the hyperparameter on the x
axis with its values; :func:`figure_specs` checks every field against the
config's datasets and columns. The figures are drawn by
:mod:`aucopt.experiments._figures`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..datasets import dataset_info
from ._fields import optional, require, unknown
from ._values import ConfigError, parse_values

__all__ = ["FIGURE_KINDS", "FigureSpec", "figure_specs"]

FIGURE_KINDS = ("convergence", "auc-vs-param")


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
        ``"convergence"``: evaluations in all, spread over the estimator's ``max_iter``
        passes (``points // max_iter`` per pass, at least one:
        :func:`aucopt.model_selection.convergence_curve`).
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



def config_dataset(given: str, datasets: list, where: str) -> str:
    """Return the registry name of the config's dataset that ``given`` names: its label,
    its registry name, or an alias of that name (:func:`aucopt.datasets.dataset_info`).

    Raises
    ------
    ConfigError
        If ``given`` is no dataset of the registry, or not one of ``datasets``.
    """
    names = {d.label: d.name for d in datasets} | {d.name: d.name for d in datasets}
    name = names.get(given)
    if name is None:
        try:
            name = dataset_info(given).name
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    if name not in names.values():
        raise ConfigError(f"{where}: dataset {given!r} is not in datasets.")
    return name


def figure_specs(entries, datasets: list, algorithms: list) -> tuple:
    """Read the ``[[figures]]`` tables of a config.

    Parameters
    ----------
    entries : list of dict
        The ``figures`` array of the TOML file.
    datasets : list of DatasetEntry
        The config's datasets (a figure names them by label, registry name or alias).
    algorithms : list of AlgorithmEntry
        The config's columns (a figure takes their grids and fixed parameters).

    Returns
    -------
    tuple of FigureSpec

    Raises
    ------
    ConfigError
        Naming the offending field (the loader adds the file).
    """
    if not isinstance(entries, list):
        raise ConfigError(f"'figures' must be an array of tables ([[figures]]), got {entries!r}.")
    columns = {a.key: a for a in algorithms}
    out = []
    for i, f in enumerate(entries):
        where = f"figures[{i}]."
        if not isinstance(f, dict):
            raise ConfigError(f"figures[{i}] must be a table, got {f!r}.")
        unknown(f, {"name", "kind", "datasets", "algorithms", "algorithm", "param", "values",
                    "grid", "params", "points", "caption"}, f"figures[{i}]")
        kind = require(f, "kind", str, where)
        if kind not in FIGURE_KINDS:
            raise ConfigError(f"{where}kind must be one of {FIGURE_KINDS}, got {kind!r}.")
        shown = [config_dataset(d, datasets, f"{where}datasets[{k}]")
                 for k, d in enumerate(optional(f, "datasets", list, where, [], str))]
        spec = {"name": optional(f, "name", str, where, kind), "kind": kind,
                "datasets": tuple(shown),
                "params": dict(optional(f, "params", dict, where, {})),
                "caption": optional(f, "caption", str, where, ""),
                "points": optional(f, "points", int, where, 20)}
        if kind == "convergence":
            drawn = optional(f, "algorithms", list, where, [], str)
            bad = [a for a in drawn if a not in columns]
            if bad:
                raise ConfigError(f"{where}algorithms {bad} are not algorithm keys "
                                  f"({list(columns)}).")
            spec["algorithms"] = tuple(drawn)
        else:
            algorithm = require(f, "algorithm", str, where)
            param = require(f, "param", str, where)
            column = columns.get(algorithm)
            values = parse_values(f["values"]) if "values" in f else list(
                column.grid.get(param, []) if column else [])
            if not values:
                raise ConfigError(f"{where}values: give the values of {param!r} (the "
                                  f"{algorithm!r} column has no grid for it).")
            grid = optional(f, "grid", dict, where)
            grid = ({k: parse_values(v) for k, v in grid.items()} if grid is not None else
                    {k: v for k, v in (column.grid if column else {}).items() if k != param})
            spec.update(algorithm=algorithm, param=param, values=tuple(values), grid=grid,
                        params={**(column.params if column else {}), **spec["params"]})
        out.append(FigureSpec(**spec))
    stems = [f.name for f in out]
    if len(set(stems)) != len(stems):
        raise ConfigError(f"figure names are listed twice: {stems}; give each a distinct 'name'.")
    return tuple(out)
