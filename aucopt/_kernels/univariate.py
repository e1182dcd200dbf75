"""Online weighted univariate losses for bipartite ranking (Kotlowski et al. 2011; Gao et al. 2013,
Section 6): exponential, square and logistic.

W. Kotlowski, K. Dembczynski, E. Huellermeier, "Bipartite ranking through
minimization of univariate loss", ICML 2011; online variants as compared in
W. Gao, R. Jin, S. Zhu, Z.-H. Zhou, "One-pass AUC optimization" (section 6.1).

Objective (balanced univariate loss, score ``s = w.x + b``):
``(lam/2)||w||^2 + 1/2 E[l(s) | y=+1] + 1/2 E[l(-s) | y=-1]``, minimised by
stochastic gradient steps weighted by ``n / (2 n_y)``. The l2 proximal step
is applied lazily (``w = scale * v``), so a step costs O(nnz) on CSR rows.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import all_finite
from ._checks import DIVERGED, OK, exploding
from ._rows import (
    fetch_rows_ahead,
    inline_row_function,
    row_axpy,
    row_axpy_dot,
    row_dot,
    row_sqnorm,
)
from ._schedules import step_size
from ._state import F64, D

__all__ = ["EXPONENTIAL", "SQUARE", "LOGISTIC", "NEEDS_FOLD", "UnivariateState",
           "univariate_derivative", "univariate_epoch", "univariate_fold"]

EXPONENTIAL = 0  # l(m) = exp(-m)
SQUARE = 1  # l(m) = (1 - m)^2
LOGISTIC = 2  # l(m) = log(1 + exp(-m))


class UnivariateState(NamedTuple):
    """The state of online Uni-Exp, Uni-Squ and Uni-Log (:func:`univariate_epoch`)."""

    w: F64[D]  # weights up to their scale
    scale: F64[1]  # the weights are scale * w: the l2 prox only shrinks the scalar
    b: F64[1]  # bias (not penalised)
    run_count: F64[2]  # running class weights (weights="online")
    run_sqmax: F64[1]  # largest squared row norm seen (weights="online")


@njit(cache=True, nogil=True)
def univariate_derivative(loss, margin):
    """Return ``l'(margin)``: ``-exp(-m)``, ``-2 (1 - m)`` or ``-1 / (1 + exp(m))`` (the
    logistic one in a form whose exponential cannot overflow)."""
    if loss == EXPONENTIAL:
        return -np.exp(-margin)
    if loss == LOGISTIC:
        if margin > 0.0:
            e = np.exp(-margin)
            return -e / (1.0 + e)
        return -1.0 / (1.0 + np.exp(margin))
    return -2.0 * (1.0 - margin)


def _dense_finite(w, data, indices, indptr, i):
    return all_finite(w)


def _csr_finite(w, data, indices, indptr, i):
    for k in range(indptr[i], indptr[i + 1]):
        if not np.isfinite(w[indices[k]]):
            return False
    return True


# whether w is finite at the columns of row i (all of them for a dense row)
row_finite = inline_row_function(_dense_finite, _csr_finite, "row_finite")


@njit(cache=True, nogil=True)
def univariate_epoch(st, counts, sqmax, data, indices, indptr, y, order, hp, loss, t, learn):
    """Run the weighted univariate SGD over ``order``; update the state in place.

    The weights are ``scale * w``: the l2 proximal step only shrinks the scalar, kept
    between calls, so a step costs O(nnz) on CSR rows and a stream cut into calls runs
    the operations of one pass. When ``scale`` falls below ``FOLD_BELOW`` the kernel
    stops (``NEEDS_FOLD``); the caller folds it into ``w`` (O(d), rare) and continues
    with the rest of ``order`` after the returned position.

    Parameters
    ----------
    st : UnivariateState
        ``w``, ``scale`` and ``b`` are updated (the running counts are read through
        ``counts`` and ``sqmax``).
    counts : ndarray of shape (2,), float64
        Total sample weight per class (the counts when unweighted), which defines the
        class weights ``n / (2 n_y)``: the running ones of ``st`` or the training data's.
    sqmax : ndarray of shape (1,)
        Largest squared row norm of the same rows (for ``eta="auto"``).
    data, indices, indptr, y, order
        Rows, labels and visiting order: the common kernel arguments (:mod:`aucopt._kernels`).
    hp : UnivariateHyper
        Named tuple ``(eta, auto_eta, lam, schedule, online)``
        (:data:`aucopt.algorithms.univariate.hyper`); with ``auto_eta`` the step
        scale is ``eta / (M^2 + 1)``.
    loss : int
        ``EXPONENTIAL``, ``SQUARE`` or ``LOGISTIC``.
    t : int
        Steps done before this call.
    learn : bool
        First pass over these rows: with ``online`` they enter ``counts`` and
        ``sqmax`` just before their step.

    Returns
    -------
    t : int
        Steps done after this call.
    status : int
        ``OK``, ``DIVERGED`` (a step or, for ``LOGISTIC``, a margin beyond
        :data:`~aucopt._kernels._checks.EXPLODE_LIMIT`; non-finite iterates) or
        ``NEEDS_FOLD``.
    position : int
        Position in ``order`` after the last row handled.
    """
    w, scale, b = st.w, st.scale, st.b
    v_scale = scale[0]  # weights = v_scale * w: the l2 prox only shrinks the scalar
    m = order.shape[0]
    prev = -1  # row whose update v += coef x is pending (done by the next row's sweep)
    coef = 0.0
    status = OK
    idx = 0
    while idx < m:
        i = order[idx]
        fetch_rows_ahead(w, 1, order, y, data, indices, indptr, idx)  # shuffled CSR rows
        idx += 1
        yt = 1.0 if y[i] > 0 else -1.0
        c = 1 if yt > 0 else 0
        # the sample weight (notes.md#sample-weights) counts in the class weights and scales
        # the row's whole step, the proximal step of the penalty included
        sample_weight = abs(y[i])
        if learn and hp.online:
            counts[c] += sample_weight
            sq = row_sqnorm(data, indices, indptr, i)
            if sq > sqmax[0]:
                sqmax[0] = sq
        weight = 0.5 * (counts[0] + counts[1]) / counts[c]
        if prev >= 0:
            nxt = order[min(idx - 1 + _AHEAD, m - 1)]
            dot = row_axpy_dot(coef, prev, w, nxt, data, indices, indptr, i)
            prev = -1
        else:
            dot = row_dot(w, data, indices, indptr, i)
        margin = yt * (v_scale * dot + b[0])
        g = weight * univariate_derivative(loss, margin) * yt * sample_weight
        # the logistic derivative is bounded, so its g never explodes: its margins tell
        if exploding(g) or (loss == LOGISTIC and exploding(margin)):
            status = DIVERGED
            break
        t += 1
        base = hp.eta / (sqmax[0] + 1.0) if hp.auto_eta else hp.eta  # +1: the bias feature
        eta = step_size(hp.schedule, base, 0.5, t)
        prev, coef = i, -eta * g / v_scale  # O(nnz) on CSR rows
        b[0] -= eta * g
        v_scale /= 1.0 + eta * (sample_weight * hp.lam)  # prox of (w_i lam / 2)||w||^2
        if not np.isfinite(b[0]):
            status = DIVERGED
            break
        if v_scale < FOLD_BELOW:
            status = NEEDS_FOLD
            break
    if prev >= 0:
        row_axpy(coef, w, data, indices, indptr, prev)
        if not row_finite(w, data, indices, indptr, prev):
            status = DIVERGED
    scale[0] = v_scale
    return t, status, idx


_AHEAD = 3  # rows between the one swept and the one prefetched


# Fold the scale into v before it underflows (O(d), rare: after a shrinkage by 1e4).
FOLD_BELOW = 1e-4
NEEDS_FOLD = 2  # status of univariate_epoch: stopped before an O(d) fold


@njit(cache=True, nogil=True)
def univariate_fold(w, scale):
    """Multiply ``w`` by ``scale`` in place and set the scale to 1 (O(d))."""
    for j in range(w.shape[0]):
        w[j] *= scale[0]
    scale[0] = 1.0


