"""The time budget of ``fit``: ``max_time`` (seconds), checked between blocks of rows,
passes and rounds.

Every iterative estimator declares ``max_time`` once, through
:func:`aucopt.algorithms._params.common`. The estimator runs a pass over many rows in
blocks (:func:`run_pass`) and checks it between them and between passes; the batch
solvers that run ``max_iter`` themselves (cutting planes, stages, conjugate gradients,
pair-sampling rounds, coordinate-descent sweeps) check it between their outer iterations.
When the budget is spent the solver stops after the block or iteration in progress, keeps
the model it has (as usable as one stopped by ``max_iter``; stopped inside a pass, its
weights are those of the rows before that point, its data statistics, and so its
intercept, those of all the rows of the call) and warns with a
:class:`sklearn.exceptions.ConvergenceWarning`; it never raises for lack of time. Without
``max_time``, and whenever it is not spent, the results are those of an unlimited run bit
for bit.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import time

from .._kernels._checks import OK
from ..utils._warnings import warn_external

__all__ = ["Deadline", "deadline_of", "budget", "call_name", "within_budget", "run_pass",
           "FIRST_BLOCK", "BLOCK_SECONDS"]

FIRST_BLOCK = 1024  # rows of the first block of a pass under max_time, and the fewest
BLOCK_SECONDS = 0.1  # later blocks are sized to take about this long (at most 4x the last)


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
            if self.what.endswith("partial_fit"):  # a chunk of a stream
                message = (f"{self.what} stopped after max_time={self.seconds:g} s inside its "
                           "chunk: the model learnt the rows before that point, and no later "
                           "call learns the others. Raise max_time (or None) to learn whole "
                           "chunks.")
            else:
                message = (f"{self.what} stopped after max_time={self.seconds:g} s, before "
                           "max_iter or its tolerance: the model is the one reached so far. "
                           "Raise max_time (or None) to let it finish.")
            # imported here: the registry (``aucopt algorithms``) does not load scikit-learn
            from sklearn.exceptions import ConvergenceWarning

            warn_external(message, ConvergenceWarning)
        return True


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("aucopt_deadline",
                                                                           default=None)


def deadline_of(params: dict, what: str = "fit") -> Deadline:
    """Return the :class:`Deadline` of ``params["max_time"]`` (no limit if absent or None):
    the one of the estimator call in progress (:func:`within_budget`), so that its step
    calibration, passes and solver rounds share one budget, else a new one."""
    current = _CURRENT.get()
    if current is not None and current.seconds == params.get("max_time"):
        return current
    return Deadline(params.get("max_time"), what)


@contextlib.contextmanager
def budget(seconds: float | None, what: str):
    """Run the block under one :class:`Deadline` of ``seconds`` (None: no limit), which
    every :func:`deadline_of` inside returns."""
    if seconds is None:
        yield
        return
    token = _CURRENT.set(Deadline(seconds, what))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def call_name(estimator, stream) -> str:
    """``"Name.fit"`` or, for a chunk of a stream, ``"Name.partial_fit"`` (the warning's
    subject)."""
    return f"{type(estimator).__name__}.{'partial_fit' if stream else 'fit'}"


def within_budget(method):
    """Decorate an estimator's ``_fit_rows``: one :class:`Deadline` of its ``max_time`` for
    everything the call runs (each :func:`deadline_of` inside returns it)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with budget(self._params().get("max_time"), call_name(self, kwargs.get("stream"))):
            return method(self, *args, **kwargs)
    return wrapper


def run_pass(spec, state, rows, y, order, params, t, learn, rng, deadline: Deadline,
             hook: dict) -> tuple[int, int, bool]:
    """Run one pass of ``spec.run`` over ``order``; return ``(t, status, stopped)``.

    Without a budget (``deadline.end`` None) this is one call of ``spec.run``. With one,
    the pass of a spec with ``exact_blocks`` (whose ``run`` is one pass: ``epochs_by_base``)
    runs in blocks of rows, in order, with the
    deadline checked between them (never before the first): its ``run`` over consecutive
    parts of ``order`` is the ``run`` over all of it bit for bit, so the result is that of
    one call whenever the budget is not spent. ``stopped``: the budget ran out inside the
    pass (the rows before that point learned).
    """
    n = order.shape[0]
    # (a spec whose run is the whole solver, not a pass, checks the deadline itself: run in
    # blocks it would be solved again on each block)
    if (deadline.end is None or not spec.exact_blocks or not spec.epochs_by_base
            or n <= FIRST_BLOCK):
        t, status = spec.run(state, rows, y, order, params, t, learn, rng, **hook)
        return t, status, False
    start, size = 0, FIRST_BLOCK
    while start < n:
        if start and deadline.passed():
            return t, OK, True
        stop = min(n, start + size)
        began = time.perf_counter()
        t, status = spec.run(state, rows, y, order[start:stop], params, t, learn, rng,
                             **hook)
        if status != OK:
            return t, status, False
        elapsed = time.perf_counter() - began
        size = max(FIRST_BLOCK, int(size * min(4.0, BLOCK_SECONDS / max(elapsed, 1e-9))))
        start = stop
    return t, OK, False
