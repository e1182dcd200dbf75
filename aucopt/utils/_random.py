"""Turn ``random_state`` into the one ``numpy.random.Generator`` of an estimator."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["make_generator", "generator_state", "restore_generator", "BIT_GENERATORS"]


def make_generator(random_state) -> np.random.Generator:
    """Return a new Generator for ``random_state``.

    Parameters
    ----------
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        ``None``: fresh entropy; int: a fixed seed; RandomState: one draw from
        it seeds the Generator; Generator: a child spawned from it.

    Returns
    -------
    numpy.random.Generator
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return random_state.spawn(1)[0]
    raise TypeError(
        f"random_state must be None, an int, a RandomState or a Generator; got {random_state!r}."
    )


def generator_state(rng: np.random.Generator) -> dict:
    """Return the JSON-serialisable state of ``rng``'s bit generator."""
    return rng.bit_generator.state


# the only bit generators a saved state may name (never looked up by name on a module)
BIT_GENERATORS = {cls.__name__: cls for cls in (
    np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64)}


def restore_generator(state: dict) -> np.random.Generator:
    """Return a Generator whose bit generator has the saved ``state``.

    Parameters
    ----------
    state : dict
        As returned by :func:`generator_state`; its ``bit_generator`` must be one
        of :data:`BIT_GENERATORS` (NumPy's own bit generators).

    Raises
    ------
    ValueError
        For any other name or a state the bit generator rejects.
    """
    name = state.get("bit_generator") if isinstance(state, dict) else None
    cls = BIT_GENERATORS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"Unknown bit generator {name!r} in the random state; expected one "
                         f"of {sorted(BIT_GENERATORS)}.")
    bit_generator = cls()
    try:
        bit_generator.state = state
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise ValueError(f"Invalid {name} random state: {exc!r}.") from None
    return np.random.Generator(bit_generator)
