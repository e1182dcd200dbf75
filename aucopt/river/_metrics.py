"""aucopt's exact streaming AUC as River metrics (for ``evaluate.progressive_val_score``)."""

from __future__ import annotations

from numbers import Integral

from river import metrics

from ..metrics import StreamingPartialAUC, StreamingROCAUC
from ..metrics._window import SlidingWindow
from ..utils._param_validation import Interval, validate_parameter_constraints

__all__ = ["ExactROCAUC", "ExactRollingROCAUC", "ExactPartialAUC"]


def _score(y_pred, pos_val) -> float:
    """The score of the positive class: ``y_pred[pos_val]`` of a probability dict, or the number."""
    if isinstance(y_pred, dict):
        return y_pred.get(pos_val, 0.0)
    return y_pred


class ExactROCAUC(metrics.base.BinaryMetric):
    r"""Exact ROC AUC of everything seen, as a River metric.

    River's ``metrics.ROCAUC`` counts a confusion matrix at a few thresholds on
    [0, 1]: an approximation that is only good for calibrated probabilities and
    degenerates on ranking scores outside [0, 1]. This metric counts every
    (positive, negative) pair exactly (:class:`aucopt.metrics.StreamingROCAUC`,
    sorted lists per class), so it equals :func:`sklearn.metrics.roc_auc_score` on
    the same labels and scores whatever their range, at O(n) memory.

    Parameters
    ----------
    pos_val : bool or label, default=True
        Label of the positive class.

    Examples
    --------
    >>> from aucopt.river import ExactROCAUC
    >>> metric = ExactROCAUC()
    >>> for y, s in [(False, -3.0), (False, 4.0), (True, 2.5), (True, 8.0)]:
    ...     metric.update(y, s)
    >>> metric.get()
    0.75
    """

    def __init__(self, pos_val=True):
        super().__init__(pos_val=pos_val)
        self._auc = StreamingROCAUC(pos_label=True)

    @property
    def requires_labels(self):
        return False

    @property
    def bigger_is_better(self):
        return True

    @property
    def works_with_weights(self) -> bool:  # (River reads it as an attribute: `w` is ignored)
        return False

    def update(self, y_true, y_pred, w=1.0) -> None:
        """Add one sample (``y_pred``: a score or River's ``{label: proba}`` dict)."""
        self._auc.update(y_true == self.pos_val, _score(y_pred, self.pos_val))

    def revert(self, y_true, y_pred, w=1.0) -> None:
        """Remove one sample added before."""
        self._auc.revert(y_true == self.pos_val, _score(y_pred, self.pos_val))

    def get(self) -> float:
        """Return the exact AUC, or NaN while a class is missing (no pair to rank)."""
        return self._auc.get()


class ExactRollingROCAUC(ExactROCAUC):
    """Exact ROC AUC of the last ``window_size`` samples, as a River metric.

    Like River's ``metrics.RollingROCAUC`` but exact: each update adds the new
    sample and reverts the one that leaves the window (O(log n) comparisons plus a
    list insertion and deletion per update).

    Parameters
    ----------
    window_size : int, default=1000
        Number of most recent samples counted.
    pos_val : bool or label, default=True
        Label of the positive class.
    """

    def __init__(self, window_size=1000, pos_val=True):
        validate_parameter_constraints({"window_size": [Interval(Integral, 1, None)]},
                                       {"window_size": window_size}, type(self).__name__)
        super().__init__(pos_val=pos_val)
        self.window_size = window_size
        self._window = SlidingWindow(window_size)

    def update(self, y_true, y_pred, w=1.0) -> None:
        """Add one sample and drop the oldest one beyond the window."""
        sample = (y_true == self.pos_val, _score(y_pred, self.pos_val))
        self._auc.update(*sample)
        out = self._window.push(sample)
        if out is not None:
            self._auc.revert(*out)

    def revert(self, y_true, y_pred, w=1.0) -> None:
        """Remove the most recent sample (River reverts the last update); the sample it
        pushed out of the window comes back."""
        sample = (y_true == self.pos_val, _score(y_pred, self.pos_val))
        if self._window.last() != sample:
            raise ValueError("ExactRollingROCAUC can only revert the most recent update.")
        self._auc.revert(*sample)
        back = self._window.pop()
        if back is not None:
            self._auc.update(*back)


class ExactPartialAUC(ExactROCAUC):
    """Exact partial AUC (one-way, or two-way with ``min_tpr``) as a River metric.

    :class:`aucopt.metrics.StreamingPartialAUC` behind River's metric protocol: equals
    :func:`aucopt.metrics.partial_roc_auc_score` (``min_tpr=0``, McClish's standardisation
    as ``sklearn.metrics.roc_auc_score(max_fpr=)``) or the normalised
    :func:`aucopt.metrics.two_way_partial_auc_score` on the samples counted, whatever the
    score range. ``update`` costs O(log n), but ``get`` O(n) (O(window_size) with a
    window): about 20 ms at 2 x 10^5 samples, so on a long stream read it every few thousand
    rows, not after each (``progressive_val_score(..., print_every=...)`` does).

    Parameters
    ----------
    max_fpr : float, default=0.1
        Upper end of the false-positive range, in (0, 1].
    min_tpr : float, default=0.0
        Floor on the true-positive rate (two-way partial AUC), in [0, 1).
    window_size : int or None, default=None
        Count only the last ``window_size`` samples (None: all of them).
    pos_val : bool or label, default=True
        Label of the positive class.

    Examples
    --------
    >>> from aucopt.river import ExactPartialAUC
    >>> metric = ExactPartialAUC(max_fpr=0.5)
    >>> for y, s in [(False, 0.1), (False, 0.2), (False, 0.3), (False, 0.9), (True, 0.8)]:
    ...     metric.update(y, s)
    >>> round(metric.get(), 4)
    0.6667
    """

    def __init__(self, max_fpr=0.1, min_tpr=0.0, window_size=None, pos_val=True):
        super().__init__(pos_val=pos_val)
        self.max_fpr, self.min_tpr, self.window_size = max_fpr, min_tpr, window_size
        self._auc = StreamingPartialAUC(max_fpr=max_fpr, min_tpr=min_tpr,
                                        window_size=window_size, pos_label=True)

    def __repr__(self):
        """The range and the value: River prints a union of metrics one per line, where
        several partial AUCs must be told apart."""
        given = [f"max_fpr={self.max_fpr}"] + ([f"min_tpr={self.min_tpr}"] if self.min_tpr
                                              else [])
        if self.window_size is not None:
            given.append(f"window_size={self.window_size}")
        return f"{type(self).__name__}({', '.join(given)}): {self.get():{self._fmt}}".rstrip("0")
