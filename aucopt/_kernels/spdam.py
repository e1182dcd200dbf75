"""SPDAM kernel: stochastic primal-dual AUC maximisation (Natole 2020, Algorithm 21).

M. Natole Jr., PhD thesis (SUNY Albany 2020), chapter 5, Algorithm 21, in the
consistent reformulation of Natole 2020, Algorithm 21 (an SPDC method with mini-batches):

``min_w max_beta (1/n) sum_i (beta_i <w, xbar_i> - beta_i^2/2) + g(w)``,
``xbar_i = c_{y_i} (x_i - m_{y_i})``, ``c_+ = sqrt(2/p)``, ``c_- = sqrt(2/(1-p))``,
``g(w) = (b.w)^2 + 2 b.w + (lam/2)||w||^2``, ``b = m- - m+``, whose primal is
the pairwise square loss ``(1/(n+ n-)) sum (1 - w.(x_i - x_j))^2 + (lam/2)||w||^2``
minus the constant 1. With sample weights ``w_i = |y_i|`` (notes.md#sample-weights) the
statistics ``p, m+, m-`` are weighted and the sum is ``(1/W) sum_i w_i (...)``, ``W = sum_i
w_i``: the same problem with ``xbar_i`` scaled by ``r_i = sqrt(n w_i / W)`` (1 unweighted).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK
from ._rows import row_axpy, row_dot
from ._state import ANY, F64, I64, D

__all__ = ["SpdamState", "SpdamProblem", "spdam_iterations"]


class SpdamState(NamedTuple):
    """SPDAM's state."""

    w: F64[D]  # primal iterate
    w_bar: F64[D]  # its extrapolation
    u: F64[D]  # (1/n) sum_i beta_i xbar_i
    dual: F64[ANY]  # dual variables beta_i, one per training row
    n_iter: I64[1]  # epochs run by the last fit
    change: F64[1]  # relative change of w over the last epoch


class SpdamProblem(NamedTuple):
    """What the iterations of one ``fit`` read: fixed by the data and the step parameters."""

    scale: F64[2]  # c_-, c_+ (negatives first)
    root: F64[ANY]  # r_i = sqrt(n w_i / W) of each row (ones when unweighted)
    means: F64[2, D]  # class means m-, m+
    b: F64[D]  # m- - m+
    sigma: float  # dual step
    tau: float  # primal step
    theta: float  # extrapolation weight


@njit(cache=True, nogil=True)
def spdam_iterations(st, problem, data, indices, indptr, y, batches, hp):
    """Run one SPDAM iteration per row of ``batches``; update the state in place.

    Parameters
    ----------
    st : SpdamState
        ``w``, ``w_bar``, ``u`` and ``dual`` are updated.
    problem : SpdamProblem
        Coupling scales, row weight factors, class means, ``b`` and the step parameters
        ``sigma, tau, theta`` (Natole 2020, Algorithm 21).
    data, indices, indptr : arrays
        Rows (see :mod:`aucopt._kernels._rows`).
    y : ndarray of shape (n,)
        Signed sample weights (the sign is the class; their size enters through
        ``problem.root``).
    batches : ndarray of shape (T, m), int64
        The sampled index sets, one per iteration (without replacement).
    hp : SpdamHyper
        Kernel scalars: ``lam``.

    Returns
    -------
    iterations : int
        Iterations done.
    status : int
        ``OK`` or ``DIVERGED``.
    """
    w, w_bar, u, dual = st.w, st.w_bar, st.u, st.dual
    scale, means, b = problem.scale, problem.means, problem.b
    n = y.shape[0]
    d = w.shape[0]
    m = batches.shape[1]
    du = np.empty(d)  # Delta u, then v
    dm = np.empty(2)  # per-class sums of (beta_new - beta) c / n
    c = hp.lam + 1.0 / problem.tau
    bb = 0.0
    for j in range(d):
        bb += b[j] * b[j]
    for it in range(batches.shape[0]):
        wm0 = row_dot(w_bar, means, None, None, 0)
        wm1 = row_dot(w_bar, means, None, None, 1)
        du[:] = 0.0
        dm[0] = 0.0
        dm[1] = 0.0
        for i in batches[it]:
            k = 1 if y[i] > 0 else 0
            c_i = scale[k] * problem.root[i]
            s = c_i * (row_dot(w_bar, data, indices, indptr, i) - (wm1 if k else wm0))
            new = (problem.sigma * s + dual[i]) / (1.0 + problem.sigma)
            delta = (new - dual[i]) * c_i / n
            dual[i] = new
            row_axpy(delta, du, data, indices, indptr, i)
            dm[k] += delta
        for j in range(d):  # subtract the class means of the centred rows
            du[j] -= dm[0] * means[0, j] + dm[1] * means[1, j]
        bv = 0.0
        for j in range(d):  # v = w/tau - u_bar - 2b, u_bar = u + (n/m) du
            u_bar = u[j] + (n / m) * du[j]
            u[j] += du[j]
            du[j] = w[j] / problem.tau - u_bar - 2.0 * b[j]  # du now holds v
            bv += b[j] * du[j]
        shrink = 2.0 * bv / (c + 2.0 * bb)
        for j in range(d):  # Sherman-Morrison solve of (c I + 2 b b^T) w = v
            new_w = (du[j] - shrink * b[j]) / c
            w_bar[j] = new_w + problem.theta * (new_w - w[j])
            w[j] = new_w
        if not np.isfinite(bv):
            return it, DIVERGED
    return batches.shape[0], OK
