"""Named preprocessing schemes, recorded with every result (scikit-learn transformers)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    StandardScaler,
)
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["PREPROCESSING_SCHEMES", "make_preprocessor", "preprocess", "SymmetricMinMaxScaler",
           "CenterUnitNormRows"]

PREPROCESSING_SCHEMES = ("minmax", "l2-rows", "center-l2-rows", "standard", "none")


class SymmetricMinMaxScaler(TransformerMixin, BaseEstimator):
    """Scale each feature to [-1, 1] with the range of the training part.

    Dense input uses ``MinMaxScaler(feature_range=(-1, 1))``; CSR input, whose
    zeros must stay zeros, is divided by the largest absolute value
    (``MaxAbsScaler``), which maps it into [-1, 1] too.
    """

    def fit(self, X, y=None):
        """Learn the per-feature ranges.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        self.scaler_ = (MaxAbsScaler() if sp.issparse(X) else
                        MinMaxScaler(feature_range=(-1, 1))).fit(X)
        return self

    def transform(self, X):
        """Apply the learned scaling.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        array or CSR matrix
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if sp.issparse(X) and isinstance(self.scaler_, MinMaxScaler):
            X = X.toarray()
        return self.scaler_.transform(X)


class CenterUnitNormRows(TransformerMixin, BaseEstimator):
    """Subtract each row's own mean, then divide by its l2 norm (spec A-28; dense only)."""

    def fit(self, X, y=None):
        """Nothing to learn; checks the input.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        validate_data(self, X, dtype=np.float64)
        return self

    def transform(self, X):
        """Centre and normalise each row; all-constant rows become zeros.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray
        """
        check_is_fitted(self, "n_features_in_")
        if sp.issparse(X):
            raise TypeError("center-l2-rows would make sparse rows dense; use 'l2-rows' for "
                            "sparse input.")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        centred = X - X.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(centred, axis=1, keepdims=True)
        return np.divide(centred, norms, out=np.zeros_like(centred), where=norms > 0)


def make_preprocessor(scheme: str = "minmax"):
    """Return a fresh, unfitted transformer for a named scheme.

    Parameters
    ----------
    scheme : {"minmax", "l2-rows", "center-l2-rows", "standard", "none"}
        ``"minmax"``: features to [-1, 1] from the training range (OPAUC
        paper); ``"l2-rows"``: unit-norm rows; ``"center-l2-rows"``: rows
        centred on their own mean then unit norm (thesis, A-28);
        ``"standard"``: zero mean, unit variance (no centring for sparse
        input); ``"none"``: identity.

    Returns
    -------
    transformer
    """
    if scheme == "minmax":
        return SymmetricMinMaxScaler()
    if scheme == "l2-rows":
        return Normalizer(norm="l2")
    if scheme == "center-l2-rows":
        return CenterUnitNormRows()
    if scheme == "standard":
        return _SparseAwareStandardScaler()
    if scheme == "none":
        return FunctionTransformer(accept_sparse=True)
    raise ValueError(f"Unknown preprocessing scheme {scheme!r}; use one of "
                     f"{PREPROCESSING_SCHEMES}.")


class _SparseAwareStandardScaler(StandardScaler):
    """StandardScaler that keeps sparse input sparse (no centring)."""

    def fit(self, X, y=None, sample_weight=None):
        self.with_mean = not sp.issparse(X)
        return super().fit(X, y, sample_weight)


def preprocess(X_train, X_test=None, scheme: str = "minmax"):
    """Fit ``scheme`` on ``X_train`` and transform both parts.

    Parameters
    ----------
    X_train : array or CSR matrix
    X_test : array or CSR matrix, optional
    scheme : str
        See :func:`make_preprocessor`.

    Returns
    -------
    X_train_t or (X_train_t, X_test_t)
    """
    transformer = make_preprocessor(scheme).fit(X_train)
    train = transformer.transform(X_train)
    return train if X_test is None else (train, transformer.transform(X_test))
