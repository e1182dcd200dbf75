"""Stable 64-bit hashes of feature names (River's hashed columns), many in one call."""

from __future__ import annotations

import numpy as np

from .._kernels.hash_rows import hash_names, hashed_plan, hashed_plan_joined

__all__ = ["stable_hashes", "hashed_row_plan"]

_STRINGS = {str}
# the buffer of names that are all empty: read-only like any np.frombuffer of bytes, so the
# kernels see one array type
_ONE_BYTE = np.frombuffer(b"\0", dtype=np.uint8)


def _name_bytes(name) -> bytes:
    """The bytes a name is hashed by: UTF-8 of a string (lone surrogates, as
    ``surrogateescape`` decoding leaves them, kept as they are), else its type and
    ``repr``; a NumPy scalar, also within a tuple, as the Python one it equals
    (``np.int64(3)`` and ``3``, keys of one dict entry, fell into different columns; their
    ``repr`` changed with NumPy 2)."""
    name = _plain(name)
    return name.encode("utf-8", "surrogatepass") if isinstance(name, str) else (
        f"{type(name).__name__}:{name!r}".encode("utf-8", "surrogatepass"))


def _plain(name):
    """``name`` with its NumPy scalars, within tuples too, as the Python ones they equal
    (``("city", np.int64(3))`` is the key ``("city", 3)`` of a dict)."""
    if isinstance(name, np.generic):
        return name.item()
    if type(name) is tuple:
        return tuple(map(_plain, name))
    return name


def stable_hashes(names) -> np.ndarray:
    """Return a 64-bit hash of each feature name, the same in every process (uint64).

    Python's ``hash`` of a string is salted per process (``PYTHONHASHSEED``), so a
    hashed model would not survive a restart; this hash of the name's bytes
    (:func:`aucopt._kernels.hash_rows.hash_names`: FNV-1a with a SplitMix64 finaliser,
    one compiled call for all the names) does. Names that are not strings hash through
    their type and ``repr`` (NumPy scalars as the Python ones they equal).

    Parameters
    ----------
    names : sequence of hashable

    Returns
    -------
    ndarray of uint64
    """
    buf, ends = _name_buffer(names)
    out = np.empty(ends.size, dtype=np.uint64)
    if ends.size:
        hash_names(buf, ends, out)
    return out


def _name_buffer(names):
    """Return the names' bytes one after another (uint8) and the end of each (int64)."""
    if set(map(type, names)) <= _STRINGS:  # the common case, without a call per name
        raws = [name.encode("utf-8", "surrogatepass") for name in names]
    else:
        raws = [_name_bytes(name) for name in names]
    ends = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws)).cumsum()
    buf = np.frombuffer(b"".join(raws), dtype=np.uint8)
    return (buf if buf.size else _ONE_BYTE), ends


def hashed_row_plan(names, width: int, index_type):
    """Return how one row's names fall into ``width`` hashed columns, in one compiled call.

    Name ``i`` goes to column ``stable_hashes(names)[i] % width``.

    Parameters
    ----------
    names : sequence of hashable
        The row's feature names (distinct).
    width : int
        Number of columns.
    index_type : numpy integer type
        Type of the returned columns (the CSR index type of the rows).

    Returns
    -------
    cols : ndarray of ``index_type``
        The distinct columns, increasing.
    order : ndarray of int64 or None
        The names by column, stable (None: already in that order).
    inverse : ndarray of int64 or None
        For the ``j``-th name of ``order``, its position in ``cols`` (None: no two names
        share a column).
    """
    n = len(names)
    cols = np.empty(n, dtype=index_type)
    order, inverse = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    k, identity = _joined_plan(names, width, cols, order, inverse) if n else (0, True)
    if k < 0:  # names that are not all strings, or hold a zero character
        buf, ends = _name_buffer(names)
        k, identity = hashed_plan(buf, ends, width, cols, order, inverse)
    return cols[:k], (None if identity else order), (None if k == n else inverse)


def _joined_plan(names, width, cols, order, inverse):
    """:func:`hashed_plan_joined` on the names' UTF-8 bytes joined by zero bytes, one
    encoding for the whole row; ``(-1, False)`` for names it cannot take."""
    try:
        joined = "\0".join(names)  # TypeError: a name that is not a string
        raw = joined.encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return -1, False
    return hashed_plan_joined(np.frombuffer(raw, dtype=np.uint8), len(names), width, cols,
                              order, inverse)
