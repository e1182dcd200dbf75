"""Errors and warnings that are aucopt's own."""

from sklearn.exceptions import ConvergenceWarning, NotFittedError

from .utils._param_validation import InvalidParameterError

__all__ = ["DivergenceError", "InvalidParameterError", "ConvergenceWarning", "NotFittedError",
           "ModelFileError", "OrderedStreamWarning"]


class DivergenceError(FloatingPointError, ValueError):
    """The iterates of an optimiser became non-finite or exploded.

    The message names the step-size hyperparameter to lower. The estimator is
    left as it was before the call that diverged.
    """


class ModelFileError(ValueError):
    """A saved model file is unreadable, inconsistent or not an aucopt model.

    Raised by :func:`aucopt.io.load` before any of the file's arrays reaches a
    kernel; the message names the file and the first problem found.
    """


class OrderedStreamWarning(UserWarning):
    """A stream fed to ``partial_fit`` began with a long run of one class.

    One-pass learners follow the order of the stream; a label-sorted file gives
    a poor (often inverted) ranker. Shuffle the stream (e.g.
    ``aucopt.datasets.iter_svmlight(..., shuffle_buffer=10000)`` or the CLI's
    ``--shuffle-buffer``).
    """
