"""Training and evaluation on a Dask cluster, exact where the mathematics allows.

Needs the ``dask`` extra (``pip install 'aucopt[dask]'``).

=========================  ==============================================================
``local_cluster``          context manager: a LocalCluster of processes on 127.0.0.1
``read_svmlight``          LIBSVM parts as lazy ``(X, y)`` dask arrays, read on the workers
                           (or pass a ``dask.dataframe`` and the name of its label column)
``fit``                    train an estimator: "statistics", "sequential", "average", "svrg"
``decision_function``      lazy scores of every partition (``map_blocks``)
``roc_auc_score``          exact AUC of partitioned scores (ties one half)
=========================  ==============================================================

Which strategy each algorithm supports is ``aucopt.algorithm_info(id)["distributed"]``
(the first is the ``"auto"`` choice). Functions take ``client=`` (a
``distributed.Client`` or a scheduler address) and otherwise use Dask's default
client. See ``docs/distributed.md``.
"""

from ._cluster import NO_WORKER_TIMEOUT, NO_WORKER_TIMEOUT_KEY, NoWorkersError, local_cluster
from ._data import read_svmlight
from ._evaluate import decision_function, roc_auc_score
from ._fit import fit

__all__ = ["NO_WORKER_TIMEOUT", "NO_WORKER_TIMEOUT_KEY", "NoWorkersError", "decision_function",
           "fit", "local_cluster", "read_svmlight", "roc_auc_score"]
