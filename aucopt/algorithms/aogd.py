"""AOGD: state layout, hyperparameters, kernel call (AlQuabeh et al. 2024, Algorithm 1).

Corrections and choices: notes.md#aogd-averages, #rff-scale, #aogd-defaults."""

from __future__ import annotations

import logging
import textwrap
from numbers import Real

import numpy as np

from .._kernels._state import view, zeros
from .._kernels.aogd import (
    GLOBAL,
    PER_CLASS,
    AOGDState,
    aogd_epoch,
    aogd_keep,
    aogd_row,
    rff_scores,
)
from ..utils._param_validation import Interval, Options
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights, row_sqnorms
from ._fast import select
from ._memory import check_memory
from ._params import (
    AUTO,
    NON_NEGATIVE,
    POSITIVE,
    SIZE,
    KernelScalars,
    Param,
    auto_step,
    codes,
    common,
)
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData

logger = logging.getLogger(__name__)

__all__ = [
    "AOGDHyper", "AVERAGING", "AOGD", "BANDWIDTH", "HELD_OUT", "PARAMS", "auto_bandwidth",
    "check_width", "draw_frequencies", "hyper", "max_memory_gb", "rff_decision", "with_docs",
]

PAPER = (
    "H. AlQuabeh, W. de Vazelhes, B. Gu. Limited memory online gradient descent for "
    "kernelized pairwise learning with dynamic averaging. AAAI 2024, Algorithm 1."
)

AVERAGING = {"per_class": PER_CLASS, "global": GLOBAL}

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA whatever the data's scale (||phi|| = 1); before calibration the kernel uses AUTO_ETA,
# the former default (measured, 5-fold on german.numer: 0.725 AUC at 0.25, 0.776 at 2^-5,
# 0.786 at 0.01).
AUTO_ETA = 2.0**-5
# Share of each class of the calibration sample that scores AOGD's brief runs instead of
# training them: on a small training set the sample is all of it, and the objective on the
# rows learned keeps falling with larger steps. Measured on benchmarks/robustness.py's cases,
# three seeds; Projection++ does better scored in-sample (notes.md#kernel-steps).
HELD_OUT = 0.3


# Declarations shared by the kernel learners (AOGD here, Projection++ and Sparse Kernel in
# aucopt.algorithms.kernel_budget), each with its own description.
BANDWIDTH = Param("bandwidth", "auto", (POSITIVE, AUTO), 'float or "auto"', r"""
    Gaussian kernel width :math:`\sigma` in
    :math:`k(x, x') = \exp(-\|x - x'\|^2/(2\sigma^2))`. ``"auto"``: the
    root of the total variance of the first data given, weighted by their
    sample weights (O(nnz), so a typical pair has :math:`k \approx e^{-1}`;
    integer weights give the width of repeated rows); fixed afterwards: a stream
    (``partial_fit``) refuses another value until ``fit`` restarts.""", structural=True)


def max_memory_gb(what: str) -> Param:
    """Return the declaration of ``max_memory_gb``, the bound on the memory of ``what``."""
    doc = (f"Refuse (ValueError, before allocating) when {what} need more than this many GB "
           "(1 GB = 1e9 bytes).")
    return Param("max_memory_gb", 2.0, (POSITIVE,), "float", textwrap.fill(doc, 84))


def with_docs(params: tuple, **docs: str) -> tuple:
    """Return ``params`` with the descriptions of the parameters named in ``docs`` replaced."""
    return tuple(p.replace(doc=docs[p.name]) if p.name in docs else p for p in params)


def _eta_random(value) -> float:
    """The kernel's ``eta_random``: 0 (None) takes the random-example step from ``eta``."""
    return 0.0 if value is None else float(value)


PARAMS = (
    Param("n_components", 200, (SIZE,), "int", r"""
        Number of random features :math:`D` (rounded down to even; 1 gives 2, the cosine
        and sine of one frequency). The paper suggests
        :math:`D = O(\sqrt{T}\log T)`.""", structural=True),
    BANDWIDTH,
    auto_step("eta", AUTO_ETA, r"""
        Constant step :math:`\eta` of the average-based step. ``"auto"`` calibrates it
        on the training data (a short run per step of a geometric ladder centred on
        :math:`2^{-5}`, the lowest regularised objective wins;
        :mod:`aucopt.algorithms._calibrate`, notes.md#kernel-steps) and stores the value
        used in ``eta_``; until a ``partial_fit`` chunk can calibrate it, the step is
        :math:`2^{-5}`. The features have :math:`\|\phi\| = 1`, so the step does not
        depend on the scale of the data.""", scaled=False),
    Param("eta_random", None, (POSITIVE, None), "float or None", r"""
        Constant step :math:`\gamma` of the random-example step; None uses
        ``eta`` (for ``eta="auto"`` the calibrated value, notes.md#aogd-defaults).""",
          kernel=_eta_random),
    Param("lam", 1e-4, (NON_NEGATIVE,), "float",
          r"l2 weight :math:`\lambda` (applied in both steps).", kernel=float),
    Param("q", 0.5, (Interval(Real, 0, 1, closed="both"),), "float",
          "Bernoulli probability of replacing a representative (notes.md#aogd-defaults).",
          kernel=float),
    Param("averaging", "per_class", (Options(str, set(AVERAGING)),), '{"per_class", "global"}',
          """
        ``"per_class"``: per-class running means and representatives; only
        opposite-class pairs contribute (notes.md#aogd-averages). ``"global"``: one global
        mean and one representative, Algorithm 1 literally (a same-label
        representative is skipped). It decides what the state's means and representatives
        are, so a fitted model keeps the value it was fitted with until the next ``fit``.""",
          kernel=codes(AVERAGING), structural=True),
    max_memory_gb("the (d, D/2) frequencies and the D-dimensional weights, means and "
                  "representatives"),
    *with_docs(common(max_iter=1, max_iter_doc="""
        Passes over the data in ``fit`` (AOGD is a one-pass method). The
        running means are only updated on the first pass over new data.""",
                      warm_start="Start ``fit`` from the previous weights, frequencies and "
                      "bandwidth."),
               random_state="Seed of the frequencies, the sample order and the Bernoulli "
               "draws."),
)

