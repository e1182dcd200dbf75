"""A stable 64-bit hash of feature names, many at once (River's hashed feature columns).

FNV-1a over the bytes of each name (Fowler, Noll and Vo), followed by the finaliser of
SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) so that every bit of the result depends on
every byte: the column is the hash modulo the number of columns, often a power of two,
which would otherwise see only FNV's weaker low bits. The same bytes give the same
hash in every process and on every platform.
"""

import numpy as np
from numba import njit, uint64

__all__ = ["hash_names", "hashed_plan", "hashed_plan_joined"]

_OFFSET = uint64(0xCBF29CE484222325)
_PRIME = uint64(0x100000001B3)


@njit(cache=True, nogil=True, inline="always")
def _hash_bytes(buf, start, end):
    """FNV-1a of ``buf[start:end]``, then SplitMix64's finaliser."""
    h = _OFFSET
    for k in range(start, end):
        h = (h ^ uint64(buf[k])) * _PRIME
    h = (h ^ (h >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> uint64(27))) * uint64(0x94D049BB133111EB)
    return h ^ (h >> uint64(31))


@njit(cache=True, nogil=True)
def hash_names(buf, ends, out):
    """Hash the names ``buf[ends[i-1]:ends[i]]`` into ``out[i]`` (uint64).

    Parameters
    ----------
    buf : ndarray of uint8
        The names' bytes, one after another.
    ends : ndarray of int64
        The end of each name in ``buf``.
    out : ndarray of uint64
        The hashes, written.
    """
    start = 0
    for i in range(ends.shape[0]):
        out[i] = _hash_bytes(buf, start, ends[i])
        start = ends[i]


@njit(cache=True, nogil=True)
def hashed_plan(buf, ends, width, cols, order, inverse):
    """Map one row's names to hashed columns: ``(columns used, in name order?)``.

    Name ``i`` (``buf[ends[i-1]:ends[i]]``) goes to column ``hash % width``. Writes
    ``cols[:k]``, the distinct columns in increasing order; ``order``, the names by
    column (a stable sort, so colliding names keep their order); ``inverse[j]``, the
    position in ``cols[:k]`` of the ``j``-th name of ``order``. Returns ``k`` and
    whether ``order`` is the identity.

    Parameters
    ----------
    buf, ends : ndarray of uint8, ndarray of int64
        The names' bytes, as :func:`hash_names` takes them.
    width : int
        Number of columns (> 0).
    cols : ndarray of int32 or int64
    order, inverse : ndarray of int64
        Outputs, one entry per name.
    """
    n = ends.shape[0]
    mapped = np.empty(n, np.int64)
    start = 0
    for i in range(n):
        mapped[i] = np.int64(_hash_bytes(buf, start, ends[i]) % uint64(width))
        start = ends[i]
    return _group(mapped, cols, order, inverse)


@njit(cache=True, nogil=True)
def hashed_plan_joined(buf, n, width, cols, order, inverse):
    """:func:`hashed_plan` of ``n`` names given as their bytes joined by zero bytes (no
    name holds one: UTF-8 has a zero byte only for the character U+0000).

    Returns ``(-1, False)`` with nothing written if ``buf`` does not hold ``n`` names.
    """
    mapped = np.empty(n, np.int64)
    start = 0
    i = 0
    size = buf.shape[0]
    for k in range(size + 1):
        if k == size or buf[k] == 0:
            if i == n:
                return -1, False
            mapped[i] = np.int64(_hash_bytes(buf, start, k) % uint64(width))
            i += 1
            start = k + 1
    if i != n:
        return -1, False
    return _group(mapped, cols, order, inverse)


@njit(cache=True, nogil=True, inline="always")
def _group(mapped, cols, order, inverse):
    """Sort the names by column (stable) and write ``cols``, ``order``, ``inverse`` of
    :func:`hashed_plan`; return ``(k, identity)``."""
    n = mapped.shape[0]
    by_column = np.argsort(mapped, kind="mergesort")
    k = 0
    identity = True
    for j in range(n):
        i = by_column[j]
        order[j] = i
        identity = identity and i == j
        if k == 0 or mapped[i] != cols[k - 1]:
            cols[k] = mapped[i]
            k += 1
        inverse[j] = k - 1
    return k, identity
