"""Declarative hyperparameter constraints (our own, not sklearn's private module).

Each estimator declares ``_parameter_constraints = {name: [constraint, ...]}``;
a value is valid when it satisfies at least one constraint of its list.
Constraints: :class:`Interval`, :class:`Options`, a type, ``None``,
``"boolean"`` and ``"random_state"``.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

__all__ = ["Interval", "Options", "InvalidParameterError", "validate_parameter_constraints",
           "is_subnormal"]


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter has a value or type its estimator does not accept."""


class Interval:
    """Numbers of ``type_`` between ``left`` and ``right``.

    Parameters
    ----------
    type_ : {numbers.Integral, numbers.Real}
        Integral accepts ints only; Real accepts ints and floats (never bools).
    left, right : float or None
        Bounds; ``None`` means unbounded. Infinite values and NaN are never in
        an interval (``inf`` as a step size or weight gives a meaningless model).
    closed : {"both", "left", "right", "neither"}, default="both"
        Which bounds belong to the interval.
    """

    def __init__(self, type_, left, right, *, closed="both"):
        if type_ not in (numbers.Integral, numbers.Real):
            raise ValueError("Interval type_ must be numbers.Integral or numbers.Real.")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"Unknown closed={closed!r}.")
        self.type_, self.left, self.right, self.closed = type_, left, right, closed

    def is_satisfied_by(self, value) -> bool:
        """Return whether ``value`` lies in the interval."""
        if isinstance(value, bool | np.bool_) or not isinstance(value, self.type_):
            return False
        if isinstance(value, float | np.floating) and not np.isfinite(value):
            return False  # NaN and +-inf: no hyperparameter is meaningful at infinity
        left_ok = self.left is None or (
            value >= self.left if self.closed in ("both", "left") else value > self.left
        )
        right_ok = self.right is None or (
            value <= self.right if self.closed in ("both", "right") else value < self.right
        )
        return bool(left_ok and right_ok)

    def __str__(self) -> str:
        kind = "an int" if self.type_ is numbers.Integral else "a float"
        lo = "-inf" if self.left is None else self.left
        hi = "inf" if self.right is None else self.right
        lb = "[" if self.closed in ("both", "left") and self.left is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


class Options:
    """One of a fixed set of values of ``type_``.

    Parameters
    ----------
    type_ : type
        Type of the options (e.g. ``str``).
    options : set
        The allowed values.
    """

    def __init__(self, type_, options):
        self.type_, self.options = type_, frozenset(options)

    def is_satisfied_by(self, value) -> bool:
        """Return whether ``value`` is one of the options."""
        return isinstance(value, self.type_) and value in self.options

    def __str__(self) -> str:
        return f"a {self.type_.__name__} among {sorted(self.options)!r}"


class _TypeConstraint:
    def __init__(self, type_):
        self.type_ = type_

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, self.type_)

    def __str__(self) -> str:
        return f"an instance of {self.type_.__name__!r}"


class _NoneConstraint:
    def is_satisfied_by(self, value) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class _BooleanConstraint:
    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, bool | np.bool_)

    def __str__(self) -> str:
        return "a bool"


class _RandomStateConstraint:
    def is_satisfied_by(self, value) -> bool:
        if isinstance(value, bool | np.bool_):
            return False
        return value is None or isinstance(
            value, numbers.Integral | np.random.RandomState | np.random.Generator
        )

    def __str__(self) -> str:
        return "an int, a numpy RandomState or Generator, or None"


def _make_constraint(constraint):
    if constraint is None:
        return _NoneConstraint()
    if constraint == "boolean":
        return _BooleanConstraint()
    if constraint == "random_state":
        return _RandomStateConstraint()
    if isinstance(constraint, type):
        return _TypeConstraint(constraint)
    if isinstance(constraint, Interval | Options):
        return constraint
    raise ValueError(f"Unknown constraint {constraint!r}.")


def validate_parameter_constraints(constraints: dict, params: dict, caller_name: str) -> None:
    """Check every parameter of ``params`` against its constraints.

    Parameters
    ----------
    constraints : dict
        ``{name: [constraint, ...]}``.
    params : dict
        ``{name: value}`` (e.g. ``estimator.get_params(deep=False)``).
    caller_name : str
        Name used in the error message (the estimator's class name).

    Raises
    ------
    InvalidParameterError
        For the first parameter that satisfies none of its constraints, with a
        message listing what is accepted.
    """
    for name, value in params.items():
        if name not in constraints:
            continue
        options = [_make_constraint(c) for c in constraints[name]]
        if any(c.is_satisfied_by(value) for c in options):
            if is_subnormal(value):
                raise InvalidParameterError(
                    f"The {name!r} parameter of {caller_name} is subnormal ({value!r}, below "
                    f"{sys.float_info.min:.3g}): its reciprocal and squares are not "
                    "representable in float64, so the model's scores could be NaN or "
                    f"infinite. Use 0 where it is allowed or a value of at least "
                    f"{sys.float_info.min:.3g}.")
            continue
        accepted = " or ".join(str(c) for c in options)
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller_name} must be {accepted}. Got {value!r} instead."
        )


def is_subnormal(value) -> bool:
    """Return True for a float that is neither 0 nor of float64's normal range (a subnormal:
    below 2.2e-308 in magnitude), which aucopt refuses as a hyperparameter."""
    return isinstance(value, float) and 0 < abs(value) < sys.float_info.min
