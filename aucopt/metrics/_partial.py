"""Exact partial AUC: one-way (a range of false-positive rates) and two-way (and a floor
on the true-positive rate), batch and streaming, and a scorer for model selection.

The ROC curve is the one of :func:`aucopt.metrics.roc_curve`, linearly interpolated through
tie groups (a tied pair counts one half); the areas are sums over its segments clipped to
the region asked for (:mod:`aucopt.utils._roc_area`), visiting only the negatives inside
the false-positive range: ``O(k log n_+)`` for the ``k`` top negatives, after sorting.

NumPy only.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from numbers import Integral, Real

import numpy as np

from ..utils._param_validation import Interval, validate_parameter_constraints
from ..utils._roc_area import mcclish as _mcclish
from ..utils._roc_area import region_area as _region_area
from ..utils._roc_area import sorted_area as _sorted_area
from ._ranking import _binary_target, _check_flag, _sample_weight
from ._streaming import StreamingROCAUC
from ._window import SlidingWindow

__all__ = [
    "partial_roc_auc_score",
    "two_way_partial_auc_score",
    "StreamingPartialAUC",
    "pauc_scorer",
]


def _check_range(min_fpr, max_fpr, min_tpr):
    """Validate the region: ``0 <= min_fpr < max_fpr <= 1`` and ``0 <= min_tpr < 1``."""
    for name, value in (("max_fpr", max_fpr), ("min_fpr", min_fpr), ("min_tpr", min_tpr)):
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    if not 0.0 <= min_fpr < max_fpr <= 1.0:
        raise ValueError(
            f"The false-positive range must satisfy 0 <= min_fpr < max_fpr <= 1, got "
            f"min_fpr={min_fpr!r}, max_fpr={max_fpr!r}."
        )
    if not 0.0 <= min_tpr < 1.0:
        raise ValueError(f"min_tpr must be in [0, 1), got {min_tpr!r}.")


def _split(y_true, y_score, pos_label):
    is_pos, scores, _, _ = _binary_target(y_true, y_score, pos_label, allow_inf=True)
    return np.sort(scores[is_pos]), np.sort(scores[~is_pos])


def _weighted_area(y_true, y_score, pos_label, sample_weight, min_fpr, max_fpr) -> float:
    """The area under the weighted ROC curve (each row counting its weight, tie groups
    joined linearly) over FPR in [min_fpr, max_fpr]: the curve up to a bound is its points
    up to it, then the value interpolated at it (a vertical step at the bound adds no
    area), as scikit-learn's ``roc_auc_score(max_fpr=)`` integrates."""
    from sklearn.metrics import auc, roc_curve

    is_pos, scores, _, _ = _binary_target(y_true, y_score, pos_label, allow_inf=True)
    weight = _sample_weight(sample_weight, is_pos)
    big = np.finfo(np.float64).max  # (infinite scores keep their ranks; ties among them too)
    scores = np.clip(scores, -big, big)
    fpr, tpr, _ = roc_curve(is_pos, scores, sample_weight=weight, drop_intermediate=False)

    def upto(bound):
        stop = int(np.searchsorted(fpr, bound, side="right"))
        if stop >= fpr.size:
            return float(auc(fpr, tpr))
        value = np.interp(bound, fpr[stop - 1:stop + 1], tpr[stop - 1:stop + 1])
        return float(auc(np.append(fpr[:stop], bound), np.append(tpr[:stop], value)))

    return upto(max_fpr) - (upto(min_fpr) if min_fpr > 0.0 else 0.0)


