"""Divergence detection shared by all iterative kernels.

A kernel returns ``OK`` or ``DIVERGED``; the Python layer turns ``DIVERGED``
into an error that names the step-size parameter to lower.
"""

from numba import njit

__all__ = ["OK", "DIVERGED", "EXPLODE_LIMIT", "TINY_SQNORM", "exploding"]

OK = 0
DIVERGED = 1

# A centred score or gradient coefficient beyond this size cannot come from a
# square-loss AUC objective whose targets are margins of 1: the iterate blew up.
EXPLODE_LIMIT = 1e12

# Smallest largest-squared-row-norm a training set may have: below it (features below about
# 1e-125) products such as (w.x) x underflow float64 and the learners return constant scores.
TINY_SQNORM = 1e-250


@njit(cache=True, nogil=True)
def exploding(value):
    """Return True if ``value`` is NaN, infinite or larger than ``EXPLODE_LIMIT``.

    Parameters
    ----------
    value : float
        A scalar computed from the current iterate.

    Returns
    -------
    bool
    """
    return not (abs(value) <= EXPLODE_LIMIT)
