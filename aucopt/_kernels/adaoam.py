"""AdaOAM kernel: adaptive-gradient online AUC maximisation (Natole 2020, Algorithm 9, P8).

Ding, Zhao, Hoi, Ong, "An adaptive gradient method for online AUC
maximization", AAAI 2015; restated in M. Natole Jr., PhD thesis (2020),
Algorithm 9 (corrected as notes.md#adaoam).

OPAUC's gradient ``g_t`` (class statistics by Welford), diagonal AdaGrad
scaling ``H_t = delta I + diag(sqrt(sum_s g_s^2))``, the step
``w - eta H_t^-1 g_t`` and the projection onto ``{||w|| <= 1/sqrt(lam)}`` in
the ``H_t`` norm. The class covariances are OPAUC's: lower triangles of scatter
matrices with deferred rank-one updates, multiplied by BLAS
(:func:`aucopt._kernels.opauc.sample_gradient`), so a step costs one
symmetric d x d product plus O(d) work.

Sample weights (notes.md#sample-weights, signed labels ``y = ±v``): the class
statistics are OPAUC's weighted ones and the gradient of the row is ``v g_t``,
which is what enters both ``G`` and the step (AdaGrad on the weighted objective).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._rows import row_to_dense
from ._state import F64
from .opauc import K, OpaucState, finite_status, sample_gradient, step_arrays

__all__ = ["AdaoamState", "project_l2_ball_diag", "adaoam_epoch"]

# AdaOAM's state: OPAUC's (statistics and scratch, :class:`aucopt._kernels.opauc.OpaucState`,
# with k = d), then the AdaGrad arrays.
AdaoamState = NamedTuple("AdaoamState", [
    *OpaucState.__annotations__.items(),
    ("gsq", F64[K]),  # running sums G of the squared gradient coordinates
    ("h", F64[K]),  # scratch: the diagonal H_t of the last step
])


@njit(cache=True, nogil=True)
def project_l2_ball_diag(w, h, radius, tol=1e-12, max_iter=200):
    """Project ``w`` onto ``{||x|| <= radius}`` in the norm ``sum h_i x_i^2`` (P8), in place.

    Solves ``argmin_{||x|| <= r} sum_i h_i (x_i - v_i)^2``: if ``||v|| <= r``
    the point is kept; otherwise ``x_i(mu) = h_i v_i / (h_i + mu)`` with the
    root ``mu > 0`` of ``||x(mu)|| = r``, found by Newton's method on
    ``1/||x(mu)|| - 1/r`` (increasing and concave in ``mu``, so the Newton
    iterates from ``mu = 0`` increase monotonically to the root) safeguarded
    by a bisection bracket, to relative accuracy ``tol``.

    Parameters
    ----------
    w : ndarray of shape (d,)
        Point ``v``, overwritten by its projection.
    h : ndarray of shape (d,)
        Positive diagonal weights.
    radius : float
        Ball radius ``r > 0``.
    tol : float
        Relative tolerance on ``||x(mu)|| - r``.
    max_iter : int
        Iteration cap.

    Returns
    -------
    float
        The multiplier ``mu`` (0 when ``v`` was inside the ball).
    """
    d = w.shape[0]
    sq = 0.0
    hmax = 0.0
    for j in range(d):
        sq += w[j] * w[j]
        if h[j] > hmax:
            hmax = h[j]
    if sq <= radius * radius:
        return 0.0
    lo = 0.0
    hi = hmax * np.sqrt(sq) / radius  # ||x(mu)|| <= hmax ||v|| / mu
    mu = 0.0
    for _ in range(max_iter):
        # phi(mu) = ||x(mu)||^2 and its derivative
        phi = 0.0
        dphi = 0.0
        for j in range(d):
            q = h[j] / (h[j] + mu)
            xj = q * w[j]
            phi += xj * xj
            dphi -= 2.0 * xj * xj / (h[j] + mu)
        norm = np.sqrt(phi)
        if abs(norm - radius) <= tol * radius:
            break
        if norm > radius:
            lo = mu
        else:
            hi = mu
        # Newton on psi(mu) = 1/norm - 1/r: psi' = -dphi / (2 norm^3)
        step = (1.0 / norm - 1.0 / radius) / (-dphi / (2.0 * phi * norm))
        nxt = mu - step
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        if hi - lo <= 1e-15 * hi:
            break
        mu = nxt
    for j in range(d):
        w[j] *= h[j] / (h[j] + mu)
    return mu


@njit(cache=True, nogil=True)
def adaoam_epoch(st, data, indices, indptr, y, order, hp, t, learn):
    """Run AdaOAM over ``order``, in place.

    Parameters
    ----------
    st : AdaoamState
        The state, updated: OPAUC's class statistics (see
        :func:`aucopt._kernels.opauc.opauc_epoch`), ``G`` and the ``H_t`` scratch.
    data, indices, indptr, y, order, t, learn
        As in :func:`aucopt._kernels.opauc.opauc_epoch`.
    hp : AdaoamHyper
        The kernel scalars (:data:`aucopt.algorithms.adaoam.PARAMS`); with ``auto_eta``
        the step is ``eta / sqrt(sqmax)``.

    Returns
    -------
    t, status : int
    """
    arrays = step_arrays(st)
    w, g, gsq, hbuf, sqmax, xbuf = st.w, st.g, st.gsq, st.h, st.sqmax, st.xbuf
    radius = 1.0 / np.sqrt(hp.lam)
    for i in order:
        row_to_dense(xbuf, data, indices, indptr, i)
        ready, dw = sample_gradient(arrays, y[i], hp.lam, learn)
        if not ready:
            continue
        if exploding(dw):
            return t, DIVERGED
        eta = hp.eta / np.sqrt(max(sqmax[0], 1e-300)) if hp.auto_eta else hp.eta
        weight = abs(y[i])  # the row's gradient is weight * g (notes.md#sample-weights)
        for j in range(w.shape[0]):
            gj = weight * g[j]
            gsq[j] += gj * gj
            hbuf[j] = hp.delta + np.sqrt(gsq[j])
            if hbuf[j] > 0.0:
                w[j] -= eta * gj / hbuf[j]
            else:
                hbuf[j] = 1.0  # zero gradient history and delta = 0: Euclidean weight
        project_l2_ball_diag(w, hbuf, radius)
        t += 1
    if finite_status(gsq) != OK:  # squared gradients of huge weights overflowed: w stalls
        return t, DIVERGED
    return t, finite_status(w)
