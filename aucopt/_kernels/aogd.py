"""AOGD kernel: average online gradient descent on random Fourier features (AlQuabeh et al. 2024,
Algorithm 1).

AlQuabeh, de Vazelhes, Gu, "Limited memory online gradient descent for kernelized
pairwise learning with dynamic averaging", AAAI 2024 (AlQuabeh et al. 2024, Algorithm 1), with the
library resolutions of notes.md#aogd-averages (per-class averages and representatives),
notes.md#rff-scale (``sqrt(2/D)`` scaling), notes.md#rff-scale (Gaussian bandwidth) and
notes.md#aogd-defaults (``gamma_t = eta_t``,
Bernoulli probability ``q``).

Model: ``f(x) = w . phi(x)`` with ``phi(x) = sqrt(2/D) [sin(U x), cos(U x)]``
(Rahimi & Recht 2007); loss of a pair ``(phi, y), (phi', -y)``:
``(1 - y w.(phi - phi'))^2 + (lam/2)||w||^2``.

Sample weights (notes.md#sample-weights) arrive in the signed labels ``y = ±v``: the
running means are weighted means of ``phi``, a representative keeps its signed weight
in ``rep_label``, the step against the mean is scaled by ``v`` and the step against a
representative of weight ``v'`` by ``v v'``. Labels ``±1`` give the unweighted bits.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._checks import DIVERGED, OK, exploding
from ._rows import _row_function
from ._state import F64, D, Dim
from .row_keep import keep_whole

__all__ = ["PER_CLASS", "GLOBAL", "AOGDState", "rff_row", "rff_scores", "aogd_epoch", "aogd_row",
           "aogd_keep"]

PER_CLASS = 0  # per-class running means and representatives (notes.md#aogd-averages, default)
GLOBAL = 1  # one global running mean and one representative (Alg. 1 literally)


class AOGDState(NamedTuple):
    """AOGD's state; ``half`` = D/2 frequencies, ``dim`` = D random features."""

    freq: F64[D, Dim("half")]  # transposed frequencies U^T, divided by the bandwidth once fixed
    bandwidth: F64[1]  # Gaussian width sigma, 0 until the first pass fixes it
    w: F64[Dim("dim")]  # weights on the random features
    phi_count: F64[2]  # weight averaged into phi_mean (rows, unweighted; "global": slot 0)
    phi_mean: F64[2, Dim("dim")]  # running means of phi (per class; "global" uses row 0)
    rep: F64[2, Dim("dim")]  # random representatives phi_hat (per class; "global": row 0)
    rep_label: F64[2]  # signed weight ±v of each representative, 0 while it is unset


def _dense_project(z, freq_t, data, indices, indptr, i):
    """Write ``z = U x_i`` with ``freq_t = U^T`` of shape (d, D/2)."""
    for k in range(z.shape[0]):
        z[k] = 0.0
    for j in range(freq_t.shape[0]):
        xj = data[i, j]
        if xj != 0.0:
            for k in range(z.shape[0]):
                z[k] += xj * freq_t[j, k]


def _csr_project(z, freq_t, data, indices, indptr, i):
    for k in range(z.shape[0]):
        z[k] = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        j = indices[p]
        xj = data[p]
        for k in range(z.shape[0]):
            z[k] += xj * freq_t[j, k]


# one body for dense and CSR rows; O(nnz D/2) with contiguous reads of freq_t
row_project = _row_function(_dense_project, _csr_project)


@njit(cache=True, nogil=True)
def rff_row(phi, freq_t, data, indices, indptr, i):
    """Write ``phi(x_i) = sqrt(2/D) [sin(U x_i), cos(U x_i)]`` into ``phi``.

    Parameters
    ----------
    phi : ndarray of shape (D,)
        Output: sines in ``phi[:D/2]``, cosines in ``phi[D/2:]``; ``phi[D/2:]``
        also serves as scratch for ``U x_i``.
    freq_t : ndarray of shape (d, D/2)
        Transposed frequencies ``U^T`` (already divided by the bandwidth).
    data, indices, indptr, i
        Row ``i`` (see :mod:`aucopt._kernels._rows`).
    """
    half = freq_t.shape[1]
    scale = np.sqrt(2.0 / (2 * half))
    z = phi[half:]
    row_project(z, freq_t, data, indices, indptr, i)
    for k in range(half):
        phi[k] = scale * np.sin(z[k])
        phi[half + k] = scale * np.cos(z[k])


@njit(cache=True, nogil=True)
def rff_scores(out, w, freq, phi, data, indices, indptr):
    """Write ``w . phi(x_i)`` for every row into ``out`` (``phi`` is scratch)."""
    for i in range(out.shape[0]):
        rff_row(phi, freq, data, indices, indptr, i)
        s = 0.0
        for k in range(phi.shape[0]):
            s += w[k] * phi[k]
        out[i] = s


