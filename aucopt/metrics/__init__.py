"""Exact AUC metrics: batch ROC AUC and ROC curve, pairwise surrogate losses, streaming AUC.

NumPy and SciPy only. Ties count one half everywhere, so the batch functions equal
:func:`sklearn.metrics.roc_auc_score` and :func:`sklearn.metrics.roc_curve`.

=========================  ==============================================================
``roc_auc_score``          exact AUC in O(n log n) (Mann-Whitney, integer pair counts)
``roc_curve``              (fpr, tpr, thresholds) as scikit-learn returns them
``auc_from_curve``         trapezoidal area under (fpr, tpr)
``pairwise_auc_loss``      mean square / hinge / logistic / exponential pairwise loss
``StreamingROCAUC``        exact AUC over a stream (River ``update``/``revert``/``get``)
=========================  ==============================================================
"""

from ._pairwise import pairwise_auc_loss
from ._ranking import auc_from_curve, roc_auc_score, roc_curve
from ._streaming import StreamingROCAUC

__all__ = [
    "StreamingROCAUC",
    "auc_from_curve",
    "pairwise_auc_loss",
    "roc_auc_score",
    "roc_curve",
]
