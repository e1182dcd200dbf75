"""FTRL-AUC kernel: FTRL-Proximal on the SOLAM/SPAM saddle formulation (O(nnz) per step).

B. Zhou, Y. Ying, S. Skiena, "Online AUC optimization for sparse
high-dimensional datasets", ICDM 2020 (arXiv:2009.10867).

For each sample ``z_t = (x, y)`` the stochastic gradient in ``w`` of the saddle
function ``F`` (notes.md#saddle-function) is taken at ``a = w.m+``, ``b = w.m-`` and
``alpha = b - a`` (the inner optimum, as in SPAM), which is ``G_t = g_t x`` with
the scalar ``g_t`` of :func:`aucopt._kernels.spam.spam_gradient_coef`: it is
non-zero only where ``x`` is. FTRL-Proximal (McMahan et al., KDD 2013) then
keeps per coordinate the sum ``z_j`` of the linearised losses and the sum
``n_j`` of the squared gradients, and

    w_j = 0                                                       if |z_j| <= lam1
    w_j = -(z_j - sign(z_j) lam1) / ((beta + sqrt(n_j)) / alpha + lam2)   otherwise.

``w_j`` depends on ``(z_j, n_j)`` only, and these change only where ``x`` is
non-zero, so a step touches the non-zero coordinates of its row and nothing
else. ``w.m+`` and ``w.m-`` are kept as dot products with the class sums,
updated by the coordinates that move and by the row added to its class.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._rows import _row_function
from ._state import F64, D
from .spam import spam_gradient_coef

__all__ = ["N_COLUMNS", "W", "FtrlAucState", "ftrl_auc_epoch", "ftrl_weight", "row_entry",
           "row_span"]

# Columns of the per-feature state: z, n, the current weight, and both class sums, interleaved
# so that a touched feature costs one cache line.
Z, N, W, SUM_NEG, SUM_POS = 0, 1, 2, 3, 4
N_COLUMNS = 5


class FtrlAucState(NamedTuple):
    """FTRL-AUC's state (:func:`ftrl_auc_epoch` takes its three arrays)."""

    pack: F64[D, N_COLUMNS]  # per feature: z, n, w, sum of the negatives, sum of the positives
    dots: F64[2]  # w . (sum of the negatives), w . (sum of the positives)
    run_count: F64[2]  # sample weight per class in the class sums (negatives first)


def _dense_span(data, indices, indptr, i):
    """Return the positions ``(lo, hi)`` of the stored entries of row ``i``."""
    return 0, data.shape[1]


def _csr_span(data, indices, indptr, i):
    return indptr[i], indptr[i + 1]


def _dense_entry(k, data, indices, indptr, i):
    """Return ``(j, x_ij)`` for the stored entry at position ``k`` of row ``i``."""
    return k, data[i, k]


def _csr_entry(k, data, indices, indptr, i):
    return indices[k], data[k]


row_span = _row_function(_dense_span, _csr_span)
row_entry = _row_function(_dense_entry, _csr_entry)


@njit(cache=True, nogil=True)
def ftrl_weight(z, n, hp):
    """Return the FTRL-Proximal weight of one coordinate from its ``z`` and ``n``.

    Parameters
    ----------
    z : float
        Sum of the linearised gradients of the coordinate.
    n : float
        Sum of its squared gradients.
    hp : FtrlAucHyper
        Named tuple ``(alpha, beta, lam1, lam2)`` (:data:`aucopt.algorithms.ftrl_auc.hyper`).

    Returns
    -------
    float
        0 when ``|z| <= lam1`` (exact zero), otherwise
        ``-(z - sign(z) lam1) / ((beta + sqrt(n))/alpha + lam2)``.
    """
    if abs(z) <= hp.lam1:
        return 0.0
    shrunk = z - hp.lam1 if z > 0.0 else z + hp.lam1
    return -shrunk / ((hp.beta + np.sqrt(n)) / hp.alpha + hp.lam2)


@njit(cache=True, nogil=True)
def ftrl_auc_epoch(pack, dots, counts, data, indices, indptr, y, order, hp, t, learn):
    """Run FTRL-AUC over the rows in ``order``; update the state in place.

    Parameters
    ----------
    pack : ndarray of shape (d, 5)
        Per-feature state, columns ``z, n, w, sum over negatives, sum over
        positives``; ``w`` is always the FTRL weight of ``(z, n)``.
    dots : ndarray of shape (2,)
        ``w . (sum of the negatives)`` and ``w . (sum of the positives)``, maintained
        at O(nnz) and kept between calls (nothing here is O(d)).
    counts : ndarray of shape (2,), float64
        Sample weight per class (negatives first) in the class sums.
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`): dense or CSR, one body.
    y : ndarray of shape (n,)
        Signed weights: the sign is the class, the magnitude the sample weight, which
        weighs the row in the class statistics and scales its gradient
        (notes.md#sample-weights; ``±1`` when unweighted).
    order : ndarray of shape (m,), int64
        Rows to visit, in this order.
    hp : FtrlAucHyper
        Named tuple ``(alpha, beta, lam1, lam2)``.
    t : int
        Number of updates done before this call.
    learn : bool
        Whether the rows are new: each is first added to the class statistics
        (``p`` and the class means then include the current sample, as
        SOLAM's ``p_t``). On later passes the statistics stay frozen.

    Returns
    -------
    t, status : int
        The number of updates done after this call, and ``OK`` or ``DIVERGED``.
    """
    dot_neg, dot_pos = dots[0], dots[1]
    for i in order:
        positive = y[i] > 0
        weight = abs(y[i])
        col = SUM_POS if positive else SUM_NEG
        lo, hi = row_span(data, indices, indptr, i)
        s = 0.0
        if learn:
            counts[col - SUM_NEG] += weight
            for k in range(lo, hi):
                j, x = row_entry(k, data, indices, indptr, i)
                pack[j, col] += weight * x
                s += pack[j, W] * x
            if positive:
                dot_pos += weight * s
            else:
                dot_neg += weight * s
        else:
            for k in range(lo, hi):
                j, x = row_entry(k, data, indices, indptr, i)
                s += pack[j, W] * x
        if counts[0] == 0 or counts[1] == 0:
            continue  # no pair of opposite classes yet: the gradient is zero
        p = counts[1] / (counts[0] + counts[1])
        g = weight * spam_gradient_coef(s, dot_pos / counts[1], dot_neg / counts[0], p, positive)
        if exploding(g):
            return t, DIVERGED
        t += 1
        for k in range(lo, hi):
            j, x = row_entry(k, data, indices, indptr, i)
            if x == 0.0:  # no step along j: a zero of a dense row, or one stored in a CSR
                continue  # row, is an absent entry (w_j is not formed again under a new alpha)
            gj = g * x
            n_old = pack[j, N]
            n_new = n_old + gj * gj
            w_old = pack[j, W]
            z = pack[j, Z] + gj - (np.sqrt(n_new) - np.sqrt(n_old)) / hp.alpha * w_old
            w_new = ftrl_weight(z, n_new, hp)
            pack[j, Z] = z
            pack[j, N] = n_new
            pack[j, W] = w_new
            dw = w_new - w_old
            dot_neg += dw * pack[j, SUM_NEG]
            dot_pos += dw * pack[j, SUM_POS]
    dots[0], dots[1] = dot_neg, dot_pos
    if not (np.isfinite(dot_neg) and np.isfinite(dot_pos)):
        return t, DIVERGED
    return t, OK
