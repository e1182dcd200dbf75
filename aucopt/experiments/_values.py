"""Values written in the experiment configs: grid ranges and published table cells.

Grids are lists or the papers' range notation: ``"2^[-12:10]"`` (powers of 2
from -12 to 10), ``"10^[-5:1:5]"`` (start:step:stop exponents) and
``"[1:9:100]"`` (Matlab start:step:stop values). Published numbers are kept
verbatim as strings (``".8309±.0350 ●"``) and parsed into :class:`PublishedValue`.
The configs themselves are loaded by :mod:`aucopt.experiments._config`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

__all__ = ["ConfigError", "PublishedValue", "parse_values", "parse_published", "plain",
           "check_hyperparameters", "fraction"]


class ConfigError(ValueError):
    """An experiment config is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class PublishedValue:
    """One published cell, parsed from its verbatim text.

    Attributes
    ----------
    raw : str
        The text as printed in the paper.
    mean, error : float
        On the AUC scale (divided by the config's ``scale``).
    mark : str
        The paper's significance mark (``●``, ``○``) or ``""``.
    repaired : bool
        A number had no decimal point (a typo such as ``.7902±0386``) and was read as ``.0386``.
    """

    raw: str
    mean: float
    error: float
    mark: str = ""
    repaired: bool = False


_RANGE = re.compile(r"^\s*(?:(?P<base>\d+(?:\.\d+)?)\s*\^\s*)?\[\s*(?P<a>[-+]?\d+(?:\.\d+)?)\s*:"
                    r"\s*(?P<b>[-+]?\d+(?:\.\d+)?)\s*(?::\s*(?P<c>[-+]?\d+(?:\.\d+)?)\s*)?\]\s*$")


def plain(value):
    """Return a numpy scalar as the Python number it holds (JSON, CSV); anything else as is."""
    return value.item() if isinstance(value, np.generic) else value


def parse_values(value) -> list:
    """Expand a grid entry: a list, a scalar, or range notation.

    Parameters
    ----------
    value : list, scalar or str
        ``"2^[-12:10]"`` -> 2^-12 .. 2^10; ``"10^[-5:1:5]"`` -> exponents -5..5 step 1;
        ``"[1:9:100]"`` -> 1, 10, 19, .., 100 (Matlab start:step:stop).

    Returns
    -------
    list
    """
    if isinstance(value, list):
        return list(value)
    if not isinstance(value, str):
        return [value]
    m = _RANGE.match(value)
    if not m:
        return [value]
    a, b, c = (float(m[k]) if m[k] is not None else None for k in "abc")
    start, step, stop = (a, 1.0, b) if c is None else (a, b, c)
    if step <= 0 or stop < start:
        raise ConfigError(f"bad range {value!r}: need start <= stop and a positive step.")
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    points = [start + i * step for i in range(count)]
    if m["base"] is not None:
        base = float(m["base"])
        return [float(base ** p) for p in points]
    return [int(p) if float(p).is_integer() else p for p in points]


_NUMBER = re.compile(r"[-+]?(?:\d*\.\d+|\d+)")


def _number(text: str, repair: bool) -> tuple[float, bool]:
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    # ".7902±0386", "8099±.0036": a dropped decimal point (only beyond 1: "1" and "0" are
    # an AUC of 1 and an error of 0 as written)
    if repair and "." not in text and abs(float(text)) > 1:
        return float("0." + text.lstrip("+-")), True
    return float(text), False


def parse_published(raw: str, *, scale: float = 1.0) -> PublishedValue | None:
    """Parse a published cell such as ``".8309±.0350 ●"`` (None for ``"-"``/``"N/A"``/``""``).

    Parameters
    ----------
    raw : str
    scale : float, default=1.0
        The table's numbers are AUC x ``scale``.

    Returns
    -------
    PublishedValue or None
    """
    text = raw.strip()
    if text in ("", "-", "N/A", "n/a"):
        return None
    mark = "".join(ch for ch in text if ch in "●○")
    body = text.replace("●", "").replace("○", "").replace(" ", "")
    parts = body.replace("+-", "±").split("±")
    if len(parts) != 2:
        raise ConfigError(f"cannot read published value {raw!r}: expected 'mean±std'.")
    try:
        (mean, r1), (err, r2) = (_number(p, scale == 1) for p in parts)
    except ValueError as exc:
        raise ConfigError(f"cannot read published value {raw!r}: {exc} is not a number.") from exc
    mean, err = mean / scale, err / scale
    if not (0 <= mean <= 1 and err >= 0):
        raise ConfigError(f"published value {raw!r} is not an AUC (mean {mean}, error {err}); "
                          f"check the config's 'scale'.")
    return PublishedValue(raw, mean, err, mark, r1 or r2)


def check_hyperparameters(algorithm_id: str, values: dict, where: str) -> None:
    """Check a config's hyperparameters of ``algorithm_id`` against their declarations.

    Parameters
    ----------
    algorithm_id : str
        A registry id.
    values : dict
        ``{name: [value, ...]}``: every value a grid or a fixed parameter gives.
    where : str
        The config field, for the message.

    Raises
    ------
    ConfigError
        For a name the algorithm does not declare (the message lists the declared ones)
        or a value its constraints reject. An id that is not registered is left to the
        runner, which reports it with the cells it cannot fill.
    """
    from .._api import algorithm_info, estimator_class
    from ..utils._param_validation import validate_parameter_constraints

    try:
        declared = [p["name"] for p in algorithm_info(algorithm_id)["params"]]
    except ValueError:
        return
    constraints = estimator_class(algorithm_id)._parameter_constraints
    for name, options in values.items():
        if name not in declared:
            raise ConfigError(f"{where}: {algorithm_id} has no hyperparameter {name!r}; its "
                              f"hyperparameters are {', '.join(declared)}.")
        for value in options:
            try:
                validate_parameter_constraints({name: constraints[name]}, {name: value},
                                               algorithm_id)
            except ValueError as exc:
                raise ConfigError(f"{where}: {exc}") from None


def fraction(value, where: str) -> float | None:
    """Return ``value`` (a number in (0, 1], or None) as a float; ConfigError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, float | int) or not 0 < value <= 1:
        raise ConfigError(f"{where} must be a number in (0, 1], got {value!r}.")
    return float(value)
