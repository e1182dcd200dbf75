"""Steps so large that a projected method oscillates instead of learning.

The iterates of a method that projects onto a bounded set (SOLAM, FSAUC,
AdaOAM) stay finite whatever the step, so an absurd step never explodes: the
iterates bounce across the feasible set and the averaged model ranks near or
below chance. The specs therefore compare the step, made dimensionless with the
data scale (e.g. ``eta * kappa^2``, the step times the per-example curvature
bound), against a limit measured per method, and report a larger one as
divergence, like an exploding iterate of the unconstrained methods.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels._checks import DIVERGED, OK

__all__ = ["step_status", "weight_scale"]


def weight_scale(y, order) -> float:
    """Return the mean sample weight ``|y_i|`` of the rows ``order``, at most 1 (1.0 for
    none): a row's step is the step parameter times its weight (notes.md#sample-weights),
    so weights that are shares (summing to 1) take steps that much smaller, and the
    calibrated step parameter is that much larger (``StepCalibration.weight_power``): a
    step check is made at the parameter times this scale. Larger weights keep the check of
    unit weights (the papers' limits, which their steps pass)."""
    return min(float(np.abs(y[order]).mean()), 1.0) if order.shape[0] else 1.0


def step_status(step: float, scale: float, limit: float) -> int:
    """Return ``DIVERGED`` if ``step * scale`` exceeds ``limit`` (or is not finite), else ``OK``.

    Parameters
    ----------
    step : float
        The step-size hyperparameter in use.
    scale : float
        The data scale that makes it dimensionless (e.g. ``kappa**2``).
    limit : float
        The method's largest useful value of ``step * scale``.

    Returns
    -------
    int
    """
    value = step * scale
    return OK if math.isfinite(value) and value <= limit else DIVERGED