def partial_roc_auc_score(y_true, y_score, *, max_fpr=0.1, min_fpr=0.0, standardized=True,
                          pos_label=None, sample_weight=None):
    r"""Exact one-way partial AUC: the area under the ROC curve for FPR in [min_fpr, max_fpr].

    .. math::

        \mathrm{pAUC}(\alpha, \beta) = \int_\alpha^\beta \mathrm{ROC}(x)\,dx,

    the ROC curve linearly interpolated through tie groups (a tied pair counts one half).
    With ``standardized=True`` the area is McClish's standardisation
    :math:`\frac12\big(1 + \frac{A - A_{\min}}{A_{\max} - A_{\min}}\big)`,
    :math:`A_{\min} = (\beta^2 - \alpha^2)/2` (the diagonal), :math:`A_{\max} = \beta - \alpha`,
    which for ``min_fpr=0`` is :func:`sklearn.metrics.roc_auc_score` with ``max_fpr``.
    ``max_fpr=1, min_fpr=0`` gives the full AUC (not standardised, as scikit-learn).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels of any type.
    y_score : array-like of shape (n_samples,)
        Real-valued scores, larger meaning "more positive"; NaN is rejected.
    max_fpr : float, default=0.1
        Upper end :math:`\beta` of the false-positive range, in (0, 1].
    min_fpr : float, default=0.0
        Lower end :math:`\alpha`, in [0, max_fpr) (the FPR range of Narasimhan &
        Agarwal, ICML 2013).
    standardized : bool, default=True
        Return McClish's standardisation (in [0, 1], 0.5 for random scores) instead of
        the raw area (in [0, max_fpr - min_fpr]).
    pos_label : label or None, default=None
        Label of the positive class; None takes the larger of the two sorted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights ``>= 0`` (a positive total on each class): the ROC curve of the weighted
        rows, as :func:`sklearn.metrics.roc_auc_score` draws it (summed in float64).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For the inputs :func:`aucopt.metrics.roc_auc_score` rejects, or a range outside
        ``0 <= min_fpr < max_fpr <= 1``.

    Notes
    -----
    Cost O(n log n) for the sort, then O(k log n_+) for the k negatives inside the range.

    Examples
    --------
    >>> from aucopt.metrics import partial_roc_auc_score
    >>> y = [0, 0, 0, 0, 1, 1]
    >>> s = [0.1, 0.2, 0.3, 0.9, 0.8, 0.4]
    >>> round(partial_roc_auc_score(y, s, max_fpr=0.5, standardized=False), 4)
    0.25
    """
    _check_range(min_fpr, max_fpr, 0.0)
    _check_flag("standardized", standardized)
    if sample_weight is None:
        pos, neg = _split(y_true, y_score, pos_label)
        area = _sorted_area(pos, neg, float(min_fpr), float(max_fpr), 0.0)
    else:
        area = _weighted_area(y_true, y_score, pos_label, sample_weight, float(min_fpr),
                              float(max_fpr))
    if not standardized or (min_fpr == 0.0 and max_fpr == 1.0):
        return area
    return _mcclish(area, float(min_fpr), float(max_fpr))


def two_way_partial_auc_score(y_true, y_score, *, min_tpr=0.5, max_fpr=0.5, normalized=False,
                              pos_label=None):
    r"""Exact two-way partial AUC: the area under the ROC curve where TPR >= min_tpr and
    FPR <= max_fpr.

    .. math::

        \mathrm{TPAUC}(\alpha, \beta) = \int_0^\beta \big(\mathrm{ROC}(x) - \alpha\big)_+\,dx

    (H. Yang, K. Lu, X. Lyu, F. Hu, "Two-way partial AUC and its properties", Statistical
    Methods in Medical Research 2019, arXiv:1508.00298, section 2), the ROC curve linearly
    interpolated through tie groups. On scores without ties and with
    :math:`\beta n_-` and :math:`(1 - \alpha) n_+` integers it equals the empirical
    estimator of Z. Yang et al. (ICML 2021) and Zhu et al. (ICML 2022, eq. 2): the share
    of (positive, negative) pairs ranked right among the :math:`(1-\alpha) n_+` lowest
    positives and the :math:`\beta n_-` highest negatives, times
    :math:`(1-\alpha)\beta`.

    Parameters
    ----------
    y_true, y_score, pos_label
        As :func:`partial_roc_auc_score`.
    min_tpr : float, default=0.5
        :math:`\alpha`, in [0, 1).
    max_fpr : float, default=0.5
        :math:`\beta`, in (0, 1].
    normalized : bool, default=False
        Divide by the largest possible area :math:`(1 - \alpha)\beta`, giving a value in
        [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> from aucopt.metrics import two_way_partial_auc_score
    >>> y = [0, 0, 0, 0, 1, 1]
    >>> s = [0.1, 0.2, 0.3, 0.9, 0.8, 0.4]
    >>> two_way_partial_auc_score(y, s, min_tpr=0.5, max_fpr=0.5, normalized=True)
    0.5
    """
    _check_range(0.0, max_fpr, min_tpr)
    _check_flag("normalized", normalized)
    pos, neg = _split(y_true, y_score, pos_label)
    area = _sorted_area(pos, neg, 0.0, float(max_fpr), float(min_tpr))
    return area / ((1.0 - float(min_tpr)) * float(max_fpr)) if normalized else area


