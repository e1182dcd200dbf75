"""Warnings of a command's parallel fits, shown once each in the command's process.

The fits of ``aucopt compare`` run in joblib workers, which print their warnings
themselves, every copy with its source line (a search of 40 fits printed one estimator's
warning 65 times and 13 tracebacks of ``FitFailedWarning``). Each fit records its
warnings instead (:func:`collecting`); the command then issues each kind once
(:func:`reissue`), as a log line of the command (``WARNING aucopt: Category: ...``).
"""

from __future__ import annotations

import re
import warnings
from collections import Counter

__all__ = ["collecting", "reissue"]

_NUMBER = re.compile(r"[-+]?\d[\d.]*(?:e[-+]?\d+)?")
_ERROR_LINE = re.compile(r"^[\w.]+(?:Error|Exception):")


def collecting(func, *args, **kwargs):
    """Return ``(func(*args, **kwargs), [(category, text), ...])``: the warnings it raised,
    each as its first line and, for a message that holds a traceback, the error ending it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, [(w.category, _summary(str(w.message))) for w in caught]


def reissue(caught) -> None:
    """Warn once per kind of the ``(category, text)`` pairs of :func:`collecting` (texts
    that differ only in their numbers are one kind: the first is shown, with the count)."""
    first, counts = {}, Counter()
    for category, text in caught:
        key = (category, _NUMBER.sub("#", text))
        first.setdefault(key, text)
        counts[key] += 1
    for key, text in first.items():
        times = counts[key]
        warnings.warn(text if times == 1 else f"{text} ({times} fits)", key[0], stacklevel=2)


def _summary(text: str) -> str:
    """The first line of a warning's text, and the last error line of a traceback in it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return text
    error = next((line for line in reversed(lines[1:]) if _ERROR_LINE.match(line)), None)
    return lines[0] if error is None else f"{lines[0]} ... {error}"
