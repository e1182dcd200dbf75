"""Exact AUC metrics: batch ROC AUC and ROC curve, pairwise surrogate losses, streaming AUC.

NumPy and SciPy only. Ties count one half everywhere, so the batch functions equal
:func:`sklearn.metrics.roc_auc_score` and :func:`sklearn.metrics.roc_curve`.

=========================  ==============================================================
``roc_auc_score``          exact AUC in O(n log n) (Mann-Whitney, integer pair counts)
``roc_curve``              (fpr, tpr, thresholds) as scikit-learn returns them
``auc_from_curve``         trapezoidal area under (fpr, tpr)
``pairwise_auc_loss``      mean square / hinge / logistic / exponential pairwise loss
``StreamingROCAUC``        exact AUC over a stream (River ``update``/``revert``/``get``)
``partial_roc_auc_score``  exact one-way partial AUC over an FPR range (McClish or raw)
``two_way_partial_auc_score``  exact two-way partial AUC (TPR >= min_tpr, FPR <= max_fpr)
``StreamingPartialAUC``    exact partial AUC over a stream or a sliding window
``pauc_scorer``            a partial-AUC scorer for ``GridSearchCV(scoring=...)``
=========================  ==============================================================
"""

from ._pairwise import pairwise_auc_loss
from ._partial import (
    StreamingPartialAUC,
    partial_roc_auc_score,
    pauc_scorer,
    two_way_partial_auc_score,
)
from ._ranking import auc_from_curve, roc_auc_score, roc_curve
from ._streaming import StreamingROCAUC

__all__ = [
    "StreamingPartialAUC",
    "StreamingROCAUC",
    "auc_from_curve",
    "pairwise_auc_loss",
    "partial_roc_auc_score",
    "pauc_scorer",
    "roc_auc_score",
    "roc_curve",
    "two_way_partial_auc_score",
]
