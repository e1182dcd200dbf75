"""Areas under pieces of the ROC curve from sorted class scores (shared by
:mod:`aucopt.metrics` and the calibration objective of the partial-AUC learners).

A tie group of scores holding ``p`` positives and ``q`` negatives is a straight segment of
the ROC curve (the linear interpolation that counts a tied pair one half). Walking the
distinct negative scores from the largest, group ``g`` (``q_g`` negatives at ``v_g``) is the
segment from ``(F_{g-1}, P(s > v_g))`` to ``(F_g, P(s >= v_g))``, ``F_g`` the share of
negatives scoring at least ``v_g`` and ``P`` the share of positives; the vertical moves
between groups have no area. Only the groups inside the false-positive range are visited.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["region_area", "sorted_area", "mcclish"]


def _segments_area(x0, x1, y0, y1, lo, hi, floor):
    r"""Return :math:`\sum_g \int_{[x0_g, x1_g] \cap [lo, hi]} (y_g(x) - floor)_+ dx`.

    ``y_g`` is linear from ``y0_g`` at ``x0_g`` to ``y1_g`` at ``x1_g`` (``x0 < x1``).
    """
    a, b = np.maximum(x0, lo), np.minimum(x1, hi)
    keep = b > a
    x0, x1, y0, y1, a, b = x0[keep], x1[keep], y0[keep], y1[keep], a[keep], b[keep]
    slope = (y1 - y0) / (x1 - x0)
    ya, yb = y0 + slope * (a - x0) - floor, y0 + slope * (b - x0) - floor
    # the part of [a, b] where the segment is above the floor (it is linear: one crossing)
    cross = np.where(ya != yb, a + (b - a) * ya / np.where(ya != yb, ya - yb, 1.0), a)
    both = (ya >= 0) & (yb >= 0)
    only_a = (ya > 0) & (yb < 0)
    only_b = (ya < 0) & (yb > 0)
    area = np.where(both, (b - a) * (ya + yb) / 2.0, 0.0)
    area += np.where(only_a, (cross - a) * ya / 2.0, 0.0)
    area += np.where(only_b, (b - cross) * yb / 2.0, 0.0)
    return float(np.sum(area))


def region_area(neg_values, neg_counts, pos_gt, pos_ge, n_pos, n_neg, lo, hi, floor):
    """Area under the ROC curve over FPR in [lo, hi] and above TPR ``floor``.

    ``neg_values`` are distinct negative scores in decreasing order (possibly only the
    largest ones, as long as their counts reach ``hi``), ``neg_counts`` their multiplicities,
    ``pos_gt`` / ``pos_ge`` the numbers of positives scoring above / at least each value.
    """
    fps = np.cumsum(neg_counts, dtype=np.int64)
    x1 = fps / n_neg
    x0 = np.concatenate(([0.0], x1[:-1]))
    return _segments_area(x0, x1, np.asarray(pos_gt) / n_pos, np.asarray(pos_ge) / n_pos,
                          lo, hi, floor)


def sorted_area(pos_sorted, neg_sorted, lo, hi, floor):
    """The area of :func:`region_area` from both classes' sorted scores (NumPy arrays)."""
    n_pos, n_neg = pos_sorted.shape[0], neg_sorted.shape[0]
    # only the negatives that reach FPR hi are needed: the top ceil(hi n-) and their ties
    k = min(n_neg, int(math.ceil(hi * n_neg)) + 1)
    top = neg_sorted[n_neg - k:][::-1]  # highest first; groups of ties are runs
    # (no negation to sort them: it wraps unsigned scores and the int64 minimum)
    first = np.flatnonzero(np.r_[True, top[1:] != top[:-1]])
    values = top[first]
    counts = np.diff(np.append(first, k))
    if k < n_neg:  # the last group may continue below the slice: count it whole
        counts[-1] = n_neg - np.searchsorted(neg_sorted, values[-1], side="left") - first[-1]
    pos_gt = n_pos - np.searchsorted(pos_sorted, values, side="right")
    pos_ge = n_pos - np.searchsorted(pos_sorted, values, side="left")
    return region_area(values, counts, pos_gt, pos_ge, n_pos, n_neg, lo, hi, floor)


def mcclish(area, lo, hi):
    """McClish's standardisation of a one-way partial area over FPR in [lo, hi]: 0.5 for a
    random ranking, 1 for a perfect one (as :func:`sklearn.metrics.roc_auc_score`)."""
    least = (hi * hi - lo * lo) / 2.0
    most = hi - lo
    return 0.5 * (1.0 + (area - least) / (most - least))
