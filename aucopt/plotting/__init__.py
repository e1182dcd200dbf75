"""matplotlib plots of AUC results (the ``plot`` extra: ``pip install aucopt[plot]``).

matplotlib is imported inside the functions, so ``import aucopt.plotting`` works without
it; calling a function without it raises ``ImportError``. Every function takes ``ax=None``
(a new figure) and returns the Axes it drew on; none shows, saves or restyles anything.

=======================  ==================================================================
``plot_roc``             ROC curves with their AUC in the legend and the chance diagonal
``plot_convergence``     AUC against samples seen (or epochs), optional std bands
``plot_auc_vs_param``    AUC against one hyperparameter, log x axis by default
``draw_experiment_figure``  one figure of ``aucopt experiment figures`` written as a PNG
=======================  ==================================================================
"""

from ._curves import plot_auc_vs_param, plot_convergence, plot_roc
from ._experiment import draw_experiment_figure

__all__ = ["draw_experiment_figure", "plot_auc_vs_param", "plot_convergence", "plot_roc"]
