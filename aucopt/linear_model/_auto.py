"""``AUCClassifier``: one estimator that picks the algorithm from the shape of the data.

The rules are the decision table of the user guide's *Choosing an algorithm* page, as code
(:func:`choose`): an l2 logistic regression solved exactly (``uni-log-batch`` with
``class_weight=None``; an AUC-consistent surrogate, Agarwal, JMLR 2014) while the data are
small enough for a batch solver, one pass of online Uni-Log (Kotlowski et al., ICML 2011) on
larger wide sparse data such as hashed text, and SPAM (Natole, Ying, Lyu, ICML 2018,
Algorithm 1) over the rows otherwise and on a stream. This
estimator is the scikit-learn one; :class:`aucopt.river.AUCClassifier` is the River learner
(``learn_one`` on dict features) and picks nothing.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..algorithms._calibrate import LADDER_RATIO
from ..algorithms._data import row_sqnorms
from ..algorithms._params import MAX_TIME, VERBOSE, constraints_of
from ..algorithms._precondition import DENSE_SHARE, MEDIAN_ROWS, ROW_CLIP
from ..utils._param_validation import validate_parameter_constraints
from ._declared import registered_class

__all__ = ["AUCClassifier", "BATCH_MAX_FEATURES", "BATCH_MAX_NONZEROS", "BATCH_PARAMS",
           "ONE_PASS_PARAMS", "ONE_PASS_ROWS", "WIDE_ALGORITHM", "WIDE_PARAMS", "choose",
           "has_one_scale"]

# the batch solver while X has at most this many stored values (dense: n x d): its L-BFGS
# iterations each read X twice, which stays within seconds up to here on one core
BATCH_MAX_NONZEROS = 20_000_000
# ... and at most this many features: on wide sparse data (hashed text) L-BFGS slows down
# (30 s for 6,000 rows of 50 tokens in 2^16 columns, docs/peers.md's smoke run), where SPAM's
# O(nnz) steps take a fraction of a second
BATCH_MAX_FEATURES = 10_000
# above the batch size, one pass from this many rows on (of Uni-Log on wide data: WIDE_PARAMS;
# a tenth of the time of the default ten passes)
ONE_PASS_ROWS = 200_000
STREAM_ALGORITHM = "spam-l2"
# a stream and a single pass score with SPAM's last iterate, not the average of every iterate
# since the first row: on the peers report's drifting stream (chunks of 100 rows, scored then
# learned) 0.922 prequential AUC against 0.809; on stationary Gaussian streams of 40,000 rows
# (make_auc_problem, 20 features, separation=1.5, random_state=1) 0.841 against 0.804 (1%
# positives) and 0.866 against 0.870 (30%); one pass over the hashed stream 0.753 against
# 0.745 test AUC (2 x 10^5 rows) and 0.767 against 0.760 (10^6 rows)
ONE_PASS_PARAMS = {"output": "last"}
# ... except on wide data (more than BATCH_MAX_FEATURES columns: sparse, e.g. hashed text): one
# pass of online Uni-Log (Kotlowski et al., ICML 2011: the class-balanced logistic loss, steps
# eta / sqrt(t), eta calibrated as usual). SPAM's steps eta0 / sqrt(t + t0) decay for every
# column alike and most columns of such data are met a few times in a pass: on the first stream of
# docs/wide_choice.md one SPAM pass ranked 0.751 where one Uni-Log pass ranked 0.773, and two SPAM
# passes (0.777 there), which SPAM needs on such data, take twice the time. The logistic loss's
# derivative is bounded, so mislabelled rows do not take over the steps as with the exponential
# loss, whose constant-step pass was faster still but lost 0.09 test AUC with 5% of the labels
# flipped (that report).
# Over the rows as given (precondition=None) where the preconditioner would be about one global
# factor, which the calibrated step takes up (:func:`has_one_scale`): its transformed copy of X
# costs most of a pass of these O(nnz) steps (0.35 s against 0.43-0.50 s on the hashed stream
# below). Columns whose spreads differ by more than a rung
# of the calibration's ladder, or rows more than ROW_CLIP medians long, are what no calibrated
# step replaces: such data keep precondition="auto". On the peers report's hashed stream (10^6
# rows, d = 2^20, one token in 99% of the rows: preconditioned) it ranked 0.783 in 1.5-1.9 s
# (medians of interleaved runs), against 0.772 for the rows as given, 0.793 for two SPAM passes in
# 2.7 s, and Vowpal Wabbit's one pass 0.778 in 1.4-3.1 s (docs/peers.md).
# A wide stream (a first chunk of more than BATCH_MAX_FEATURES columns) is learnt with Uni-Log
# too: the peers report's hashed stream by partial_fit in chunks of 10^4 rows ranked 0.771 in
# 2.0 s against 0.742 in 3.2 s for spam-l2, and after a change of concept halfway 0.702 against
# 0.661 (docs/wide_choice.md).
WIDE_ALGORITHM = "uni-log"
WIDE_PARAMS = {"max_iter": 1, "precondition": None}
# the batch solver's rows weigh the same (plain logistic regression): with rare positives the
# class-balanced loss ranked worse (0.1% positives: 0.856 against 0.869 test AUC; the
# choosing page's measurements), elsewhere both were level within 0.004
BATCH_PARAMS = {"class_weight": None}


def _wide(n_samples: int, n_features: int, streaming: bool) -> bool:
    """Whether :func:`choose` gives such data the wide choice (``WIDE_PARAMS``)."""
    return not streaming and n_samples >= ONE_PASS_ROWS and n_features > BATCH_MAX_FEATURES


def has_one_scale(X) -> bool:
    """Whether the preconditioner (``precondition="auto"``) would only divide sparse ``X``
    by about one factor, which the calibrated step takes up: in a sample of at most
    ``MEDIAN_ROWS`` evenly spaced rows, the scales it would set (the spread of each column
    non-zero in ``DENSE_SHARE`` of the rows, the root mean square of the other columns'
    non-zero values) lie within ``sqrt(LADDER_RATIO)`` of one another, so that its steps
    along every column lie within one rung of the calibration's ladder, and no row is
    longer than ``ROW_CLIP`` times their median length (none would be shortened). The
    centring of the dense columns is left out: it changes no difference of two rows.
    Dense ``X``: False. O(sampled non-zeros + n_features).
    """
    if not sp.issparse(X) or X.shape[0] == 0:
        return False
    X = sp.csr_matrix(X)
    rows = X[::-(-X.shape[0] // MEDIAN_ROWS)]
    m = rows.shape[0]
    if rows.nnz == 0:
        return False
    counts, sums, squares = (np.bincount(rows.indices, weights=w, minlength=X.shape[1])
                             for w in (None, rows.data, rows.data ** 2))
    dense = counts >= DENSE_SHARE * m
    scales = np.sqrt(np.maximum(squares[dense] / m - (sums[dense] / m) ** 2, 0.0))
    if counts[~dense].sum() > 0:
        scales = np.append(scales, np.sqrt(squares[~dense].sum() / counts[~dense].sum()))
    if not scales.min() > 0 or scales.max() > np.sqrt(LADDER_RATIO) * scales.min():
        return False
    lengths = np.sqrt(row_sqnorms(rows))
    return bool(lengths.max() <= ROW_CLIP * np.median(lengths))


def choose(n_samples: int, n_features: int, n_nonzeros: int,
           streaming: bool = False, one_scale: bool = True) -> tuple[str, dict]:
    """Return the registry id and hyperparameters ``AUCClassifier`` uses for such data.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of the training data (``n_samples`` of the first chunk on a stream).
    n_nonzeros : int
        Stored values of ``X`` (``n_samples * n_features`` when dense).
    streaming : bool, default=False
        Whether the rows arrive in chunks (``partial_fit``): only a one-pass learner fits.
    one_scale : bool, default=True
        Whether the preconditioner would only rescale ``X`` by one factor
        (:func:`has_one_scale`); if not, the wide choice keeps ``precondition="auto"``.

    Returns
    -------
    algorithm : str
    params : dict
        Hyperparameters given to the estimator besides ``random_state``.

    Examples
    --------
    >>> from aucopt.linear_model import choose
    >>> choose(1000, 20, 20_000)
    ('uni-log-batch', {'class_weight': None})
    >>> choose(10**6, 1000, 5 * 10**8)
    ('spam-l2', {'max_iter': 1, 'output': 'last'})
    >>> choose(10**6, 2**20, 5 * 10**7)
    ('uni-log', {'max_iter': 1, 'precondition': None})
    >>> choose(10**6, 2**20, 5 * 10**7, one_scale=False)[1]["precondition"]
    'auto'
    """
    if streaming:
        if n_features > BATCH_MAX_FEATURES:  # a wide stream: Uni-Log, chunk by chunk
            return WIDE_ALGORITHM, {}
        return STREAM_ALGORITHM, dict(ONE_PASS_PARAMS)
    if n_nonzeros <= BATCH_MAX_NONZEROS and n_features <= BATCH_MAX_FEATURES:
        return "uni-log-batch", dict(BATCH_PARAMS)
    if _wide(n_samples, n_features, streaming):
        params = dict(WIDE_PARAMS)
        if not one_scale:
            params["precondition"] = "auto"
        return WIDE_ALGORITHM, params
    if n_samples >= ONE_PASS_ROWS:
        return STREAM_ALGORITHM, {"max_iter": 1, **ONE_PASS_PARAMS}
    return STREAM_ALGORITHM, {}


def _can_stream(estimator) -> bool:
    """Whether ``AUCClassifier.partial_fit`` exists: not for a registry id that cannot stream,
    as that id's own estimator has none; ``"auto"`` picks a one-pass learner, and any other
    value keeps it, so that the call reports the value's error."""
    from ..algorithms import get_algorithm, list_algorithms

    algorithm = estimator.algorithm
    known = isinstance(algorithm, str) and algorithm in list_algorithms()
    return not known or get_algorithm(algorithm).streaming


