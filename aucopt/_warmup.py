"""Compile every kernel ahead of use: ``aucopt.warmup()`` and ``aucopt warmup``.

The kernels are numba functions compiled on their first call and cached on disk
(``cache=True``). numba writes the cache beside the source (``__pycache__``) when
that directory is writable, otherwise into a user-wide cache directory
(``~/.cache/numba`` on Linux), or into ``NUMBA_CACHE_DIR`` when that variable is
set; a later process loads the machine code from there instead of compiling.
:func:`warmup` fits every algorithm once on a few rows, dense and CSR, by ``fit``
and by ``partial_fit``, which fills the cache for the argument types that real
data take; afterwards the first fit of any algorithm in a fresh process only loads
its kernels. Run it once after installing (minutes), or on each worker image.
"""

from __future__ import annotations

import logging
import os
import time

from .utils._warnings import ignored_warnings

__all__ = ["warmup", "kernel_cache_dir"]

logger = logging.getLogger(__name__)

_ROWS, _COLUMNS = 48, 6


def kernel_cache_dir() -> str:
    """Return the directory where numba caches aucopt's compiled kernels in this process.

    The first of these where a file can be written, as numba chooses: ``NUMBA_CACHE_DIR``
    when set; the ``__pycache__`` directory beside the kernels' sources (an editable or
    user-owned install); numba's user-wide cache directory (e.g. ``~/.cache/numba`` on
    Linux), where a read-only ``site-packages`` sends the cache; else a private directory
    of this process, removed at exit (the kernels are then compiled in every process, and
    a warning says so).

    Returns
    -------
    str
    """
    from numba.misc.appdirs import AppDirs

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels")
    for place in (os.environ.get("NUMBA_CACHE_DIR"), os.path.join(here, "__pycache__"),
                  AppDirs(appname="numba", appauthor=False).user_cache_dir):
        if place and _writable(place):
            return place
    from ._kernels._cache import private_cache_dir

    return private_cache_dir()


def _writable(folder: str) -> bool:
    """Whether a file can be written in ``folder`` (made if missing), numba's own test."""
    import tempfile

    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _problem(sparse: bool):
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(_ROWS, _COLUMNS)) / _COLUMNS
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=_ROWS) > 0, 1, -1)
    y[:2] = (-1, 1)
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0.0
        return sp.csr_matrix(X), y
    return X, y


def _exercise(algorithm: str, sparse: bool) -> None:
    """Fit ``algorithm`` on a few rows (``fit``, then ``partial_fit`` in chunks and by row)."""
    from ._api import make
    from .algorithms import get_algorithm

    X, y = _problem(sparse)
    est = make(algorithm)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=0)
    est.fit(X, y)
    est.decision_function(X[:4])
    if get_algorithm(algorithm).streaming:
        stream = make(algorithm, **({"random_state": 0}
                                    if "random_state" in est.get_params(deep=False) else {}))
        half = _ROWS // 2
        stream.partial_fit(X[:half], y[:half], classes=[-1, 1])
        for i in range(half, half + 3):  # one-row chunks
            stream.partial_fit(X[i:i + 1], y[i:i + 1])
        stream.decision_function(X[:4])
        _row_stream(algorithm)


def _row_stream(algorithm: str) -> None:
    """Score, then learn, rows one at a time as River's ``AUCClassifier`` does (a stream
    started by one row, then the one-row path and the O(nnz) score, on rows of float64
    values and int32 columns), and hash a row's names: compiled functions that ``fit`` and
    ``partial_fit`` never call."""
    import numpy as np
    import scipy.sparse as sp

    from ._api import make
    from .algorithms._data import RowData
    from .algorithms._hashing import hashed_row_plan

    hashed_row_plan(tuple(f"x{j}" for j in range(5)), 64, np.int32)
    rng = np.random.default_rng(1)
    X = sp.csr_matrix(rng.normal(size=(_ROWS, 5)))
    y = np.where(np.arange(_ROWS) % 3 == 0, 1.0, -1.0)
    stream = make(algorithm)
    if "random_state" in stream.get_params(deep=False):
        stream.set_params(random_state=0)
    stream.partial_fit(X[:1], y[:1], classes=[-1, 1])
    for i in range(1, _ROWS):
        row = X[i]
        rows = RowData(row.data, row.indices.astype(np.int32), row.indptr.astype(np.int32),
                       1, X.shape[1])
        stream._score_row(rows)
        stream._learn_row_scored(rows, y[i:i + 1])


def warmup(algorithms=None, *, dense: bool = True, sparse: bool = True, jobs: int = 1) -> dict:
    """Compile (or load from the cache) the kernels of ``algorithms`` in this process.

    Each algorithm is fitted once on 48 rows with its defaults, by ``fit`` and by
    ``partial_fit`` (in a chunk and row by row) for the streaming ones, on dense
    and CSR input (CSR only where the algorithm takes it). The first call after an
    install compiles and writes numba's cache (:func:`kernel_cache_dir`; minutes
    for all algorithms); later calls, in any process, load it (a fraction of a
    second per algorithm). Dask workers run it for the algorithm they train
    (:func:`aucopt.distributed.fit`).

    Parameters
    ----------
    algorithms : str, list of str or None
        Registry ids; None means every registered algorithm.
    dense, sparse : bool, default=True
        Which input kinds to compile for.
    jobs : int, default=1
        Processes that compile at once, each a share of the algorithms (numba compiles
        on one core per process; the cache they write is the same).

    Returns
    -------
    dict
        ``id -> seconds`` spent on each algorithm.

    Raises
    ------
    ValueError
        For an unknown id.
    """
    from ._api import list_algorithms
    from .algorithms import get_algorithm

    if algorithms is None:
        algorithms = list_algorithms()
    elif isinstance(algorithms, str):
        algorithms = [algorithms]
    specs = [get_algorithm(a) for a in algorithms]  # unknown ids fail before any work
    if not specs:
        raise ValueError("no algorithm to warm up: give registry ids (aucopt algorithms), "
                         "or None for all of them.")
    if jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}.")
    if jobs > 1 and len(specs) > 1:
        return _in_processes([spec.id for spec in specs], dense, sparse, jobs)
    seconds = {}
    for spec in specs:
        start = time.perf_counter()
        kinds = [False] * dense + [True] * (sparse and spec.sparse)
        with ignored_warnings():  # 48 rows: convergence warnings mean nothing here
            for kind in kinds:
                _exercise(spec.id, kind)
        seconds[spec.id] = time.perf_counter() - start
        logger.info("warmup %s: %.2f s", spec.id, seconds[spec.id])
    return seconds


def _in_processes(ids: list, dense: bool, sparse: bool, jobs: int) -> dict:
    """Run :func:`warmup` on ``jobs`` consecutive shares of ``ids`` in new processes.

    The registry lists a family's ids together, so consecutive shares compile the kernels
    a family shares in one process only: every id, two processes, an empty cache: 123 s
    against 148 s with interleaved shares and 155 s with one id at a time to the next
    free process (serially: 208 s)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    k = min(jobs, len(ids))
    shares = [ids[len(ids) * i // k:len(ids) * (i + 1) // k] for i in range(k)]
    context = multiprocessing.get_context("spawn")  # no copy of this process's state
    with ProcessPoolExecutor(len(shares), mp_context=context) as pool:
        parts = list(pool.map(partial(warmup, dense=dense, sparse=sparse), shares))
    return {a: part[a] for a in ids for part in parts if a in part}
