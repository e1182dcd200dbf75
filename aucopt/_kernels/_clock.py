"""A clock for compiled loops that honour ``max_time`` between their outer iterations.

A deadline is a ``time.perf_counter()`` value (:class:`aucopt.algorithms._time_budget.Deadline`
``.end``), ``inf`` for none; reading the clock leaves nopython mode for a moment, so
loops read it once per outer iteration (microseconds against iterations of milliseconds).
"""

import math
import time

from numba import njit, objmode

__all__ = ["NO_DEADLINE", "past"]

NO_DEADLINE = math.inf


@njit(cache=True)  # the clock needs the GIL for a moment (object mode)
def past(end):
    """Return True once ``time.perf_counter() >= end`` (never, and no clock read, for inf)."""
    if end == NO_DEADLINE:
        return False
    with objmode(now="float64"):
        now = time.perf_counter()
    return now >= end
