"""A synthetic stream with concept drift, for prequential (test-then-train) evaluation."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.stats import norm

from ..utils._param_validation import Interval, validate_parameter_constraints
from ..utils._random import make_generator

__all__ = ["make_drift_stream"]

_CONSTRAINTS = {
    "n_samples": [Interval(Integral, 1, None)],
    "n_features": [Interval(Integral, 2, None)],
    "drift_at": [Interval(Real, 0, 1)],
    "drift_width": [Interval(Integral, 0, None)],
    "positive_fraction": [Interval(Real, 0, 1, closed="neither")],
    "noise": [Interval(Real, 0, None)],
    "random_state": ["random_state"],
}


def make_drift_stream(n_samples=20_000, n_features=20, *, drift_at=0.5, drift_width=0,
                      positive_fraction=0.3, noise=0.5, random_state=None):
    r"""Return a binary stream whose ranking rule changes part-way through.

    Features are standard normal. Before the drift the label is
    :math:`y = [x \cdot w_1 + \sigma \varepsilon > \theta]`, after it
    :math:`y = [x \cdot w_2 + \sigma \varepsilon > \theta]` with random unit vectors
    :math:`w_1 \perp w_2` (a model of the old concept ranks the new one at AUC 0.5) and
    :math:`\theta` makes ``positive_fraction`` of the labels positive. The drift is
    abrupt at row ``drift_at * n_samples``, or gradual with ``drift_width > 0``: row
    ``t`` follows the new concept with probability
    :math:`1 / (1 + e^{-4 (t - t_0) / \text{width}})`, as in River's
    ``synth.ConceptDriftStream``.

    Parameters
    ----------
    n_samples : int, default=20000
        Number of rows.
    n_features : int, default=20
        Number of features (at least 2).
    drift_at : float, default=0.5
        Position of the drift as a fraction of the stream, in [0, 1].
    drift_width : int, default=0
        Number of rows over which the drift happens (0: abrupt).
    positive_fraction : float, default=0.3
        Expected fraction of positive labels, in (0, 1).
    noise : float, default=0.5
        Standard deviation :math:`\sigma` of the label noise.
    random_state : int, Generator or None, default=None
        Seed.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int (1 positive, 0 negative)

    Examples
    --------
    >>> from aucopt.datasets import make_drift_stream
    >>> X, y = make_drift_stream(1000, 4, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 4), [0, 1])
    """
    validate_parameter_constraints(_CONSTRAINTS, {
        "n_samples": n_samples, "n_features": n_features, "drift_at": drift_at,
        "drift_width": drift_width, "positive_fraction": positive_fraction, "noise": noise,
        "random_state": random_state}, "make_drift_stream")
    rng = make_generator(random_state)
    w_old = rng.normal(size=n_features)
    w_old /= np.linalg.norm(w_old)
    w_new = rng.normal(size=n_features)
    w_new -= (w_new @ w_old) * w_old  # Gram-Schmidt: the new rule is orthogonal to the old
    w_new /= np.linalg.norm(w_new)
    X = rng.normal(size=(n_samples, n_features))
    t0 = drift_at * n_samples
    rows = np.arange(n_samples)
    if drift_width == 0:
        new = rows >= t0
    else:
        z = np.clip(-4.0 * (rows - t0) / drift_width, -700.0, 700.0)
        new = rng.random(n_samples) < 1.0 / (1.0 + np.exp(z))
    score = np.where(new, X @ w_new, X @ w_old) + noise * rng.normal(size=n_samples)
    threshold = np.sqrt(1.0 + noise * noise) * norm.ppf(1.0 - positive_fraction)
    return X, (score > threshold).astype(np.int64)