@njit(cache=True, nogil=True)
def _pair_step(w, phi, other, y, step, lam):
    """``w -= step * grad``, grad = ``-2(1 - y w.(phi - other)) y (phi - other) + lam w``.

    Returns the pair coefficient ``-2(1 - y s) y`` (for the divergence check).
    """
    s = 0.0
    for k in range(w.shape[0]):
        s += w[k] * (phi[k] - other[k])
    g = -2.0 * (1.0 - y * s) * y
    shrink = 1.0 - step * lam
    for k in range(w.shape[0]):
        w[k] = shrink * w[k] - step * g * (phi[k] - other[k])
    return g


@njit(cache=True, nogil=True)
def aogd_epoch(st, phi, data, indices, indptr, y, order, coins, hp, t, learn):
    """Run AOGD over the rows in ``order``; update the state in place.

    Parameters
    ----------
    st : AOGDState
        The state (its arrays are updated in place; ``freq`` is only read).
    phi : ndarray of shape (D,)
        Scratch for the feature map.
    data, indices, indptr, y, order
        Rows, signed sample weights (``±1`` unweighted) and visiting order: the common
        kernel arguments (:mod:`aucopt._kernels`).
    coins : ndarray of shape (m,)
        Uniform draws in [0, 1), one per visited row: the representative of the
        row's class (or the global one) is replaced when ``coins[k] < q``.
    hp : AOGDHyper
        Named tuple ``(eta, eta_random, lam, q, averaging)``; ``eta_random = 0``
        takes the step of the random-example step from ``eta``.
    t : int
        Number of updates done before this call.
    learn : bool
        Whether the rows are new: only then are they added to the running means.

    Returns
    -------
    t, status : int
        The number of updates done after this call, and ``OK`` or ``DIVERGED``.
    """
    w, counts, means, reps, rep_label = st.w, st.phi_count, st.phi_mean, st.rep, st.rep_label
    gamma = hp.eta if hp.eta_random == 0.0 else hp.eta_random
    dim = w.shape[0]
    for pos in range(order.shape[0]):
        i = order[pos]
        yi = y[i]
        sign = 1.0 if yi > 0 else -1.0
        weight = abs(yi)
        own = 1 if yi > 0 else 0
        rff_row(phi, st.freq, data, indices, indptr, i)
        if hp.averaging == GLOBAL:
            slot, other = 0, 0
            ready = counts[0] > 0 and rep_label[0] != 0.0
        else:
            slot, other = own, 1 - own
            ready = counts[other] > 0
        if ready:
            # average-based step
            g1 = _pair_step(w, phi, means[other], sign, hp.eta * weight, hp.lam)
            g2 = 0.0
            if rep_label[other] * sign < 0.0:  # random-example step; same-label pairs skipped
                g2 = _pair_step(w, phi, reps[other], sign, gamma * weight * abs(rep_label[other]),
                                hp.lam)
            if exploding(g1) or exploding(g2):
                return t, DIVERGED
            t += 1
        if learn:
            counts[slot] += weight
            inv = weight / counts[slot]
            for k in range(dim):
                means[slot, k] += (phi[k] - means[slot, k]) * inv
        if rep_label[slot] == 0.0 or coins[pos] < hp.q:
            rep_label[slot] = yi
            for k in range(dim):
                reps[slot, k] = phi[k]
    for k in range(dim):
        if not np.isfinite(w[k]):
            return t, DIVERGED
    return t, OK


def aogd_keep(dim: int) -> np.ndarray:
    """Return the scratch of :func:`aogd_row` for ``dim`` random features: ``w``, then
    ``phi_mean`` and ``rep`` (two rows each)."""
    return np.empty(5 * dim)


@njit(cache=True, nogil=True)
def aogd_row(st, phi, keep, data, indices, indptr, y, order, coins, hp, t, learn):
    """AOGD on one row (AlQuabeh et al. 2024, Algorithm 1: :func:`aogd_epoch` with
    ``order = [0]`` and one coin) for the row path of ``learn_one``
    (:mod:`aucopt.algorithms._rowpath`): ``w``, ``phi_mean`` and ``rep`` are copied into
    ``keep`` (:func:`aogd_keep`) first and put back if the step stops; the row path's
    transaction puts back the rest (counts, labels of the representatives). Returns
    ``(t, status)``."""
    entries = (st.w, st.phi_mean.reshape(-1), st.rep.reshape(-1))
    keep_whole(entries, keep, False)
    result = aogd_epoch(st, phi, data, indices, indptr, y, order, coins, hp, t, learn)
    if result[1] != OK:
        keep_whole(entries, keep, True)
    return result
