"""The one-row path of a stream: a spec's fused row kernel, called with little Python.

Row-by-row learning (River's ``learn_one``) spends most of its time around the kernels:
checks, an undo log, several kernel calls, and numba's dispatch, which types every
argument on every call (named tuples of arrays are typed in Python). A spec with a
``row_kernel`` offers one compiled function that does the whole update of a row, saving
and restoring what it touches itself when it cannot finish (e.g.
:mod:`aucopt._kernels.spam_row`). :class:`RowPath` binds the arguments that stay the
same from row to row and calls the compiled function numba chose for them directly,
once numba has dispatched one call with the same argument types.
"""

from __future__ import annotations

from functools import partial

__all__ = ["RowPath", "row_path"]


def row_path(spec, state: dict, params: dict, valid_for: dict) -> RowPath | None:
    """Return the row path of ``state`` under ``params`` (None: the general path only).

    Parameters
    ----------
    spec : AlgorithmSpec
    state : dict
        The committed state; the path holds its arrays, so it is valid only while
        the state keeps them (the estimator drops it after any general call).
    params : dict
        The hyperparameters of the update, with a calibrated step already in place.
    valid_for : dict
        The estimator's dict of hyperparameters the path is valid for (its ``params``
        attribute: a new dict means new values).

    Returns
    -------
    RowPath or None
    """
    if spec.row_kernel is None:
        return None
    found = spec.row_kernel(state, params)
    return None if found is None else RowPath(state, valid_for, *found)


class RowPath:
    """A fused row kernel with its fixed arguments: ``path(data, indices, indptr, y, t)``.

    Returns ``(t, status)``: the updates done and ``OK``, or a status meaning that the
    state is as it was and the general path must learn the row.
    """

    __slots__ = ("state", "params", "kernel", "fixed", "held", "entry", "index_type")

    def __init__(self, state, params, kernel, fixed, held=()):
        self.state, self.params = state, params
        self.kernel, self.fixed, self.held = kernel, fixed, held  # held: arrays bound by address
        self.entry = self.index_type = None

    def __call__(self, data, indices, indptr, y, t):
        """Learn the one-row CSR chunk ``(data, indices, indptr)`` with signed label ``y``.

        The arrays must be C-ordered, ``data`` and ``y`` float64, ``indices`` and
        ``indptr`` of one integer type (as :class:`aucopt.river._columns.ColumnMap`
        makes them): the compiled function does not check the types of its arguments,
        so it is only called with the index type numba typed.
        """
        if indices.dtype is self.index_type:
            return self.entry(data, indices, indptr, y, t)
        args = (*self.fixed, data, indices, indptr, y, t)
        result = self.kernel(*args)  # numba types the arguments (and compiles if needed)
        self.entry = partial(compiled_entry(self.kernel, args), *self.fixed)
        self.index_type = indices.dtype
        return result


def compiled_entry(kernel, args):
    """Return the compiled function ``kernel`` chose for ``args`` (``kernel`` without numba).

    Calling it skips numba's typing of the arguments; it is only valid for arguments
    of exactly these types.
    """
    overloads = getattr(kernel, "overloads", None)
    if overloads is None:  # NUMBA_DISABLE_JIT=1: a plain function
        return kernel
    found = overloads.get(tuple(kernel.typeof_pyval(a) for a in args))
    return kernel if found is None else found.entry_point
