"""Algorithm specs and their registry (no scikit-learn, River or Dask here).

Importing this package registers every algorithm; each module ends with its
``register(...)`` calls.
"""

from . import adaoam  # noqa: F401, I001  (registers adaoam)
from . import aogd  # noqa: F401  (registers aogd)
from . import kernel_budget  # noqa: F401  (registers projection-pp, sparse-kernel)
from . import opauc  # noqa: F401  (registers opauc, opauc-r, opauc-f, opauc-rp, opauc-pca)
from . import spam  # noqa: F401  (registers spam-l2, spam-net)
from ._registry import get_algorithm, list_algorithms, register, unknown_algorithm_message
from ._spec import AlgorithmSpec, RowData

__all__ = [
    "AlgorithmSpec",
    "RowData",
    "get_algorithm",
    "list_algorithms",
    "register",
    "unknown_algorithm_message",
]
