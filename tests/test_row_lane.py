"""The row path's lane (aucopt._kernels.row_lane): one numba structure holding a fused
wrapper's arguments, which must own its arrays (none freed while it exists) and give the
compiled call the very arrays it was built from."""

import gc
import weakref

import numpy as np
import pytest
from numba import config, njit

from aucopt._kernels.row_lane import LaneFields, new_lane

_COMPILED = pytest.mark.skipif(config.DISABLE_JIT, reason="the structure exists with numba only")


@njit(cache=False)
def _write_through(lane, value):
    """Write ``value`` into the first statistic and the first head array; return their sums."""
    lane.stats[0][:] = value
    lane.head[0][:] = 2.0 * value
    return lane.stats[0].sum() + lane.head[0].sum() + lane.scale.shape[0] + lane.auto


def _lane(stats0, head0):
    return new_lane((stats0,), (np.zeros(1),), (head0, 3), (1.5,), (), np.zeros(1, np.int64),
                    np.zeros(0), np.zeros(1), np.zeros(1), True)


@_COMPILED
def test_the_lane_writes_into_the_arrays_it_was_built_from():
    stats0, head0 = np.zeros(4), np.zeros(3)
    lane = _lane(stats0, head0)
    assert _write_through(lane, 1.0) == 4.0 + 6.0 + 0 + 1
    np.testing.assert_array_equal(stats0, 1.0)
    np.testing.assert_array_equal(head0, 2.0)


@_COMPILED
def test_the_lane_keeps_its_arrays_alive_when_every_other_reference_is_gone():
    stats0, head0 = np.zeros(1000), np.zeros(1000)
    gone = weakref.ref(stats0)
    lane = _lane(stats0, head0)
    del stats0, head0
    gc.collect()
    assert gone() is not None  # numba's reference keeps the array
    for value in (3.0, 4.0):  # reading and writing it is still safe
        assert _write_through(lane, value) == 1000 * value * 3 + 1
    del lane
    gc.collect()
    assert gone() is None  # and lets it go with the lane


def test_without_numba_the_lane_is_a_named_tuple_the_same_code_reads(monkeypatch):
    monkeypatch.setattr(config, "DISABLE_JIT", True)  # read by new_lane on every call
    stats0, head0 = np.zeros(4), np.zeros(3)
    lane = _lane(stats0, head0)
    assert isinstance(lane, LaneFields)
    assert getattr(_write_through, "py_func", _write_through)(lane, 1.0) == 4.0 + 6.0 + 0 + 1
    np.testing.assert_array_equal(stats0, 1.0)
    np.testing.assert_array_equal(head0, 2.0)
