"""Exact streaming ROC AUC with River-style update / revert / get."""

from __future__ import annotations

import math

import numpy as np

from ._ranking import _as_score_array
from ._sorted import SortedScores

__all__ = ["StreamingROCAUC"]


def _finite_float(value, name="y_score"):
    if isinstance(value, str | bytes):  # float("0.5") parses text; arrays of it are refused
        raise TypeError(f"{name} must be a real number, got {value!r}.")
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
    O(log n) steps (ranks in sorted buckets with a Fenwick tree over their sizes,
    :class:`aucopt.metrics._sorted.SortedScores`); an array of
    ``m`` samples is counted in O((n + m) log(n + m)) with vectorised binary searches
    and merged into the lists by one sort of two sorted runs.

    Examples
    --------
    >>> from aucopt.metrics import StreamingROCAUC
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
    requires_labels = False  # (River's meaning: it takes scores, not predicted labels)

    def __init__(self, pos_label=1):
        self.pos_label = pos_label
        self._pos = SortedScores()
        self._neg = SortedScores()
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
            lo, hi = neg.bisect_left(score), neg.bisect_right(score)
            return 2 * lo + (hi - lo)
        lo, hi = pos.bisect_left(score), pos.bisect_right(score)
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
                self._pos.add(score)
            else:
                self._neg.add(score)
                self._neg_labels[label] = self._neg_labels.get(label, 0) + 1
            return
        scores = _as_score_array(y_score).astype(np.float64)
        is_pos, neg_counts = self._labels(y_true, scores.shape[0])
        self._check_neg_labels(neg_counts)
        new_pos, new_neg = np.sort(scores[is_pos]), np.sort(scores[~is_pos])
        old_pos = np.asarray(self._pos.tolist(), dtype=np.float64)
        old_neg = np.asarray(self._neg.tolist(), dtype=np.float64)
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
        self._pos = SortedScores(old_pos.tolist() + new_pos.tolist())
        self._neg = SortedScores(all_neg.tolist())
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
                have = lst.count(key[1])
                what = f"{'positive' if key[0] else 'negative'} score {key[1]!r}"
            if have < count:
                raise ValueError(
                    f"Cannot revert {count} sample(s) with {what}: only {have} counted. "
                    "revert only removes samples previously passed to update."
                )
        for is_pos_i, label, score in items:
            if is_pos_i:
                self._pos.remove(score)
            else:
                self._neg.remove(score)
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
