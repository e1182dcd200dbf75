"""Global configuration: ``get_config``, ``set_config`` and ``config_context`` (as in sklearn).

Keys
----
fastmath : bool, default=False
    Run the kernels that have a fast variant compiled with
    ``fastmath={'reassoc', 'contract'}`` (:mod:`aucopt._kernels._variants`).
    Sums are then reassociated, so results change in the last bits and are no
    longer bit-for-bit reproducible across machines; NaN and inf keep their
    meaning. Default off.
data_home : str or None, default=None
    Dataset cache directory; None means ``$AUCOPT_DATA`` or ``~/.cache/aucopt``.

The settings are thread-local: a ``config_context`` in one thread does not
change another thread's settings.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path

__all__ = ["get_config", "set_config", "config_context", "cache_home"]

_DEFAULTS = {"fastmath": False, "data_home": None}
_local = threading.local()


def _settings() -> dict:
    if not hasattr(_local, "settings"):
        _local.settings = dict(_DEFAULTS)
    return _local.settings


def get_config() -> dict:
    """Return a copy of the current settings.

    Returns
    -------
    dict
        Keys ``fastmath`` and ``data_home``.
    """
    return dict(_settings())


def set_config(*, fastmath: bool | None = None, data_home: str | None = None) -> None:
    """Change settings for the current thread; None leaves a setting unchanged.

    Parameters
    ----------
    fastmath : bool, optional
        Use the fastmath kernel variants.
    data_home : str, optional
        Dataset cache directory.
    """
    settings = _settings()
    if fastmath is not None:
        if not isinstance(fastmath, bool):
            raise TypeError(f"fastmath must be True or False, got {fastmath!r}.")
        settings["fastmath"] = fastmath
    if data_home is not None:
        settings["data_home"] = str(data_home)


def cache_home(data_home=None) -> Path:
    """Return aucopt's cache directory (not created): ``data_home`` if given, else the
    ``data_home`` setting, else ``$AUCOPT_DATA``, else ``~/.cache/aucopt``.

    Parameters
    ----------
    data_home : str or Path, optional
        Explicit directory.

    Returns
    -------
    Path
    """
    raw = data_home if data_home is not None else get_config()["data_home"]
    raw = raw if raw is not None else os.environ.get("AUCOPT_DATA")
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / "aucopt"


@contextmanager
def config_context(**changes):
    """Context manager that applies :func:`set_config` and restores the settings on exit.

    Parameters
    ----------
    **changes
        As for :func:`set_config`.

    Examples
    --------
    >>> import aucopt
    >>> with aucopt.config_context(fastmath=True):
    ...     aucopt.get_config()["fastmath"]
    True
    >>> aucopt.get_config()["fastmath"]
    False
    """
    unknown = set(changes) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"Unknown config keys {sorted(unknown)}; known: {sorted(_DEFAULTS)}.")
    saved = get_config()
    set_config(**changes)
    try:
        yield
    finally:
        _settings().clear()
        _settings().update(saved)
