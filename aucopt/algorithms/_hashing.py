"""Stable 64-bit hashes of feature names (River's hashed columns), many in one call."""

from __future__ import annotations

import numpy as np

from .._kernels.hash_rows import hash_names

__all__ = ["stable_hashes"]


def _name_bytes(name) -> bytes:
    """The bytes a name is hashed by: UTF-8 of a string, else its type and ``repr``."""
    return name.encode("utf-8") if isinstance(name, str) else (
        f"{type(name).__name__}:{name!r}".encode())


def stable_hashes(names) -> np.ndarray:
    """Return a 64-bit hash of each feature name, the same in every process (uint64).

    Python's ``hash`` of a string is salted per process (``PYTHONHASHSEED``), so a
    hashed model would not survive a restart; this hash of the name's bytes
    (:func:`aucopt._kernels.hash_rows.hash_names`: FNV-1a with a SplitMix64 finaliser,
    one compiled call for all the names) does. Names that are not strings hash through
    their type and ``repr``.

    Parameters
    ----------
    names : sequence of hashable

    Returns
    -------
    ndarray of uint64
    """
    raws = [_name_bytes(name) for name in names]
    out = np.empty(len(raws), dtype=np.uint64)
    if raws:
        buf = np.frombuffer(b"".join(raws), dtype=np.uint8)
        ends = np.cumsum([len(raw) for raw in raws], dtype=np.int64)
        hash_names(buf if buf.size else np.zeros(0, np.uint8), ends, out)
    return out
