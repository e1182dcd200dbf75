"""Copies of state entries around one streaming row (:mod:`aucopt.algorithms._rowpath`).

The row path's transaction (:mod:`aucopt._kernels.row_step`) saves the writable entries
it does not leave to the kernel as bytes; a kernel whose step writes a few float64
entries of O(D) values whole (AOGD's weights, means and representatives, KOIL's
coefficients) copies them itself into a float64 scratch before the step and back when
the step stops (``RowStep.own``). Both copy with :func:`copy_values`.
"""

from numba import njit

__all__ = ["copy_values", "keep_whole"]


@njit(inline="always")
def copy_values(source, target):
    """``target[:] = source`` (1-D, same length) as a loop on the two views, which the
    compiler vectorises (a copy into one buffer at a running offset inside a loop over
    several entries was not: about 1 ns per byte)."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@njit(inline="always")
def keep_whole(entries, kept, back):
    """Copy the 1-D float64 arrays ``entries`` one after another into ``kept`` (at least
    their total length), or back from it into them if ``back``."""
    at = 0
    for a in entries:
        n = a.shape[0]
        if back:
            copy_values(kept[at:at + n], a)
        else:
            copy_values(a, kept[at:at + n])
        at += n
