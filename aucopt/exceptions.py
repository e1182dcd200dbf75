"""Errors and warnings that are aucopt's own."""

from sklearn.exceptions import ConvergenceWarning, NotFittedError

from .utils._param_validation import InvalidParameterError

__all__ = ["DivergenceError", "InvalidParameterError", "ConvergenceWarning", "NotFittedError"]


class DivergenceError(FloatingPointError, ValueError):
    """The iterates of an optimiser became non-finite or exploded.

    The message names the step-size hyperparameter to lower. The estimator is
    left as it was before the call that diverged.
    """
