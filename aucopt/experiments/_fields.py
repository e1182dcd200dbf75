"""Field checks of the experiment configs: every field of the TOML type it must have.

:func:`require` and :func:`optional` return a field's value, or raise a
:class:`~aucopt.experiments._values.ConfigError` that names the field and the
type it must have in TOML's words (a string, an integer, a table, an array);
:func:`unknown` refuses the fields a table does not allow. The loader
(:mod:`aucopt.experiments._config`) adds the file to the message, so a wrong
type is reported when the config is loaded, never later as a bare Python error
while the experiment runs or its report is written.
"""

from __future__ import annotations

from ._values import ConfigError

__all__ = ["optional", "require", "unknown"]

_TOML_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               dict: "a table", list: "an array"}


def _kinds(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _is(value, kind) -> bool:
    kinds = _kinds(kind)
    if isinstance(value, bool) and bool not in kinds:  # TOML's true is not an integer
        return False
    return isinstance(value, kinds)


def _check(value, kind, items, field: str):
    if not _is(value, kind):
        names = " or ".join(_TOML_NAMES.get(k, k.__name__) for k in _kinds(kind))
        raise ConfigError(f"field {field} must be {names}, got {value!r}.")
    if items is not None:
        inner = value.values() if isinstance(value, dict) else value
        bad = [v for v in inner if not _is(v, items)]
        if bad:
            names = " or ".join(_TOML_NAMES.get(k, k.__name__) for k in _kinds(items))
            raise ConfigError(f"every value of field {field} must be {names}, got {bad[0]!r}.")
    return value


def require(table: dict, key: str, kind, where: str, items=None):
    """Return the required field ``key`` of ``table``, checked to be of ``kind``.

    Parameters
    ----------
    table : dict
        A TOML table of the config.
    key : str
        The field.
    kind : type or tuple of type
        What the value must be (``bool`` is never taken for ``int``).
    where : str
        The table's place in the config (``"algorithms[0]."``; ``""`` at the top level).
    items : type or tuple of type, optional
        What every value of a table or an array must be.

    Returns
    -------
    object
        The value.

    Raises
    ------
    ConfigError
        If the field is missing or of another type.
    """
    if key not in table:
        raise ConfigError(f"missing required field {where}{key!r}.")
    return _check(table[key], kind, items, f"{where}{key!r}")


def optional(table: dict, key: str, kind, where: str, default=None, items=None):
    """Return the field ``key`` of ``table`` checked to be of ``kind``, or ``default``.

    Parameters
    ----------
    table, key, kind, where, items :
        As in :func:`require`.
    default : object, optional
        Returned when the field is absent.

    Returns
    -------
    object

    Raises
    ------
    ConfigError
        If the field is present and of another type.
    """
    if key not in table:
        return default
    return _check(table[key], kind, items, f"{where}{key!r}")


def unknown(table: dict, allowed: set, where: str) -> None:
    """Refuse the fields of ``table`` that are not in ``allowed``.

    Parameters
    ----------
    table : dict
    allowed : set of str
    where : str
        The table's name for the message (``""``: the top level).

    Raises
    ------
    ConfigError
    """
    extra = sorted(set(table) - allowed)
    if extra:
        raise ConfigError(f"unknown field(s) {extra} in {where or 'the top level'}; allowed: "
                          f"{sorted(allowed)}.")
