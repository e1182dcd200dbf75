"""Reproductions of the papers' tables: declarative configs, one runner, reports.

``list_configs()`` gives the ids (one per published table), ``load_config(id)``
the validated config, ``run_experiment(config, out)`` writes tidy results and a
manifest to ``out`` (resumable), ``write_report(out)`` compares them with
the published numbers, and ``make_figures(config, out)`` draws the papers'
figures a config declares (convergence curves, AUC against a hyperparameter).
"""

from ._config import (
    AlgorithmEntry,
    ConfigError,
    DatasetEntry,
    ExperimentConfig,
    FigureSpec,
    ProtocolSpec,
    PublishedValue,
    list_configs,
    load_config,
    parse_published,
    parse_values,
)
from ._figures import make_figures
from ._report import build_report, write_report
from ._runner import RunOptions, run_experiment

__all__ = [
    "AlgorithmEntry",
    "ConfigError",
    "DatasetEntry",
    "ExperimentConfig",
    "FigureSpec",
    "ProtocolSpec",
    "PublishedValue",
    "RunOptions",
    "build_report",
    "list_configs",
    "load_config",
    "make_figures",
    "parse_published",
    "parse_values",
    "run_experiment",
    "write_report",
]
