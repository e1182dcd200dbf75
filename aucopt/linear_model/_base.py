"""BaseAUCClassifier: the scikit-learn front-end shared by every AUC learner.

It owns everything that is not the algorithm: hyperparameter and input
validation, label encoding, the random generator, the state and its
transactional update, epochs, ``partial_fit``, ``coef_``/``intercept_``, tags
and error messages. The algorithm itself is reached only through its spec in
the registry (``aucopt.algorithms``): ``init_state``, ``run`` and ``coef``.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._kernels._checks import OK
from ..algorithms import _calibrate, get_algorithm
from ..algorithms._calibrate import AUTO_RETRIES, LADDER_RATIO, MIN_ROWS, calibrate_step, usable
from ..algorithms._data import as_rows, identity_order, new_data_stats, observe_data
from ..algorithms._memory import check_width
from ..algorithms._precondition import (
    SCALE_KEY,
    SHIFT_KEY,
    centred_columns,
    fix_scale,
    new_transform,
    refuse_changed_precondition,
    transform_rows,
)
from ..algorithms._rowpath import BY_COLUMNS
from ..algorithms._time_budget import call_name, deadline_of, run_pass, within_budget
from ..metrics import roc_auc_score
from ..utils._random import make_generator
from ._declared import READ_WITH, DeclaredParams
from ._divergence import arithmetic_as_divergence, divergence_error, unusable_fit
from ._fitted import ORDERED_PREFIX_ROWS, FittedAttributes
from ._inputs import SCORE_LABELS_HINT, InputChecks, owns_values
from ._row_learning import RowLearning, is_auto
from ._undo import UndoLog, next_plan, touched_columns, warm_copy

__all__ = ["BaseAUCClassifier", "ORDERED_PREFIX_ROWS"]

logger = logging.getLogger(__name__)

_NO_HOOK: dict = {}  # keyword arguments of spec.run for specs without column_keys (never written)

# what validating X with reset=True sets (scikit-learn's validate_data)
_INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


def _is_streaming(estimator) -> bool:
    return get_algorithm(estimator._algorithm).streaming


@contextmanager
def _input_attributes_kept(estimator):
    """Put ``n_features_in_`` and ``feature_names_in_`` back as they were if the block fails.

    Validating ``X`` sets them before the call can fail (one class, NaN, divergence); an
    error then removes those that did not exist before and restores the others, so the
    estimator keeps describing the data it was fitted on (or none).

    Parameters
    ----------
    estimator : BaseAUCClassifier
    """
    fitted = estimator.__dict__
    saved = {k: fitted[k] for k in _INPUT_ATTRIBUTES if k in fitted}
    try:
        yield
    except BaseException:
        for key in _INPUT_ATTRIBUTES:
            fitted.pop(key, None)
        fitted.update(saved)
        raise


class BaseAUCClassifier(DeclaredParams, InputChecks, RowLearning, FittedAttributes,
                        ClassifierMixin, BaseEstimator):
    """Base class of the AUC-maximising binary classifiers.

    Subclasses set ``_algorithm`` (a registry id), declare their
    hyperparameters in ``__init__`` (stored unchanged) and extend
    ``_parameter_constraints``. Do not instantiate this class directly.

    Notes
    -----
    ``decision_function`` returns ranking scores; ``score`` returns the ROC AUC
    (not accuracy). Pairwise objectives have no natural score origin, so
    ``intercept_ = -(w.m+ + w.m-)/2`` is set from the class means of the
    training data, which makes ``predict`` meaningful; AUC does not depend on
    it. Tune a decision threshold with
    ``sklearn.model_selection.TunedThresholdClassifierCV`` if needed.
    """

    _algorithm: str = ""
    # a one-row CSR chunk of a stream already started takes the row path of River's
    # learn_one (one compiled call; the general path for whatever it cannot learn, with the
    # same bits); the tests that check that path against the general one turn it off
    _one_row_path: bool = True

    # ------------------------------------------------------------- public API
    def fit(self, X, y, sample_weight=None):
        """Fit the model on ``(X, y)``: ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (CSR is used as it is; other sparse formats are converted).
        y : array-like of shape (n_samples,)
            Labels with exactly two distinct values; ``classes_[1]`` is positive.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: a pair of samples counts with the product of their
            weights (notes.md#sample-weights); 0 leaves a row out. None: all ones.

        Returns
        -------
        self
        """
        self._validate_params()
        with _input_attributes_kept(self):  # a fitted model stays usable after a failed refit
            given, (X, y) = X, self._validate_input(X, y, reset=True, check_finite=False)
            classes = self._check_targets(y)
            if classes.size < 2:
                raise ValueError(
                    f"{type(self).__name__} needs samples of both classes, but y has only one "
                    f"class ({classes.tolist()}). AUC ranks positives against negatives; check "
                    "the split (e.g. use sklearn.model_selection.StratifiedKFold)."
                )
            warm = self.warm_start and hasattr(self, "_state")
            X, signed = self._weigh(X, self._signed_labels(y, classes), sample_weight)
            if sample_weight is not None and not ((signed > 0).any() and (signed < 0).any()):
                raise ValueError(f"{type(self).__name__} needs a positive sample_weight on "
                                 "samples of both classes.")
            rows = as_rows(X)
            self._fit_rows(
                rows, signed, classes, n_epochs=self.max_iter, shuffle=self.shuffle,
                reset=True, warm_from=self._state if warm else None,
                own=owns_values(rows.data, given),
            )
        self._warn_constant_model()  # committed: a warning raised as an error undoes nothing
        return self

    @available_if(_is_streaming)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from one chunk of the stream: one pass over its rows, in order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk.
        y : array-like of shape (n_samples,)
            Its labels; a chunk may contain a single class.
        classes : array-like of shape (2,), default=None
            Both labels of the problem; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the chunk's rows (see :meth:`fit`).

        Returns
        -------
        self
        """
        first = not hasattr(self, "_state")
        self._validate_params()  # every call: set_params may have changed them since
        if first:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit, because a chunk "
                    "may hold only one class: e.g. partial_fit(X, y, classes=[-1, 1]) or "
                    "classes=numpy.unique(y_all)."
                )
            if isinstance(classes, set | frozenset) or not hasattr(classes, "__len__"):
                classes = list(classes)  # (NumPy makes one object of a set or a generator)
            classes = np.unique(np.asarray(classes))
            if classes.size != 2:
                raise ValueError(
                    f"classes must hold exactly two labels for this binary AUC learner; got "
                    f"{classes.tolist()}."
                )
            self._check_targets(classes)  # class labels, not values of a continuous target
        else:
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()} differs from classes_="
                    f"{self.classes_.tolist()} of the first partial_fit call."
                )
            classes = self.classes_
            rows = self._plain_rows(X, y) if sample_weight is None else None
            if rows is not None:  # already float64 CSR/ndarray of the right width
                signed = self._signed_labels(y, classes)
                before = self._one_class_counts()
                if rows.n_samples == 1 and rows.is_sparse and self._one_row_path:
                    self._learn_row(rows, signed)
                else:
                    self._fit_rows(rows, signed, classes, n_epochs=1, shuffle=False,
                                   reset=False, stream=True)
                self._warn_ordered_stream(before=before, signed=signed)
                return self
        with _input_attributes_kept(self):  # set by the first call only
            given, (X, y) = X, self._validate_input(X, y, reset=first, check_finite=False)
            self._check_targets(y)
            X, signed = self._weigh(X, self._signed_labels(y, classes), sample_weight,
                                    chunk=True)
            if X.shape[0] == 0:  # every row of weight 0: nothing to learn
                if first:
                    raise ValueError("Every row of the first partial_fit chunk has "
                                     "sample_weight 0: it needs at least one row of positive "
                                     "weight to start the stream.")
                return self
            before = self._one_class_counts()
            rows = as_rows(X)
            self._fit_rows(rows, signed, classes, n_epochs=1, shuffle=False, reset=first,
                           stream=True, own=owns_values(rows.data, given))
        self._warn_ordered_stream(before=before, signed=signed)
        return self

    def decision_function(self, X):
        """Return the ranking scores ``X w + intercept_`` (``f(X) + intercept_`` if non-linear).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = self._validate_input(X, reset=False)
        return self._raw_scores(X) + self.intercept_[0]

    def predict(self, X):
        """Return ``classes_[1]`` where ``decision_function(X) > 0``, else ``classes_[0]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    def score(self, X, y, sample_weight=None):
        """Return the ROC AUC of ``decision_function(X)`` (not the accuracy).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True labels; both classes must be present, and no other label.
        sample_weight : array-like of shape (n_samples,), default=None
            The weighted AUC: each positive-negative pair counts with the product of
            its weights (:func:`aucopt.metrics.roc_auc_score`).

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``y`` holds a label that is not in ``classes_``, or a single class, or a
            weight is negative or not finite.
        """
        check_is_fitted(self)
        y = column_or_1d(y, warn=True)  # a column, as fit takes it (with the same warning)
        signed = self._signed_labels(y, self.classes_, SCORE_LABELS_HINT)
        return roc_auc_score(signed > 0, self.decision_function(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self._spec().sparse
        return tags

    # ------------------------------------------------------------- internals
    @arithmetic_as_divergence
    @within_budget
    def _fit_rows(self, rows, y, classes, *, n_epochs, shuffle, reset, warm_from=None,
                  stream=False, own=False):
        """Run ``n_epochs`` passes of the algorithm and commit the result.

        The state is updated in place under an undo log (:mod:`._undo`): an error (e.g.
        divergence, or a NaN found by the statistics pass) puts it back as it was, so the
        estimator is unchanged. ``coef_`` and ``intercept_`` are formed when next read. A
        calibrated ``"auto"`` step that diverges is divided by ``LADDER_RATIO`` and the call
        restarted from the state before it, at most :data:`AUTO_RETRIES` times.
        ``stream``: the rows are a chunk of a stream (``partial_fit``), which the step is
        calibrated for (:func:`~aucopt.algorithms._calibrate.calibrate_step`). ``own``: the
        rows' values are a copy made by this call, which the preconditioner transforms in
        place (:func:`~._inputs.owns_values`).
        """
        if y.shape != (rows.n_samples,):  # the kernels read y[i] for every row i
            raise ValueError(f"{rows.n_samples} rows but {y.shape} labels reached the fit: "
                             "give one label per row.")
        spec = self._spec()
        params = self._params()
        if reset:  # before anything of size O(d) is allocated
            check_width(spec, rows.n_features, params)
        else:  # before the preconditioner sets the scales of the rows' new features
            self._check_structure()
        if not spec.epochs_by_base:
            n_epochs = 1  # the spec's run handles max_iter itself
        # one budget for the calibration, the passes and their retries at a lower step
        deadline = deadline_of(params, call_name(self, stream))
        transform, fixed = self._transform(params, rows, y, reset, warm_from)
        if transform is not None:  # notes.md#preconditioning: the kernels see (x - c) / s
            rows = transform_rows(rows, transform, self._centred(transform), in_place=own)
        step = None
        if spec.calibration is not None:
            if spec.calibration.resolve is not None:  # once: the calibration and the run use it
                params = spec.calibration.resolve(params, rows, y)
            step = self._auto_step(spec, params, rows, y, reset, n_epochs, stream)
            if step is not None:
                params = self._with_step(params, spec.step_param, step)
        for retry in range(AUTO_RETRIES + 1):
            # a chunk of a stream is one pass (FSAUC plans its first horizon from it)
            state, rng, t, undo = self._start_state(spec, {**params, "max_iter": 1} if (
                stream and reset) else params, rows, shuffle, reset, warm_from)
            hook = _NO_HOOK
            if spec.column_keys:
                hook = {"before_dense": undo.before_dense if undo is not None else None}
            if reset and transform is not None:
                state.update(transform)  # saved with the state (aucopt.io)
            try:
                observe_data(state, rows, y, stream=stream and transform is not None)
                t, failed = self._run_epochs(spec, state, rows, y, params, t, rng, n_epochs,
                                             shuffle, hook, deadline)
                if failed is None and undo is not None and undo.unfinite() is not None:
                    failed = (0, t)  # a last step that overflowed: no later step saw it
                if failed is not None and (step is None or retry == AUTO_RETRIES):
                    self._raise_divergence(spec, *failed, float(np.sqrt(state["data_sqmax"][0])),
                                           step=step, weight=float(np.abs(y).mean()))
            except BaseException:
                if undo is not None:
                    undo.rollback()
                if fixed is not None and not reset:
                    transform[SCALE_KEY][fixed] = 0.0  # the columns set here: unseen again
                raise
            if failed is None:
                break
            if undo is not None:
                undo.rollback()  # restart from the state before this call
            step /= LADDER_RATIO
            params = self._with_step(params, spec.step_param, step)
            logger.warning(_calibrate.RESTART_MESSAGE,
                           type(self).__name__, spec.step_param, spec.step_param, step,
                           retry + 1, AUTO_RETRIES)
        if reset:  # what load refuses, fit does not commit (a new state: nothing to undo)
            unusable = unusable_fit(state, params, spec.step_param)
            if unusable is not None:
                error = divergence_error(self, spec, 0, t,
                                         float(np.sqrt(state["data_sqmax"][0])), step=step)
                raise type(error)(f"{error} ({unusable})")
        fitted = self.__dict__  # commit: one update, and coef_/intercept_ formed when read
        fitted.pop("_row_path", None)  # it holds arrays this call may have replaced
        if reset:
            fitted.pop("_built_with", None)  # the new state has the current structure
        n_epochs = fitted.pop("_epochs_run", n_epochs)  # fewer if max_time stopped the passes
        # whether the call wrote the per-feature entries at its columns only (the O(nnz)
        # scores of _fitted._learn_row_scored stay current then)
        fitted["_by_columns"], fitted[READ_WITH] = undo is not None and bool(undo.columns), \
            self._params()  # (the hyperparameters coef_ and the scores are read with)
        fitted.update(_state=state, _rng=rng, t_=int(t), classes_=classes, _fitted={},
                      n_iter_=n_epochs if spec.epochs_by_base else int(state.get("n_iter",
                                                                                 [1])[0]))
        if spec.calibration is not None:  # the step used: the user's, the calibrated one or
            value = params[spec.step_param]  # None (partial_fit deferring calibration, or a
            fitted[spec.step_param + "_"] = None if isinstance(value, str) else value  # rule)
            self._keep_auto_step(spec.step_param, fitted[spec.step_param + "_"], reset)

    def _transform(self, params, rows, y, reset, warm_from):
        """Return ``(scale and shift, columns set by this call)`` of the preconditioner
        (None, None: the rows are used as they are; notes.md#preconditioning).

        ``fit`` sets them on all its rows (``warm_start`` keeps the previous ones, and
        refuses a changed ``precondition``: the iterates are in the other coordinates); a
        stream on its first chunk, and later features from the chunk that first holds
        them (:func:`~aucopt.algorithms._precondition.fix_scale`). A stream refuses a
        changed ``precondition`` (structural: ``_check_structure``).
        """
        auto = is_auto(params.get("precondition"))
        if reset and warm_from is not None:
            refuse_changed_precondition(auto, warm_from)
        if reset:
            if not auto:
                return None, None
            transform = new_transform(rows.n_features)
            if warm_from is not None and SCALE_KEY in warm_from:
                transform = {k: warm_copy(k, warm_from[k], transform[k]) for k in transform}
        else:
            transform = self._state  # a stream started without it keeps without
            if SCALE_KEY not in transform:
                return None, None
        # enough rows (rows of weight 0 are gone), or weights summing to as many (integer
        # weights are duplicated rows): weights of any scale on enough rows count alike
        enough = (y.size >= MIN_ROWS or float(np.abs(y).sum()) >= MIN_ROWS) and (
            (y > 0).any() and (y < 0).any())
        fixed = fix_scale(transform, rows, y, first=reset, usable=enough,
                          clip=self._spec().clip_rows) if auto else None
        return transform, fixed

    def _centred(self, transform) -> np.ndarray:
        """Return the centred columns of ``transform`` (cached while its shift is the same
        array: it is set once, by ``fit`` or a stream's first chunk)."""
        cached = self.__dict__.get("_centred_cache")
        if cached is None or cached[0] is not transform[SHIFT_KEY]:
            cached = self._centred_cache = (transform[SHIFT_KEY], centred_columns(transform))
        return cached[1]

    def _start_state(self, spec, params, rows, shuffle, reset, warm_from):
        """Return ``(state, rng, t, undo)`` for a call: a new state, or the committed one
        under an undo log of what the call may write (None for a new state)."""
        if reset:
            rng = make_generator(self.random_state)
            state = spec.init_state(rows.n_features, rows.n_samples, params, rng)
            state.update(new_data_stats(rows.n_features))
            if warm_from is not None:
                warm = spec.warm_values(warm_from) if spec.warm_values else warm_from
                for key in spec.warm_keys:
                    state[key] = warm_copy(key, warm[key], state[key])
            self.__dict__.pop("_undo_plan", None)  # it holds the state it was made for
            return state, rng, 0, None
        state, rng = self._state, self._rng  # (its structure checked by _fit_rows first)
        cols = touched_columns(rows, rows.n_features)
        if cols is not None and spec.extra_columns is not None:
            cols = np.concatenate((cols, spec.extra_columns(state)))
        plan = self._undo_plan = next_plan(self.__dict__.get("_undo_plan"), state,
                                           spec.column_keys + BY_COLUMNS, rows.n_features)
        # runs of specs with column_keys draw nothing (see AlgorithmSpec.column_keys)
        undo = UndoLog(state, plan, cols, rng if shuffle or not spec.column_keys else None)
        return state, rng, self.t_, undo

    def _run_epochs(self, spec, state, rows, y, params, t, rng, n_epochs, shuffle, hook,
                    deadline):
        """Run the passes; return ``(t, None)`` on success, ``(t, (epoch, t))`` on divergence.

        With ``max_time``, the passes stop once it is spent, between passes or between
        blocks of rows of one (``n_iter_`` counts the passes begun; :func:`run_pass`).
        """
        self.__dict__.pop("_epochs_run", None)
        for epoch in range(n_epochs):
            if epoch and deadline.passed():
                self._epochs_run = epoch
                break
            order = rng.permutation(rows.n_samples) if shuffle else identity_order(rows.n_samples)
            t, status, stopped = run_pass(spec, state, rows, y, order, params, t, epoch == 0,
                                          rng, deadline, hook)
            if status != OK:
                return t, (epoch, t)
            if stopped:  # inside this pass
                self._epochs_run = epoch + 1
                break
            if self.verbose:
                logger.info("%s: pass %d/%d done, %d updates", type(self).__name__,
                            epoch + 1, n_epochs, t)
        return t, None

    def _auto_step(self, spec, params, rows, y, reset, passes, stream=False):
        """Return the numeric step replacing ``"auto"`` (None: not "auto", or deferred).

        ``fit`` calibrates on its data; ``partial_fit`` keeps the step of the first
        chunk usable for calibration (:func:`aucopt.algorithms._calibrate.usable`);
        until then the spec's own scale rule for ``"auto"`` applies.
        """
        if spec.calibration is None or not is_auto(params.get(spec.step_param)):
            return None
        step = None if reset else self._auto_step_so_far(spec.step_param)
        if step is None and usable(rows, y):
            step = calibrate_step(spec, params, rows, y, passes, stream)[0]
        return step

    def _with_step(self, params: dict, name: str, step: float) -> dict:
        """Return ``params`` with ``name`` set to the numeric ``step`` (a cached copy)."""
        cached = self.__dict__.get("_step_params")
        if cached is not None and cached[0] is params and cached[1] == step:
            return cached[2]
        stepped = {**params, name: step}
        self._step_params = (params, step, stepped)
        return stepped

    def __getstate__(self):
        state = super().__getstate__()
        for key in ("_undo_plan", "_params_cache", "_step_params", "_row_path", "_row_commit",
                    "_centred_cache"):
            state.pop(key, None)  # caches of one process; the undo plan holds views of the state
        return state

    def _raise_divergence(self, spec, epoch, t, scale, step=None, weight=1.0):
        raise divergence_error(self, spec, epoch, t, scale, step, weight)
