"""Provenance line for generated reports: the commit that produced them and the date."""

from __future__ import annotations

import datetime as _dt
import subprocess
from pathlib import Path

__all__ = ["git_describe", "stamp"]

ROOT = Path(__file__).resolve().parents[1]


def git_describe() -> str:
    """Return ``git describe --always --dirty`` of the checkout, or ``"unknown"`` outside git."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                             capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


#: The checkout as the benchmark started (this module is imported at its start): a report
#: written in pieces (figures, JSON, then the page) would otherwise stamp itself "-dirty".
_AT_START = git_describe()


def stamp() -> str:
    """Return ``"aucopt <git describe>, <UTC date and time>"`` for the head of a report:
    the commit the benchmark started from, and the time of the call."""
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"aucopt {_AT_START}, {now}"
