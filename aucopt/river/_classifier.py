"""AUCClassifier: any streaming aucopt algorithm as a River binary classifier."""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from river import base

from .._api import algorithm_info, list_algorithms, make
from ..algorithms._data import as_rows
from ..utils._seeds import MAX_SEED
from ._columns import ColumnMap, feature_axes, grow_state
from ._labels import BOOL_LABELS, MINUS_ONE, SIGN_LABELS, labels_after, signed_label, signed_labels
from ._scoring import RowScores, named_non_finite

__all__ = ["AUCClassifier", "probe_feature_axes"]

# signed labels of one row, shared by every call (the kernels only read them); 1 and 0 hash
# as True and False, -1 is the negative label of the scikit-learn convention
_CLASSES = np.array([False, True])
_PROBE_WIDTHS = (3, 5)
_AXES: dict = {}  # (algorithm, seed, hyperparameters) -> feature axes of its state
_MIN_WIDTH = 8


class FixedWidthError(ValueError):
    """An algorithm whose state cannot widen for new feature names, given a growing
    vocabulary (``reason``: why, from :func:`probe_feature_axes`)."""

    def __init__(self, algorithm: str, reason: str):
        self.algorithm, self.reason = algorithm, reason
        super().__init__(
            f"algorithm {algorithm!r} cannot widen its state for new features ({reason}). "
            "Pass n_features=<int> (e.g. 2**18) to hash the features into a fixed width.")


def _probability(score: float) -> float:
    """Map a ranking score to (0, 1), increasing: ``1/2 + arctan(score)/pi``.

    The Cauchy CDF saturates slowly (``1 - p ~ 1/(pi s)``), so scores stay
    distinguishable up to about 1e15, where a logistic map is 1.0 from 37 on; near 0 no
    map to (0, 1) tells apart scores below float64's spacing at 1/2 (about 1e-16).
    """
    return 0.5 + math.atan(score) / math.pi


