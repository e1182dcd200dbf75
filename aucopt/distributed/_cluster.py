"""The Dask client: an embedded local cluster, or an existing client or scheduler address."""

from __future__ import annotations

import logging
from contextlib import contextmanager

__all__ = ["local_cluster", "connect", "compute", "NoWorkersError", "NO_WORKER_TIMEOUT",
           "NO_WORKER_TIMEOUT_KEY"]

logger = logging.getLogger(__name__)


def _distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the extra is part of [all]
        raise ImportError("aucopt.distributed needs Dask: pip install 'aucopt[dask]'.") from exc
    return distributed


#: Seconds a :func:`local_cluster` gives the replacement of a dead worker to start before
#: it closes the worker's nanny (Dask's ``distributed.deploy.lost-worker-timeout``, whose
#: 15 s a worker re-importing the user's script on a loaded machine can exceed; the
#: timer of an earlier death of the same worker counts too). A larger configured value
#: is kept.
REPLACEMENT_TIMEOUT = 300.0
_LOST_WORKER = "distributed.deploy.lost-worker-timeout"


@contextmanager
def local_cluster(n_workers=None, memory_limit="auto", dashboard=False, threads_per_worker=1,
                  **kwargs):
    """Start a :class:`distributed.LocalCluster` of worker processes on 127.0.0.1.

    The yielded client becomes Dask's default client, which every function of
    :mod:`aucopt.distributed` uses when no ``client=`` is given. The cluster is
    closed on exit.

    A worker process that dies is replaced by its nanny; the cluster gives the
    replacement up to 300 s to start (Dask's own 15 s is shorter than a worker's
    start-up on a loaded machine).

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
    import dask
    from dask.utils import parse_timedelta

    distributed = _distributed()
    options = dict(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                   host="127.0.0.1", memory_limit=memory_limit,
                   dashboard_address="127.0.0.1:0" if dashboard else None)
    if not dashboard:  # the scheduler's HTTP server (health, metrics) on a free loopback port
        options["scheduler_kwargs"] = {"dashboard": False, "dashboard_address": "127.0.0.1:0"}
    options.update(kwargs)
    patience = max(parse_timedelta(dask.config.get(_LOST_WORKER)), REPLACEMENT_TIMEOUT)
    with dask.config.set({_LOST_WORKER: patience}), distributed.LocalCluster(**options) as \
            cluster, distributed.Client(cluster) as client:
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


#: Seconds a computation waits while no worker can run it (every worker gone, or paused at its
#: memory limit) before it fails (see :func:`compute`), unless Dask's configuration sets
#: :data:`NO_WORKER_TIMEOUT_KEY`.
NO_WORKER_TIMEOUT = 30.0
#: Dask configuration key of that wait (``dask.config.set({"aucopt.no-worker-timeout": 10})``,
#: or the environment variable ``DASK_AUCOPT__NO_WORKER_TIMEOUT=10`` of the client's process).
NO_WORKER_TIMEOUT_KEY = "aucopt.no-worker-timeout"
_POLL = 0.5
#: Worker task states in which a task is being run (Dask's ``task_counts`` of a heartbeat).
_RUNNING_TASK = ("executing", "long-running")


class NoWorkersError(RuntimeError):
    """No Dask worker could run the computation for longer than it waits for one.

    Either every worker is gone (died or killed, and none came back), or every
    worker that holds its tasks is paused: Dask pauses a worker whose process
    memory passes 80% of its ``memory_limit`` and resumes it only when the
    memory falls again. The message says which, and what to do.
    """


def _progressing(workers, processing) -> bool:
    """Whether some worker can make progress: a running worker with tasks assigned, or any
    worker (a paused one finishes the task it started) in the middle of a task."""
    for address, info in workers.items():
        counts = info.get("metrics", {}).get("task_counts", {})
        if any(counts.get(state) for state in _RUNNING_TASK):
            return True
        if info.get("status") == "running" and processing.get(address):
            return True
    return False


def _stalled(client):
    """The scheduler's worker table if no worker can make progress now, else None
    (asked of the scheduler, not the client's cached view)."""
    workers = client.scheduler_info()["workers"]
    return None if _progressing(workers, client.processing()) else workers


def _stall_message(workers, timeout, address) -> str:
    """Why the computation was cancelled, and what to do about it."""
    if not workers:
        return (f"no Dask worker has been alive for {timeout:g} s (all died or were killed, "
                "and none came back); the computation was cancelled. See the workers' logs "
                "for why they died (e.g. the system's out-of-memory killer), start workers "
                f"and run the computation again. Scheduler: {address}.")
    paused = {a: i for a, i in workers.items() if i.get("status") == "paused"}
    if paused:
        memory = ", ".join(
            f"{a}: {i.get('metrics', {}).get('memory', 0) / 1e6:.0f} MB of "
            f"{(i.get('memory_limit') or 0) / 1e6:.0f} MB" for a, i in sorted(paused.items()))
        return (f"no Dask worker could run the computation for {timeout:g} s: the workers "
                f"that hold its tasks are paused at their memory limit ({memory}; by default "
                "Dask pauses a worker at 80% of memory_limit and resumes it only when the "
                "memory falls); the computation was cancelled. Give each worker more memory "
                "(e.g. local_cluster(memory_limit='2GB'), or dask worker --memory-limit 2GB), "
                f"or use smaller partitions. Scheduler: {address}.")
    states = ", ".join(f"{a}: {i.get('status')}" for a, i in sorted(workers.items()))
    return (f"no Dask worker has run a task of the computation for {timeout:g} s (workers: "
            f"{states}); the computation was cancelled. Scheduler: {address}.")


def _progress_bar(client, futures):
    """Dask's text progress bar on a thread of its own, bound to ``client``'s scheduler (so it
    needs no default client), while the caller watches the workers."""
    import threading

    def show():
        try:
            _distributed().progress(futures, scheduler=client.scheduler.address)
        except Exception:  # the computation's own error is raised by the caller
            logger.debug("progress bar stopped", exc_info=True)

    thread = threading.Thread(target=show, name="aucopt-progress", daemon=True)
    thread.start()
    return thread


def compute(client, graph, progress=False, no_worker_timeout=None):
    """Compute the Dask collection(s) ``graph`` on ``client`` and return the result(s).

    Dask reruns the tasks of a worker that dies on the others (and on its replacement),
    and a paused worker resumes when its memory falls. When no worker can run the
    computation for ``no_worker_timeout`` seconds in a row (every worker gone, or the
    workers holding its tasks paused at their memory limit while no other runs a task),
    the computation is cancelled and :class:`NoWorkersError` raised instead of waiting
    for ever.

    Parameters
    ----------
    client : distributed.Client
    graph : dask collection or list of them
    progress : bool, default=False
        Show Dask's text progress bar while it runs.
    no_worker_timeout : float, optional
        Default: Dask's configuration value ``aucopt.no-worker-timeout`` if set, else
        :data:`NO_WORKER_TIMEOUT` (30 s).

    Returns
    -------
    object
        The computed value(s).

    Raises
    ------
    NoWorkersError
        If no worker could run the computation for ``no_worker_timeout`` seconds
        (the message says whether the workers were gone or paused).
    """
    import time

    distributed = _distributed()
    timeout = _no_worker_timeout() if no_worker_timeout is None else float(no_worker_timeout)
    futures = client.compute(graph)
    flat = futures if isinstance(futures, list) else [futures]
    bar = _progress_bar(client, flat) if progress else None
    stalled_since = None
    while _pending(flat):
        try:
            with client.as_current():  # wait() asks for the current client, not ours
                distributed.wait(flat, timeout=_POLL)
        except TimeoutError:
            pass
        workers = _stalled(client) if _pending(flat) else None
        if workers is None:
            stalled_since = None
            continue
        stalled_since = time.monotonic() if stalled_since is None else stalled_since
        if time.monotonic() - stalled_since > timeout:
            client.cancel(flat)
            raise NoWorkersError(_stall_message(workers, timeout, client.scheduler.address))
    if bar is not None:
        bar.join(5)
    return client.gather(futures)


def _no_worker_timeout() -> float:
    """The wait of :func:`compute` for a worker: Dask's configuration, else the default."""
    import dask.config

    value = dask.config.get(NO_WORKER_TIMEOUT_KEY, NO_WORKER_TIMEOUT)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not seconds > 0:
        raise ValueError(f"Dask's configuration {NO_WORKER_TIMEOUT_KEY!r} must be a positive "
                         f"number of seconds; got {value!r}.")
    return seconds


def _pending(futures) -> bool:
    return any(f.status in ("pending", "lost") for f in futures)
