"""Exact ROC AUC and the ROC curve (pairwise losses: _pairwise; streaming AUC: _streaming).

Everything here is NumPy/SciPy only. Ties count one half, as in the Mann-Whitney
statistic and in :func:`sklearn.metrics.roc_auc_score`::

    AUC = 1/(n+ n-) * sum_{i in +} sum_{j in -} ( 1[s_i > s_j] + 1/2 * 1[s_i == s_j] )

Pair counts are kept as integers (twice the Mann-Whitney U, so that half ties stay
integral) and divided once at the end, so the result is the correctly rounded float64 of
the exact rational value for any n that fits in memory.
"""

from __future__ import annotations

import numpy as np

__all__ = ["auc_from_curve", "roc_auc_score", "roc_curve"]



# ---------------------------------------------------------------------------------------
# input checking
# ---------------------------------------------------------------------------------------


def _check_flag(name, value):
    """Refuse a flag that is not a bool (the string ``"False"`` is true in Python)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}.")


def _as_score_array(y_score, name="y_score", allow_inf=False):
    """Return ``y_score`` as a 1-D numeric array whose order is the order of the input.

    Integers keep their dtype (so huge integers are not merged by a float cast), booleans
    and floats of at most 64 bits become float64. NaN is rejected, and so are +-inf unless
    ``allow_inf`` (ranks are well defined with infinite scores, as in scikit-learn).
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
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if bad.any():
        where = np.flatnonzero(bad)
        what = "NaN (infinite scores have a rank, NaN has none)" if allow_inf else (
            "NaN or infinity")
        raise ValueError(
            f"{name} contains {what} at {where.size} position(s) "
            f"(first: {where[:5].tolist()}). Remove or impute these scores before "
            "computing the AUC."
        )
    return arr


def _binary_target(y_true, y_score, pos_label, allow_inf=False):
    """Validate a binary problem; return ``(is_pos, scores, n_pos, n_neg)``.

    The positive class is ``pos_label`` when given, else the larger of the two sorted
    labels (1 of {0, 1} and of {-1, 1}, True of booleans, the later string).
    """
    scores = _as_score_array(y_score, allow_inf=allow_inf)
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


def _sample_weight(sample_weight, is_pos) -> np.ndarray:
    """Validate ``sample_weight`` for the rows of ``is_pos``: finite, non-negative, 1-D, one
    per row, a positive total on each class (ValueError otherwise)."""
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim != 1 or weight.size != is_pos.size:
        raise ValueError(f"sample_weight must be one weight per sample ({is_pos.size}); got "
                         f"shape {weight.shape}.")
    if not (np.isfinite(weight).all() and (weight >= 0).all()):
        raise ValueError("sample_weight must hold finite weights >= 0.")
    if not (weight[is_pos].sum() > 0 and weight[~is_pos].sum() > 0):
        raise ValueError("sample_weight must give each class a positive total weight (the "
                         "AUC of a class of weight 0 is undefined).")
    return weight


def _weighted_auc(pos, pos_weight, neg, neg_weight) -> float:
    """``sum_i sum_j v_i v_j (1[s_i > s_j] + 1[s_i = s_j] / 2) / (V+ V-)``: each positive's
    weight times the weight of the negatives below it plus half of those tied with it."""
    order = np.argsort(neg, kind="stable")
    below = np.concatenate(([0.0], np.cumsum(neg_weight[order])))
    neg = neg[order]
    ranks = below[np.searchsorted(neg, pos, side="left")] + below[
        np.searchsorted(neg, pos, side="right")]
    return float(pos_weight @ ranks) / (2.0 * float(pos_weight.sum()) * below[-1])


def roc_auc_score(y_true, y_score, *, pos_label=None, sample_weight=None):
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
        Real-valued scores, larger meaning "more positive". ``+inf``/``-inf`` rank above/
        below every finite score and tie with each other (a score that overflowed still
        has a rank; recent scikit-learn versions reject them); NaN is rejected.
    pos_label : int, float, bool, str or None, default=None
        Label of the positive class. ``None`` takes the larger of the two sorted labels
        (1 of {0, 1} and {-1, 1}, ``True`` of booleans, the later of two strings), the
        same class :func:`sklearn.metrics.roc_auc_score` treats as positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights ``v >= 0`` (a positive total on each class): each positive-negative pair
        counts ``v_i v_j``, divided by the product of the classes' total weights, as
        :func:`sklearn.metrics.roc_auc_score` weighs them (integer weights: the AUC of
        the rows repeated). Summed in float64, to rounding (not an exact integer count).

    Returns
    -------
    auc : float
        The AUC in [0, 1]; equals :func:`sklearn.metrics.roc_auc_score` (to rounding).

    Raises
    ------
    ValueError
        If the inputs are empty, of different lengths, not 1-D, contain NaN, or
        ``y_true`` has one class or more than two classes, or
        ``pos_label`` is not a label of ``y_true``, or a weight is negative or not finite.
    TypeError
        If ``y_score`` is not numeric or the labels cannot be sorted.

    Examples
    --------
    >>> from aucopt.metrics import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score(["no", "yes", "yes"], [1, 1, 2])
    0.75
    """
    is_pos, scores, n_pos, n_neg = _binary_target(y_true, y_score, pos_label, allow_inf=True)
    if sample_weight is not None:
        weight = _sample_weight(sample_weight, is_pos)
        return _weighted_auc(scores[is_pos], weight[is_pos], scores[~is_pos], weight[~is_pos])
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
        Real-valued scores; ``+inf`` and ``-inf`` rank as the largest and smallest
        values, below the first point's threshold (the curve of scores ``+-1e300`` in
        their place; scikit-learn refuses them).
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
    >>> from aucopt.metrics import roc_curve
    >>> fpr, tpr, thr = roc_curve([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], [inf, 0.8, 0.4, 0.35, 0.1])
    """
    _check_flag("drop_intermediate", drop_intermediate)
    is_pos, scores, n_pos, n_neg = _binary_target(y_true, y_score, pos_label, allow_inf=True)
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
