"""The error of an optimiser whose iterates exploded: what diverged and what to try."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..algorithms._data import row_sqnorms
from ..exceptions import DivergenceError

__all__ = ["divergence_error", "arithmetic_as_divergence", "unusable_fit"]

# largest row norms outside this range are "extreme": steps tuned for unit-scale features
# are off by the square of the norm there
_USUAL_SCALE = (1e-6, 1e6)
# mean sample weights beyond these are named by a divergence error (they scale every step)
EXTREME_WEIGHTS = (1e-100, 1e100)


def divergence_error(estimator, spec, epoch: int, t: int, scale: float,
                     step: float | None = None, weight: float = 1.0) -> DivergenceError:
    """Return the :class:`DivergenceError` of ``estimator``, naming the step parameter.

    Parameters
    ----------
    estimator : BaseAUCClassifier
    spec : AlgorithmSpec
        Its spec (``step_param``: the step-size hyperparameter, or None).
    epoch, t : int
        The pass (0-based) and the number of updates when the guard tripped.
    scale : float
        The largest row norm of the training data.
    step : float, optional
        The last step tried when the step is ``"auto"`` (calibrated, then lowered).
    weight : float, default=1.0
        The mean sample weight of the rows (1: unweighted); named when extreme.

    Returns
    -------
    DivergenceError
    """
    name = spec.step_param
    given = getattr(estimator, name, None) if name else None
    value = repr(given) if step is None else f"'auto', last tried {step:g}"
    rescale = ("rescale the features first (e.g. aucopt.datasets.make_preprocessor('minmax') "
               "or sklearn.preprocessing.StandardScaler)")
    if not name:
        advice = f"R{rescale[1:]}."
    elif scale < _USUAL_SCALE[0]:  # the iterates must grow like 1 / scale: not a step problem
        advice = (f"The features are on an extreme scale (largest row norm {scale:.3g}), so the "
                  "iterates must grow by the inverse of that factor and trip the divergence "
                  f"guard whatever the step: {rescale}.")
    elif scale > _USUAL_SCALE[1]:
        current = step if step is not None else given
        guess = ""
        if isinstance(current, (int, float)) and current > 0:
            # the stable step of a gradient method scales like 1 / (row norm)^2
            target = max(current / (scale * scale), 1e-300)
            guess = f"e.g. {name}={10.0 ** math.floor(math.log10(target)):.0e}, "
        auto = "auto" in str(spec.param(name).type) and step is None and given != "auto"
        advice = (
            f"The features are on an extreme scale (largest row norm {scale:.3g}), so a step "
            f"that suits unit-scale features (currently {name}={value}) is too large by about "
            f"the square of that norm. Best: {rescale}. Otherwise lower {name!r} by that "
            f"factor ({guess}stable steps scale like 1 / norm^2)"
            + (f", or use {name}='auto', calibrated on the data." if auto else "."))
    else:
        advice = (f"Lower {name!r} (currently {value}), e.g. by a factor of 10, or "
                  f"{rescale}.")
    others = [f"{other}={getattr(estimator, other, None)!r}" for other in spec.other_steps
              if isinstance(getattr(estimator, other, None), (int, float))]
    if others and name:
        advice += (f" Its other step{'s' if len(others) > 1 else ''} ({', '.join(others)}) "
                   f"may be the one too large: lower {'them' if len(others) > 1 else 'it'} "
                   f"if lowering {name!r} does not help.")
    if not EXTREME_WEIGHTS[0] <= weight <= EXTREME_WEIGHTS[1]:
        advice += (f" The sample weights' mean is {weight:.3g}: the steps and the data "
                   "statistics grow with the weights, beyond float64 here; divide the weights "
                   "by their mean.")
    hint = spec.divergence_hint(estimator._params()) if spec.divergence_hint else None
    if hint:
        advice += f" {hint}"
    return DivergenceError(
        f"{type(estimator).__name__} diverged in pass {epoch + 1} after {t} updates: the "
        f"iterate became non-finite or exploded. {advice} The estimator was left as it was "
        "before this call."
    )


def arithmetic_as_divergence(method):
    """Decorate ``_fit_rows``: an arithmetic error of a kernel becomes a DivergenceError.

    A compiled kernel raises ``ZeroDivisionError`` (or a solver ``OverflowError``) where
    its iterates or statistics left the range of float64, for example on extreme data
    scales or weights: the same failure as a divergence, reported as one (a ValueError
    naming the step parameter), with the estimator unchanged (the caller's undo log).
    """
    @functools.wraps(method)
    def wrapper(self, rows, *args, **kwargs):
        try:
            return method(self, rows, *args, **kwargs)
        except DivergenceError:
            raise
        except ArithmeticError as exc:
            spec = self._spec()
            error = divergence_error(self, spec, 0, getattr(self, "t_", 0),
                                     _row_scale(rows))
            raise DivergenceError(f"{error} ({type(exc).__name__}: {exc})") from exc
    return wrapper


def _row_scale(rows) -> float:
    """Return the largest row norm of kernel rows (for the message)."""
    with np.errstate(all="ignore"):
        return float(np.sqrt(row_sqnorms(rows).max(initial=0.0)))


def unusable_fit(state: dict, params: dict, step_param: str | None) -> str | None:
    """Return why a fit's result cannot be a model (None: it can): a state entry that is
    not finite, or a numeric step that is not positive and finite (one that underflowed),
    both of which :func:`aucopt.io.load` refuses; extreme scales or weights give them."""
    for key, value in state.items():
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return f"its state entry {key!r} is not finite"
    step = params.get(step_param) if step_param else None
    if isinstance(step, float) and not (0.0 < step < np.inf):
        return f"the step {step_param}={step!r} is not a positive finite number"
    return None
