"""The objectives that score the brief runs of the step calibration (:mod:`._calibrate`).

Each is a function of the model's scores on the calibration sample and the signed weights
``y = ±w`` (notes.md#sample-weights): a row weighs ``w_i``, a positive-negative pair
``w_i w_j``, so integer weights give the objective of the sample with duplicated rows and unit
weights the unweighted one bit for bit. :func:`regularised` builds a spec's objective hook.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit

__all__ = ["MAX_SCALE", "best_scale_loss", "pairwise_loss", "regularised", "univariate_loss"]

MAX_SCALE = 100.0  # best_scale_loss searches c in [0, MAX_SCALE] / (std of the scores)


def _classes(scores: np.ndarray, y: np.ndarray):
    """Return ``(s+, w+), (s-, w-)``: each class's scores and sample weights (``y = ±w``)."""
    pos = y > 0
    weights = np.abs(y).astype(np.float64)
    return (scores[pos], weights[pos]), (scores[~pos], weights[~pos])


def _moments(s: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Return the weighted mean and variance (``np.mean``/``np.var`` bit for bit when w = 1)."""
    total = np.sum(w)
    mean = np.sum(w * s) / total
    dev = s - mean
    return mean, np.sum(w * (dev * dev)) / total


def _class_gap(scores, y) -> tuple[float, float, float]:
    """Return the gap between the weighted class means and the two weighted variances."""
    (pos, wp), (neg, wn) = _classes(scores, y)
    (mp, vp), (mn, vn) = _moments(pos, wp), _moments(neg, wn)
    return mp - mn, vp, vn


def pairwise_loss(scores: np.ndarray, y: np.ndarray, loss: str) -> float:
    """Return the weighted mean over positive-negative pairs of ``loss(s+ - s-)`` (exact).

    A pair weighs ``w+ w-`` (``y = ±w``, notes.md#sample-weights), so integer weights
    give the loss of the sample with duplicated rows. ``"square"``: ``(1 - (s+ - s-))^2``
    from the weighted class moments, O(n); ``"hinge"``: ``max(0, 1 - (s+ - s-))`` from
    the sorted negative scores, O(n log n).
    """
    if loss == "square":
        gap, vp, vn = _class_gap(scores, y)
        return float((1.0 - gap) ** 2 + vp + vn)
    return _HingePairs(scores, y)(1.0)


class _HingePairs:
    """The weighted pairwise hinge loss of ``c * scores`` for any ``c > 0``, sorted once.

    Multiplying by ``c > 0`` keeps the order of the negative scores, so the sort and
    the weights' suffix sums are shared by every ``c`` (the best-scale search).
    """

    def __init__(self, scores, y):
        (self.pos, self.wp), (neg, wn) = _classes(scores, y)
        order = np.argsort(neg, kind="stable")
        self.neg, self.wn = neg[order], wn[order]
        self.count = np.concatenate([np.cumsum(self.wn[::-1])[::-1], [0.0]])  # w of neg[k:]
        self.norm = np.sum(self.wp) * np.sum(self.wn)

    def __call__(self, c: float) -> float:
        neg, pos = c * self.neg, c * self.pos
        tail = np.concatenate([np.cumsum((self.wn * neg)[::-1])[::-1], [0.0]])
        first = np.searchsorted(neg, pos - 1.0, side="right")  # pairs with 1 - s+ + s- > 0
        return float(np.sum(self.wp * (self.count[first] * (1.0 - pos) + tail[first]))
                     / self.norm)


def univariate_loss(scores: np.ndarray, y: np.ndarray, loss: str) -> float:
    """Return the class-balanced univariate loss at the best bias (closed forms; a root
    search in one variable for the logistic loss).

    ``"exp"``: ``mean+ e^-(s+b) + mean- e^(s+b)``, minimised at ``2 sqrt(A B)``;
    ``"square"``: ``mean+ (1 - s - b)^2 + mean- (1 + s + b)^2``; ``"logistic"``:
    ``mean+ log(1 + e^-(s+b)) + mean- log(1 + e^(s+b))`` at the root of its derivative in
    ``b`` (:func:`_logistic_at_best_bias`). The means are weighted by ``w`` (``y = ±w``).
    """
    if loss == "square":
        gap, vp, vn = _class_gap(scores, y)
        return float(0.5 * (2.0 - gap) ** 2 + vp + vn)
    (pos, wp), (neg, wn) = _classes(scores, y)
    if loss == "logistic":
        return _logistic_at_best_bias(pos, wp / np.sum(wp), neg, wn / np.sum(wn))
    shift = 0.5 * (pos.min() + neg.max())  # the bias does not change the minimum
    with np.errstate(over="ignore"):
        a = np.sum(wp * np.exp(shift - pos)) / np.sum(wp)
        b = np.sum(wn * np.exp(neg - shift)) / np.sum(wn)
    return float(2.0 * np.sqrt(a * b))


def _logistic_at_best_bias(pos, wp, neg, wn) -> float:
    """Return ``min over b of sum wp log(1 + e^-(s+ + b)) + sum wn log(1 + e^(s- + b))``
    (``wp``, ``wn``: weights summing to 1 each). The derivative in ``b``,
    ``-sum wp sigma(-(s+ + b)) + sum wn sigma(s- + b)``, rises from -1 to 1, so its root is
    bracketed by the biases that put every score 40 below or above 0."""
    def slope(b):
        return float(np.sum(wn * expit(neg + b)) - np.sum(wp * expit(-(pos + b))))

    low = -max(pos.max(), neg.max()) - 40.0
    high = -min(pos.min(), neg.min()) + 40.0
    b = brentq(slope, low, high, xtol=1e-10 * max(1.0, abs(low), abs(high)))
    return float(np.sum(wp * np.logaddexp(0.0, -(pos + b)))
                 + np.sum(wn * np.logaddexp(0.0, neg + b)))


def best_scale_loss(scores: np.ndarray, y: np.ndarray, loss: str,
                    kind: str = "pairwise") -> float:
    """Return ``min over c >= 0 of loss(c * scores, y)``: the loss of the direction alone.

    The scores are divided by their standard deviation and ``c`` is searched in
    ``[0, MAX_SCALE]``, so the value does not change when the scores are multiplied by
    a positive number. The square losses are quadratic in ``c``, minimised in closed
    form; the others by bounded Brent.

    Parameters
    ----------
    scores, y : ndarray
        Scores and signed weights ``y = ±w``.
    loss : str
        Loss name (see :func:`pairwise_loss`, :func:`univariate_loss`).
    kind : {"pairwise", "univariate"}
    """
    measure = pairwise_loss if kind == "pairwise" else univariate_loss
    sd = float(np.std(scores))
    if not sd > 0:
        return float(measure(scores, y, loss))
    unit = scores / sd
    if loss == "square":  # (t - c g)^2 / t + c^2 v: t = 1 pairwise, t = 2 univariate
        gap, vp, vn = _class_gap(unit, y)
        t = 1.0 if kind == "pairwise" else 2.0
        c = min(max(t * gap / (gap * gap + t * (vp + vn)), 0.0), MAX_SCALE)
        return float((t - c * gap) ** 2 / t + c * c * (vp + vn))
    at = _HingePairs(unit, y) if kind == "pairwise" and loss == "hinge" else (
        lambda c: measure(c * unit, y, loss))
    found = minimize_scalar(at, bounds=(0.0, MAX_SCALE), method="bounded",
                            options={"xatol": 1e-4})
    return float(min(found.fun, measure(0.0 * unit, y, loss)))


def regularised(loss, *, kind="pairwise", l2=None, l1=None):
    """Return an ``objective(scores, w, params, y)`` hook for :class:`StepCalibration`.

    With a regulariser the value is the loss plus the penalty at ``w``. Without
    one (``l2`` and ``l1`` both None: SOLAM, FSAUC and OAM, which keep their
    iterates in a ball instead) it is the loss at the best scale of the scores
    (:func:`best_scale_loss`), and the hook is marked ``scale_free``: the
    unregularised loss keeps falling while the norm of ``w`` grows, so after a
    brief run its value mostly tells how far the norm travelled and favours the
    largest step that does not diverge, whereas the ranking (the AUC) depends on
    the direction of ``w`` alone. Measured on ``benchmarks/robustness.py`` (three
    sample orders per case): SOLAM's worst gap to the least-squares optimum goes
    from -0.028 (Pareto-tailed columns) to -0.012, FSAUC's (with three passes)
    from -0.017 to -0.007.

    Parameters
    ----------
    loss : str or callable
        Loss name (see :func:`pairwise_loss`, :func:`univariate_loss`) or
        ``loss(params) -> str``.
    kind : {"pairwise", "univariate"}
    l2, l1 : str, optional
        Names of the hyperparameters weighting ``||w||^2 / 2`` and ``||w||_1``
        (a name missing from the parameters weighs 0).
    """
    measure = pairwise_loss if kind == "pairwise" else univariate_loss

    def objective(scores, w, params, y) -> float:
        name = loss(params) if callable(loss) else loss
        if l2 is None and l1 is None:
            return best_scale_loss(scores, y, name, kind)
        value = measure(scores, y, name)
        if w is not None and l2 is not None:
            value += 0.5 * float(params.get(l2, 0.0)) * float(w @ w)
        if w is not None and l1 is not None:
            value += float(params.get(l1, 0.0)) * float(np.abs(w).sum())
        return value

    objective.scale_free = l2 is None and l1 is None
    return objective