class StreamingPartialAUC(StreamingROCAUC):
    r"""Exact partial AUC over a stream or a sliding window, with River's
    ``update``/``revert``/``get``.

    Keeps each class's scores in a sorted list (:class:`StreamingROCAUC`); :meth:`get`
    walks only the negatives inside the false-positive range, so it equals
    :func:`partial_roc_auc_score` (``min_tpr=0``) or :func:`two_way_partial_auc_score`
    (``min_tpr > 0``) on the samples counted.

    Parameters
    ----------
    max_fpr : float, default=0.1
        Upper end of the false-positive range, in (0, 1].
    min_tpr : float, default=0.0
        Floor on the true-positive rate (two-way partial AUC), in [0, 1).
    standardized : bool, default=True
        One-way: McClish's standardisation (as :func:`partial_roc_auc_score`); two-way:
        divide by the largest area :math:`(1 - \alpha)\beta`.
    window_size : int or None, default=None
        Count only the last ``window_size`` samples (:meth:`update` then drops the oldest
        one; :meth:`revert` removes the most recent); None counts everything.
    pos_label : label, default=1
        Label of the positive class.

    Notes
    -----
    Per sample, :meth:`update` costs what :class:`ExactROCAUC`'s does (amortised
    O(log w), w the samples counted); :meth:`get` copies the sorted scores once (O(w))
    and then costs O(k log w) for the k = ``max_fpr`` n- negatives in range.

    Examples
    --------
    >>> from aucopt.metrics import StreamingPartialAUC
    >>> m = StreamingPartialAUC(max_fpr=0.5, standardized=False, window_size=4)
    >>> for y, s in [(0, 5.0), (0, 0.1), (0, 0.2), (1, 0.8), (1, 0.4)]:
    ...     m.update(y, s)
    >>> m.get()  # the first sample has left the window
    0.5
    """

    def __init__(self, max_fpr=0.1, min_tpr=0.0, standardized=True, window_size=None,
                 pos_label=1):
        _check_range(0.0, max_fpr, min_tpr)
        _check_flag("standardized", standardized)
        validate_parameter_constraints(
            {"window_size": [Interval(Integral, 1, None, closed="left"), None]},
            {"window_size": window_size}, type(self).__name__)
        super().__init__(pos_label=pos_label)
        self.max_fpr, self.min_tpr = max_fpr, min_tpr
        self.standardized = standardized
        self.window_size = window_size
        self._window = None if window_size is None else SlidingWindow(window_size)

    def update(self, y_true, y_score):
        """Add one sample (or arrays of samples); drop the oldest beyond the window."""
        super().update(y_true, y_score)
        if self.window_size is None:
            return
        pairs = [(y_true, y_score)] if np.ndim(y_score) == 0 else zip(
            np.asarray(y_true).tolist(), np.asarray(y_score, dtype=np.float64).tolist())
        for pair in pairs:
            out = self._window.push(pair)
            if out is not None:
                super().revert(*out)

    def revert(self, y_true, y_score):
        """Remove one sample added before (with a window: the most recent one, and the sample
        it pushed out of the window comes back)."""
        if self.window_size is None:
            super().revert(y_true, y_score)
            return
        last = self._window.last()
        if np.ndim(y_score) != 0 or last is None or (
                last[0] != y_true or float(last[1]) != float(y_score)):
            raise ValueError("A windowed StreamingPartialAUC can only revert its most recent "
                             "update, one sample at a time.")
        super().revert(*last)
        back = self._window.pop()
        if back is not None:
            super().update(*back)

    def get(self):
        """Return the partial AUC of the samples counted (NaN while a class is missing)."""
        # the sorted scores of each class as lists (ExactROCAUC keeps them in buckets)
        pos, neg = self._pos.tolist(), self._neg.tolist()
        n_pos, n_neg = len(pos), len(neg)
        if n_pos == 0 or n_neg == 0:
            return math.nan
        hi, floor = float(self.max_fpr), float(self.min_tpr)
        values, counts, gt, ge = [], [], [], []
        j, reached = n_neg, 0
        while j > 0 and reached < hi * n_neg:  # tie groups of negatives, from the top
            v = neg[j - 1]
            start = bisect_left(neg, v, 0, j)
            values.append(v)
            counts.append(j - start)
            gt.append(n_pos - bisect_right(pos, v))
            ge.append(n_pos - bisect_left(pos, v))
            reached += j - start
            j = start
        area = _region_area(values, np.asarray(counts, dtype=np.int64), gt, ge, n_pos, n_neg,
                            0.0, hi, floor)
        if not self.standardized or (floor == 0.0 and hi == 1.0):
            return area
        if floor > 0.0:
            return area / ((1.0 - floor) * hi)
        return _mcclish(area, 0.0, hi)

    def __repr__(self):
        return f"{type(self).__name__}(max_fpr={self.max_fpr}): {self.get():.6f}"


