"""SPDAM: stochastic primal-dual AUC maximisation with mini-batches (Natole 2020, Algorithm 21)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._kernels._checks import DIVERGED, OK
from .._kernels.spdam import spdam_iterations
from ._fast import select
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["SpdamHyper", "SPDAM", "step_parameters", "centred_scales"]

PAPER = (
    "M. Natole Jr., Y. Ying, S. Lyu. Stochastic AUC optimization algorithms with linear "
    "convergence. Front. Appl. Math. Stat. 5:30, 2019; M. Natole Jr., PhD thesis, SUNY "
    "Albany 2020, ch. 5, Alg. 21."
)


class SpdamHyper(NamedTuple):
    """Scalar hyperparameters of :func:`aucopt._kernels.spdam.spdam_iterations`."""

    lam: float
    sigma: float
    tau: float
    theta: float


def batch_length(params: dict, n_samples: int) -> int:
    """Return the mini-batch size ``m`` (a fraction of ``n`` or a count, at most ``n``)."""
    size = params["batch_size"]
    if isinstance(size, float):
        return max(1, min(n_samples, int(np.ceil(size * n_samples))))
    return max(1, min(n_samples, int(size)))


def centred_scales(rows: RowData, y, means, p):
    """Return ``(c_-, c_+)`` and ``max_i ||xbar_i||`` for ``xbar_i = c_y (x_i - m_y)``.

    Parameters
    ----------
    rows : RowData
    y : ndarray of shape (n,) in {-1, +1}
    means : ndarray of shape (2, d)
        ``m-``, ``m+``.
    p : float
        Fraction of positives.

    Returns
    -------
    scale : ndarray of shape (2,)
    kappa_bar : float
    """
    scale = np.array([np.sqrt(2.0 / (1.0 - p)), np.sqrt(2.0 / p)])
    if rows.is_sparse:
        X = sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                          shape=(rows.n_samples, rows.n_features))
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        X = rows.data
        sq = np.einsum("ij,ij->i", X, X)
    k = (y > 0).astype(np.intp)
    cross = np.asarray(X @ means.T)[np.arange(rows.n_samples), k]
    centred = sq - 2.0 * cross + np.einsum("ij,ij->i", means, means)[k]
    return scale, float(np.sqrt(np.max(scale[k] ** 2 * np.maximum(centred, 0.0))))


def step_parameters(lam: float, n: int, m: int, kappa: float, thesis: bool):
    """Return ``(sigma, tau, theta)`` of Natole 2020, Algorithm 21.

    Parameters
    ----------
    lam : float
        Regularisation weight.
    n, m : int
        Training-set and mini-batch sizes.
    kappa : float
        Largest row norm of the coupling matrix (``max ||xbar_i||``, or the
        thesis' ``max ||x_i||``).
    thesis : bool
        Use the thesis' printed ``sigma`` (Theorem 5.1) instead of the
        re-derived one (notes.md#spdam-reformulation).

    Returns
    -------
    tuple of float
    """
    k2 = max(kappa * kappa, 1e-300)
    if thesis:
        sigma = ((n - m) + np.sqrt((n - m) ** 2 + 4.0 * n * k2 * m / lam)) / (8.0 * m * k2)
    else:
        sigma = (lam * (n - m) + np.sqrt(lam**2 * (n - m) ** 2 + 4.0 * m * n * k2 * lam)) / (
            4.0 * m * k2)
    tau = 1.0 / (4.0 * sigma * k2)
    theta = 1.0 - lam / (lam + 2.0 * sigma * k2)
    return float(sigma), float(tau), float(theta)


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh SPDAM state: ``w``, ``w_bar``, ``u`` (d,), ``dual`` (n,), counters.

    Parameters
    ----------
    n_features, n_samples : int
        Shape of the training set.
    params : dict
        Estimator hyperparameters.
    rng : numpy.random.Generator, optional
        Unused here (mini-batches are drawn in :func:`run`).

    Returns
    -------
    dict
    """
    return {
        "w": np.zeros(n_features),
        "w_bar": np.zeros(n_features),
        "u": np.zeros(n_features),
        "dual": np.zeros(n_samples),
        "n_iter": np.zeros(1, dtype=np.int64),
        "change": np.full(1, np.inf),
    }


def _batches(rng, n, m, count, shuffle, start):
    """Return ``count`` index sets of size ``m``: random, or consecutive blocks cycling from
    ``start``."""
    if shuffle:
        return np.array([rng.choice(n, size=m, replace=False) for _ in range(count)],
                        dtype=np.int64)
    first = start + m * np.arange(count, dtype=np.int64)[:, None]
    return (first + np.arange(m, dtype=np.int64)[None, :]) % n


def run(state, rows: RowData, y, order, params, t, learn, rng):
    """Run up to ``max_iter`` epochs (``ceil(n/m)`` iterations each) of SPDAM.

    ``warm_start`` restarts the duals (they belong to the old data) but keeps
    ``w``. Stops when the relative change of ``w`` over an epoch is at most
    ``tol``.
    """
    n, d = rows.n_samples, rows.n_features
    counts, sums = state["data_count"], state["data_sum"]
    means = sums / counts[:, None]
    p = counts[1] / n
    scale, kappa_bar = centred_scales(rows, y, means, p)
    m = batch_length(params, n)
    thesis = params["params"] == "thesis"
    kappa = np.sqrt(state["data_sqmax"][0]) if thesis else kappa_bar
    hp = SpdamHyper(float(params["lam"]), *step_parameters(float(params["lam"]), n, m, kappa,
                                                           thesis))
    b = means[0] - means[1]
    state["w_bar"][...] = state["w"]
    state["u"][...] = 0.0
    state["dual"][...] = 0.0
    du, dm = np.empty(d), np.empty(2)
    per_epoch = -(-n // m)
    state["n_iter"][0] = 0
    for _ in range(params["max_iter"]):
        batches = _batches(rng, n, m, per_epoch, params["shuffle"], (t * m) % n)
        previous = state["w"].copy()
        done, status = select(spdam_iterations)(
            state["w"], state["w_bar"], state["u"], state["dual"], scale, means, b, rows.data,
            rows.indices, rows.indptr, y, batches, hp, du, dm)
        t += done
        if status != OK or not np.all(np.isfinite(state["w"])):
            return t, DIVERGED
        state["n_iter"][0] += 1
        change = np.linalg.norm(state["w"] - previous)
        state["change"][0] = change / max(float(np.linalg.norm(state["w"])), 1e-12)
        if state["change"][0] <= params["tol"]:
            break
    return t, OK


def coef(state, params) -> np.ndarray:
    """Return the last primal iterate."""
    return state["w"]


SPDAM = register(
    AlgorithmSpec(
        id="spdam",
        name="SPDAM",
        estimator="aucopt.linear_model._spdam:SPDAMClassifier",
        family="spdam",
        paper=PAPER,
        source="Natole, Ying, Lyu 2019 (thesis ch. 5)",
        streaming=False,
        sparse=True,
        memory="O(n + d) besides the stored training set",
        cost="O(m nnz + d) per iteration, m = batch_size; ceil(n/m) iterations per epoch",
        init_state=init_state,
        run=run,
        coef=coef,
        data_shaped=("dual",),  # one dual variable per training row
        grid={"lam": tuple(10.0**k for k in range(-5, 2))},
        quick_grid={"lam": (1e-4, 1e-3, 1e-2, 1e-1, 1.0)},
        step_param=None,
        warm_keys=("w",),
        epochs_by_base=False,
        notes="Thesis grid lam in 10^[-5:1] by 5-fold CV, m = 10% of n. The consistent "
        "reformulation of Natole 2020, Algorithm 21 (notes.md#spdam-reformulation) with the "
        "thesis' printed sigma by default (measured faster, see the estimator); "
        "params='rederived' uses the re-derived sigma (notes.md#spdam-reformulation).",
    )
)
