"""Algorithm specs and their registry (no scikit-learn, River or Dask here).

Importing this package registers every algorithm: each public module of this
package (name not starting with ``_``) ends with its ``register(...)`` calls and
is imported here, in file-name order, so adding a family needs no edit here.
"""

import importlib
import pkgutil

from ._registry import get_algorithm, list_algorithms, register, unknown_algorithm_message
from ._spec import AlgorithmSpec, RowData

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "AlgorithmSpec",
    "RowData",
    "get_algorithm",
    "list_algorithms",
    "register",
    "unknown_algorithm_message",
]
