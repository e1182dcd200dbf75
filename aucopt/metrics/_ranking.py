"""Exact ROC AUC, the ROC curve, pairwise surrogate losses and a streaming exact AUC.

Everything here is NumPy/SciPy only. Ties count one half, as in the Mann-Whitney
statistic and in :func:`sklearn.metrics.roc_auc_score`::

    AUC = 1/(n+ n-) * sum_{i in +} sum_{j in -} ( 1[s_i > s_j] + 1/2 * 1[s_i == s_j] )

Pair counts are kept as integers (twice the Mann-Whitney U, so that half ties stay
integral) and divided once at the end, so the result is the correctly rounded float64 of
the exact rational value for any n that fits in memory.
"""

from __future__ import annotations

import math
import numbers
from bisect import bisect_left, bisect_right, insort

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "StreamingROCAUC",
    "auc_from_curve",
    "pairwise_auc_loss",
    "roc_auc_score",
    "roc_curve",
]

_LOSSES = ("square", "hinge", "logistic", "exponential")
# Largest number of (positive, negative) pairs materialised at once by the O(n+ n-) losses.
_PAIR_CHUNK = 1 << 20


# ---------------------------------------------------------------------------------------
# input checking
# ---------------------------------------------------------------------------------------


def _as_score_array(y_score, name="y_score"):
    """Return ``y_score`` as a 1-D numeric array whose order is the order of the input.

    Integers keep their dtype (so huge integers are not merged by a float cast), booleans
    and floats of at most 64 bits become float64.
    """
    arr = np.asarray(y_score)
    if arr.ndim != 1:
        hint = (
            " For predict_proba output of shape (n, 2) pass y_score[:, 1]." if arr.ndim == 2 else ""
        )
        raise ValueError(
            f"{name} must be a 1-D array of scores, got an array of shape {arr.shape}.{hint}"
        )
    kind = arr.dtype.kind
    if kind in "iu":
        return arr
    if kind == "b" or (kind == "f" and arr.dtype.itemsize <= 8):
        arr = arr.astype(np.float64)
    elif kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must contain real numbers; converting it to float failed ({exc}). "
                "Pass a numeric array of scores."
            ) from exc
    elif kind != "f":
        raise TypeError(
            f"{name} must contain real numbers, got dtype {arr.dtype}. "
            "Pass a numeric array of scores (e.g. decision_function output)."
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.flatnonzero(bad)
        raise ValueError(
            f"{name} contains NaN or infinity at {where.size} position(s) "
            f"(first: {where[:5].tolist()}). Remove or impute these scores before "
            "computing the AUC."
        )
    return arr


def _binary_target(y_true, y_score, pos_label):
    """Validate a binary problem; return ``(is_pos, scores, n_pos, n_neg)``.

    The positive class is ``pos_label`` when given, else the larger of the two sorted
    labels (1 of {0, 1} and of {-1, 1}, True of booleans, the later string).
    """
    scores = _as_score_array(y_score)
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(
            f"y_true must be a 1-D array of labels, got an array of shape {y.shape}. "
            "Pass one label per sample."
        )
    if y.shape[0] != scores.shape[0]:
        raise ValueError(
            f"y_true and y_score have different lengths ({y.shape[0]} and "
            f"{scores.shape[0]}). Pass one score per label."
        )
    if y.shape[0] == 0:
        raise ValueError("y_true and y_score are empty; the AUC needs at least two samples.")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError("y_true contains NaN or infinity; every sample needs a class label.")
    try:
        classes = np.unique(y)
    except TypeError as exc:
        raise TypeError(
            f"y_true mixes label types that cannot be sorted ({exc}). Use labels of one type, "
            "e.g. all ints or all strings."
        ) from exc
    if classes.shape[0] > 2:
        more = ", ..." if classes.shape[0] > 10 else ""
        raise ValueError(
            f"y_true has {classes.shape[0]} classes ({classes[:10].tolist()}{more}); "
            "the ROC AUC here is for binary problems. Binarise the labels first, "
            "e.g. y_true == positive_class."
        )
    if classes.shape[0] == 1:
        raise ValueError(
            "AUC is undefined when y_true has only one class "
            f"(label {classes[0]!r} for all {y.shape[0]} samples); both positive and "
            "negative samples are needed. Evaluate on data that contains both classes."
        )
    if pos_label is None:
        pos_index = 1
    else:
        matches = [i for i, c in enumerate(classes.tolist()) if c == pos_label]
        if not matches:
            raise ValueError(
                f"pos_label={pos_label!r} is not one of the labels in y_true "
                f"({classes.tolist()}). Pass one of these labels, or None for the larger one."
            )
        pos_index = matches[0]
    is_pos = y == classes[pos_index]
    n_pos = int(np.count_nonzero(is_pos))
    return is_pos, scores, n_pos, y.shape[0] - n_pos


def _tie_groups(scores, is_pos):
    """Group equal scores: return ``(values, n_pos, n_neg)`` per distinct score, ascending.

    Counts are int64 arrays; ``values`` has the dtype of ``scores``.
    """
    order = np.argsort(scores)
    s = scores[order]
    pos = is_pos[order].astype(np.int64)
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    sizes = np.diff(np.append(starts, s.shape[0]))
    n_pos = np.add.reduceat(pos, starts)
    return s[starts], n_pos, sizes - n_pos


def _twice_u(pos, neg_sorted):
    """Twice the Mann-Whitney U of ``pos`` against sorted ``neg_sorted``, as a Python int.

    Each positive contributes ``2 * #(neg < s) + #(neg == s) = left + right`` where left
    and right are its two insertion points in ``neg_sorted``.
    """
    left = np.searchsorted(neg_sorted, pos, side="left")
    right = np.searchsorted(neg_sorted, pos, side="right")
    return int(np.sum(left, dtype=np.int64)) + int(np.sum(right, dtype=np.int64))


# ---------------------------------------------------------------------------------------
# batch metrics
# ---------------------------------------------------------------------------------------


def roc_auc_score(y_true, y_score, *, pos_label=None):
    r"""Exact area under the ROC curve, ties counted one half.

    .. math::

        \mathrm{AUC} = \frac{1}{n_+ n_-} \sum_{i:\,y_i = +} \sum_{j:\,y_j = -}
        \Big( \mathbb{1}[s_i > s_j] + \tfrac12 \mathbb{1}[s_i = s_j] \Big)

    computed in :math:`O(n \log n)` as the Mann-Whitney statistic: both classes' scores
    are sorted and each positive score is located among the negatives by two binary
    searches (strictly below, and below or tied). The pair count is an exact integer;
    one division at the end gives the correctly rounded float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels of any type (ints, bools, strings, {-1, +1}, {0, 1}).
    y_score : array-like of shape (n_samples,)
        Real-valued scores, larger meaning "more positive". Must be finite.
    pos_label : int, float, bool, str or None, default=None
        Label of the positive class. ``None`` takes the larger of the two sorted labels
        (1 of {0, 1} and {-1, 1}, ``True`` of booleans, the later of two strings), the
        same class :func:`sklearn.metrics.roc_auc_score` treats as positive.

    Returns
    -------
    auc : float
        The AUC in [0, 1]; equals :func:`sklearn.metrics.roc_auc_score` (to rounding).

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, not 1-D, contain NaN or
        infinity, or ``y_true`` has one class or more than two classes, or
        ``pos_label`` is not a label of ``y_true``.
    TypeError
        If ``y_score`` is not numeric or the labels cannot be sorted.

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score(["no", "yes", "yes"], [1, 1, 2])
    0.75
    """
    is_pos, scores, n_pos, n_neg = _binary_target(y_true, y_score, pos_label)
    return _twice_u(np.sort(scores[is_pos]), np.sort(scores[~is_pos])) / (2 * n_pos * n_neg)


def roc_curve(y_true, y_score, *, pos_label=None, drop_intermediate=True):
    r"""Receiver operating characteristic curve, as :func:`sklearn.metrics.roc_curve`.

    For each distinct score threshold :math:`t` (descending), predicting positive when
    :math:`s \ge t` gives

    .. math::

        \mathrm{FPR}(t) = \frac{\#\{j \in - : s_j \ge t\}}{n_-},\qquad
        \mathrm{TPR}(t) = \frac{\#\{i \in + : s_i \ge t\}}{n_+},

    preceded by the point (0, 0) at threshold :math:`+\infty`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels of any type.
    y_score : array-like of shape (n_samples,)
        Finite real-valued scores.
    pos_label : int, float, bool, str or None, default=None
        Label of the positive class; ``None`` takes the larger of the two sorted labels.
        (scikit-learn requires it unless the labels are {0, 1} or {-1, 1}; where
        scikit-learn accepts the call both give the same arrays.)
    drop_intermediate : bool, default=True
        Drop thresholds whose point is collinear with both neighbours (scikit-learn's
        rule: keep the first and last points and every point where the second
        difference of the false- or true-positive counts is non-zero). The area is
        unchanged.

    Returns
    -------
    fpr : ndarray of shape (n_thresholds,)
        False positive rates, increasing, from 0 to 1.
    tpr : ndarray of shape (n_thresholds,)
        True positive rates, increasing, from 0 to 1.
    thresholds : ndarray of shape (n_thresholds,)
        Decreasing float64 thresholds; ``thresholds[0]`` is ``np.inf``.

    Raises
    ------
    ValueError
        For the same inputs as :func:`roc_auc_score`. Unlike scikit-learn, a
        ``y_true`` with a single class raises instead of returning NaN rates.
    TypeError
        If ``y_score`` is not numeric or the labels cannot be sorted.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """
    if not isinstance(drop_intermediate, bool | np.bool_):
        raise TypeError(f"drop_intermediate must be True or False, got {drop_intermediate!r}.")
    is_pos, scores, n_pos, n_neg = _binary_target(y_true, y_score, pos_label)
    values, pos_g, neg_g = _tie_groups(scores, is_pos)
    values, pos_g, neg_g = values[::-1], pos_g[::-1], neg_g[::-1]
    tps = np.cumsum(pos_g)
    fps = np.cumsum(neg_g)
    if drop_intermediate and fps.shape[0] > 2:
        corner = (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0)
        keep = np.concatenate(([True], corner, [True]))
        values, tps, fps = values[keep], tps[keep], fps[keep]
    fpr = np.concatenate(([0], fps)) / n_neg
    tpr = np.concatenate(([0], tps)) / n_pos
    thresholds = np.concatenate(([np.inf], values.astype(np.float64)))
    return fpr.astype(np.float64), tpr.astype(np.float64), thresholds


def auc_from_curve(fpr, tpr):
    r"""Area under a piecewise-linear curve by the trapezoidal rule.

    .. math::

        A = \sum_{k=1}^{m-1} (x_{k+1} - x_k)\,\frac{y_k + y_{k+1}}{2}

    with :math:`x` = ``fpr`` and :math:`y` = ``tpr``. Applied to the output of
    :func:`roc_curve` it equals :func:`roc_auc_score` (to rounding).

    Parameters
    ----------
    fpr : array-like of shape (m,)
        x coordinates, monotonic (non-decreasing, or non-increasing: the area is then
        taken with the sign flipped, so it is positive either way).
    tpr : array-like of shape (m,)
        y coordinates.

    Returns
    -------
    area : float
        The area under the curve.

    Raises
    ------
    ValueError
        If the arrays are not 1-D, differ in length, have fewer than two points,
        contain NaN or infinity, or ``fpr`` is not monotonic.
    """
    x = _as_score_array(fpr, "fpr").astype(np.float64)
    y = _as_score_array(tpr, "tpr").astype(np.float64)
    if x.shape[0] != y.shape[0]:
        raise ValueError(
            f"fpr and tpr have different lengths ({x.shape[0]} and {y.shape[0]}). "
            "Pass the two coordinate arrays of the same curve."
        )
    if x.shape[0] < 2:
        raise ValueError(f"At least 2 points are needed to compute an area, got {x.shape[0]}.")
    dx = np.diff(x)
    if np.any(dx < 0):
        if not np.all(dx <= 0):
            raise ValueError(
                "fpr is neither non-decreasing nor non-increasing, so the points do not "
                "trace a curve. Pass the points sorted by fpr (roc_curve output is)."
            )
        dx = -dx
    return float(np.sum(dx * (y[1:] + y[:-1])) / 2.0)


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


def _finite_float(value, name="y_score"):
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number, got {value!r}.") from exc
    if not math.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out}. Remove or impute this score.")
    return out