class AUCClassifier(ClassifierMixin, BaseEstimator):
    """Maximise the AUC with the algorithm that suits the data (``aucopt.make("auto")``).

    ``fit`` picks the algorithm from the number of rows, of features and of stored values
    (:func:`choose`): l2 logistic regression with every row weighing the same, solved to its
    optimum by L-BFGS (``uni-log-batch`` with ``class_weight=None``; Agarwal, JMLR 2014
    shows this surrogate consistent for the AUC), while ``X`` holds at most
    ``BATCH_MAX_NONZEROS`` values in at most ``BATCH_MAX_FEATURES`` columns; SPAM with the
    l2 penalty (``spam-l2``, Natole, Ying and Lyu, ICML 2018) above that, one pass from
    ``ONE_PASS_ROWS`` rows on; on wider data from that many rows, one pass of the
    class-balanced logistic loss (``uni-log``, online Uni-Log, Kotlowski et al., ICML 2011),
    without the preconditioner where it would be about one factor (``WIDE_PARAMS``,
    :func:`has_one_scale`). ``partial_fit``
    learns a stream with ``spam-l2``; a single pass and a stream score with SPAM's last
    iterate (``ONE_PASS_PARAMS``). The choice is in ``algorithm_`` and the fitted
    estimator in ``estimator_``.

    This is the scikit-learn estimator; :class:`aucopt.river.AUCClassifier` is the River
    learner of one fixed algorithm.

    Parameters
    ----------
    algorithm : str, default="auto"
        ``"auto"``, or a registry id to use instead of the choice (its defaults apply). With
        an id that cannot stream there is no ``partial_fit`` (``hasattr`` is False), as
        ``aucopt.make(id)`` has none.
    random_state : int, RandomState instance or None, default=None
        Seed of the chosen estimator.
    max_time : float or None, default=None
        Time budget in seconds of each ``fit`` and ``partial_fit`` call, given to the
        chosen estimator (its ``max_time``: it stops there, keeps the model reached so far
        and warns). None: no limit.
    verbose : int, default=0
        Given to the chosen estimator: one line per pass at INFO level on the ``aucopt``
        logger.

    Attributes
    ----------
    algorithm_ : str
        The registry id used.
    estimator_ : estimator
        The fitted estimator of that id.
    coef_ : ndarray of shape (1, n_features)
        Scoring vector.
    intercept_ : ndarray of shape (1,)
        Intercept of the chosen estimator.
    classes_ : ndarray of shape (2,)
        Labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of features of the training data.
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Examples
    --------
    >>> import aucopt
    >>> from aucopt.datasets import make_auc_problem
    >>> X, y = make_auc_problem(500, 5, random_state=0)
    >>> clf = aucopt.make("auto", random_state=0).fit(X, y)
    >>> clf.algorithm_
    'uni-log-batch'
    >>> round(clf.score(X, y), 2) > 0.7
    True
    """

    _parameter_constraints: dict = {
        "algorithm": [str],  # "auto" or a registry id (checked when fitting)
        "random_state": ["random_state"],
        **constraints_of((MAX_TIME, VERBOSE)),
    }

    def __init__(self, algorithm="auto", random_state=None, max_time=None, verbose=0):
        self.algorithm = algorithm
        self.random_state = random_state
        self.max_time = max_time
        self.verbose = verbose

    def _validate_params(self) -> None:
        """Check the hyperparameters (aucopt's constraints, as the estimators check theirs)."""
        validate_parameter_constraints(self._parameter_constraints,
                                       self.get_params(deep=False), type(self).__name__)

    def _make(self, algorithm: str, params: dict):
        from ..algorithms import get_algorithm

        get_algorithm(algorithm)  # the registry's error, with close matches
        cls = registered_class(algorithm)
        if cls is None:
            raise ValueError(f"{algorithm!r} has no scikit-learn estimator.")
        return cls(random_state=self.random_state, max_time=self.max_time,
                   verbose=self.verbose, **params)

    def _chosen(self, X, streaming: bool):
        if self.algorithm != "auto":
            return self.algorithm, {}
        shape = X.shape if sp.issparse(X) or hasattr(X, "shape") else np.asarray(X).shape
        n, d = (tuple(shape) + (1, 1))[:2]  # other shapes: the estimator's own error follows
        nnz = int(X.nnz) if sp.issparse(X) else n * d
        wide = _wide(n, d, streaming)
        return choose(n, d, nnz, streaming, one_scale=has_one_scale(X) if wide else True)

    def _adopt(self, estimator) -> None:
        self.estimator_ = estimator
        for name in ("classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
            elif name in self.__dict__:
                del self.__dict__[name]

    def fit(self, X, y, sample_weight=None):
        """Choose the algorithm for ``X`` and fit it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels with exactly two distinct values; ``classes_[1]`` is positive.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, as the chosen estimator reads them.

        Returns
        -------
        self
        """
        self._validate_params()
        algorithm, params = self._chosen(X, streaming=False)
        estimator = self._make(algorithm, params)
        estimator.fit(X, y, sample_weight=sample_weight)
        self.algorithm_ = algorithm
        self._adopt(estimator)
        return self

    @available_if(_can_stream)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from one chunk of a stream (the first call chooses a one-pass learner).

        Only with ``algorithm="auto"`` or a streaming registry id (a batch id has no
        ``partial_fit``, as with scikit-learn's ``available_if``). After a ``fit`` of
        ``"auto"`` whose choice cannot stream (the batch solver), the stream starts a new
        model (with the classes of that fit unless ``classes`` is given).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (2,), default=None
            Both labels; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        current = self.__dict__.get("estimator_")
        if current is None or not hasattr(current, "partial_fit"):  # after a batch fit: anew
            if classes is None and current is not None:
                classes = self.classes_
            self._validate_params()
            algorithm, params = self._chosen(X, streaming=True)
            estimator = self._make(algorithm, params)
        else:
            algorithm, estimator = self.algorithm_, self.estimator_
            if self.algorithm not in ("auto", algorithm):  # (as a state-shaping change)
                raise ValueError(
                    f"{type(self).__name__}: algorithm was changed to {self.algorithm!r} "
                    f"after the stream started with {algorithm!r}; a stream keeps its "
                    "learner. Set it back, or start a new stream with fit() or a new "
                    "estimator.")
        estimator.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        self.algorithm_ = algorithm
        self._adopt(estimator)
        return self

    @property
    def coef_(self):
        """ndarray of shape (1, n_features): the chosen estimator's scoring vector."""
        return self._chosen_estimator().coef_

    @property
    def intercept_(self):
        """ndarray of shape (1,): the chosen estimator's intercept."""
        return self._chosen_estimator().intercept_

    def _chosen_estimator(self):
        check_is_fitted(self, "estimator_")
        return self.estimator_

    def decision_function(self, X):
        """Ranking scores of the chosen estimator, shape (n_samples,): see
        :meth:`aucopt.linear_model.BaseAUCClassifier.decision_function`."""
        return self._chosen_estimator().decision_function(X)

    def predict(self, X):
        """Labels from the chosen estimator's scores: see
        :meth:`aucopt.linear_model.BaseAUCClassifier.predict`."""
        return self._chosen_estimator().predict(X)

    def score(self, X, y, sample_weight=None):
        """The ROC AUC of the scores on ``(X, y)``, not the accuracy: see
        :meth:`aucopt.linear_model.BaseAUCClassifier.score`."""
        return self._chosen_estimator().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags

