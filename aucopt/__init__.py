"""aucopt: AUC maximisation for large, imbalanced and streaming data.

Every algorithm is a scikit-learn estimator reachable by its registry id::

    import aucopt
    aucopt.list_algorithms()                 # ["spam-l2", "spam-net", ...]
    clf = aucopt.make("spam-l2", beta=1e-3)  # unfitted estimator
    aucopt.algorithm_info("spam-l2")         # paper, cost, grids, defaults
"""

import logging

from ._api import algorithm_info, estimator_class, list_algorithms, make
from ._config import config_context, get_config, set_config
from ._version import __version__

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "__version__",
    "algorithm_info",
    "config_context",
    "estimator_class",
    "get_config",
    "list_algorithms",
    "make",
    "set_config",
]
