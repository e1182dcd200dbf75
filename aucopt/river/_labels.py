"""River labels: True/False, 1/0 or 1/-1, as the kernels' signed labels."""

from __future__ import annotations

import numpy as np

__all__ = ["BOOL_LABELS", "MINUS_ONE", "SIGN_LABELS", "is_positive", "labels_after",
           "signed_label", "signed_labels"]

_SIGNED = {True: np.ones(1), False: -np.ones(1), -1: -np.ones(1)}
MINUS_ONE = _SIGNED[-1]  # the signed label of -1 (1 and 0 share True's and False's)
# (positive, negative) labels of the predictions: River's booleans, or 1/-1 for a stream
# labelled as scikit-learn labels (where -1 == False is false: accuracy would count every
# right negative as wrong)
BOOL_LABELS, SIGN_LABELS = (True, False), (1, -1)


def signed_label(y) -> np.ndarray:
    """Return the River label ``y`` as the kernels' one-row label (+1 for True or 1, -1 for
    False, 0 or -1); refuse any other label."""
    try:
        signed = _SIGNED.get(y)
    except TypeError:  # unhashable
        signed = None
    if signed is None:
        raise ValueError(_label_message(y))
    return signed


def signed_labels(y, n_rows: int) -> np.ndarray:
    """Return the labels ``y`` of ``n_rows`` rows (``learn_many``) as signed labels ±1;
    refuse another count or any other label (a missing one included)."""
    labels = np.asarray(y)
    if labels.ndim != 1 or labels.shape[0] != n_rows:
        raise ValueError(f"learn_many needs one label per row: X has {n_rows} rows, y "
                         f"{labels.shape[0] if labels.ndim == 1 else labels.shape} labels.")
    if labels.dtype != bool:
        try:
            ok = np.isin(labels, (-1, 0, 1)).all()
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(_label_message(next(v for v in labels.tolist()
                                                 if not _is_label(v))))
    return np.where(labels > 0, 1.0, -1.0)


def labels_after(labels: tuple, y) -> tuple:
    """Return the prediction labels after learning the labels ``y`` of ``learn_many``
    (``labels`` before): 1/-1 once a -1 was learnt."""
    values = np.asarray(y)
    if labels is SIGN_LABELS or values.dtype == bool or not (values == -1).any():
        return labels
    return SIGN_LABELS


def is_positive(y) -> bool:
    """Return whether the River label ``y`` is the positive class (True or 1; False, 0 and
    -1 are the other); refuse any other label."""
    return bool(signed_label(y)[0] > 0)


def _is_label(value) -> bool:
    """Whether ``value`` is one of the labels -1, 0, 1 (pandas' NA, whose comparisons are
    neither true nor false, is not)."""
    try:
        return bool(value in (-1, 0, 1))
    except TypeError:
        return False


def _label_message(y) -> str:
    return (f"AUCClassifier is a binary River classifier: labels must be True/False (or 1/0, "
            f"or 1/-1); got {y!r}. Map the labels first, e.g. y == 'yes' or y > 0.")
