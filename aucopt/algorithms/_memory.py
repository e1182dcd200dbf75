"""The memory guard of every state that a hyperparameter (or the data) can make large."""

from __future__ import annotations

__all__ = ["check_memory"]


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
