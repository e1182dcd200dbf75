"""Kernel selection: fastmath variants and specialised twins.

:func:`select` picks a kernel's fastmath variant when ``aucopt.get_config()["fastmath"]``
is True. :func:`specialised` tells a spec whether it may run a specialised twin
(:mod:`aucopt._kernels._twins`); :func:`generic_kernels` turns the twins off, so that
the tests can compare each twin with its generic kernel on the same data.
"""

import functools
import threading
from contextlib import contextmanager

from .._config import _settings
from .._kernels._variants import fastmath_variant

__all__ = ["select", "specialised", "generic_kernels", "fastmath", "one_blas_thread", "REQUESTED"]

_GENERIC_ONLY = [False]
REQUESTED: set = set()  # specialised kernels a spec has asked for (read by the twin test)


def select(kernel):
    """Return ``kernel`` or, when ``aucopt.get_config()["fastmath"]`` is True, its fastmath twin.

    Parameters
    ----------
    kernel : numba dispatcher

    Returns
    -------
    numba dispatcher
    """
    return fastmath_variant(kernel) if _settings()["fastmath"] else kernel  # no copy: per call


def fastmath() -> bool:
    """Return ``aucopt.get_config()["fastmath"]`` (without copying the settings)."""
    return _settings()["fastmath"]


def specialised(kernel) -> bool:
    """Return whether a spec may run the specialised ``kernel`` (not in :func:`generic_kernels`).

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel declared with :func:`aucopt._kernels._twins.specialises`.

    Returns
    -------
    bool
    """
    REQUESTED.add(kernel)
    return not _GENERIC_ONLY[0]


@contextmanager
def generic_kernels():
    """Run every algorithm with its generic kernels only, inside the ``with`` block."""
    _GENERIC_ONLY[0] = True
    try:
        yield
    finally:
        _GENERIC_ONLY[0] = False


@functools.cache
def _blas_pools():
    """The BLAS thread pools (found once: a lookup costs milliseconds)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


@contextmanager
def one_blas_thread():
    """Return a context in which BLAS runs on one thread.

    For code that makes many small BLAS calls (one per sample, or a brief run on a
    sample): threads only add synchronisation there (measured at d = 1000 on 2 cores:
    2 threads 6x slower when the other core is busy); sklearn's KMeans does the same.
    Only the main thread changes the setting: OpenBLAS's (pthreads) is the process's,
    and once its threads run it ignores a change made from another thread, or applies
    some of them, so that fits in a thread pool left BLAS at one thread for good (8 of 8
    rounds of 8 OPAUC fits in 4 threads); elsewhere BLAS keeps its setting.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    limiter = _blas_pools().limit(limits=1)
    try:
        yield
    finally:
        limiter.restore_original_limits()
