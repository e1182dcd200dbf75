"""Turn ``random_state`` into the one ``numpy.random.Generator`` of an estimator."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["make_generator", "generator_state", "restore_generator"]


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


def restore_generator(state: dict) -> np.random.Generator:
    """Return a Generator whose bit generator has the saved ``state``."""
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)
