"""Warm workers: each worker loads the kernels of an algorithm once, before its first task.

A worker is a fresh process: its first task would otherwise pay for importing
aucopt's estimators and loading (or compiling) the numba kernels it runs. A
Dask worker plugin registered by :func:`aucopt.distributed.fit` runs
:func:`aucopt.warmup` for the algorithm on every worker once, including workers
that join later (a replacement for one that died).
"""

from __future__ import annotations

import logging

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["WarmKernels", "warm_workers"]

logger = logging.getLogger(__name__)


class WarmKernels(WorkerPlugin):
    """Worker plugin: ``aucopt.warmup(algorithms)`` on each worker when it starts.

    Parameters
    ----------
    algorithms : tuple of str
        Registry ids whose kernels the workers load.
    """

    def __init__(self, algorithms):
        self.algorithms = tuple(algorithms)
        self.name = "aucopt-warm-" + "+".join(self.algorithms)

    def setup(self, worker=None):
        """Start the warm-up on a thread of its own and return at once.

        The worker's event loop stays free (heartbeats, the nanny's start-up
        handshake); a task that arrives meanwhile waits for numba's compile lock
        instead of loading the same kernels a second time.
        """
        import threading

        threading.Thread(target=self._warm, name="aucopt-warmup", daemon=True).start()

    def _warm(self):
        from .._warmup import warmup

        try:
            seconds = warmup(list(self.algorithms))
        except Exception:  # a failed warm-up only leaves the loading to the first task
            logger.warning("warm-up of %s failed on a worker", self.algorithms, exc_info=True)
            return
        logger.info("worker warmed %s in %.2f s", self.algorithms, sum(seconds.values()))


def _registered(dask_scheduler=None):
    return sorted(dask_scheduler.worker_plugins)


def warm_workers(client, algorithms) -> None:
    """Register :class:`WarmKernels` for ``algorithms`` unless the cluster already has it.

    The current workers start warming at once, workers that join later when they
    start; neither waits for it.
    """
    name = WarmKernels(algorithms).name
    try:
        if name in client.run_on_scheduler(_registered):
            return
    except Exception:  # an old scheduler: register (idempotent, only slower)
        logger.debug("could not list the worker plugins", exc_info=True)
    client.register_plugin(WarmKernels(algorithms), name=name)
