"""Scores of :class:`aucopt.river.AUCClassifier`: one dict in O(nnz) where the learner
keeps a lazy state, frames and kernel models through the model's formed decision."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..algorithms._data import first_non_finite_row, non_finite_message

__all__ = ["RowScores", "named_non_finite"]


def named_non_finite(x: dict, exc: Exception) -> Exception:
    """Return ``exc`` for a River user: a ValueError naming the features of the dict ``x``
    whose values are NaN or infinite, with River's remedy (the message of ``exc`` kept);
    ``exc`` itself if there are none."""
    if not isinstance(exc, ValueError):
        return exc
    bad = [name for name, value in x.items() if isinstance(value, float | np.floating)
           and not math.isfinite(value)]
    if not bad:
        return exc
    shown = ", ".join(f"{name!r} = {x[name]}" for name in bad[:5])
    return ValueError(f"the row's feature(s) {shown} are not finite: impute missing values in "
                      "the pipeline first (e.g. river.preprocessing.StatImputer) or drop them "
                      f"({str(exc).split('. ')[0]})")


class RowScores:
    """The scoring half of ``AUCClassifier`` (its ``estimator``, ``_map``, ``_width``,
    ``_grow`` and ``_rollback``)."""

    def _scores(self, rows) -> np.ndarray:
        """Ranking scores of kernel rows: ``X w + intercept_`` or the spec's decision."""
        est = self.estimator
        spec = est._spec()
        if spec.decision is not None:
            raw = spec.decision(est._state, est._state_params(), rows)
        elif rows.n_samples == 1:  # score_one: w at the row's columns
            return np.array([self._linear_score(rows)])
        else:
            X = sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                              shape=(rows.n_samples, rows.n_features))
            raw = X @ est.coef_[0]
        return raw + est.intercept_[0]

    def _row_score(self, x: dict) -> float:
        """Ranking score of one feature dict; ValueError (learn_one's message) if the score
        is not finite because the row is not (a NaN or an infinity among its values)."""
        if self._kernel_vocabulary():
            return self._with_new_names(lambda: self._map.row(x, self._width, grow=True),
                                        self._formed_checked)
        try:
            rows = self._map.row(x, self._width, grow=False)
            score = self.estimator._score_row(rows)  # None: no O(nnz) score, or not finite
            return self._formed_checked(rows) if score is None else score
        except ValueError as exc:
            raise named_non_finite(x, exc) from None

    def _formed_checked(self, rows) -> float:
        """:meth:`_formed_score`, a ValueError if it is not finite because the row is not."""
        score = self._formed_score(rows)
        if not math.isfinite(score) and first_non_finite_row(rows) == 0:
            raise ValueError(non_finite_message(rows, 0))
        return score

    def _kernel_vocabulary(self) -> bool:
        """Whether scores must give new names columns: a growing vocabulary, and a model
        whose score is not linear in the row (a kernel's distance to its stored rows
        counts a value its coefficients never saw, where a linear weight of 0 does not)."""
        return self.n_features is None and self.estimator._spec().decision is not None

    def _with_new_names(self, make_rows, score):
        """Return ``score`` of the rows ``make_rows`` gives with the row's new names in the
        vocabulary (the state widened as :meth:`learn_one` widens it), then put the
        vocabulary and the state back: scoring leaves no trace (its names took slots of a
        bounded vocabulary that later learnt names then missed, and grew an unbounded one
        without end)."""
        known, width = len(self._map.columns), self._width
        seen = self.estimator.__dict__.get("n_features_in_")
        try:
            rows = make_rows()
            if max(self._map.size, 1) > self._width:
                if self._axes is None:
                    self._axes = self._probe_axes()
                self._grow(self._map.size)
                rows = rows._replace(n_features=self._width)
                self.estimator.n_features_in_ = self._width
            return score(rows)
        finally:
            self._rollback(known, width)
            if seen is not None:
                self.estimator.n_features_in_ = seen
            self._narrow = {}

    def _linear_score(self, rows) -> float:
        """Ranking score of one kernel row of a linear model: O(nnz) from the lazy form where
        the spec has one, else from ``coef_`` and ``intercept_`` (formed in O(d))."""
        score = self.estimator._score_row(rows)
        return self._formed_score(rows) if score is None else score

    def _formed_score(self, rows) -> float:
        """Ranking score of one kernel row from the formed model: the spec's decision, or
        ``coef_`` and ``intercept_`` (O(d) once per update)."""
        est = self.estimator
        if est._spec().decision is not None:
            return float(self._scores(rows)[0])
        fitted = est._fitted_attributes()
        with np.errstate(invalid="ignore", over="ignore"):  # a value not finite: checked after
            return float(fitted["coef_"][0].take(rows.indices).dot(rows.data)
                         + fitted["intercept_"][0])

    def _frame_scores(self, X) -> np.ndarray:
        if not self._learned or len(X) == 0:
            return np.zeros(len(X))
        if self._kernel_vocabulary():
            return self._with_new_names(
                lambda: self._map.frame_rows(X, self._width, grow=True), self._checked_scores)
        return self._checked_scores(self._map.frame_rows(X, self._width, grow=False))

    def _checked_scores(self, rows) -> np.ndarray:
        scores = self._scores(rows)
        if not np.isfinite(scores).all():  # NaN values are absent features: infinities
            bad = first_non_finite_row(rows)
            if bad >= 0:
                raise ValueError(non_finite_message(rows, bad))
        return scores
