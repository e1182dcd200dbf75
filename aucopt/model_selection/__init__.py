"""Evaluation protocols of the papers, inner tuning, convergence curves and significance tests."""

from ._evaluate import (
                        FoldResult,
                        check_inner_folds,
                        convergence_curve,
                        evaluate_fold,
                        fold_splits,
                        grid_points,
)
from ._protocols import (
                        PROTOCOLS,
                        Split,
                        given_test_halved,
                        make_splits,
                        repeated_holdout,
                        repeated_kfold,
                        train_val_test,
)
from ._stats import BETTER, WORSE, TTestResult, paired_ttest, win_tie_loss

__all__ = [
    "BETTER",
    "FoldResult",
    "PROTOCOLS",
    "Split",
    "TTestResult",
    "check_inner_folds",
    "convergence_curve",
    "evaluate_fold",
    "fold_splits",
    "given_test_halved",
    "grid_points",
    "make_splits",
    "paired_ttest",
    "repeated_holdout",
    "repeated_kfold",
    "train_val_test",
    "WORSE",
    "win_tie_loss",
]
