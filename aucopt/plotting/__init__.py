"""matplotlib plots of AUC results (the ``plot`` extra: ``pip install aucopt[plot]``).

matplotlib is imported inside the functions, so ``import aucopt.plotting`` works without
it; calling a function without it raises ``ImportError``. Every plotting function takes
``ax=None`` (a new figure) and returns the Axes it drew on; none shows or saves anything.
All share one style: the best few series in distinct colours, the others grey, legends
outside the axes (:func:`series_styles`, :func:`legend_outside`), and
:func:`figure_problems` says whether a drawn figure keeps to it.

=========================  ================================================================
``plot_roc``               ROC curves with their AUC in the legend and the chance diagonal
``plot_convergence``       AUC against samples seen (or epochs), optional std bands
``plot_auc_vs_param``      AUC against one hyperparameter, log x axis by default
``draw_experiment_figure`` one figure of ``aucopt experiment figures`` written as a PNG
``new_figure``             a Figure with constrained layout sized for its panels and legend
``save_figure``            save a PNG tight around everything drawn
``series_styles``          colours of ranked series: the first few distinct, the rest grey
``legend_outside``         the legend right of the axes, off the data
``figure_problems``        what makes a drawn figure hard to read (legends, colours, labels)
=========================  ================================================================
"""

from ._curves import plot_auc_vs_param, plot_convergence, plot_roc
from ._experiment import draw_experiment_figure
from ._style import (
    GREY,
    MAX_COLOURED,
    PALETTE,
    figure_problems,
    legend_outside,
    new_figure,
    save_figure,
    series_styles,
)

__all__ = ["GREY", "MAX_COLOURED", "PALETTE", "draw_experiment_figure", "figure_problems",
           "legend_outside", "new_figure", "plot_auc_vs_param", "plot_convergence", "plot_roc",
           "save_figure", "series_styles"]
