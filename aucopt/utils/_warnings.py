"""Warnings silenced or recorded by aucopt's own calls, one such call at a time.

:class:`warnings.catch_warnings` saves the process-wide list of warning filters on entry
and puts it back on exit. Two threads inside it at once (models loaded, warmed up or
fitted from a thread pool) can each put back the list the other one changed, which left
an "ignore every warning" filter in place for good in 3 of 8 runs of two concurrent
``aucopt.warmup`` calls. aucopt's short silenced or recorded sections take one lock, so
that they never interleave; warnings raised by other threads meanwhile follow the
section's filter, as with any use of ``catch_warnings``.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from contextlib import contextmanager

__all__ = ["ignored_warnings", "recorded_warnings", "warn_external"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # aucopt/

_LOCK = threading.RLock()  # (re-entrant: a silenced section may call another)


@contextmanager
def ignored_warnings():
    """Run the block with every warning ignored."""
    with _LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@contextmanager
def recorded_warnings():
    """Run the block recording every warning (each occurrence) into the list it yields."""
    with _LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def warn_external(message, category=UserWarning) -> None:
    """Warn at the line that called into aucopt (the caller of its outermost frame on the
    stack: the user's line), however deep in aucopt, or in a library it calls back from
    (scipy's optimisers), the warning is raised; a fixed ``stacklevel`` pointed at aucopt's
    own lines whenever the call came through another of its layers."""
    frame, level, outside = sys._getframe(1), 2, 2
    while frame is not None:
        if frame.f_code.co_filename.startswith(_PACKAGE):
            outside = level + 1
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=outside)
