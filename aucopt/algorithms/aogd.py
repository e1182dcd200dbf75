"""AOGD: state layout, hyperparameters, kernel call (AlQuabeh et al. 2024, Algorithm 1).

Corrections and choices: notes.md#aogd-averages, #rff-scale, #aogd-defaults."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels.aogd import GLOBAL, PER_CLASS, aogd_epoch, rff_scores
from ._fast import select
from ._memory import check_memory
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = [
    "AOGDHyper", "AVERAGING", "AOGD", "auto_bandwidth", "draw_frequencies", "rff_decision",
]

PAPER = (
    "H. AlQuabeh, W. de Vazelhes, B. Gu. Limited memory online gradient descent for "
    "kernelized pairwise learning with dynamic averaging. AAAI 2024, Algorithm 1."
)

AVERAGING = {"per_class": PER_CLASS, "global": GLOBAL}


class AOGDHyper(NamedTuple):
    """Scalar hyperparameters of the AOGD kernel."""

    eta: float
    gamma: float
    lam: float
    q: float
    averaging: int


def auto_bandwidth(rows: RowData) -> float:
    """Return ``sigma`` with ``sigma^2`` = the total variance of ``rows`` (O(nnz)).

    ``sigma^2 = mean ||x||^2 - ||mean x||^2`` is half the mean squared distance
    between two rows, so ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))`` is about
    ``exp(-1)`` for a typical pair. Falls back to 1 for constant data (a variance
    below 1e-12 of the mean squared norm, whatever the scale of the features).
    """
    n = max(rows.n_samples, 1)
    if rows.is_sparse:
        values = rows.data
        mean = np.bincount(rows.indices, weights=values, minlength=rows.n_features) / n
    else:
        values = rows.data
        mean = values.mean(axis=0) if rows.n_samples else np.zeros(rows.n_features)
    sq = float(np.sum(values * values)) / n
    var = sq - float(mean @ mean)
    return float(np.sqrt(var)) if var > 1e-12 * sq else 1.0  # relative: any feature scale


_DRAW_BLOCK = 8  # frequencies drawn per block when filling the transposed layout


def draw_frequencies(n_components: int, n_features: int, rng,
                     transposed: bool = False) -> np.ndarray:
    """Return standard normal frequencies ``U`` of shape ``(n_components // 2, n_features)``.

    Parameters
    ----------
    n_components : int
        Number of random features ``D`` (``D // 2`` frequencies, at least 1).
    n_features : int
        Input dimension ``d``.
    rng : numpy.random.Generator
        Source of the draws (``U`` row by row, as one ``standard_normal`` call).
    transposed : bool
        Return ``U.T`` as a C-contiguous (d, D/2) array instead: the same draws,
        made a few rows of ``U`` at a time and written straight into the
        transposed layout, so no (D/2, d) temporary is built (at D = 200,
        d = 10^6 the transposing copy took about as long as the draws).

    Returns
    -------
    ndarray
    """
    half = max(int(n_components) // 2, 1)
    if not transposed:
        return rng.standard_normal((half, n_features))
    out = np.empty((n_features, half))
    for start in range(0, half, _DRAW_BLOCK):
        stop = min(start + _DRAW_BLOCK, half)
        out[:, start:stop] = rng.standard_normal((stop - start, n_features)).T
    return out


def fix_bandwidth(state: dict, rows: RowData, params: dict) -> None:
    """On the first call, set ``state["bandwidth"]`` and divide the frequencies by it.

    The frequencies are then made read-only: no kernel writes them, and the
    estimator shares read-only state arrays between its state and the working copy
    of a ``partial_fit`` call instead of copying them (O(D d) per call otherwise).
    """
    if state["bandwidth"][0] <= 0:
        bw = params["bandwidth"]
        sigma = auto_bandwidth(rows) if bw == "auto" else float(bw)
        state["bandwidth"][0] = sigma
        state["freq"] /= sigma
    state["freq"].flags.writeable = False


def rff_decision(state, params, rows: RowData) -> np.ndarray:
    """Return ``w . phi(x)`` for every row of ``rows``."""
    out = np.empty(rows.n_samples)
    phi = np.empty(2 * state["freq"].shape[1])
    select(rff_scores)(out, state["w"], state["freq"], phi, rows.data, rows.indices, rows.indptr)
    return out


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh AOGD state; the frequencies are drawn here from ``rng``.

    Returns
    -------
    dict
        ``freq`` (d, D/2) transposed frequencies ``U^T`` (standard normal
        until the first pass divides them by the bandwidth and makes them
        read-only), ``bandwidth`` (1,) (0 until fixed),
        ``w`` (D,), running means ``phi_count`` (2,), ``phi_mean`` (2, D),
        representatives ``rep`` (2, D) and their labels ``rep_label`` (2,).
    """
    half = max(int(params["n_components"]) // 2, 1)
    check_memory(float(half) * (n_features + 10), params,
                 f"AOGD's {2 * half} random features in dimension {n_features}",
                 "Lower n_components")
    freq = draw_frequencies(params["n_components"], n_features, rng, transposed=True)
    dim = 2 * freq.shape[1]
    return {
        "freq": freq,
        "bandwidth": np.zeros(1),
        "w": np.zeros(dim),
        "phi_count": np.zeros(2, dtype=np.int64),
        "phi_mean": np.zeros((2, dim)),
        "rep": np.zeros((2, dim)),
        "rep_label": np.zeros(2),
    }


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One AOGD pass over ``order``; the Bernoulli draws are made here from ``rng``.

    Draw order per call: ``rng.random(len(order))`` (one uniform per visited
    row; the representative is replaced when it is below ``q``).
    """
    fix_bandwidth(state, rows, params)
    coins = rng.random(order.shape[0])
    eta = float(params["eta"])
    gamma = eta if params["eta_random"] is None else float(params["eta_random"])
    hp = AOGDHyper(eta=eta, gamma=gamma, lam=float(params["lam"]), q=float(params["q"]),
                   averaging=AVERAGING[params["averaging"]])
    phi = np.empty(state["w"].shape[0])
    return select(aogd_epoch)(state["w"], state["freq"], state["phi_count"], state["phi_mean"],
                      state["rep"], state["rep_label"], phi, rows.data, rows.indices,
                      rows.indptr, y, order, coins, hp, t, learn)


def mean_scores(state, params):
    """Return ``(w . mean phi+, w . mean phi-)`` (the global mean twice for ``"global"``)."""
    w, count, mean = state["w"], state["phi_count"], state["phi_mean"]
    if params["averaging"] == "global":
        s = float(w @ mean[0]) if count[0] else None
        return s, s
    return (float(w @ mean[1]) if count[1] else None, float(w @ mean[0]) if count[0] else None)


AOGD = register(
    AlgorithmSpec(
        id="aogd",
        name="AOGD",
        estimator="aucopt.kernel_model:AOGDClassifier",
        family="aogd",
        paper=PAPER,
        source="AlQuabeh, de Vazelhes, Gu, AAAI 2024",
        streaming=True,
        sparse=True,
        memory="O(D d + D): frequencies, weights, class means and representatives",
        cost="O(D nnz) per sample for the feature map + O(D) for the two steps",
        init_state=init_state,
        run=run,
        coef=None,
        decision=rff_decision,
        mean_scores=mean_scores,
        grid={"eta": tuple(2.0**k for k in range(-8, 0)),
              "lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"eta": (2.0**-7, 2.0**-5, 2.0**-3), "lam": (1e-6, 1e-4, 1e-2)},
        step_param="eta",
        warm_keys=("w", "freq", "bandwidth"),
        equivalence_params={"bandwidth": 1.0},
        notes="Paper grid: eta in 2^[-8:-1], lam in 10^[-8:-1], 3-fold CV; D and the kernel "
        "width are not reported (notes.md#aogd-defaults). Per-class averages "
        "(notes.md#aogd-averages), sqrt(2/D) (notes.md#rff-scale).",
    )
)
