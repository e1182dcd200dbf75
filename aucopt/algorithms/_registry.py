"""The registry of algorithm specs, keyed by their fixed ids."""

from __future__ import annotations

import difflib

from ._spec import AlgorithmSpec

__all__ = ["register", "get_algorithm", "list_algorithms", "unknown_algorithm_message"]

_REGISTRY: dict[str, AlgorithmSpec] = {}


def register(spec: AlgorithmSpec) -> AlgorithmSpec:
    """Add ``spec`` to the registry and return it.

    Parameters
    ----------
    spec : AlgorithmSpec
        The algorithm to register; its id must be new.

    Returns
    -------
    AlgorithmSpec
    """
    if spec.id in _REGISTRY:
        raise ValueError(f"Algorithm id {spec.id!r} is already registered.")
    if spec.quick_grid_size() > 9:
        raise ValueError(
            f"quick_grid of {spec.id!r} has {spec.quick_grid_size()} > 9 combinations."
        )
    _REGISTRY[spec.id] = spec
    return spec


def unknown_algorithm_message(algorithm_id: object, others: tuple = ()) -> str:
    """Return the error message for an unknown id, with close matches (among the ids and
    the names ``others`` a caller accepts beside them, e.g. ``aucopt compare``'s baselines)."""
    known = sorted(_REGISTRY) + sorted(others)
    close = difflib.get_close_matches(str(algorithm_id), known, n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return (
        f"Unknown algorithm id {algorithm_id!r}.{hint} "
        f"Known ids: {', '.join(known)} (see aucopt.list_algorithms())."
    )


def get_algorithm(algorithm_id: str) -> AlgorithmSpec:
    """Return the spec registered under ``algorithm_id``.

    Parameters
    ----------
    algorithm_id : str
        A registry id such as ``"spam-l2"``.

    Returns
    -------
    AlgorithmSpec

    Raises
    ------
    ValueError
        If the id is unknown (the message lists the known ids).
    """
    try:
        return _REGISTRY[algorithm_id]
    except (KeyError, TypeError):
        raise ValueError(unknown_algorithm_message(algorithm_id)) from None


def list_algorithms() -> list[str]:
    """Return the registered ids in registration order.

    Returns
    -------
    list of str
    """
    return list(_REGISTRY)
