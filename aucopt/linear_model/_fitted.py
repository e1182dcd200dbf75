"""The fitted attributes of every AUC learner: ``coef_`` and ``intercept_`` formed from the
committed state when read, raw scores, and the warnings about a fitted model (constant
scores, a stream sorted by label)."""

from __future__ import annotations

import math
import threading

import numpy as np

from ..algorithms._data import as_rows, class_mean_scores
from ..algorithms._precondition import SCALE_KEY, intercept_shift, rescaled, unscaled
from ..algorithms._row_score import row_columns, score_path
from ..exceptions import OrderedStreamWarning
from ..utils._warnings import warn_external
from ._declared import READ_WITH

__all__ = ["FittedAttributes", "ORDERED_PREFIX_ROWS"]

_NO_COLUMNS = np.zeros(0, dtype=np.int64)

# partial_fit warns (once) when the stream begins with this many rows of one class
ORDERED_PREFIX_ROWS = 1000
# the O(nnz) score of one row completes the dots of its path in place: threads reading one
# model (a service scoring with it) take turns there
_SCORE_LOCK = threading.RLock()  # (reentrant: a learnt row may take the general path)


class FittedAttributes:
    """Mixin of :class:`aucopt.linear_model._base.BaseAUCClassifier`: what a fitted model
    shows (``coef_``, ``intercept_``, scores) and the warnings about it."""

    def __getstate__(self):
        # a copy: scikit-learn's returns the live __dict__ (Python >= 3.11), whose caches the
        # pops below (and BaseAUCClassifier's) took from the model itself, under a thread
        # learning with them (KeyError, the row half learnt)
        state = dict(super().__getstate__())
        state.pop("_score_path", None)  # views of the state
        return state

    def _set_coef(self) -> None:
        """Forget ``coef_`` and ``intercept_``: they are formed from the state when next read,
        with the hyperparameters as they are now (a state committed from outside an update:
        a load, a distributed fit, a widened stream)."""
        self._fitted = {}
        self.__dict__.pop(READ_WITH, None)  # (the structure the state was built with, kept)
        self.__dict__[READ_WITH] = self._state_params()

    def _fitted_attributes(self) -> dict:
        """Return ``{"coef_": ..., "intercept_": ...}`` of the committed state (cached).

        The cache is one dict filled in place, so reading does not rebind attributes.
        """
        if "_state" not in self.__dict__:
            raise AttributeError(f"This {type(self).__name__} instance is not fitted yet.")
        fitted = self.__dict__.setdefault("_fitted", {})
        if "intercept_" in fitted:
            return fitted
        spec, params = self._spec(), self._state_params()
        raw = None  # the weights of the scaled features (notes.md#preconditioning)
        if spec.coef is not None and "coef_" not in fitted:
            raw = np.array(spec.coef(self._state, params), dtype=np.float64)
            fitted["coef_"] = unscaled(raw, self._state)[None, :]
        if spec.mean_scores is not None:
            means = [s for s in spec.mean_scores(self._state, params) if s is not None]
        else:  # the data statistics are those of the scaled rows
            if raw is None:
                raw = rescaled(fitted["coef_"][0], self._state)
            means = class_mean_scores(self._state, raw)
        # the mean of one or two scores in plain floats (numpy.mean costs microseconds here)
        shift = intercept_shift(fitted["coef_"][0], self._state) if "coef_" in fitted else 0.0
        fitted["intercept_"] = np.array([-float(sum(means) / len(means)) - shift if means
                                         else 0.0])
        return fitted

    @property
    def coef_(self):
        """ndarray of shape (1, n_features): the linear scoring vector (linear models only)."""
        fitted = self._fitted_attributes()
        if "coef_" not in fitted:
            raise AttributeError(f"{type(self).__name__} is not linear: it has no coef_.")
        return fitted["coef_"]

    @coef_.setter
    def coef_(self, value):
        self.__dict__.setdefault("_fitted", {})["coef_"] = value

    @property
    def intercept_(self):
        """ndarray of shape (1,): ``-(mean score of the positives + of the negatives) / 2``."""
        return self._fitted_attributes()["intercept_"]

    @intercept_.setter
    def intercept_(self, value):
        self.__dict__.setdefault("_fitted", {})["intercept_"] = value

    def _score_row(self, rows) -> float | None:
        """Return ``decision_function`` of one CSR row in O(nnz), or None where the spec
        has no linear form of this state (``AlgorithmSpec.coef_terms``) or the score is not
        finite (the caller then forms ``coef_``).

        Only the weights at the row's features are formed; the intercept comes from the
        dots kept by :meth:`_learn_row_scored` (formed in O(d) when they are not current:
        the first score, after ``partial_fit``, a reload, a widened state).
        """
        fitted = self.__dict__
        state = fitted.get("_state")
        if state is None or rows.n_features != state["data_sum"].shape[1]:
            return None
        with _SCORE_LOCK:  # a score adds the terms the last learnt row left: one at a time
            token = fitted.get("_fitted")
            if token is None:
                token = fitted["_fitted"] = {}
            path = fitted.get("_score_path")
            if path is None or not (path.fits(state, self._state_params())
                                    and path.current(state, token)):
                path = self._current_path(state, token)
                if path is None:
                    return None
            if not path.dots_current(token):
                path.form_dots(token)
            score = path.score(state["data_count"], rows.data, rows.indices)
        return score if math.isfinite(score) else None

    def _current_path(self, state: dict, token):
        """Return the :class:`~aucopt.algorithms._row_score.ScorePath` of ``state`` with the
        coefficients of the committed state ``token`` (the dict of the fitted attributes,
        new after every update); None: no O(nnz) score of this state."""
        fitted, params = self.__dict__, self._state_params()
        path = fitted.get("_score_path")
        if path is not None and path.fits(state, params) and path.current(state, token):
            return path
        path = fitted["_score_path"] = score_path(self._spec(), state, params, path)
        if path is not None and not path.current(state, token):
            path = fitted["_score_path"] = None
        return path

    def _learn_row_scored(self, rows, y) -> None:
        """:meth:`_learn_row`, keeping the dots of :meth:`_score_row` current in O(nnz).

        A row learnt by columns (the row path, or a general call that wrote only its
        columns) changes the dots only at the features it wrote: their terms are taken
        out before and added back after. Otherwise (or when the path's form is not by
        columns) the dots are dropped (formed again when next needed). Scores wait while
        a row is learnt (a score made meanwhile added the terms of a half-learnt row to
        the dots: every later score was off by about the intercept, silently).
        """
        with _SCORE_LOCK:
            fitted = self.__dict__
            path, at = fitted.get("_score_path"), None
            token = fitted.get("_fitted")
            if (path is not None and token is not None and path.dots_for is token
                    and path.form.by_columns):
                state = fitted["_state"]
                if not (path.fits(state, self._state_params()) and path.coefs_for is token):
                    path = self._current_path(state, token)  # a test-then-train step: current
                if path is not None and path.dots_current(token) and path.flush():
                    spec = path.spec
                    extra = spec.extra_columns(state) if spec.extra_columns is not None else None
                    centred = self._centred(state) if SCALE_KEY in state else _NO_COLUMNS
                    at = row_columns(rows.indices, centred, extra)
                    if not path.add(at, -1.0):
                        at = np.unique(at)
                        at = at if path.add(at, -1.0) else None
            if path is not None:
                path.dots_for = None  # until the row is committed
            on_path = self._learn_row(rows, y)
            if at is None or not (on_path or fitted.get("_row_path") is not None
                                  or fitted.get("_by_columns", False)):
                return
            # the columns are where they were: the row path writes the arrays it was given
            if on_path or path.fits(fitted["_state"], path.params):
                path.defer(at, fitted.setdefault("_fitted", {}))  # added by the next score

    def _raw_scores(self, X) -> np.ndarray:
        spec = self._spec()
        if spec.decision is not None:
            return spec.decision(self._state, self._state_params(), as_rows(X))
        return np.asarray(X @ self.coef_[0]).ravel()

    def _warn_constant_model(self) -> None:
        """Warn if ``fit`` ended with all weights zero on data that is not all zero."""
        coef = getattr(self, "coef_", None)
        if coef is None:  # a kernel model: the coefficients of its expansion
            key = self._spec().model_key
            coef = None if key is None else self._state.get(key)
        if coef is None or coef.any() or not self._state["data_sum"].any():
            return
        spec = self._spec()
        reason = (spec.zero_reason(self._state, self._state_params())
                  if spec.zero_reason is not None else None)
        if reason is None:
            scale = float(np.sqrt(self._state["data_sqmax"][0]))
            reason = (f"The largest row norm of X is {scale:.3g}; penalties and thresholds (an "
                      "l1 weight, a tolerance) do not scale with the features, so rescale them "
                      "first (e.g. aucopt.datasets.make_preprocessor('minmax')) or lower the "
                      "regularisation.")
        message = (f"{type(self).__name__}.fit ended with all weights zero: every score is the "
                   f"same (AUC 0.5). {reason}")
        warn_external(message, UserWarning)

    def _one_class_counts(self):
        """Return a copy of the class counts while the stream is one class and not warned
        about (None otherwise): what :meth:`_warn_ordered_stream` compares a chunk with."""
        if self.__dict__.get("_ordered_warned", False):
            return None
        state = self.__dict__.get("_state")
        if state is None:
            return np.zeros(2)
        count = state["data_count"]
        return None if count[0] > 0 and count[1] > 0 else count.copy()

    def _warn_ordered_stream(self, call: str = "partial_fit", before=None, signed=None) -> None:
        """Warn once if the stream began with at least ``ORDERED_PREFIX_ROWS`` rows of one
        class: all of it so far, or (``before``: the counts before a chunk whose signed labels
        are ``signed``) those rows and the run of the same class that opens the chunk.

        A random stream with a positive rate of 1% has such a prefix with
        probability 0.99^1000 = 4e-5; a file sorted by label almost surely.
        One-pass learners then adapt to one class first and often end up with
        an inverted ranker.
        """
        if self.__dict__.get("_ordered_warned", False):
            return
        count = self._state["data_count"]
        n_neg, n_pos = count[0], count[1]
        if n_neg > 0 and n_pos > 0:  # both classes now: how long was the one-class prefix?
            if before is None or signed is None or signed.size == 0:
                return
            c = int(before[1] > 0) if before.any() else int(signed[0] > 0)
            other = np.flatnonzero((signed > 0) != bool(c))
            prefix = before[c] + (other[0] if other.size else signed.size)
            if prefix < ORDERED_PREFIX_ROWS:
                return
        elif n_neg + n_pos < ORDERED_PREFIX_ROWS:
            return
        else:
            c, prefix = int(np.argmax(count)), count.sum()
        self._ordered_warned = True
        label = self.classes_[c].item()  # 0.0, not np.float64(0.0)
        message = (
            f"the stream of {type(self).__name__}.{call} began with {int(prefix)} rows all of "
            f"class {label!r}: it looks sorted by label, "
            "and one-pass learners follow the order of the stream (a sorted stream often gives "
            "an inverted ranker). Shuffle it: aucopt.datasets.iter_svmlight(..., "
            "shuffle_buffer=N), the CLI's fit --stream --shuffle-buffer N, or shuffle the "
            "file once (e.g. shuf). Ignore this if the stream really is that imbalanced."
        )
        warn_external(message, OrderedStreamWarning)
