"""aucopt: AUC maximisation for large, imbalanced and streaming data.

Every algorithm is a scikit-learn estimator reachable by its registry id::

    import aucopt
    aucopt.list_algorithms()                 # ["spam-l2", "spam-net", ...]
    clf = aucopt.make("spam-l2", beta=1e-3)  # unfitted estimator
    aucopt.algorithm_info("spam-l2")         # paper, cost, grids, defaults
    aucopt.make("auto")                      # AUCClassifier: picks the algorithm for the data

The subpackages (``aucopt.datasets``, ``aucopt.io``, ``aucopt.metrics``,
``aucopt.model_selection``, ``aucopt.plotting``, ...) are imported on first
attribute access, so ``import aucopt`` stays as cheap as the registry.
"""

import importlib
import importlib.util
import logging

from ._config import config_context, get_config, set_config
from ._version import __version__

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Subpackages loaded on first access (module ``__getattr__``, PEP 562).
#: ``river`` and ``distributed`` are the optional front-ends; they load once present.
_SUBMODULES = (
    "algorithms",
    "datasets",
    "distributed",
    "exceptions",
    "experiments",
    "io",
    "kernel_model",
    "linear_model",
    "metrics",
    "model_selection",
    "plotting",
    "river",
    "utils",
)


def _present(name: str) -> bool:
    return importlib.util.find_spec(f"{__name__}.{name}") is not None


__all__ = [
    "AUCClassifier",
    "__version__",
    "algorithm_info",
    "config_context",
    "estimator_class",
    "get_config",
    "kernel_cache_dir",
    "list_algorithms",
    "make",
    "set_config",
    "warmup",
    *(name for name in _SUBMODULES if _present(name)),
]


#: Registry-level functions, loaded with the registry on first use (``aucopt._api``), so that
#: ``import aucopt`` costs neither numba nor scikit-learn.
_API = ("algorithm_info", "estimator_class", "list_algorithms", "make")
#: Functions of ``aucopt._warmup``: cache locations and ahead-of-time compilation.
_WARMUP = ("kernel_cache_dir", "warmup")


def __getattr__(name: str):
    if name == "AUCClassifier":  # the estimator layer loads on first use
        from .linear_model import AUCClassifier

        return AUCClassifier
    if name in _SUBMODULES and _present(name):
        return importlib.import_module(f"{__name__}.{name}")
    if name in _API or name in _WARMUP:
        module = importlib.import_module(f"{__name__}.{'_api' if name in _API else '_warmup'}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API) | set(_WARMUP) | {"AUCClassifier"}
                  | {n for n in _SUBMODULES if _present(n)})
