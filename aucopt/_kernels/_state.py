"""Typed kernel state: each family declares its arrays once, beside its kernel.

A family's state is a ``typing.NamedTuple`` whose fields are annotated with their
dtype and shape::

    class SpamState(NamedTuple):
        w: F64[D]              # last iterate
        dots: F64[2]
        n_warmup: I64[1]

A dimension is an int, ``D`` (the number of features), ``Dim("<name>")`` (the
value of that hyperparameter), or ``ANY`` (it depends on the data seen: stored
rows, buffers that widen; such fields start empty). The kernels take the tuple
(numba passes named tuples of arrays by reference), so they name what they read
instead of taking twenty positional arrays. The estimators keep the state as a
dict of the same arrays (what :mod:`aucopt.io` saves); :func:`view` gives the
kernel's tuple of a dict, :func:`zeros` a fresh dict, and :func:`layout` the
declared dtypes and shapes that :func:`aucopt.io.load` checks.
"""

from typing import Annotated, NamedTuple, get_type_hints

import numpy as np

__all__ = ["F64", "I64", "SIGNED_I64", "BOOL", "D", "ANY", "Dim", "Layout", "layout", "zeros",
           "view", "data_shaped", "signed"]


class Dim(str):
    """A named dimension: ``D`` (features), ``ANY`` (data-shaped) or a hyperparameter's name."""


D = Dim("d")
ANY = Dim("*")


class Layout(NamedTuple):
    """Declared dtype and shape of one state array."""

    dtype: np.dtype
    dims: tuple
    signed: bool


class _Kind:
    """``F64["d"]``: the annotation of a float64 array of shape ``(d,)``."""

    def __init__(self, dtype, signed=False):
        self.dtype, self.signed = np.dtype(dtype), signed

    def __getitem__(self, dims):
        dims = dims if isinstance(dims, tuple) else (dims,)
        return Annotated[np.ndarray, Layout(self.dtype, dims, self.signed)]


F64 = _Kind(np.float64)
I64 = _Kind(np.int64)
SIGNED_I64 = _Kind(np.int64, signed=True)  # integer entries that may be negative (markers)
BOOL = _Kind(np.bool_)  # flags (occupied slots, active basis points)

_LAYOUTS: dict = {}


def layout(state_type) -> dict:
    """Return ``{field: Layout}`` of a state type, in field order."""
    found = _LAYOUTS.get(state_type)
    if found is None:
        hints = get_type_hints(state_type, include_extras=True)
        found = {name: hints[name].__metadata__[0] for name in state_type._fields}
        _LAYOUTS[state_type] = found
    return found


def _shape(dims, n_features, params, sizes):
    out = []
    for dim in dims:
        if isinstance(dim, int):
            out.append(dim)
        elif dim == "d":
            out.append(n_features)
        elif dim == "*":
            out.append(0)
        elif dim in sizes:
            out.append(int(sizes[dim]))
        else:
            out.append(int(params[dim]))
    return tuple(out)


def zeros(state_type, n_features: int, params: dict | None = None, **sizes) -> dict:
    """Return a fresh state: one zero array per field, shaped as declared.

    Parameters
    ----------
    state_type : NamedTuple type
        The family's state declaration.
    n_features : int
        ``d``.
    params : dict, optional
        Hyperparameter values, for dimensions named after a hyperparameter.
    **sizes : int
        Values of other named dimensions (they take precedence over ``params``).

    Returns
    -------
    dict of str to ndarray
    """
    params = params or {}
    return {name: np.zeros(_shape(lay.dims, n_features, params, sizes), dtype=lay.dtype)
            for name, lay in layout(state_type).items()}


def view(state_type, state: dict):
    """Return the kernel's named tuple of the arrays of ``state`` (no copy)."""
    return state_type._make([state[name] for name in state_type._fields])


def data_shaped(state_type) -> tuple:
    """Return the fields whose shape depends on the data (a ``"*"`` dimension)."""
    return tuple(name for name, lay in layout(state_type).items() if "*" in lay.dims)


def signed(state_type) -> tuple:
    """Return the integer fields that may hold negative values."""
    return tuple(name for name, lay in layout(state_type).items() if lay.signed)
