"""The memory guard of every state that a hyperparameter (or the data) can make large."""

from __future__ import annotations

import os

from .._kernels._state import layout

__all__ = ["check_memory", "check_width", "machine_memory_gb", "state_gb"]


def check_memory(n_values: float, params: dict, what: str, advice: str) -> None:
    """Raise ValueError if ``n_values`` float64 numbers exceed ``params["max_memory_gb"]``.

    Called before the allocation, so an absurd hyperparameter (e.g.
    ``n_components=10**9``) gives a clear error instead of a crash or swapping.

    Parameters
    ----------
    n_values : float
        Number of 8-byte values about to be allocated.
    params : dict
        Estimator hyperparameters (``max_memory_gb``).
    what : str
        What is allocated, e.g. ``"AOGD's random features"``.
    advice : str
        The first thing to try instead, e.g. ``"Lower n_components"``.
    """
    need = 8.0 * float(n_values) / 1e9
    limit = float(params["max_memory_gb"])
    if need > limit:
        raise ValueError(
            f"{what} would take {need:.3g} GB, more than max_memory_gb={limit:g}. {advice}, or "
            "raise max_memory_gb if the memory is really available."
        )


# widths below this skip the estimate (a state of a few hundred values per feature is
# then at most a few hundred MB; the specs' own checks cover their d x d and k x d parts)
_CHECKED_WIDTH = 1 << 16


def machine_memory_gb() -> float | None:
    """Return the physical memory of this machine in GB (None where it is unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (AttributeError, ValueError, OSError):
        return None


def state_gb(spec, n_features: int, params: dict) -> float:
    """Return a lower bound of the GB a fresh state of ``spec`` takes at ``n_features``.

    Read from the declared layout of the family's state (:mod:`aucopt._kernels._state`),
    without allocating: every field with its dimensions (``d`` is ``n_features``; a named
    size that ``params`` does not give counts 1, a data-shaped one 0), plus the
    estimator's class sums (2 x d).
    """
    total = 8.0 * (2 * n_features + 3)
    for state_type in spec.state[:1]:
        for lay in layout(state_type).values():
            size = float(lay.dtype.itemsize)
            for dim in lay.dims:
                if isinstance(dim, int):
                    size *= dim
                elif dim == "d":
                    size *= n_features
                elif dim == "*":
                    size = 0.0
                elif isinstance(params.get(dim), int):
                    size *= params[dim]
            total += size
    return total / 1e9


def check_width(spec, n_features: int, params: dict) -> None:
    """Raise ValueError if the state for ``n_features`` columns cannot fit in memory.

    Run before a new state (and anything else of size O(d)) is allocated, so that a
    width such as 10^12 columns (a hashing width, ``--n-features``, a huge feature
    index) gives a clear error instead of numpy's ``MemoryError`` or swapping. The
    limit is ``params["max_memory_gb"]`` where the algorithm declares it, else the
    machine's physical memory.

    Parameters
    ----------
    spec : AlgorithmSpec
    n_features : int
    params : dict
        Estimator hyperparameters.
    """
    if n_features < _CHECKED_WIDTH:
        return
    need = state_gb(spec, n_features, params)
    if "max_memory_gb" in params:
        limit, what = float(params["max_memory_gb"]), f"max_memory_gb={params['max_memory_gb']:g}"
    else:
        limit = machine_memory_gb()
        what = f"the {limit:.3g} GB of memory of this machine"
        if limit is None:
            return
    if need > limit:
        raise ValueError(
            f"{spec.name} would need at least {need:.3g} GB for its state at n_features="
            f"{n_features}, more than {what}. Reduce the number of features first (e.g. "
            "hash them into 2**20 columns: sklearn.feature_extraction.FeatureHasher, or "
            "River's AUCClassifier(n_features=2**20)), or check the width (a feature index "
            "far beyond the others sets it).")