class StreamingROCAUC:
    r"""Exact ROC AUC over a stream, with River's ``update``/``revert``/``get`` methods.

    Keeps the scores seen so far in two sorted lists (one per class) and the running
    pair count

    .. math::

        C = \sum_{i \in +} \sum_{j \in -} \big( 2\,\mathbb{1}[s_i > s_j]
        + \mathbb{1}[s_i = s_j] \big),\qquad \mathrm{AUC} = \frac{C}{2 n_+ n_-},

    as an exact integer, so :meth:`get` is O(1) and equals
    :func:`sklearn.metrics.roc_auc_score` on everything seen so far. Unlike River's
    ``ROCAUC`` (thresholded, scores in [0, 1]) it is exact and works for any score
    range; the price is O(n) memory.

    Parameters
    ----------
    pos_label : int, float, bool or str, default=1
        Label of the positive class, fixed for the stream (``True``, ``1`` and ``+1``
        are the same label). Every other label is the negative class; a second,
        different negative label raises ``ValueError`` (the stream would have three
        classes).

    Attributes
    ----------
    n_pos, n_neg : int
        Number of positive and negative samples currently counted.

    Notes
    -----
    Costs per sample: :meth:`update` and :meth:`revert` of one sample are
    O(log n) comparisons plus a list insertion or deletion (a memmove); an array of
    ``m`` samples is counted in O((n + m) log(n + m)) with vectorised binary searches
    and merged into the lists by one sort of two sorted runs.

    Examples
    --------
    >>> metric = StreamingROCAUC()
    >>> for y, s in [(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.8)]:
    ...     metric.update(y, s)
    >>> metric.get()
    0.75
    >>> metric.revert(1, 0.35)
    >>> metric.get()
    1.0
    """

    bigger_is_better = True
    requires_labels = True

    def __init__(self, pos_label=1):
        self.pos_label = pos_label
        self._pos = []
        self._neg = []
        self._twice_u = 0
        self._neg_labels = {}

    @property
    def n_pos(self):
        """Number of positive samples counted."""
        return len(self._pos)

    @property
    def n_neg(self):
        """Number of negative samples counted."""
        return len(self._neg)

    # -- helpers -------------------------------------------------------------------

    def _labels(self, y_true, n):
        """Return (is_pos boolean array, Counter-like dict of negative labels)."""
        y = np.asarray(y_true)
        if y.ndim != 1 or y.shape[0] != n:
            raise ValueError(
                f"y_true must hold one label per score: got shape {y.shape} for {n} scores."
            )
        labels = y.tolist()
        is_pos = np.fromiter((lab == self.pos_label for lab in labels), dtype=bool, count=n)
        neg_counts = {}
        for lab, p in zip(labels, is_pos.tolist()):
            if not p:
                neg_counts[lab] = neg_counts.get(lab, 0) + 1
        return is_pos, neg_counts

    def _check_neg_labels(self, neg_counts):
        present = [lab for lab, c in self._neg_labels.items() if c > 0]
        seen = set(present) | set(neg_counts)
        if len(seen) > 1:
            raise ValueError(
                f"The stream has more than one negative label ({sorted(map(repr, seen))}) "
                f"besides pos_label={self.pos_label!r}: that is more than two classes. "
                "Binarise the labels, or set pos_label to the positive class of this stream."
            )

    def _one(self, y_true, y_score):
        if np.ndim(y_true) != 0:
            raise ValueError(
                "y_score is a single score but y_true is not a single label. Pass one "
                "label with one score, or two 1-D arrays of equal length."
            )
        score = _finite_float(y_score)
        y = y_true.item() if isinstance(y_true, np.ndarray | np.generic) else y_true
        return bool(y == self.pos_label), y, score

    @staticmethod
    def _pair_count(score, is_pos, pos, neg):
        """Twice the pairs between one score and the other class's sorted list."""
        if is_pos:
            lo, hi = bisect_left(neg, score), bisect_right(neg, score)
            return 2 * lo + (hi - lo)
        lo, hi = bisect_left(pos, score), bisect_right(pos, score)
        return 2 * (len(pos) - hi) + (hi - lo)

    # -- River protocol ------------------------------------------------------------

    def update(self, y_true, y_score):
        """Add one sample, or arrays of samples, to the metric.

        Parameters
        ----------
        y_true : label or array-like of shape (m,)
            True label(s); equal to ``pos_label`` means positive.
        y_score : float or array-like of shape (m,)
            Finite score(s), larger meaning "more positive".

        Returns
        -------
        None
        """
        if np.ndim(y_score) == 0:
            is_pos, label, score = self._one(y_true, y_score)
            if not is_pos:
                self._check_neg_labels({label: 1})
            self._twice_u += self._pair_count(score, is_pos, self._pos, self._neg)
            if is_pos:
                insort(self._pos, score)
            else:
                insort(self._neg, score)
                self._neg_labels[label] = self._neg_labels.get(label, 0) + 1
            return
        scores = _as_score_array(y_score).astype(np.float64)
        is_pos, neg_counts = self._labels(y_true, scores.shape[0])
        self._check_neg_labels(neg_counts)
        new_pos, new_neg = np.sort(scores[is_pos]), np.sort(scores[~is_pos])
        old_pos, old_neg = np.asarray(self._pos), np.asarray(self._neg)
        # all negatives after the update against the new positives ...
        all_neg = np.sort(np.concatenate((old_neg, new_neg)))
        lo = np.searchsorted(all_neg, new_pos, side="left")
        hi = np.searchsorted(all_neg, new_pos, side="right")
        twice = int(np.sum(2 * lo + (hi - lo)))
        # ... plus the old positives against the new negatives
        lo = np.searchsorted(old_pos, new_neg, side="left")
        hi = np.searchsorted(old_pos, new_neg, side="right")
        twice += int(np.sum(2 * (old_pos.shape[0] - hi) + (hi - lo)))
        self._twice_u += twice
        self._pos.extend(new_pos.tolist())
        self._pos.sort()
        self._neg = all_neg.tolist()
        for lab, c in neg_counts.items():
            self._neg_labels[lab] = self._neg_labels.get(lab, 0) + c

    def revert(self, y_true, y_score):
        """Remove one sample, or arrays of samples, previously added with :meth:`update`.

        Parameters
        ----------
        y_true : label or array-like of shape (m,)
            True label(s) as given to :meth:`update`.
        y_score : float or array-like of shape (m,)
            Score(s) as given to :meth:`update`.

        Returns
        -------
        None

        Raises
        ------
        ValueError
            If a (label, score) pair is not currently counted; nothing is changed then.
        """
        if np.ndim(y_score) == 0:
            items = [self._one(y_true, y_score)]
        else:
            scores = _as_score_array(y_score).astype(np.float64)
            is_pos, _ = self._labels(y_true, scores.shape[0])
            labels = np.asarray(y_true).tolist()
            items = list(zip(is_pos.tolist(), labels, scores.tolist()))
        # check every removal first so a failure leaves the state unchanged
        need = {}
        for is_pos_i, label, score in items:
            key = (is_pos_i, score)
            need[key] = need.get(key, 0) + 1
            if not is_pos_i:
                need[("label", label)] = need.get(("label", label), 0) + 1
        for key, count in need.items():
            if key[0] == "label":
                have = self._neg_labels.get(key[1], 0)
                what = f"negative label {key[1]!r}"
            else:
                lst = self._pos if key[0] else self._neg
                have = bisect_right(lst, key[1]) - bisect_left(lst, key[1])
                what = f"{'positive' if key[0] else 'negative'} score {key[1]!r}"
            if have < count:
                raise ValueError(
                    f"Cannot revert {count} sample(s) with {what}: only {have} counted. "
                    "revert only removes samples previously passed to update."
                )
        for is_pos_i, label, score in items:
            if is_pos_i:
                del self._pos[bisect_left(self._pos, score)]
            else:
                del self._neg[bisect_left(self._neg, score)]
                self._neg_labels[label] -= 1
            self._twice_u -= self._pair_count(score, is_pos_i, self._pos, self._neg)

    def get(self):
        """Return the current AUC.

        .. math:: \\mathrm{AUC} = C / (2 n_+ n_-)

        Returns
        -------
        auc : float
            The exact AUC of all samples counted, or NaN while one class is missing.
        """
        n_pos, n_neg = len(self._pos), len(self._neg)
        if n_pos == 0 or n_neg == 0:
            return math.nan
        return self._twice_u / (2 * n_pos * n_neg)

    def __repr__(self):
        return f"{type(self).__name__}: {self.get():.6f}"