hyper = KernelScalars("AOGDHyper", __name__, PARAMS)
AOGDHyper = hyper.type


def auto_bandwidth(rows: RowData, weights=None) -> float:
    """Return ``sigma`` with ``sigma^2`` = the total variance of ``rows`` (O(nnz)).

    ``sigma^2 = mean ||x||^2 - ||mean x||^2`` is half the mean squared distance
    between two rows, so ``k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))`` is about
    ``exp(-1)`` for a typical pair. A single row (a River stream's first) has no spread:
    its length is taken (the scale of centred features). Falls back to 1 for constant data
    (a variance below 1e-12 of the mean squared norm, whatever the scale of the features).
    With sample ``weights`` the means are weighted (integer weights: the bandwidth of
    repeated rows, notes.md#sample-weights); all-ones weights take the unweighted path.
    """
    n = max(rows.n_samples, 1)
    if weights is not None and not (weights == 1.0).all():
        n = float(weights.sum())
        per_value = (np.repeat(weights, np.diff(rows.indptr)) if rows.is_sparse
                     else weights[:, None])
        weighted = rows.data * per_value
        if rows.is_sparse:
            mean = np.bincount(rows.indices, weights=weighted, minlength=rows.n_features) / n
        else:
            mean = weighted.sum(axis=0) / n
        sq = float(np.sum(weighted * rows.data)) / n
        var = sq - float(mean @ mean)
        return float(np.sqrt(var)) if var > 1e-12 * sq else 1.0
    if rows.is_sparse:
        values = rows.data
        mean = np.bincount(rows.indices, weights=values, minlength=rows.n_features) / n
    else:
        values = rows.data
        mean = values.mean(axis=0) if rows.n_samples else np.zeros(rows.n_features)
    sq = float(row_sqnorms(rows).sum()) / n  # (no copy of the values)
    if rows.n_samples == 1 and sq > 0.0:  # one row (a River stream's first): no spread, but
        # its length is the features' scale (of centred features, about the root of the
        # total variance): the kernel then suits the data's units, not 1
        logger.info("bandwidth='auto' from one row: its length %.3g", np.sqrt(sq))
        return float(np.sqrt(sq))
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


def check_width(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded ``bandwidth`` is unset (0) or gives a positive finite
    ``1 / (2 sigma^2)``; outside about [1e-154, 1e154] the Gaussian kernel is NaN or constant
    (AOGD's random features too: frequencies of 1e-200 make every feature constant)."""
    sigma = np.float64(state["bandwidth"][0])
    with np.errstate(all="ignore"):
        inverse = 0.5 / sigma**2 if sigma > 0 else 0.0
    if sigma != 0.0 and not (np.isfinite(inverse) and inverse > 0):
        raise ValueError(f"bandwidth={float(sigma)!r} gives 1/(2 sigma^2)="
                         f"{float(inverse)!r}, with which the Gaussian kernel is NaN or "
                         "constant: give a bandwidth within about [1e-154, 1e154], of the "
                         "order of the distances between rows (or 'auto')")


def fix_bandwidth(state: dict, rows: RowData, params: dict, y) -> None:
    """On the first call, set ``state["bandwidth"]`` (``"auto"``: of the rows weighted by
    their sample weights ``|y|``) and divide the frequencies by it.

    The frequencies are then made read-only: no kernel writes them, and the
    estimator shares read-only state arrays between its state and the working copy
    of a ``partial_fit`` call instead of copying them (O(D d) per call otherwise).
    """
    bw = params["bandwidth"]
    if state["bandwidth"][0] <= 0:
        sigma = auto_bandwidth(rows, np.abs(y)) if bw == "auto" else float(bw)
        state["bandwidth"][0] = sigma
        check_width(state, params, rows.n_features)  # the rule load applies to the file
        state["freq"] /= sigma
    elif bw != "auto" and float(bw) != state["bandwidth"][0]:  # a warm start's kept width
        raise ValueError(f"warm_start=True cannot reuse the previous frequencies, drawn for "
                         f"bandwidth={float(state['bandwidth'][0])!r}, with bandwidth={bw!r}: set "
                         "warm_start=False to start afresh, or the previous bandwidth.")
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
        The arrays of :class:`aucopt._kernels.aogd.AOGDState`; ``freq`` holds
        standard normal draws until the first pass divides them by the bandwidth
        and makes them read-only.
    """
    half = max(int(params["n_components"]) // 2, 1)
    check_memory(float(half) * (n_features + 10), params,
                 f"AOGD's {2 * half} random features in dimension {n_features}",
                 "Lower n_components")
    state = zeros(AOGDState, n_features, half=0, dim=2 * half)  # freq: drawn below
    state["freq"] = draw_frequencies(params["n_components"], n_features, rng, transposed=True)
    return state


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One AOGD pass over ``order``; the Bernoulli draws are made here from ``rng``.

    Draw order per call: ``rng.random(len(order))`` (one uniform per visited
    row; the representative is replaced when it is below ``q``).
    """
    fix_bandwidth(state, rows, params, y)
    coins = rng.random(order.shape[0])
    phi = np.empty(state["w"].shape[0])
    return select(aogd_epoch)(view(AOGDState, state), phi, rows.data, rows.indices, rows.indptr,
                              y, order, coins, hyper(params), t, learn)


def row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return ``run``'s call on one row (see ``AlgorithmSpec.row_kernel``; None until the
    first call of ``run`` fixed the bandwidth and made the frequencies read-only).

    The kernel is :func:`~aucopt._kernels.aogd.aogd_row` (``aogd_epoch`` on the one-row
    chunk), with the row's Bernoulli uniform (``RowStep.draws``); it keeps the weights,
    means and representatives itself (``RowStep.own``: O(D), as the step), the
    transaction the counts; the frequencies are read-only.
    """
    if state["bandwidth"][0] <= 0 or state["freq"].flags.writeable:
        return None
    dim = state["w"].shape[0]
    coins = np.empty(1)
    return RowStep(aogd_row, (view(AOGDState, state), np.empty(dim), aogd_keep(dim)),
                   (coins, hyper(params)), (True,), draws=coins,
                   own=("w", "phi_mean", "rep"))


def upgrade_state(state: dict) -> None:
    """Convert the int64 ``phi_count`` of files saved before sample weights to float64
    (the total weight averaged, the same number for an unweighted fit)."""
    counts_as_weights(state, "phi_count")


def mean_scores(state, params):
    """Return ``(w . mean phi+, w . mean phi-)`` (the global mean twice for ``"global"``)."""
    w, count, mean = state["w"], state["phi_count"], state["phi_mean"]
    if params["averaging"] == "global":
        s = float(w @ mean[0]) if count[0] else None
        return s, s
    return (float(w @ mean[1]) if count[1] else None, float(w @ mean[0]) if count[0] else None)


def model_vector(state) -> np.ndarray:
    """Return the weights ``w``: the penalty of the calibration objective is AOGD's own."""
    return state["w"]


AOGD = register(
    AlgorithmSpec(
        id="aogd",
        name="AOGD",
        params=PARAMS,
        state=(AOGDState,),
        family="aogd",
        paper=PAPER,
        source="AlQuabeh, de Vazelhes, Gu, AAAI 2024",
        streaming=True,
        sparse=True,
        memory="O(D d + D): frequencies, weights, class means and representatives",
        cost="O(D nnz) per sample for the feature map + O(D) for the two steps",
        init_state=init_state,
        run=run,
        row_kernel=row_kernel,
        coef=None,
        decision=rff_decision,
        model_key="w",
        mean_scores=mean_scores,
        upgrade_state=upgrade_state,
        check_state=check_width,
        weights="steps",
        grid={"eta": tuple(2.0**k for k in range(-8, 0)),
              "lam": tuple(10.0**k for k in range(-8, 0))},
        quick_grid={"eta": (2.0**-7, 2.0**-5, 2.0**-3), "lam": (1e-6, 1e-4, 1e-2)},
        step_param="eta",
        other_steps=("eta_random",),  # the random-example step, when given
        calibration=StepCalibration(regularised("square", l2="lam"), unit=AUTO_ETA, power=0.0,
                                    share=0.75, model_vector=model_vector,
                                    held_out=HELD_OUT, prepare=fix_bandwidth),
        warm_keys=("w", "freq", "bandwidth"),
        equivalence_params={"bandwidth": 1.0},
        notes="Paper grid: eta in 2^[-8:-1], lam in 10^[-8:-1], 3-fold CV; D and the kernel "
        "width are not reported (notes.md#aogd-defaults). Per-class averages "
        "(notes.md#aogd-averages), sqrt(2/D) (notes.md#rff-scale). eta='auto' is calibrated "
        "on the data (notes.md#kernel-steps).",
    )
)