class AUCClassifier(RowScores, base.MiniBatchClassifier):
    r"""A streaming AUC maximiser from aucopt as a River binary classifier.

    Wraps the estimator of any streaming registry id (``aucopt.list_algorithms()``
    with ``aucopt.algorithm_info(id)["streaming"]``): each :meth:`learn_one` is one
    online update of that algorithm, exactly as ``partial_fit`` on the same row. The
    algorithms learn a scoring function :math:`f` that maximises the AUC
    :math:`P(f(x^+) > f(x^-))` (papers: ``aucopt.algorithm_info(id)["paper"]``; the
    default is SPAM, Natole, Ying & Lyu, ICML 2018, Algorithm 1).

    Parameters
    ----------
    algorithm : str, default="spam-l2"
        Registry id of a streaming algorithm.
    n_features : int or None, default=None
        None: a growing vocabulary; feature names get columns in order of first
        appearance and the estimator's state is widened (zero-padded) when new
        names arrive, which gives the same model as knowing every name from the
        start. Algorithms whose state cannot grow that way (random features per
        input column: ``aogd``, ``opauc-f``, ``opauc-rp``; and ``fsauc``) need an
        int (without one, ``ValueError`` when the model is made). An int: names are
        hashed into that many columns with a stable 64-bit hash (FNV-1a with a
        SplitMix64 finaliser, the same in every process);
        colliding names add up.
    seed : int or None, default=None
        Seed of the algorithm's random draws (its ``random_state``).
    max_features : int or None, default=None
        With a growing vocabulary: its largest size (memory bound). Once it holds
        ``max_features`` names, new names are hashed into its columns (as with
        ``n_features``); the new names of one row take the last free columns in the
        order of their hashes, not of the dict's keys. None: no bound. A new name costs
        O(1) amortised: the state's columns grow by doubling.
    **params
        Hyperparameters of the wrapped estimator (``aucopt.algorithm_info(id)["defaults"]``).

    Attributes
    ----------
    estimator : aucopt estimator
        The wrapped scikit-learn estimator; its ``coef_`` columns follow :attr:`columns`.
    columns : dict
        Feature name -> column of the vocabulary (empty with hashing: a name's column
        is its stable hash modulo ``n_features``).

    Notes
    -----
    Algorithms with an ``n_samples_hint`` parameter (FSAUC, Liu et al., ICML 2018)
    plan their stages from the stream length; without it they restart the stage
    schedule with a doubled horizon (runs of 1, 2, 4, ... samples), so pass it when
    the length of the stream is known.

    Labels are River's binary convention: ``True`` (or 1) is the positive class,
    ``False`` (0, or -1 as in scikit-learn) the negative one; once a -1 was learnt, the
    predictions use the labels 1 and -1 (``predict_one``, the keys of
    ``predict_proba_one``, whose ``[True]`` is still the positive class); other labels raise
    ``ValueError`` (map them, e.g. ``y == "yes"``). Values must be numbers (a string such
    as ``"1.5"`` is refused) and finite (NaN and infinities raise ``ValueError`` in learning
    and in predictions alike; in the DataFrames of ``learn_many`` and ``predict_many`` a NaN
    is pandas' missing value, a feature the row does not hold, as in a frame built from
    dicts of different keys), and the hyperparameters are checked when the model is made.
    A stream whose first ``1000`` rows are all of one class raises an
    ``OrderedStreamWarning`` (once): shuffle a stream sorted by label.

    AUC is a property of pairs, so the learners need both classes. Nothing raises
    before both are seen: ``predict_proba_one`` returns 0.5 for both labels before
    the first update, and while only one class has arrived most algorithms keep the
    model at zero (score 0, probability 0.5: there is no pair to rank yet); the
    univariate surrogates (``uni-exp``, ``uni-squ``, ``uni-log``) and Projection++
    already move (on rows that are not empty), but their scores mean little until the
    other class arrives.

    :meth:`predict_proba_one` is ``1/2 + arctan(s)/pi`` of the ranking score
    ``s = f(x) + intercept``: increasing in ``s``, so it ranks like the score to
    float64's resolution near 1/2 (scores below about 1e-16 in size all map to 1/2: on
    features in tiny units a metric fed with it sees ties; scale the features, e.g.
    River's ``StandardScaler``, or rank with :meth:`score_one`), and it is **not a
    calibrated probability**. :meth:`predict_one` is
    ``s > 0``. With ``eta0="auto"``-style step sizes taken from the data seen so
    far, an all-zero first row (River's ``StandardScaler`` emits one) can spoil
    SOLAM and FSAUC; give them a fixed ``kappa`` (e.g. ``kappa=4.0``).

    :meth:`learn_many` is ``partial_fit`` on the whole frame; it equals a
    :meth:`learn_one` loop when the algorithm's chunked and row-by-row updates
    agree (e.g. ``stats="online"`` for SPAM, a fixed ``kappa`` for SOLAM) and
    nothing is set from the first chunk, which is the whole frame here and one row
    there: ``precondition=None`` and a numeric step (``eta0=0.1``).

    Examples
    --------
    >>> from river import datasets, evaluate, metrics
    >>> from aucopt.river import AUCClassifier
    >>> model = AUCClassifier("spam-l2", stats="online")
    >>> evaluate.progressive_val_score(datasets.Phishing().take(300), model,
    ...                                metrics.ROCAUC())  # doctest: +SKIP
    """

    def __init__(self, algorithm: str = "spam-l2", n_features: int | None = None,
                 seed: int | None = None, max_features: int | None = None, **params):
        self.algorithm = algorithm
        self.n_features = n_features
        self.max_features = max_features
        self.seed = seed
        self.params = params
        if algorithm not in list_algorithms() or not algorithm_info(algorithm)["streaming"]:
            streaming = [a for a in list_algorithms() if algorithm_info(a)["streaming"]]
            raise ValueError(f"algorithm must be a streaming registry id, one of {streaming}; "
                             f"got {algorithm!r}.")
        if n_features is not None and (isinstance(n_features, bool)
                                       or not isinstance(n_features, Integral)
                                       or n_features < 1):
            raise ValueError(f"n_features must be None (a growing vocabulary) or a positive "
                             f"int (hashing); got {n_features!r}.")
        if max_features is not None and (n_features is not None or isinstance(
                max_features, bool) or not isinstance(max_features, Integral)
                or max_features < 1):
            raise ValueError(f"max_features bounds a growing vocabulary (n_features=None): a "
                             f"positive int or None; got {max_features!r}.")
        if "random_state" in params:
            raise TypeError("pass the seed as seed=..., River's name for random_state.")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral)
                                 or not 0 <= seed <= MAX_SEED):
            raise ValueError(f"seed must be None or an int in [0, {MAX_SEED}]; got {seed!r}.")
        if n_features is not None and n_features >= 2**62:
            raise ValueError(f"n_features={n_features} is beyond what a column index can "
                             "hold; hash into fewer columns (e.g. 2**20).")
        self.estimator = make(algorithm, random_state=seed, **params)
        self.estimator._validate_params()  # bad values fail here, not at the first sample
        self._validated = self.estimator._params()
        self._map = ColumnMap(n_features, max_features)
        self._width = n_features or 0
        # a growing vocabulary needs a state that widens: refused now, not at the first row
        self._axes = self._probe_axes() if n_features is None else None
        self._learned = False
        self._one_class = True  # until both classes arrived (the ordered-stream check)
        self._labels = BOOL_LABELS  # (positive, negative) labels of the predictions

    @property
    def columns(self) -> dict:
        """Feature name -> column."""
        return self._map.columns

    # ------------------------------------------------------------------ River API
    @classmethod
    def _unit_test_params(cls):
        yield {"algorithm": "spam-l2", "stats": "online"}
        yield {"algorithm": "ftrl-auc", "n_features": 64}

    @property
    def _raw_memory_usage(self) -> int:
        """Bytes held, as River counts them, without the estimator's row and score paths
        (caches of compiled-code handles that River's object walk cannot visit)."""
        fitted = self.estimator.__dict__
        paths = {key: fitted.pop(key) for key in ("_row_path", "_score_path") if key in fitted}
        try:
            return super()._raw_memory_usage
        finally:
            fitted.update(paths)

    def _unit_test_skips(self):
        spec = self.estimator._spec()
        given = self.estimator.get_params(deep=False)
        # a chunk of 20+ rows with both classes calibrates an "auto" step; single rows do not
        calibrated = spec.calibration is not None and given.get(spec.step_param) == "auto"
        if not calibrated and all(given.get(k) == v
                                  for k, v in spec.equivalence_params.items()):
            return set()
        # learn_many is one chunk; it equals learn_one only under the equivalence params
        return {"check_learn_many_matches_learn_one"}

    def learn_one(self, x: dict, y) -> None:
        """Update the model with one sample: one online step of the algorithm.

        Parameters
        ----------
        x : dict
            Feature name -> numeric value.
        y : bool
            ``True`` (or 1) for the positive class, ``False`` (0 or -1) for the other.
        """
        signed = signed_label(y)
        columns = self._map.columns
        known, width = len(columns), self._width
        try:  # the hot path of a stream: the state exists and is wide enough for the row
            rows = self._map.row(x, self._width, grow=True)
            if self._learned and (self.n_features is not None or len(columns) <= self._width):
                if self._validated is not self.estimator._params():
                    self._validate()
                self.estimator._learn_row_scored(rows, signed)
            else:
                self._fit(rows, signed)
        except Exception as exc:
            self._rollback(known, width)
            error = named_non_finite(x, exc)
            if error is exc:
                raise
            raise error from None
        if signed is MINUS_ONE:  # a stream labelled 1/-1 is predicted in its labels
            self._labels = SIGN_LABELS
        if self._one_class:  # (after the row is learnt: a refused row is not part of it)
            self._check_order(signed)

    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        """Update the model with a mini-batch: ``partial_fit`` on its rows, in order.

        Parameters
        ----------
        X : pandas.DataFrame
            One column per feature name.
        y : pandas.Series
            Boolean labels.
        """
        signed = signed_labels(y, len(X))
        if len(X) == 0:
            return
        known, width = len(self._map.columns), self._width
        before = self.estimator._one_class_counts() if self._one_class else None
        try:
            rows = self._map.frame_rows(X, self._width, grow=True)
            self._fit(rows, signed)
        except Exception:
            self._rollback(known, width)
            raise
        self._labels = labels_after(self._predicted_labels(), y)
        if self._one_class:
            self._check_order(signed, before, call="learn_many")

    def predict_proba_one(self, x: dict) -> dict:
        """Return ``{False: 1 - p, True: p}``, ``p`` a monotone map of the score (not calibrated);
        ``{-1: 1 - p, 1: p}`` once the stream learnt a label -1.

        Parameters
        ----------
        x : dict

        Returns
        -------
        dict

        Raises
        ------
        ValueError
            If a known feature's value is NaN or infinite (as :meth:`learn_one` does).
        """
        positive, negative = self._predicted_labels()
        if not self._learned:
            return {negative: 0.5, positive: 0.5}
        p = _probability(self._row_score(x))
        return {negative: 1.0 - p, positive: p}

    def predict_one(self, x: dict) -> bool:
        """Return the positive label if the ranking score of ``x`` is positive, else the
        negative one: ``True``/``False``, or ``1``/``-1`` once the stream learnt a label -1
        (so that River's label metrics, e.g. ``Accuracy``, compare like with like).

        Parameters
        ----------
        x : dict

        Returns
        -------
        bool or int
        """
        positive, negative = self._predicted_labels()
        return positive if self.score_one(x) > 0.0 else negative

    def score_one(self, x: dict) -> float:
        """Return the ranking score ``f(x) + intercept`` (0 before the first update).

        Unknown features are ignored (their weight is zero); the kernel ids with a growing
        vocabulary (``projection-pp``) give them columns, as :meth:`learn_one` would (their
        values change the distances to the stored rows). For the linear learners whose
        state is kept in a lazy form (SPAM-L2, FTRL-AUC, SOLAM, the univariate losses,
        OGD-FIFO) the score costs O(nnz) between updates: the weights are formed at the
        row's features only and the intercept from running dots, equal to
        ``estimator.decision_function`` up to the order of the additions.

        Parameters
        ----------
        x : dict

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If a known feature's value is NaN or infinite (as :meth:`learn_one` does).
        """
        if not self._learned:
            return 0.0
        return self._row_score(x)

    def predict_proba_many(self, X: pd.DataFrame) -> pd.DataFrame:
        """Return the columns ``False`` and ``True`` of :meth:`predict_proba_one` for each row.

        Parameters
        ----------
        X : pandas.DataFrame

        Returns
        -------
        pandas.DataFrame
        """
        p = 0.5 + np.arctan(self._frame_scores(X)) / np.pi
        positive, negative = self._predicted_labels()
        return pd.DataFrame({negative: 1.0 - p, positive: p}, index=X.index)

    def predict_many(self, X: pd.DataFrame) -> pd.Series:
        """Return :meth:`predict_one` for each row.

        Parameters
        ----------
        X : pandas.DataFrame

        Returns
        -------
        pandas.Series
        """
        positive, negative = self._predicted_labels()
        if positive is True:
            return pd.Series(self._frame_scores(X) > 0.0, index=X.index)
        return pd.Series(np.where(self._frame_scores(X) > 0.0, positive, negative),
                         index=X.index)

    # ------------------------------------------------------------------ internals
    def _predicted_labels(self) -> tuple:
        """``(positive, negative)``: ``(True, False)``, or ``(1, -1)`` once the stream
        learnt a -1 (a model pickled before it knew this predicts booleans)."""
        return self.__dict__.get("_labels", BOOL_LABELS)

    def _validate(self) -> None:
        """Check the estimator's hyperparameters (again after a change); ValueError if bad."""
        self.estimator._validate_params()
        self._validated = self.estimator._params()

    def _check_order(self, signed, before=None, call="learn_one") -> None:
        """Warn once (``OrderedStreamWarning``) when the stream learnt so far began with as
        many rows of one class as ``partial_fit`` allows: a stream sorted by label teaches a
        one-pass learner an inverted ranking. ``signed``: the labels just learnt, ``before``
        the class counts before them (a chunk of ``learn_many``). Checked only until both
        classes have arrived."""
        seen = self.__dict__.setdefault("_classes_seen", set())
        seen.update({bool(s > 0) for s in signed})
        est = self.estimator
        if len(seen) < 2 or before is not None:
            est._warn_ordered_stream(call=call, before=before, signed=signed)
        if len(seen) == 2 or est.__dict__.get("_ordered_warned", False):
            self._one_class = False

    def _fit(self, rows, signed) -> None:
        """Widen the state if the vocabulary grew, then run one update pass on ``rows``."""
        if self._validated is not self.estimator._params() or not self._learned:
            self._validate()
        if self.n_features is None and max(self._map.size, 1) > self._width:
            if self._axes is None:  # before the first update too: fail before learning
                self._axes = self._probe_axes()
            self._grow(self._map.size)
            rows = rows._replace(n_features=self._width)
        first = not self._learned
        self.estimator._fit_rows(rows, signed, _CLASSES, n_epochs=1, shuffle=False,
                                 reset=first, stream=True)
        self.estimator.n_features_in_ = rows.n_features  # partial_fit and io.save read it
        self._learned = True
        self._narrow = {}  # the narrower state is not kept once the call has learnt

    def _rollback(self, known: int, width: int) -> None:
        """Forget the names a failed call added, and put back the state it widened from
        ``width`` columns (the estimator's undo log restored the entries they share)."""
        if self.n_features is None and len(self._map.columns) > known:
            self._map.forget(list(self._map.columns)[known:])
        if self._width != width:
            est = self.estimator
            est.__dict__.update(self._narrow)
            self._width = width

    def _grow(self, needed: int) -> None:
        """Widen the estimator's state (doubling) to at least ``needed`` columns."""
        width = max(needed, 2 * self._width, _MIN_WIDTH)
        est = self.estimator  # what _rollback puts back if the call fails
        self._narrow = {k: est.__dict__[k] for k in ("_state", "_fitted") if k in est.__dict__}
        if self._learned:
            est._state = grow_state(est._state, self._axes, width)
            est._set_coef()
        self._width = width

    def _probe_axes(self) -> dict:
        """Find the state's feature axes (see :func:`probe_feature_axes`; the same for
        every model of the same algorithm, seed and hyperparameters)."""
        key = (self.algorithm, self.seed, repr(sorted(self.params.items())))
        if key in _AXES:
            return _AXES[key]
        try:
            found = _AXES[key] = probe_feature_axes(self.algorithm, self.seed, self.params)
            return found
        except ValueError as exc:
            raise FixedWidthError(self.algorithm, str(exc)) from None


def probe_feature_axes(algorithm: str, seed=None, params=None) -> dict:
    """Return the feature axes of an algorithm's state, from fresh states at two widths.

    Parameters
    ----------
    algorithm : str
        Streaming registry id.
    seed : int or None
        Its ``random_state``.
    params : dict or None
        Its hyperparameters.

    Returns
    -------
    dict
        See :func:`aucopt.river._columns.feature_axes`.

    Raises
    ------
    ValueError
        If the state cannot grow by zero padding, so the algorithm needs a fixed width.
    """
    states = {}
    for width in _PROBE_WIDTHS:  # zero-row fits: the initial states
        est = make(algorithm, random_state=seed, **(params or {}))
        est._fit_rows(as_rows(sp.csr_matrix((0, width))), np.zeros(0), _CLASSES,
                      n_epochs=1, shuffle=False, reset=True)
        states[width] = est._state
    return feature_axes(states)

