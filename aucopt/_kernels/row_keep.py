"""Entries a row kernel keeps itself (``RowStep.own``, :mod:`aucopt.algorithms._rowpath`).

The row path's transaction saves the writable entries it does not leave to the kernel as
bytes, one at a time; a kernel whose step writes a few float64 entries of O(D) values
whole (AOGD's weights, means and representatives, KOIL's coefficients) copies them
itself into a float64 scratch before the step and back when the step stops.
"""

from numba import njit

__all__ = ["keep_whole"]


@njit(inline="always")
def keep_whole(entries, kept, back):
    """Copy the 1-D float64 arrays ``entries`` one after another into ``kept`` (at least
    their total length), or back from it into them if ``back``."""
    at = 0
    for a in entries:
        n = a.shape[0]
        if back:
            a[:] = kept[at:at + n]
        else:
            kept[at:at + n] = a
        at += n
