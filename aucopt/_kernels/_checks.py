"""Divergence detection shared by all iterative kernels, and the scaling of weight sums.

A kernel returns ``OK`` or ``DIVERGED``; the Python layer turns ``DIVERGED``
into an error that names the step-size parameter to lower.
"""

import numpy as np
from numba import njit

__all__ = ["OK", "DIVERGED", "EXPLODE_LIMIT", "TINY_SQNORM", "OUTLIER_RATIO", "exploding",
           "unit_power"]

OK = 0
DIVERGED = 1

# A centred score or gradient coefficient beyond this size cannot come from a
# square-loss AUC objective whose targets are margins of 1: the iterate blew up.
EXPLODE_LIMIT = 1e12

# A preconditioned stream refuses a row whose squared norm is beyond this multiple of the
# largest of the rows before it (a norm 10^6 times theirs, as a unit error or a glitching
# sensor gives): let in, it dominated the class statistics and the buffered batches, and
# every later row of the stream diverged (FSAUC, the partial-AUC ids on one-row streams
# without a row bound).
OUTLIER_RATIO = 1e12

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


@njit(cache=True, nogil=True)
def unit_power(total):
    """Return the power of two ``f`` that brings the positive ``total`` into [1, 2).

    A weighted pair mean ``sum_ij w_i w_j L_ij / (W_+ W_-)`` computed with each class's
    weights times its ``f`` (and its sum with them) gives the same bits, as products
    and quotients by powers of two are exact, while ``w_i w_j`` and ``W_+ W_-`` stay
    normal numbers whatever the weights' common scale (beyond 1e154 they overflowed,
    below 1e-154 they vanished).

    Parameters
    ----------
    total : float
        A sum of positive weights.

    Returns
    -------
    float
    """
    return 2.0 ** -np.floor(np.log2(total))
