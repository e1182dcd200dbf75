"""RandomFourierFeatures: the Gaussian-kernel feature map of Rahimi & Recht (primitive P12)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import _check_feature_names_in, check_is_fitted, validate_data

from ..algorithms._data import as_rows
from ..algorithms.aogd import auto_bandwidth, draw_frequencies
from ..utils._param_validation import Interval, Options, validate_parameter_constraints
from ..utils._random import make_generator

__all__ = ["RandomFourierFeatures"]


class RandomFourierFeatures(TransformerMixin, BaseEstimator):
    r"""Random Fourier features of the Gaussian kernel (sin/cos pairs).

    Maps :math:`x \in \mathbb{R}^d` to

    .. math::

        \phi(x) = \sqrt{2/D}\,\big[\sin(u_i^\top x), \cos(u_i^\top x)\big]_{i=1}^{D/2},
        \qquad u_i \sim N(0, \sigma^{-2} I_d),

    so that :math:`\phi(x)^\top\phi(x') = \frac{2}{D}\sum_i \cos(u_i^\top(x - x'))`
    is an unbiased estimate of :math:`k(x, x') = \exp(-\|x - x'\|^2/(2\sigma^2))`
    with error :math:`O(1/\sqrt{D})`. Any linear AUC learner on these features
    (e.g. in a :class:`~sklearn.pipeline.Pipeline` with ``aucopt.make("spam-l2")``)
    becomes a kernel learner.

    Parameters
    ----------
    n_components : int, default=100
        Output dimension :math:`D` (rounded down to even, at least 2).
    bandwidth : float or "auto", default=1.0
        Kernel width :math:`\sigma`. ``"auto"``: the root of the total variance
        of the training data (:math:`\mathrm{mean}\|x\|^2 - \|\mathrm{mean}\,x\|^2`).
    random_state : int, RandomState instance or None, default=None
        Seed of the frequencies (drawn once in ``fit``, or in the first ``partial_fit``).

    Attributes
    ----------
    frequencies_ : ndarray of shape (max(n_components // 2, 1), n_features)
        :math:`u_i / 1` already divided by the bandwidth.
    bandwidth_ : float
        The kernel width used.
    n_features_in_ : int

    Notes
    -----
    With a numeric ``bandwidth`` the frequencies depend only on the number of input
    features and ``random_state``, not on the rows seen by ``fit``: fitting on the first
    chunk of a stream gives the same map as fitting on all of it. :meth:`partial_fit`
    draws them on its first call and keeps them afterwards, so that a stream can be
    mapped chunk by chunk (a :class:`~sklearn.pipeline.Pipeline` has no ``partial_fit``:
    call the transformer's, then the learner's). With ``bandwidth="auto"`` the width is
    that of the first chunk.

    The sin/cos pairing (rather than :math:`\sqrt{2/D}\cos(u^\top x + b)` with
    random phases) halves the variance of the kernel estimate; the scale
    :math:`\sqrt{2/D}` is the correct one (notes.md#rff-scale: AlQuabeh et al. 2024, Algorithm 1's
    :math:`2/\sqrt{D}` doubles the kernel). Cost O(D nnz) per row; the output is
    dense.

    References
    ----------
    .. [1] A. Rahimi, B. Recht. "Random features for large-scale kernel
       machines." NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernel_model import RandomFourierFeatures
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> RandomFourierFeatures(n_components=8, random_state=0).fit_transform(X).shape
    (5, 8)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "bandwidth": [Interval(Real, 0, None, closed="neither"), Options(str, {"auto"})],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=100, bandwidth=1.0, random_state=None):
        self.n_components = n_components
        self.bandwidth = bandwidth
        self.random_state = random_state

    def fit(self, X, y=None):
        """Draw the frequencies.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        X = self._validate(X, reset=True)
        rows = as_rows(X)
        self.bandwidth_ = auto_bandwidth(rows) if self.bandwidth == "auto" else float(
            self.bandwidth)
        rng = make_generator(self.random_state)
        self.frequencies_ = draw_frequencies(self.n_components, X.shape[1], rng) / self.bandwidth_
        return self

    def partial_fit(self, X, y=None):
        """Draw the frequencies on the first call; later calls keep them.

        The first call is :meth:`fit` on its chunk; a later call only checks that the
        chunk has the number of features seen first, so that the features of a stream
        do not change from one chunk to the next. ``fit`` draws them again.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            One chunk of the stream.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        if not hasattr(self, "frequencies_"):
            return self.fit(X, y)
        self._validate(X, reset=False)
        return self

    def _validate(self, X, reset):
        """Check the parameters and ``X`` (its number of features too unless ``reset``)."""
        validate_parameter_constraints(self._parameter_constraints,
                                       self.get_params(deep=False), type(self).__name__)
        return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)

    def transform(self, X):
        """Return :math:`\\phi(X)`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2 * max(n_components // 2, 1))
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        z = np.asarray(X @ self.frequencies_.T)
        scale = np.sqrt(1.0 / self.frequencies_.shape[0])  # sqrt(2/D), D = 2 * half
        return np.hstack([scale * np.sin(z), scale * np.cos(z)])

    def get_feature_names_out(self, input_features=None):
        """Return ``rff_sin0, ..., rff_cos0, ...``.

        Parameters
        ----------
        input_features : array-like of str or None
            Checked as scikit-learn's transformers check it (its length, and the names
            seen in ``fit``); the output names do not depend on it.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self)
        _check_feature_names_in(self, input_features)
        half = self.frequencies_.shape[0]
        return np.array([f"rff_sin{i}" for i in range(half)]
                        + [f"rff_cos{i}" for i in range(half)], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
