"""The time budget of ``fit``: ``max_time`` (seconds), checked between passes and rounds.

Every iterative estimator declares ``max_time`` once, through
:func:`aucopt.algorithms._params.common`. The estimator checks it between passes, and the
batch solvers that run ``max_iter`` themselves (cutting planes, stages, conjugate
gradients, greedy basis selection) check it between their outer iterations. When the
budget is spent the solver stops after the iteration in progress, keeps the model it has
(as usable as one stopped by ``max_iter``) and warns with a
:class:`sklearn.exceptions.ConvergenceWarning`; it never raises for lack of time.
"""

from __future__ import annotations

import logging
import time
import warnings

from sklearn.exceptions import ConvergenceWarning

__all__ = ["Deadline", "deadline_of"]

logger = logging.getLogger(__name__)


class Deadline:
    """A point in time after which a solver stops between two iterations.

    Parameters
    ----------
    seconds : float or None
        The budget from now; None: no limit (:meth:`passed` is always False).
    what : str
        Who runs under it, for the warning (e.g. ``"SVMPerf.fit"``).
    """

    __slots__ = ("seconds", "end", "what", "warned")

    def __init__(self, seconds: float | None, what: str = "fit"):
        self.seconds = seconds
        self.end = None if seconds is None else time.perf_counter() + float(seconds)
        self.what = what
        self.warned = False

    def passed(self) -> bool:
        """Return True (once the budget is spent) and warn the first time."""
        if self.end is None or time.perf_counter() < self.end:
            return False
        if not self.warned:
            self.warned = True
            message = (f"{self.what} stopped after max_time={self.seconds:g} s, before "
                       "max_iter or its tolerance: the model is the one reached so far. Raise "
                       "max_time (or None) to let it finish.")
            logger.warning(message)
            warnings.warn(message, ConvergenceWarning, stacklevel=3)
        return True


def deadline_of(params: dict, what: str = "fit") -> Deadline:
    """Return the :class:`Deadline` of ``params["max_time"]`` (no limit if absent or None)."""
    return Deadline(params.get("max_time"), what)
