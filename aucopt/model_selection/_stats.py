"""Significance marks as in the OPAUC paper: paired t-tests at 95 %, win/tie/loss counts."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np

__all__ = ["TTestResult", "paired_ttest", "win_tie_loss", "BETTER", "WORSE"]

BETTER = "●"  # the reference method is significantly better than the compared one
WORSE = "○"   # ... significantly worse


@dataclass(frozen=True)
class TTestResult:
    """Outcome of :func:`paired_ttest`.

    Attributes
    ----------
    statistic, pvalue : float
        Of ``scipy.stats.ttest_rel(reference, other)`` (NaN when undefined).
    outcome : {"win", "tie", "loss"}
        From the reference method's point of view.
    n : int
        Number of pairs.
    """

    statistic: float
    pvalue: float
    outcome: str
    n: int

    @property
    def mark(self) -> str:
        """``●`` (reference significantly better), ``○`` (worse) or ``""`` (tie)."""
        return {"win": BETTER, "loss": WORSE}.get(self.outcome, "")


def paired_ttest(reference, other, *, alpha=0.05) -> TTestResult:
    """Two-sided paired t-test of ``reference`` against ``other`` over the same splits.

    Parameters
    ----------
    reference, other : array-like of shape (n,)
        Scores (e.g. test AUC) of two methods on the same n splits, in the same order.
    alpha : float, default=0.05
        Significance level (95 % by default, as in Gao et al. 2013); any real number in
        (0, 1), numpy's included.

    Returns
    -------
    TTestResult
        ``outcome`` is ``"win"`` if the reference is significantly higher,
        ``"loss"`` if significantly lower, else ``"tie"``. Pairs with a non-finite
        score (a failed fit's NaN) are left out and ``n`` counts the others; fewer than
        two pairs are a tie. Differences that are all equal have no variance: all 0 is a
        tie (p-value 1), any other common difference a win or a loss (p-value 0).
    """
    from scipy import stats

    _check_alpha(alpha)
    a = np.asarray(reference, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_ttest needs two 1-d arrays of the same length, got shapes "
                         f"{a.shape} and {b.shape}.")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if a.size < 2:
        return TTestResult(math.nan, math.nan, "tie", int(a.size))
    diff = a - b
    if np.ptp(diff) <= 1e-12:
        # constant differences (up to rounding): zero variance, t is undefined or infinite
        shift = float(np.mean(diff))
        outcome = "tie" if abs(shift) <= 1e-12 else ("win" if shift > 0 else "loss")
        return TTestResult(math.nan, 1.0 if outcome == "tie" else 0.0, outcome, int(a.size))
    res = stats.ttest_rel(a, b)
    t, p = float(res.statistic), float(res.pvalue)
    outcome = "tie" if not p < alpha else ("win" if t > 0 else "loss")
    return TTestResult(t, p, outcome, int(a.size))


def _check_alpha(alpha) -> None:
    if not (isinstance(alpha, Real) and not isinstance(alpha, bool) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be a level in (0, 1), got {alpha!r}.")


def win_tie_loss(pairs, *, alpha=0.05) -> tuple[int, int, int]:
    """Count wins, ties and losses of a reference method over several datasets.

    Parameters
    ----------
    pairs : iterable of (reference_scores, other_scores)
        One pair of paired score arrays per dataset.
    alpha : float, default=0.05

    Returns
    -------
    (wins, ties, losses) : tuple of int
    """
    _check_alpha(alpha)  # (also without pairs)
    counts = {"win": 0, "tie": 0, "loss": 0}
    for ref, other in pairs:
        counts[paired_ttest(ref, other, alpha=alpha).outcome] += 1
    return counts["win"], counts["tie"], counts["loss"]
