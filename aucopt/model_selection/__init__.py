"""Evaluation protocols: stratified k-fold with inner tuning, convergence curves."""

from ._evaluate import FoldResult, convergence_curve, evaluate_fold, fold_splits, grid_points

__all__ = ["FoldResult", "convergence_curve", "evaluate_fold", "fold_splits", "grid_points"]
