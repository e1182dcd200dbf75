"""Save and load fitted estimators as ``.npz`` (arrays) + ``.json`` (the rest).

No pickle anywhere: arrays are read with ``allow_pickle=False`` and the model
is rebuilt through the registry from its algorithm id and hyperparameters, so
loading runs no code from the file. The whole optimisation state (iterates,
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
from ..utils._random import generator_state, restore_generator

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
    if not hasattr(estimator, "_state"):
        raise ValueError(f"{type(estimator).__name__} is not fitted; call fit before save.")
    json_path, npz_path = _paths(path)
    arrays = {_STATE + k: v for k, v in estimator._state.items()}
    attrs = {}
    for key, value in vars(estimator).items():
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
        "params": {k: _json_param(k, v) for k, v in estimator.get_params(deep=False).items()},
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
    """
    json_path, npz_path = _paths(path)
    for p in (json_path, npz_path):
        if not p.exists():
            raise FileNotFoundError(f"{p} not found: a saved model is a .json and a .npz file "
                                    "written by aucopt.io.save.")
    meta = json.loads(json_path.read_text())
    if meta.get("format") != FORMAT or meta.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{json_path} is not an aucopt model of a supported format version "
                         f"(got {meta.get('format')!r} v{meta.get('format_version')!r}).")
    estimator = make(meta["algorithm"], **meta["params"])
    state = {}
    with np.load(npz_path, allow_pickle=False) as npz:
        for key in npz.files:
            if key.startswith(_STATE):
                state[key[len(_STATE):]] = npz[key]
            elif key.startswith(_ATTR):
                setattr(estimator, key[len(_ATTR):], npz[key])
    for key, value in meta["attributes"].items():
        if isinstance(value, dict) and "object_array" in value:
            value = np.array(value["object_array"], dtype=object)
        setattr(estimator, key, value)
    estimator._state = state
    estimator._rng = restore_generator(meta["rng_state"])
    return estimator
