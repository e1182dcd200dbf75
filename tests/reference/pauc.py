"""Slow NumPy transcriptions of the streaming 1PMB and of the two-pass 2PMB on the pAUC
surrogate (Kar, Narasimhan & Jain, NeurIPS 2014, section 5; surrogate of Narasimhan &
Agarwal, KDD 2013).

Written from the description, independently of the kernel: Python lists as buffers, dense
arrays, the batch gradient from the explicit double sum over (positive, top negative)
pairs. ``min_tpr`` > 0: the two-way extension of docs/algorithms/notes.md#pauc-two-way, only
the lowest-scored positives of a step taking part.
"""

import math
from fractions import Fraction

import numpy as np


def _phi_prime(loss, m):
    if loss == "square":
        return -2.0 * (1.0 - m)
    return -1.0 if m <= 1.0 else 0.0


def _step(w, positives, negatives, t, *, eta, max_fpr, lam, loss, schedule, min_tpr=0.0):
    """One step on the batch ``negatives`` against ``positives`` (lists of ``(x, weight)``, in
    slot order): the ``m = len(positives) - floor(min_tpr * len(positives))`` positives with
    the lowest scores (ties: the earlier slot; all of them for ``min_tpr = 0``) against the
    ``ceil(max_fpr * size)`` negatives of the batch with the highest scores (ties: the
    earlier arrival); return ``(w, t)``."""
    sn = np.array([x @ w for x, _ in negatives])
    # (the counts of the decimal fractions given: 0.28 x 25 negatives is 7, not 8)
    k = max(1, min(math.ceil(Fraction(repr(max_fpr)) * len(negatives)), len(negatives)))
    top = sorted(range(len(negatives)), key=lambda j: (-sn[j], j))[:k]
    sp = [x @ w for x, _ in positives]
    m = len(positives) - math.floor(Fraction(repr(min_tpr)) * len(positives))
    low = set(sorted(range(len(positives)), key=lambda i: (sp[i], i))[:max(1, m)])
    positives = [p for i, p in enumerate(positives) if i in low]
    norm = sum(wp for _, wp in positives) * sum(negatives[j][1] for j in top)
    grad = np.zeros_like(w)
    for xp, wp in positives:
        for j in top:
            xn, wn = negatives[j]
            g = _phi_prime(loss, (xp - xn) @ w)
            grad += g * wp * wn * (xp - xn) / norm
    t += 1
    step = eta / math.sqrt(t) if schedule == "inv_sqrt" else eta
    return (w - step * grad) / (1.0 + step * lam), t


def _dense(X, y, sample_weight, w0):
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w = np.zeros(X.shape[1]) if w0 is None else np.array(w0, dtype=float)
    return X, weight, w


def pauc_1pmb(X, y, orders, *, eta, max_fpr, lam, loss, buffer_size, schedule="inv_sqrt",
              sample_weight=None, w0=None, min_tpr=0.0):
    """Run the streaming 1PMB over the passes ``orders``; return ``(w, t)``.

    The negatives of the stream fill batches of 1, 2, 4, ... and then ``buffer_size``
    negatives; when a batch is full and a positive has been seen, one step is taken on
    the last ``buffer_size`` positives (held in ``buffer_size`` slots, the ``p``-th
    positive of the stream in slot ``p mod buffer_size``) against the
    ``ceil(max_fpr * size)`` negatives of the batch (of ``size`` rows) with the highest
    scores (ties: the earlier arrival), then the batch is emptied. With ``min_tpr`` only the
    lowest-scored positives take part (:func:`_step`).
    """
    X, weight, w = _dense(X, y, sample_weight, w0)
    positives, negatives = [], []
    t = batches = seen = 0
    for order in orders:
        for i in order:
            if y[i] > 0:
                if len(positives) < buffer_size:
                    positives.append((X[i], weight[i]))
                else:
                    positives[seen % buffer_size] = (X[i], weight[i])
                seen += 1
                continue
            negatives.append((X[i], weight[i]))
            if len(negatives) < min(buffer_size, 2**batches):
                continue
            if positives:
                w, t = _step(w, positives, negatives, t, eta=eta, max_fpr=max_fpr, lam=lam,
                             loss=loss, schedule=schedule, min_tpr=min_tpr)
            negatives = []
            batches += 1
    return w, t


def pauc_2pmb(X, y, orders, samples, *, eta, max_fpr, lam, loss, buffer_size,
              schedule="inv_sqrt", sample_weight=None, w0=None, min_tpr=0.0):
    """Run 2PMB's epochs: for each pass ``order`` of ``orders``, the positives of
    ``samples`` (row indices, in slot order) against the negatives of ``order`` in batches
    of 1, 2, 4, ... and then ``buffer_size`` (one step per full batch; a batch left
    unfinished at the end of an epoch is continued by the next); return ``(w, t)``."""
    X, weight, w = _dense(X, y, sample_weight, w0)
    negatives = []
    t = batches = 0
    for order, sample in zip(orders, samples):
        positives = [(X[i], weight[i]) for i in sample]
        for i in order:
            if y[i] > 0:
                continue
            negatives.append((X[i], weight[i]))
            if len(negatives) == min(buffer_size, 2**batches):
                w, t = _step(w, positives, negatives, t, eta=eta, max_fpr=max_fpr, lam=lam,
                             loss=loss, schedule=schedule, min_tpr=min_tpr)
                negatives = []
                batches += 1
    return w, t


def reservoir(positives, capacity, rng):
    """Vitter's Algorithm R over the row indices ``positives``: the slots after the pass."""
    slots = []
    for m, i in enumerate(positives):
        if m < capacity:
            slots.append(i)
        else:
            j = rng.integers(0, m + 1)
            if j < capacity:
                slots[j] = i
    return slots
