"""Pairwise surrogate AUC losses (square, hinge, logistic, exponential) without pair loops."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import logsumexp

from ._ranking import _binary_target

__all__ = ["pairwise_auc_loss"]

_LOSSES = ("square", "hinge", "logistic", "exponential")
# Largest number of (positive, negative) pairs materialised at once by the O(n+ n-) losses.
_PAIR_CHUNK = 1 << 20


def pairwise_auc_loss(y_true, y_score, loss="square", margin=1.0, *, pos_label=None):
    r"""Mean pairwise surrogate loss of the AUC over positive/negative pairs.

    With :math:`d_{ij} = s_i - s_j` for a positive :math:`i` and a negative :math:`j`,
    and margin :math:`m`,

    .. math::

        L = \frac{1}{n_+ n_-} \sum_{i \in +} \sum_{j \in -} \ell(d_{ij}),

    where :math:`\ell` is one of

    ============== ================================ ==========================================
    ``loss``       :math:`\ell(d)`                  cost
    ============== ================================ ==========================================
    "square"       :math:`(m - d)^2`                O(n): :math:`(m - (\mu_+ - \mu_-))^2 +
                                                    \sigma_+^2 + \sigma_-^2` (class means and
                                                    population variances)
    "hinge"        :math:`\max(0, m - d)`           O(n log n): negatives sorted once, prefix
                                                    sums, one binary search per positive
    "exponential"  :math:`\exp(-d)`                 O(n): the mean factorises as
                                                    :math:`\overline{e^{-s_+}}\,
                                                    \overline{e^{s_-}}`, evaluated in log
                                                    space (``inf`` if it overflows float64)
    "logistic"     :math:`\log(1 + \exp(-d))`       O(n+ n-) time (no closed form), pairs
                                                    processed in chunks of about 1e6, so
                                                    O(n + 1e6) memory
    ============== ================================ ==========================================

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels of any type.
    y_score : array-like of shape (n_samples,)
        Finite real-valued scores.
    loss : {"square", "hinge", "logistic", "exponential"}, default="square"
        The surrogate :math:`\ell`.
    margin : float, default=1.0
        The margin :math:`m` of the square and hinge losses. The logistic and
        exponential losses have no margin; for them ``margin`` must stay 1.0.
    pos_label : int, float, bool, str or None, default=None
        Label of the positive class; ``None`` takes the larger of the two sorted labels.

    Returns
    -------
    value : float
        The mean loss (lower is better).

    Raises
    ------
    ValueError
        For the inputs rejected by :func:`roc_auc_score`, an unknown ``loss``, a
        non-finite ``margin``, or a ``margin`` other than 1.0 with the logistic or
        exponential loss.
    TypeError
        If ``margin`` is not a real number or ``loss`` is not a string.

    Examples
    --------
    >>> from aucopt.metrics import pairwise_auc_loss
    >>> pairwise_auc_loss([0, 1], [0.0, 1.0], loss="hinge")
    0.0
    >>> pairwise_auc_loss([0, 1], [0.0, 0.5], loss="square")
    0.25
    """
    if not isinstance(loss, str):
        raise TypeError(f"loss must be a string, one of {list(_LOSSES)}; got {loss!r}.")
    if loss not in _LOSSES:
        raise ValueError(f"Unknown loss={loss!r}; choose one of {list(_LOSSES)}.")
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise TypeError(f"margin must be a real number, got {margin!r}.")
    margin = float(margin)
    if not math.isfinite(margin):
        raise ValueError(f"margin must be finite, got {margin}.")
    if loss in ("logistic", "exponential") and margin != 1.0:
        raise ValueError(
            f"The {loss} loss has no margin, so margin must stay 1.0 (got {margin}). "
            "Use loss='square' or 'hinge' to set a margin."
        )
    is_pos, scores, _, _ = _binary_target(y_true, y_score, pos_label)
    scores = scores.astype(np.float64)
    # the losses depend on score differences only: centring reduces cancellation
    scores = scores - np.mean(scores)
    pos, neg = scores[is_pos], scores[~is_pos]

    if loss == "square":
        gap = margin - (pos.mean() - neg.mean())
        return float(gap * gap + pos.var() + neg.var())
    if loss == "hinge":
        # pair (i, j) is active when s_j > s_i - m; it contributes m - s_i + s_j
        neg_sorted = np.sort(neg)
        suffix = np.concatenate((np.cumsum(neg_sorted[::-1])[::-1], [0.0]))
        first = np.searchsorted(neg_sorted, pos - margin, side="right")
        active = neg_sorted.shape[0] - first
        total = np.sum(active * (margin - pos) + suffix[first])
        return float(total / (pos.shape[0] * neg.shape[0]))
    if loss == "exponential":
        log_mean = (
            logsumexp(-pos) - math.log(pos.shape[0]) + logsumexp(neg) - math.log(neg.shape[0])
        )
        with np.errstate(over="ignore"):
            return float(np.exp(log_mean))
    # logistic: O(n+ n-), chunked over the positives
    rows = max(1, _PAIR_CHUNK // neg.shape[0])
    total = 0.0
    for start in range(0, pos.shape[0], rows):
        diff = pos[start : start + rows, None] - neg[None, :]
        total += float(np.sum(np.logaddexp(0.0, -diff)))
    return total / (pos.shape[0] * neg.shape[0])


# ---------------------------------------------------------------------------------------
# streaming
# ---------------------------------------------------------------------------------------
