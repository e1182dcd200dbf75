"""The arguments of a streaming row's compiled call, held in one numba structure.

A row learnt by :class:`aucopt.algorithms._rowpath.RowPath` calls a family's fused kernel
(:mod:`aucopt._kernels.fused_rows`) with the state's arrays. Passed as tuples, numba
unboxes every array of them on every call (about 3 us for the thirty-odd arrays of a
SPAM state, more than the step itself on twenty features). A :func:`new_lane` holds them
instead: a numba structure built once per binding of the step, which holds a reference to
each array (none can be freed while it exists) and crosses into compiled code as one
pointer. Without numba (``NUMBA_DISABLE_JIT=1``) it is a named tuple with the same fields.

Fields
------
stats : tuple of ndarray
    The data statistics ``(data_count, data_sum, data_sqmax)``.
undo : RowUndo
    What :func:`aucopt._kernels.row_step.begin_row` saves of the state, and where.
head, mid, tail : tuple
    The family kernel's bound arguments (``RowStep``).
order : ndarray of int64 of shape (1,)
    The order of a one-row chunk (``[0]``).
scale, shared, bound : ndarray of float64
    The preconditioner's per-feature scales, shared sparse scale and row bound
    (notes.md#preconditioning), used when the call is asked to scale the row; zeros
    (sizes 0, 1, 1) for a state without them.
auto : bool
    Whether new features get their scale from the row (``precondition="auto"``).
"""

from typing import Any, NamedTuple

import numpy as np
from numba import config, njit, types
from numba.core.extending import overload
from numba.experimental import structref

__all__ = ["LaneFields", "new_lane"]

FIELDS = ("stats", "undo", "head", "mid", "tail", "order", "scale", "shared", "bound", "auto")


class LaneFields(NamedTuple):
    """The lane without numba (``NUMBA_DISABLE_JIT=1``): the same fields."""

    stats: tuple
    undo: Any
    head: tuple
    mid: tuple
    tail: tuple
    order: np.ndarray
    scale: np.ndarray
    shared: np.ndarray
    bound: np.ndarray
    auto: bool


@structref.register
class RowLaneType(types.StructRef):
    """The numba type of a lane: one per combination of its fields' types."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class RowLane(structref.StructRefProxy):
    """A lane seen from Python: opaque (only compiled code reads its fields)."""


structref.define_boxing(RowLaneType, RowLane)


def _build(stats, undo, head, mid, tail, order, scale, shared, bound, auto):
    """Typed only through its overload (a lane of these arguments' types)."""
    raise NotImplementedError  # pragma: no cover - replaced by the overload when compiled


@overload(_build)
def _build_typed(stats, undo, head, mid, tail, order, scale, shared, bound, auto):
    lane_type = RowLaneType(list(zip(FIELDS, (stats, undo, head, mid, tail, order, scale,
                                               shared, bound, auto))))

    def build(stats, undo, head, mid, tail, order, scale, shared, bound, auto):
        lane = structref.new(lane_type)
        lane.stats, lane.undo, lane.head, lane.mid, lane.tail = stats, undo, head, mid, tail
        lane.order, lane.scale, lane.shared, lane.bound = order, scale, shared, bound
        lane.auto = auto
        return lane

    return build


@njit(cache=True)
def _new_lane(stats, undo, head, mid, tail, order, scale, shared, bound, auto):
    return _build(stats, undo, head, mid, tail, order, scale, shared, bound, auto)


def new_lane(stats, undo, head, mid, tail, order, scale, shared, bound, auto):
    """Return the lane holding these arguments (see the module's docstring for each).

    Returns
    -------
    RowLane or LaneFields
        A numba structure (a :class:`LaneFields` without numba).
    """
    if config.DISABLE_JIT:
        return LaneFields(stats, undo, head, mid, tail, order, scale, shared, bound, auto)
    return _new_lane(stats, undo, head, mid, tail, order, scale, shared, bound, bool(auto))
