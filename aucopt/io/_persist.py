"""Save and load fitted estimators as ``.npz`` (arrays) + ``.json`` (the rest).

No pickle anywhere: arrays are read with ``allow_pickle=False`` and the model
is rebuilt through the registry from its algorithm id and hyperparameters, so
loading runs no code from the file. Everything read is validated before any
kernel sees it (:mod:`aucopt.io._validate`): a tampered or truncated file gives
a :class:`~aucopt.exceptions.ModelFileError`, never a crash or a silently wrong
model. The whole optimisation state (iterates,
averages, statistics, counters and the random generator) is stored, so
``partial_fit`` after ``load`` continues exactly as if the model had never
been saved.
"""

from __future__ import annotations

import json
import logging
import platform
from pathlib import Path

import numpy as np

from .._api import make
from .._version import __version__
from ..algorithms import get_algorithm
from ..algorithms._data import counts_as_weights
from ..exceptions import ModelFileError
from ..utils._random import generator_state, restore_generator
from ._validate import LARGEST_COEF, check_attributes, check_state, read_arrays, read_meta

__all__ = ["save", "load", "FORMAT_VERSION"]

logger = logging.getLogger(__name__)

FORMAT = "aucopt-model"
FORMAT_VERSION = 1
_STATE = "state__"
_ATTR = "attr__"


def _paths(path) -> tuple[Path, Path]:
    path = Path(path)
    if path.suffix in (".json", ".npz"):
        path = path.with_suffix("")
    return path.with_name(path.name + ".json"), path.with_name(path.name + ".npz")


def _json_param(name, value):
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.integer | np.floating | np.bool_):
        return value.item()
    logger.warning("Parameter %s=%r cannot be stored in JSON; it is saved as None "
                   "(the random generator state itself is saved).", name, value)
    return None


def _versions() -> dict:
    import numba
    import scipy
    import sklearn

    return {"aucopt": __version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "numba": numba.__version__, "scikit-learn": sklearn.__version__,
            "python": platform.python_version()}


def save(estimator, path) -> tuple[Path, Path]:
    """Save a fitted aucopt estimator to ``PATH.json`` and ``PATH.npz``.

    Parameters
    ----------
    estimator : BaseAUCClassifier
        A fitted estimator.
    path : str or Path
        Base path; a ``.json`` or ``.npz`` suffix is dropped.

    Returns
    -------
    (json_path, npz_path) : tuple of Path
    """
    if not hasattr(estimator, "_algorithm"):
        raise TypeError(
            f"aucopt.io.save stores one aucopt estimator; got a {type(estimator).__name__}. "
            "For a Pipeline, save its final aucopt step (pipeline[-1]) and keep the other "
            "steps' settings in your code (or use joblib/skops for the whole pipeline).")
    if not hasattr(estimator, "_state"):
        raise ValueError(f"{type(estimator).__name__} is not fitted; call fit before save.")
    json_path, npz_path = _paths(path)
    arrays = {_STATE + k: v for k, v in estimator._state.items()}
    attrs = {}
    fitted = dict(vars(estimator))
    if estimator._spec().coef is not None:  # formed on reading; kept for readers of the .npz
        fitted.update(coef_=estimator.coef_, intercept_=estimator.intercept_)
    for key, value in fitted.items():
        if not key.endswith("_") or key.startswith("_"):
            continue
        if isinstance(value, np.ndarray) and value.dtype != object:
            arrays[_ATTR + key] = value
        elif isinstance(value, np.ndarray):
            attrs[key] = {"object_array": value.tolist()}
        else:
            attrs[key] = _json_param(key, value)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "algorithm": estimator._algorithm,
        "class": f"{type(estimator).__module__}:{type(estimator).__name__}",
        "params": {k: _json_param(k, v) for k, v in estimator._saved_params().items()},
        "attributes": attrs,
        "rng_state": generator_state(estimator._rng),
        "versions": _versions(),
    }
    json_path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(npz_path, **arrays)
    json_path.write_text(json.dumps(meta, indent=1, sort_keys=True))
    logger.info("Saved %s to %s (+ .npz)", type(estimator).__name__, json_path)
    return json_path, npz_path


def load(path):
    """Load an estimator saved by :func:`save`.

    Parameters
    ----------
    path : str or Path
        The base path given to :func:`save` (or either file).

    Returns
    -------
    BaseAUCClassifier
        The fitted estimator, ready to score or to continue with ``partial_fit``.

    Raises
    ------
    FileNotFoundError
        If either file is missing.
    ModelFileError
        (a ``ValueError``) If anything in the files is not what :func:`save` writes
        for this algorithm: unreadable or inconsistent arrays, state entries of the
        wrong name, dtype or shape, non-finite values, out-of-range counters or
        indices, invalid hyperparameters or attributes, an unknown random generator.
        Nothing from the file reaches a kernel before these checks pass.
    """
    json_path, npz_path = _paths(path)
    for p in (json_path, npz_path):
        if not p.exists():
            raise FileNotFoundError(f"{p} not found: a saved model is a .json and a .npz file "
                                    "written by aucopt.io.save.")
    meta = read_meta(json_path)
    if meta["format"] != FORMAT or not 1 <= meta["format_version"] <= FORMAT_VERSION:
        raise ModelFileError(f"{json_path} is not an aucopt model of a supported format version "
                             f"(got {meta['format']!r} v{meta['format_version']!r}).")
    try:
        spec = get_algorithm(meta["algorithm"])
        estimator = make(meta["algorithm"], **meta["params"])
        estimator._validate_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"{json_path}: {exc}") from None
    arrays = read_arrays(npz_path)
    state = {k[len(_STATE):]: v for k, v in arrays.items() if k.startswith(_STATE)}
    counts_as_weights(state, "data_count")
    if spec.upgrade_state is not None:
        spec.upgrade_state(state)  # entries renamed since an earlier version; checked below
    attrs = {k[len(_ATTR):]: v for k, v in arrays.items() if k.startswith(_ATTR)}
    others = sorted(k for k in arrays if not k.startswith((_STATE, _ATTR)))
    if others:
        raise ModelFileError(f"{npz_path}: unexpected arrays {others}.")
    for key, value in meta["attributes"].items():
        if isinstance(value, dict) and isinstance(value.get("object_array"), list):
            value = np.array(value["object_array"], dtype=object)
        attrs[key] = value
    n_features = check_attributes(json_path, attrs, spec)
    params = estimator.get_params(deep=False)
    check_state(npz_path, spec, state, params, n_features)
    try:
        rng = restore_generator(meta["rng_state"])
    except ValueError as exc:
        raise ModelFileError(f"{json_path}: {exc}") from None
    for key, value in attrs.items():
        setattr(estimator, key, value)
    estimator._state, estimator._rng = state, rng
    estimator._set_coef()  # formed from the validated state when read ...
    saved = [attrs.get("coef_"), attrs.get("intercept_")]
    if spec.coef is not None and all(isinstance(a, np.ndarray) for a in saved):
        if not all(np.isfinite(a).all() and np.abs(a).max(initial=0.0) <= LARGEST_COEF
                   for a in saved):
            raise ModelFileError(f"{npz_path}: coef_ or intercept_ holds NaN, infinity or "
                                 f"values beyond ±{LARGEST_COEF:g}, which no fit produces and "
                                 "whose scores overflow; the file is damaged or was edited.")
        # ... unless the file has them: a model saved by `aucopt fit --preprocess` carries the
        # scaling folded into them; the next learning call forms them from the state again
        estimator.coef_, estimator.intercept_ = saved
    return estimator
