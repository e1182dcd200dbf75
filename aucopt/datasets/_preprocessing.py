"""Named preprocessing schemes (scikit-learn transformers) and label binarisation."""

from __future__ import annotations

import logging
from collections import Counter

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    RobustScaler,
    StandardScaler,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from ._registry import BINARIZATION_SCHEMES

__all__ = ["PREPROCESSING_SCHEMES", "BINARIZATION_SCHEMES", "make_preprocessor", "preprocess",
           "binarize", "SymmetricMinMaxScaler", "CenterUnitNormRows", "SparseAwareStandardScaler",
           "SparseAwareRobustScaler"]

logger = logging.getLogger(__name__)

PREPROCESSING_SCHEMES = ("minmax", "l2-rows", "center-l2-rows", "minmax-l2-rows", "standard",
                         "robust", "none")


class _Delegating(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Fit the scikit-learn transformer that suits the input (dense or CSR)."""

    def _make(self, sparse: bool):
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR stays CSR (the transformer chosen for it)
        return tags

    def fit(self, X, y=None):
        """Fit the transformer chosen for the type of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        self.sparse_input_ = sp.issparse(X)
        self.transformer_ = self._make(self.sparse_input_).fit(X)
        return self

    def transform(self, X):
        """Transform ``X`` with the fitted transformer.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        ndarray or CSR matrix of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if sp.issparse(X) and not self.sparse_input_:
            X = X.toarray()  # fitted on dense data: the dense formula applies
        return self.transformer_.transform(X)


class SymmetricMinMaxScaler(_Delegating):
    """Scale each feature to [-1, 1] with the range of the training part (scheme "minmax").

    Dense input: the ranges are learned by ``MinMaxScaler(feature_range=(-1, 1),
    clip=False)`` and applied as ``2 (x - min) / (max - min) - 1``, so that the
    training columns span exactly [-1, 1] with no rounding outside it (constant
    columns become -1); test values may fall outside. CSR input, whose zeros must
    stay zeros, is divided by each feature's largest absolute value
    (``MaxAbsScaler``): it lies in [-1, 1] too, but spans the whole interval only
    for features with both signs. Sparse input after a dense fit is densified.
    """

    def _make(self, sparse):
        return MaxAbsScaler() if sparse else MinMaxScaler(feature_range=(-1, 1), clip=False)

    def transform(self, X):
        """Scale ``X`` with the training ranges.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        ndarray or CSR matrix of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        if self.sparse_input_:
            return super().transform(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        X = X.toarray() if sp.issparse(X) else X
        scaler = self.transformer_
        span = np.where(scaler.data_range_ == 0, 1.0, scaler.data_range_)
        wide = np.isinf(span)  # max - min beyond float64 (columns near +-1.8e308)
        with np.errstate(over="ignore", invalid="ignore"):  # those columns: again below
            out = 2.0 * ((X - scaler.data_min_) / span) - 1.0
        if wide.any():  # the same in halves, which cannot overflow (exact: not subnormal)
            low, high = scaler.data_min_[wide] / 2, scaler.data_max_[wide] / 2
            out[:, wide] = 2.0 * ((X[:, wide] / 2 - low) / (high - low)) - 1.0
        return out


class SparseAwareStandardScaler(_Delegating):
    """``StandardScaler``; for CSR input without centring (``with_mean=False``)."""

    def _make(self, sparse):
        return StandardScaler(with_mean=not sparse)


class SparseAwareRobustScaler(_Delegating):
    """``RobustScaler`` (median, interquartile range); for CSR input without centring."""

    def _make(self, sparse):
        return RobustScaler(with_centering=not sparse)


class CenterUnitNormRows(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Subtract each row's own mean, then divide by its l2 norm (notes.md#thesis-normalisation;
    dense only).

    Rows that are constant (zero after centring) become zeros, not NaN.
    """

    @staticmethod
    def _dense(X):
        if sp.issparse(X):
            raise TypeError("The 'center-l2-rows' scheme would make sparse rows dense; use "
                            "'l2-rows' for sparse input (or pass a dense array).")
        return X

    def fit(self, X, y=None):
        """Check ``X``; nothing is learned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (dense).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        validate_data(self, self._dense(X), dtype=np.float64)
        return self

    def transform(self, X):
        """Centre and normalise each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data (dense).

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self, "n_features_in_")
        X = validate_data(self, self._dense(X), dtype=np.float64, reset=False)
        centred = X - X.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(centred, axis=1, keepdims=True)
        # a constant row leaves only rounding noise after centring: treat it as zero
        tiny = 8 * np.finfo(np.float64).eps * np.linalg.norm(X, axis=1, keepdims=True)
        return np.divide(centred, norms, out=np.zeros_like(centred), where=norms > tiny)


def make_preprocessor(scheme: str = "minmax"):
    """Return a fresh, unfitted scikit-learn transformer for a named scheme.

    Parameters
    ----------
    scheme : str, default="minmax"
        One of :data:`PREPROCESSING_SCHEMES`.
        ``"minmax"``: each feature to [-1, 1] from the training range (OPAUC paper);
        CSR input is scaled by the largest absolute value instead (see
        :class:`SymmetricMinMaxScaler`). ``"l2-rows"``: unit-norm rows
        (``Normalizer("l2")``; zero rows stay zero). ``"center-l2-rows"``: each row
        minus its own mean, then unit norm (thesis, notes.md#thesis-normalisation; dense only).
        ``"minmax-l2-rows"``: ``"minmax"`` (ranges of the training part; CSR:
        max-abs, zeros kept), then each row divided by its l2 norm (zero rows stay
        zero; test rows get unit norm too). This is the thesis' ``x / ||x||``
        (notes.md#thesis-normalisation) applied to [-1, 1]-scaled features, as in LIBSVM's
        ``*_scale``
        files: on raw files such as diabetes and german.numer, plain ``"l2-rows"``
        lets a few large-range features dominate every row's norm and loses most
        of the information (docs/reproduction/normalisation_diagnostic.md).
        notes.md#thesis-normalisation
        does not say which version of the data was normalised; this scheme is
        the library's reading.
        ``"standard"``: zero mean and unit variance (no centring for sparse input).
        ``"robust"``: minus the median, divided by the interquartile range
        (``sklearn.preprocessing.RobustScaler``; no centring for sparse input).
        ``"none"``: identity.

        Which to use (docs/robustness.md measures these choices): ``"minmax"`` for
        bounded features without outliers (the papers' protocol). ``"standard"`` for
        everything else, heavy-tailed columns included (lognormal, Pareto-like counts
        and amounts): with ``"minmax"`` the largest values set the range and squeeze
        the others towards a point. ``"robust"`` when single values (not whole rows)
        are far out, e.g. data-entry errors: the median and the quartiles ignore
        them, where the standard deviation does not. A few *rows* with a far larger
        norm than the rest (a unit error, a glitching sensor): normalise the rows,
        ``"l2-rows"`` for centred features, ``"minmax-l2-rows"`` otherwise; a
        stochastic step that suits the typical row overshoots on those rows.
        Sparse data: ``"minmax"`` (max-abs, zeros kept) or ``"standard"``.

    Returns
    -------
    transformer : scikit-learn transformer
        Fit it on the training part only.
    """
    if scheme == "minmax":
        return SymmetricMinMaxScaler()
    if scheme == "l2-rows":
        return Normalizer(norm="l2")
    if scheme == "center-l2-rows":
        return CenterUnitNormRows()
    if scheme == "minmax-l2-rows":
        return make_pipeline(SymmetricMinMaxScaler(), Normalizer(norm="l2"))
    if scheme == "standard":
        return SparseAwareStandardScaler()
    if scheme == "robust":
        return SparseAwareRobustScaler()
    if scheme == "none":
        return FunctionTransformer(accept_sparse=True, feature_names_out="one-to-one")
    raise ValueError(f"Unknown preprocessing scheme {scheme!r}; use one of "
                     f"{PREPROCESSING_SCHEMES}.")


def preprocess(X_train, X_test=None, scheme: str = "minmax"):
    """Fit ``scheme`` on ``X_train`` only and transform both parts.

    Parameters
    ----------
    X_train : {array-like, sparse matrix} of shape (n_train, n_features)
        Training part.
    X_test : {array-like, sparse matrix} of shape (n_test, n_features), optional
        Test part, transformed with the training statistics.
    scheme : str, default="minmax"
        See :func:`make_preprocessor`.

    Returns
    -------
    X_train_t : ndarray or CSR matrix
        Returned alone when ``X_test`` is None.
    X_test_t : ndarray or CSR matrix
        Only when ``X_test`` is given: the pair ``(X_train_t, X_test_t)`` is returned.
    """
    transformer = make_preprocessor(scheme).fit(X_train)
    train = transformer.transform(X_train)
    return train if X_test is None else (train, transformer.transform(X_test))


def binarize(y, scheme: str = "random-half", random_state=None):
    """Map multi-class labels to {-1, +1}.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (at least two classes).
    scheme : {"random-half", "even-odd", "largest-vs-rest"}, default="random-half"
        ``"random-half"``: the K classes are randomly permuted and the first
        ``floor(K/2)`` become +1 (notes.md#binarisation; for odd K the positive group is the
        smaller one). ``"even-odd"``: even integer labels are +1, odd ones -1 (VRSPAM
        paper). ``"largest-vs-rest"``: the most frequent class is +1 (ties: the
        smallest label).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the permutation of ``"random-half"`` (ignored by the other schemes).

    Returns
    -------
    ndarray of shape (n_samples,)
        int64 labels in {-1, +1}.
    """
    scheme = scheme.replace("_", "-") if isinstance(scheme, str) else scheme
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y.shape}.")
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError(f"binarize needs at least two classes; got {classes.tolist()}.")
    if scheme == "random-half":
        if not (random_state is None or isinstance(random_state, np.random.Generator)
                or (isinstance(random_state, int | np.integer)
                    and not isinstance(random_state, bool))):
            raise TypeError(f"random_state must be None, an int or a numpy Generator; got "
                            f"{random_state!r}.")
        positive = np.random.default_rng(random_state).permutation(classes)[: classes.size // 2]
    elif scheme == "even-odd":
        if not np.issubdtype(classes.dtype, np.number) or np.any(classes != np.round(classes)):
            raise ValueError(f"'even-odd' needs integer class labels; got {classes[:5]}.")
        positive = classes[classes.astype(np.int64) % 2 == 0]
    elif scheme == "largest-vs-rest":
        positive = classes[[np.argmax(counts)]]
    else:
        raise ValueError(f"Unknown binarisation scheme {scheme!r}; use one of "
                         f"{BINARIZATION_SCHEMES}.")
    out = np.where(np.isin(y, positive), 1, -1).astype(np.int64)
    if np.all(out == out[0]):
        raise ValueError(f"Scheme {scheme!r} puts every class of {classes.tolist()} on one "
                         "side; choose another scheme.")
    return out


def file_labels(y, info) -> np.ndarray:
    """Labels of a LIBSVM file as returned by ``fetch`` (see :func:`aucopt.datasets.fetch`).

    Multi-label files: +1 for the rows carrying the most frequent label. Multi-class
    data (``info.binarize`` set, or more than two labels): the original labels as
    int64. Two classes: ``info.positive_label`` (default: the larger label) -> +1.
    """
    if info.format == "libsvm-multilabel":
        counts = Counter(label for row in y for label in row)
        if not counts:
            raise ValueError("no labels in the multi-label file")
        top = min(counts, key=lambda label: (-counts[label], label))
        return np.array([1 if top in row else -1 for row in y], dtype=np.int64)
    y = np.asarray(y, dtype=np.float64)
    classes = np.unique(y)
    if classes.size == 0:
        raise ValueError("no rows")
    if info.binarize is not None or classes.size > 2:
        if np.any(classes != np.round(classes)):
            raise ValueError(f"non-integer class labels {classes[:5].tolist()}")
        logger.info("%s: %d classes, returned as they are; apply aucopt.datasets.binarize(y, "
                    "%r, random_state=...) to get {-1, +1} labels.", info.name, classes.size,
                    info.binarize or "random-half")
        return y.astype(np.int64)
    positive = info.positive_label
    if positive is not None and classes.size == 2 and positive not in classes:
        raise ValueError(f"the registry's positive label {positive} is not one of the file's "
                         f"labels {classes.tolist()}")
    if positive is None:
        positive = classes[-1] if classes.size == 2 or classes[-1] > 0 else np.nan
    if classes.size == 1:
        logger.warning("%s: the file holds one class only (label %s).", info.name, classes[0])
    return np.where(y == positive, 1, -1).astype(np.int64)


def sparse_flag(return_sparse, default: bool) -> bool:
    """Validate ``return_sparse`` (None, True or False) and resolve it."""
    if return_sparse is not None and not isinstance(return_sparse, bool | np.bool_):
        raise TypeError(f"return_sparse must be None, True or False; got {return_sparse!r}.")
    return default if return_sparse is None else bool(return_sparse)


def as_output(X, y, sparse: bool):
    """``(X, y)`` as returned by load/fetch: CSR (sorted indices) or C-contiguous float64."""
    y = np.asarray(y, dtype=np.int64)
    if sparse:
        X = sp.csr_matrix(X, dtype=np.float64)
        if not X.has_sorted_indices:
            X.sort_indices()
        return X, y
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64), y
