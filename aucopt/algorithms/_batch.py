"""What the batch (finite-sum) solvers share: declarations, spec fields, the stage loop.

Used by VRSPAM, SPDAM, MBA and the batch pairwise baselines: they keep the whole
training set, and ``run`` does the whole solve of a ``fit`` call. Also the
generalised cross-validation of ``lam="auto"`` for the closed-form least-squares
solvers (:func:`gcv_path`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import scipy.linalg

from .._kernels._checks import OK
from ._data import row_sqnorms
from ._params import AUTO, NON_NEGATIVE, POSITIVE, Param, common

__all__ = ["BATCH", "AUTO_GRID", "batch_common", "max_memory_gb", "stage_tol",
           "relative_change", "run_stages", "GCV_GAMMA", "GCV_MAX_FEATURES", "gcv_lam",
           "class_totals", "effective_size", "gcv_path", "best_lam", "spread_lam", "pair_spread",
           "spread_rule", "lam_by_spread"]

# AlgorithmSpec fields of every batch solver.
BATCH = dict(streaming=False, sparse=True, epochs_by_base=False)
# the description of ``shuffle`` for a solver whose solution does not depend on the order of
# the rows, and for one that preconditions (its scales are estimated from evenly spaced rows)
ORDER_FREE = "Ignored (the solution does not depend on the sample order)."
ORDER_FREE_PRECONDITIONED = (
    "Ignored: the solution does not depend on the sample order, but, with "
    "``precondition=\"auto\"`` on more than 10^4 rows, through the preconditioner's scales, "
    "estimated from 10^4 evenly spaced rows (notes.md#preconditioning).")


def batch_common(*, max_iter: int, max_iter_doc: str, shuffle_default: bool = True,
                 **docs: str) -> tuple[Param, ...]:
    """Return :func:`~aucopt.algorithms._params.common` with a batch solver's descriptions.

    Parameters
    ----------
    max_iter : int
        Default of ``max_iter``.
    max_iter_doc : str
        Its description.
    shuffle_default : bool, default=True
        Default of ``shuffle``.
    **docs : str
        Descriptions that replace the common ones (``shuffle``, ``random_state``,
        ``warm_start``, ``verbose``); ``verbose`` defaults to one line per ``fit``.

    Returns
    -------
    tuple of Param
    """
    docs.setdefault("verbose", "Log one line per ``fit`` at INFO level on the ``aucopt`` logger.")
    out = []
    for p in common(max_iter=max_iter, max_iter_doc=max_iter_doc):
        changes = {"doc": docs[p.name]} if p.name in docs else {}
        if p.name == "shuffle" and shuffle_default is not True:
            changes["default"] = shuffle_default
        out.append(p.replace(**changes) if changes else p)
    return tuple(out)


def max_memory_gb(doc: str) -> Param:
    """Declare ``max_memory_gb``, the limit on the dense d x d matrices a solver forms."""
    return Param("max_memory_gb", 2.0, (POSITIVE,), "float", doc)


def stage_tol(default: float, stage: str) -> Param:
    """Declare ``tol``, the threshold of :func:`run_stages` (``stage``: what one stage is)."""
    return Param("tol", default, (NON_NEGATIVE,), "float", f"""
        Stop when the relative change of :math:`w` over one {stage},
        :math:`\\|w_s - w_{{s-1}}\\| / \\|w_s\\|`, is at most ``tol``; 0 runs all
        ``max_iter`` {stage}s.""")


def relative_change(w: np.ndarray, previous: np.ndarray) -> float:
    """Return ``||w - previous|| / max(||w||, 1e-12)``."""
    return float(np.linalg.norm(w - previous)) / max(float(np.linalg.norm(w)), 1e-12)


def run_stages(state: dict, t: int, max_iter: int, tol: float,
               stage: Callable[[int], tuple[int, int]], deadline=None) -> tuple[int, int]:
    """Run up to ``max_iter`` stages; stop when the relative change of ``w`` is ``<= tol``.

    Parameters
    ----------
    state : dict
        Holds ``w`` (changed by the stages), ``n_iter`` (1,) (stages run) and
        ``change`` (1,) (the last relative change of ``w``), both written here.
    t : int
        Updates done before the first stage.
    max_iter : int
        Most stages to run.
    tol : float
        Stopping threshold on :func:`relative_change`; 0 runs all stages.
    stage : callable
        ``stage(t) -> (t, status)``: one stage, updating ``state["w"]`` in place.
    deadline : Deadline, optional
        Stop between stages once it has passed (:mod:`aucopt.algorithms._time_budget`).

    Returns
    -------
    t : int
    status : int
        ``OK``, or the first other status a stage returned (the loop stops there).
    """
    w = state["w"]
    state["n_iter"][0] = 0
    for _ in range(max_iter):
        if state["n_iter"][0] and deadline is not None and deadline.passed():
            break
        previous = w.copy()
        t, status = stage(t)
        if status != OK:
            return t, status
        state["n_iter"][0] += 1
        state["change"][0] = relative_change(w, previous)
        if state["change"][0] <= tol:
            break
    return t, OK


# ------------------------------------------------------------ lam="auto" (GCV)
# Candidates of "auto": 10^-6 .. 10^2 times the mean eigenvalue of the system, 8 per decade
AUTO_GRID = 10.0 ** np.linspace(-6.0, 2.0, 65)
# GCV's weight on the degrees of freedom (Kim and Gu, JRSS-B 2004; mgcv's gamma = 1.4):
# plain GCV (1.0) tends to the interpolating fit when d approaches the number of rows
GCV_GAMMA = 1.4
# above this many features "auto" uses the data-size rule (lam_by_spread's) instead of GCV:
# the eigendecomposition costs about ten Cholesky factorisations of the system
GCV_MAX_FEATURES = 2000


def gcv_lam(problem: str) -> Param:
    """Declare ``lam`` of a closed-form least-squares solver, ``"auto"`` by default."""
    return Param("lam", "auto", (POSITIVE, AUTO), 'float or "auto"', f"""
        l2 weight :math:`\\lambda`. ``"auto"`` (default) picks it by generalised
        cross-validation of {problem} (notes.md#gcv-lam): one eigendecomposition of
        the d x d system, then O(d) per candidate on a log grid from 1e-6 to 100
        times the system's mean eigenvalue; above {GCV_MAX_FEATURES} features, where the
        eigendecomposition would cost about ten solves, a multiple of the positive-negative
        pairs' mean squared distance over 4 n+ n- / n (notes.md#spread-lam). The value
        used is ``lam_``; a number is used as given.""")


# Below this largest weight, products of class sums and pair weights can underflow.
_SMALLEST_UNSCALED = 2.0**-64


def unit_scale(y: np.ndarray) -> np.ndarray:
    """Return the signed weights ``y`` scaled by a power of two so that ``max |y| <= 1``.

    The batch objectives weigh a pair by ``v_i v_j / (W+ W-)`` (or a row by ``v_i / W+-``),
    so a common factor of the weights cancels; scaling by a power of two is exact, so the
    result is bit for bit that of the unscaled weights wherever those do not overflow
    (weights such as 1e308 or 2^62 made the class sums and pair weights overflow: NaN
    scores, or cutting planes that ran for minutes) or underflow (weights of 1e-300: the
    product ``W+ W-`` is 0). Weights whose largest lies in ``[2^-64, 1]`` (unit weights
    among them) are returned as they are.

    Raises
    ------
    ValueError
        If, next to the largest weight, a whole class's weights underflow to zero.
    """
    top = float(np.max(np.abs(y), initial=0.0))
    if _SMALLEST_UNSCALED <= top <= 1.0 or top == 0.0:
        return y
    scaled = np.ldexp(y, -math.frexp(top)[1])
    w_pos, w_neg = class_totals(scaled)
    if not (w_pos > 0 and w_neg > 0):
        raise ValueError(f"sample_weight spans too wide a range (largest {top:.3g}): the "
                         "weights of one class are 0 next to it in float64. Rescale the "
                         "weights into a range of at most 1e300.")
    return scaled


def class_totals(y: np.ndarray) -> tuple[float, float]:
    """Return the class weight sums ``(W+, W-)`` of the signed weights ``y = ±v``."""
    pos = y > 0
    return float(y[pos].sum()), float(-y[~pos].sum())


def effective_size(w_pos: float, w_neg: float) -> float:
    """Return ``4 W+ W- / (W+ + W-)``: the sample size of a class-balanced problem.

    ``W+-`` are the class weight sums (the class sizes for unit weights, so integer
    weights count as duplicated rows). It is ``n`` for balanced classes and about
    ``4 n+`` for rare positives: the few positives, not all rows, limit what the
    data can support.
    """
    size = 4.0 * w_pos * w_neg / (w_pos + w_neg)
    if size > 0.0 or not (w_pos > 0.0 and w_neg > 0.0):
        return size
    size = 4.0 / (1.0 / w_pos + 1.0 / w_neg)  # the product underflowed (weights ~1e-300)
    if not size > 0.0:
        raise ValueError(f"sample_weight is too small to use (class sums {w_pos:.3g} and "
                         f"{w_neg:.3g}); rescale the weights (e.g. divide by their maximum).")
    return size


def gcv_path(G: np.ndarray, h: np.ndarray, df0: float, n_eff: float,
             grid: np.ndarray = AUTO_GRID) -> tuple[np.ndarray, np.ndarray]:
    """Generalised cross-validation of the ridge problem ``min_w E(y - w.x)^2 + t ||w||^2``.

    The expectation is over the (weighted) observations with ``E y^2 = 1``;
    ``G = E x x^T`` and ``h = E y x``, so ``w_t = (G + t I)^-1 h``. With
    ``G = V diag(s) V^T`` and ``z = V^T h``, the mean squared residual and the
    degrees of freedom (the trace of the hat matrix) are

        RSS(t) = 1 - sum_k z_k^2 (s_k + 2 t) / (s_k + t)^2,
        df(t) = df0 + sum_k s_k / (s_k + t),

    and GCV (Golub, Heath, Wahba, Technometrics 1979) is
    ``RSS(t) / (1 - gamma df(t)/n_eff)^2`` (infinite where ``gamma df >= n_eff``),
    with ``gamma = GCV_GAMMA`` = 1.4 (Kim and Gu, JRSS-B 2004): plain GCV
    (``gamma = 1``) goes to 0 with the residuals when d is close to the number of
    rows, i.e. it chooses to interpolate. One eigendecomposition, then O(d) per
    candidate.

    Parameters
    ----------
    G : ndarray of shape (d, d)
        Symmetric positive semidefinite (not modified).
    h : ndarray of shape (d,)
    df0 : float
        Degrees of freedom outside ``w`` (1 for an unpenalised intercept).
    n_eff : float
        Sample size of the criterion.
    grid : ndarray, default=AUTO_GRID
        Candidates of ``t`` relative to the mean eigenvalue of ``G``.

    Returns
    -------
    t : ndarray
        The candidates.
    values : ndarray
        GCV at each candidate.
    """
    s, V = scipy.linalg.eigh(G)
    s = np.maximum(s, 0.0)  # rounding may leave tiny negative eigenvalues
    z2 = (V.T @ h) ** 2
    scale = s.mean()
    t = (scale if scale > 0 else 1.0) * np.asarray(grid, dtype=np.float64)
    # the criterion in units where the mean eigenvalue is about 1: a power of two, so the
    # same bits wherever (S + T)^2 stays finite, and no overflow or underflow where it
    # would not (features of sizes beyond about 1e76 or below 1e-76)
    unit = 2.0 ** -np.round(np.log2(scale)) if scale > 0 else 1.0
    S, T, z2 = s[None, :] * unit, t[:, None] * unit, z2 * unit
    rss = np.maximum(1.0 - (z2 * (S + 2.0 * T) / (S + T) ** 2).sum(axis=1), 0.0)
    used = GCV_GAMMA * (df0 + (S / (S + T)).sum(axis=1)) / n_eff
    with np.errstate(divide="ignore"):
        values = np.where(used < 1.0, rss / (1.0 - np.minimum(used, 1.0)) ** 2, np.inf)
    return t, values


def best_lam(lams: np.ndarray, values: np.ndarray) -> float:
    """Return the candidate of smallest criterion (the largest if none is finite)."""
    if not np.isfinite(values).any():
        return float(lams[-1])
    return float(lams[int(np.argmin(values))])


# ------------------------------------------------- lam="auto" (data-size rule)
def spread_lam(factor: float, doc: str = r"l2 weight :math:`\lambda`.", name: str = "lam",
               low=POSITIVE) -> Param:
    """Declare ``name``, ``"auto"`` by default: ``factor`` times :func:`pair_spread` / n_eff."""
    return Param(name, "auto", (low, AUTO), 'float or "auto"', f"""
        {doc} ``"auto"`` (default): :math:`{factor:g}\\,E\\|x_i - x_j\\|^2 / n_{{eff}}`, the
        mean squared distance of the positive-negative pairs over the sample size
        :math:`n_{{eff}} = 4 n_+ n_- / n` (notes.md#spread-lam): strong for few rows
        or few positives, weak for many, and in the units of the data. The value
        used is ``{name}_``; a number is used as given.""")


def pair_spread(X, y) -> float:
    """Return ``E ||x_i - x_j||^2`` over the (i+, j-) pairs weighted by ``v_i v_j``, in O(nnz).

    It is ``E+ ||x||^2 + E- ||x||^2 - 2 c+.c-`` (class-weighted means, ``y = ±v``).
    """
    sq = row_sqnorms(X)
    moments = []
    for mask in (y > 0, y < 0):  # weights zeroed outside the class: no copy of X's rows
        v = np.where(mask, np.abs(y), 0.0)
        total = v.sum()
        moments.append((np.asarray(X.T @ v).ravel() / total, v @ sq / total))
    (c_pos, q_pos), (c_neg, q_neg) = moments
    return max(float(q_pos + q_neg - 2.0 * c_pos @ c_neg), 0.0)


def spread_rule(spread: float, totals: tuple[float, float], factor: float) -> float:
    """Return ``factor * spread / effective_size(*totals)`` (``spread`` 0 counts as 1)."""
    return factor * (spread if spread > 0 else 1.0) / effective_size(*totals)


def lam_by_spread(lam, X, y, factor: float) -> float:
    """Return ``lam`` as a number: for ``"auto"``, ``factor`` * :func:`pair_spread` / n_eff."""
    if not (isinstance(lam, str) and lam == "auto"):
        return float(lam)
    return spread_rule(pair_spread(X, y), class_totals(y), factor)
