"""A stable 64-bit hash of feature names, many at once (River's hashed feature columns).

FNV-1a over the bytes of each name (Fowler, Noll and Vo), followed by the finaliser of
SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) so that every bit of the result depends on
every byte: the column is the hash modulo the number of columns, often a power of two,
which would otherwise see only FNV's weaker low bits. The same bytes give the same
hash in every process and on every platform.
"""

from numba import njit, uint64

__all__ = ["hash_names"]

_OFFSET = uint64(0xCBF29CE484222325)
_PRIME = uint64(0x100000001B3)


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
        h = _OFFSET
        for k in range(start, ends[i]):
            h = (h ^ uint64(buf[k])) * _PRIME
        h = (h ^ (h >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> uint64(27))) * uint64(0x94D049BB133111EB)
        out[i] = h ^ (h >> uint64(31))
        start = ends[i]