def _pauc_of(y_true, y_score, max_fpr=0.1, min_tpr=0.0, sample_weight=None):
    if min_tpr > 0.0:
        if sample_weight is not None:
            raise ValueError("the two-way partial AUC (min_tpr > 0) takes no sample_weight; "
                             "score the one-way partial AUC (min_tpr=0) with weights.")
        return two_way_partial_auc_score(y_true, y_score, min_tpr=min_tpr, max_fpr=max_fpr,
                                         normalized=True)
    return partial_roc_auc_score(y_true, y_score, max_fpr=max_fpr, sample_weight=sample_weight)


def pauc_scorer(max_fpr=0.1, min_tpr=0.0):
    """Return a scikit-learn scorer of the partial AUC, for ``GridSearchCV(scoring=...)``.

    The scorer ranks with ``decision_function`` (``predict_proba`` for estimators without
    it) and returns :func:`partial_roc_auc_score` (McClish's standardisation) for
    ``min_tpr=0``, else the normalised :func:`two_way_partial_auc_score`. The estimators'
    own ``score`` stays the full ROC AUC.

    Parameters
    ----------
    max_fpr : float, default=0.1
    min_tpr : float, default=0.0

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float`` (made by :func:`sklearn.metrics.make_scorer`).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from aucopt.datasets import load
    >>> from aucopt.metrics import pauc_scorer
    >>> X, y = load("german.numer")
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> scores = cross_val_score(model, X, y, cv=3, scoring=pauc_scorer(max_fpr=0.1))
    >>> bool(0.5 < scores.mean() < 1.0)
    True
    """
    _check_range(0.0, max_fpr, min_tpr)
    from sklearn.metrics import make_scorer  # scikit-learn only when a scorer is asked for

    kwargs = {"response_method": ("decision_function", "predict_proba")}
    return make_scorer(_pauc_of, max_fpr=max_fpr, min_tpr=min_tpr, **kwargs)
