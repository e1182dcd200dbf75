"""Kernel selection by the global ``fastmath`` setting (:mod:`aucopt._config`)."""

from .._config import _settings
from .._kernels._variants import fastmath_variant

__all__ = ["select"]


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
