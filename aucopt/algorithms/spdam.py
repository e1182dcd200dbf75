"""SPDAM: stochastic primal-dual AUC maximisation with mini-batches (Natole 2020, Algorithm 21)."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._kernels._checks import DIVERGED, OK
from .._kernels._state import view, zeros
from .._kernels.spdam import SpdamProblem, SpdamState, spdam_iterations
from ..utils._param_validation import Interval, Options
from ._batch import BATCH, batch_common, run_stages, stage_tol
from ._data import row_sqnorms
from ._fast import select
from ._params import COUNT, POSITIVE, KernelScalars, Param, precondition
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._time_budget import deadline_of

__all__ = ["PARAMS", "SpdamHyper", "SPDAM", "hyper", "step_parameters", "centred_scales"]

PAPER = (
    "M. Natole Jr., Y. Ying, S. Lyu. Stochastic AUC optimization algorithms with linear "
    "convergence. Front. Appl. Math. Stat. 5:30, 2019; M. Natole Jr., PhD thesis, SUNY "
    "Albany 2020, ch. 5, Alg. 21."
)


PARAMS = (
    Param("lam", 1e-3, (POSITIVE,), "float", r"l2 weight :math:`\lambda`.", kernel=float),
    Param("batch_size", 0.1, (Interval(Real, 0, 1, closed="right"), COUNT),
          "float or int", r"""
        Mini-batch size :math:`m`: a fraction of :math:`n` (float in (0, 1])
        or a number of samples (int)."""),
    Param("params", "thesis", (Options(str, {"rederived", "thesis"}),),
          '{"thesis", "rederived"}', r"""
        Step parameters :math:`\sigma, \tau, \theta`. ``"thesis"``: the
        printed Theorem 5.1 values with :math:`\kappa = \max_i\|x_i\|`.
        ``"rederived"``: the values that make the thesis' contraction argument
        hold, with :math:`\kappa = \max_i\|\bar x_i\|` (notes.md#spdam-reformulation); they are
        smaller. ``"thesis"`` is the default because it was measured faster
        (contraction per epoch 0.869 against 0.997 on splice, 0.948 against 0.989
        on german.numer, docs/convergence.md) and as accurate or more on every
        case of docs/robustness.md (at 100 epochs, up to 0.008 AUC closer to the
        least-squares optimum), with no divergence."""),
    stage_tol(1e-6, "epoch"),
    *batch_common(
        max_iter=100, max_iter_doc=r"Maximal number of epochs of :math:`\lceil n/m \rceil` "
        "iterations.",
        shuffle="""
        Random mini-batches (without replacement within a batch); ``False``
        takes consecutive blocks of the rows, cycling (deterministic).""",
        random_state="Seed of the mini-batches.",
        warm_start=r"Start ``fit`` from the previous :math:`w` (the duals restart at 0)."),
)

hyper = KernelScalars("SpdamHyper", __name__, PARAMS)
SpdamHyper = hyper.type


def batch_length(params: dict, n_samples: int) -> int:
    """Return the mini-batch size ``m`` (a fraction of ``n`` or a count, at most ``n``)."""
    size = params["batch_size"]
    if isinstance(size, float):
        return max(1, min(n_samples, int(np.ceil(size * n_samples))))
    return max(1, min(n_samples, int(size)))


def centred_scales(rows: RowData, y, means, p, root2=None):
    """Return ``(c_-, c_+)`` and ``max_i ||xbar_i||`` for ``xbar_i = r_i c_y (x_i - m_y)``.

    Parameters
    ----------
    rows : RowData
    y : ndarray of shape (n,) in {-1, +1}
    means : ndarray of shape (2, d)
        ``m-``, ``m+``.
    p : float
        Fraction of positives (of the sample weight).
    root2 : ndarray of shape (n,), optional
        ``r_i^2 = n w_i / W`` of weighted rows (notes.md#sample-weights); None: 1.

    Returns
    -------
    scale : ndarray of shape (2,)
    kappa_bar : float
    """
    scale = np.array([np.sqrt(2.0 / (1.0 - p)), np.sqrt(2.0 / p)])
    if rows.is_sparse:
        X = sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                          shape=(rows.n_samples, rows.n_features))
    else:
        X = rows.data
    sq = row_sqnorms(X)
    k = (y > 0).astype(np.intp)
    cross = np.asarray(X @ means.T)[np.arange(rows.n_samples), k]
    centred = sq - 2.0 * cross + np.einsum("ij,ij->i", means, means)[k]
    norms2 = scale[k] ** 2 * np.maximum(centred, 0.0)
    if root2 is not None:
        norms2 = norms2 * root2
    return scale, float(np.sqrt(np.max(norms2)))


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
    """Return a fresh SPDAM state (:class:`~aucopt._kernels.spdam.SpdamState`), one dual per row."""
    state = zeros(SpdamState, n_features)
    state["dual"] = np.zeros(n_samples)
    state["change"][0] = np.inf
    return state


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
    n = rows.n_samples
    counts, sums = state["data_count"], state["data_sum"]
    means = sums / counts[:, None]
    total = counts[0] + counts[1]  # the sample weight; n when unweighted
    p = counts[1] / total
    root2 = np.abs(y) * (n / total)  # r_i^2 (notes.md#sample-weights): ones when unweighted
    scale, kappa_bar = centred_scales(rows, y, means, p, root2)
    m = batch_length(params, n)
    thesis = params["params"] == "thesis"
    kappa = np.sqrt(state["data_sqmax"][0] * root2.max()) if thesis else kappa_bar
    hp = hyper(params)
    problem = SpdamProblem(scale, np.sqrt(root2), means, means[0] - means[1],
                           *step_parameters(hp.lam, n, m, kappa, thesis))
    state["w_bar"][...] = state["w"]
    state["u"][...] = 0.0
    state["dual"][...] = 0.0
    st = view(SpdamState, state)
    per_epoch = -(-n // m)

    def epoch(t):
        batches = _batches(rng, n, m, per_epoch, params["shuffle"], (t * m) % n)
        done, status = select(spdam_iterations)(st, problem, rows.data, rows.indices,
                                                rows.indptr, y, batches, hp)
        t += done
        if status != OK or not np.all(np.isfinite(st.w)):
            return t, DIVERGED
        return t, OK

    return run_stages(state, t, params["max_iter"], params["tol"], epoch,
                      deadline=deadline_of(params))


def coef(state, params) -> np.ndarray:
    """Return the last primal iterate."""
    return state["w"]


SPDAM = register(
    AlgorithmSpec(
        id="spdam",
        name="SPDAM",
        family="spdam",
        paper=PAPER,
        source="Natole, Ying, Lyu 2019 (thesis ch. 5)",
        memory="O(n + d) besides the stored training set",
        cost="O(m nnz + d) per iteration, m = batch_size; ceil(n/m) iterations per epoch",
        init_state=init_state,
        run=run,
        coef=coef,
        params=(*PARAMS, precondition()),
        state=(SpdamState,),
        grid={"lam": tuple(10.0**k for k in range(-5, 2))},
        quick_grid={"lam": (1e-4, 1e-3, 1e-2, 1e-1, 1.0)},
        step_param=None,
        warm_keys=("w",),
        weights="steps",
        notes="Thesis grid lam in 10^[-5:1] by 5-fold CV, m = 10% of n. The consistent "
        "reformulation of Natole 2020, Algorithm 21 (notes.md#spdam-reformulation) with the "
        "thesis' printed sigma by default (measured faster, see the estimator); "
        "params='rederived' uses the re-derived sigma (notes.md#spdam-reformulation).",
        **BATCH,
    )
)
