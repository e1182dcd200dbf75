"""The Dask client: an embedded local cluster, or an existing client or scheduler address."""

from __future__ import annotations

import logging
from contextlib import contextmanager

__all__ = ["local_cluster", "connect", "compute"]

logger = logging.getLogger(__name__)


def _distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the extra is part of [all]
        raise ImportError("aucopt.distributed needs Dask: pip install 'aucopt[dask]'.") from exc
    return distributed


@contextmanager
def local_cluster(n_workers=None, memory_limit="auto", dashboard=False, threads_per_worker=1,
                  **kwargs):
    """Start a :class:`distributed.LocalCluster` of worker processes on 127.0.0.1.

    The yielded client becomes Dask's default client, which every function of
    :mod:`aucopt.distributed` uses when no ``client=`` is given. The cluster is
    closed on exit.

    Worker processes are started with the ``spawn`` method, which re-imports the
    main module: in a script, create the cluster under
    ``if __name__ == "__main__":`` (as with :mod:`multiprocessing`)::

        import aucopt
        from aucopt import distributed as ad

        if __name__ == "__main__":
            with ad.local_cluster(n_workers=2) as client:
                X, y = ad.read_svmlight("parts/*.svm", n_features=123)
                model = ad.fit(aucopt.make("spam-l2"), X, y)

    Parameters
    ----------
    n_workers : int, optional
        Worker processes (default: Dask's choice from the CPU count).
    memory_limit : str, float or int, default="auto"
        Memory per worker (e.g. ``"2GB"``); above it Dask spills results to disk,
        pauses and finally restarts the worker. "auto" divides the machine's memory
        among the workers.
    dashboard : bool, default=False
        Serve Dask's diagnostic dashboard on a free local port.
    threads_per_worker : int, default=1
        Threads per worker process (the kernels are single-threaded).
    **kwargs
        Passed to :class:`distributed.LocalCluster`.

    Yields
    ------
    distributed.Client
    """
    distributed = _distributed()
    options = dict(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                   host="127.0.0.1", memory_limit=memory_limit,
                   dashboard_address="127.0.0.1:0" if dashboard else None)
    if not dashboard:  # the scheduler's HTTP server (health, metrics) on a free loopback port
        options["scheduler_kwargs"] = {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
    options.update(kwargs)
    with distributed.LocalCluster(**options) as cluster, distributed.Client(cluster) as client:
        logger.info("Dask LocalCluster at %s with %d workers", cluster.scheduler_address,
                    len(cluster.workers))
        yield client


@contextmanager
def connect(client=None):
    """Yield the client to use: ``client``, a new one for an address, or the default client.

    Parameters
    ----------
    client : distributed.Client, str or None
        A client, a scheduler address (``"tcp://host:8786"``; the connection is
        closed on exit) or None for Dask's default client.

    Yields
    ------
    distributed.Client
    """
    distributed = _distributed()
    if client is None:
        try:
            default = distributed.default_client()
        except ValueError:
            raise ValueError(
                "No Dask client: start one with `with aucopt.distributed.local_cluster() as "
                "client:` (or distributed.Client(address)), or pass client= (a Client or a "
                "scheduler address such as 'tcp://10.0.0.1:8786')."
            ) from None
        yield default
    elif isinstance(client, str):
        with distributed.Client(client, set_as_default=False) as own:
            yield own
    elif isinstance(client, distributed.Client):
        yield client
    else:
        raise TypeError(f"client must be a distributed.Client, a scheduler address or None; "
                        f"got {type(client).__name__}.")


def compute(client, graph, progress=False):
    """Compute the Dask collection(s) ``graph`` on ``client`` and return the result(s).

    Parameters
    ----------
    client : distributed.Client
    graph : dask collection or list of them
    progress : bool, default=False
        Show Dask's text progress bar while it runs.

    Returns
    -------
    object
        The computed value(s).
    """
    futures = client.compute(graph)
    if progress:
        _distributed().progress(futures)
    return client.gather(futures)
