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

Saves are atomic and durable, and the two files are bound to each other by
SHA-256 hashes (:mod:`aucopt.io._files` describes the protocol): a reader
sees the previous or the new model, never a mix, and a save that fails or is
killed at any point leaves a model that loads.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import time
from pathlib import Path

import numpy as np

from .._api import make, picked
from .._version import __version__
from ..algorithms import get_algorithm, list_algorithms
from ..algorithms._calibrate import AUTO_STEP_ATTR
from ..algorithms._data import counts_as_weights
from ..algorithms._precondition import upgrade_transform
from ..exceptions import ModelFileError
from ..utils._random import generator_state, restore_generator
from ._files import Transaction, open_regular, pending_files, read_regular, same_file, sha256_file
from ._validate import (
    LARGEST_COEF,
    MAX_JSON_BYTES,
    check_attributes,
    check_scores,
    check_state,
    meta_digest,
    parse_meta,
    read_arrays,
)

__all__ = ["save", "load", "FORMAT_VERSION"]

logger = logging.getLogger(__name__)

FORMAT = "aucopt-model"
FORMAT_VERSION = 2  # 2: npz_sha256 + meta_sha256 in the .json, the id in the .npz
_STATE = "state__"
_ATTR = "attr__"
_ID = "meta__algorithm"  # the algorithm id, also in the .npz: swapped arrays are refused
_ATTEMPTS = 8  # reads of a pair whose hashes differ, while a save may be replacing it


def _paths(path) -> tuple[Path, Path]:
    """Return the ``.json`` and ``.npz`` paths of the base ``path``; refuse a base without a
    name (``""``, ``"."``, a folder's trailing ``/..``) or that names a folder (``models/``,
    whose files would be written beside it, as ``models.json``)."""
    text = os.fspath(path)
    if isinstance(text, str) and text.endswith(("/", os.sep)) and text.strip("/" + os.sep):
        raise ValueError(f"the model path {text!r} names a folder: give a base path inside "
                         f"it, such as {text + 'model'!r} (.json and .npz are added).")
    path = Path(path)
    if path.suffix in (".json", ".npz"):
        path = path.with_suffix("")
    if path.name in ("", ".", ".."):
        raise ValueError(f"the model path {str(path)!r} has no file name: give a base path "
                         "such as 'model' or 'models/spam' (.json and .npz are added).")
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


def _arrays_and_meta(estimator) -> tuple[dict, dict]:
    """Return the ``.npz`` arrays and the ``.json`` metadata (without hashes) of a save."""
    arrays = {_STATE + k: v for k, v in estimator._state.items()}
    arrays[_ID] = np.array(estimator._algorithm)
    attrs = {}
    fitted = dict(vars(estimator))
    if estimator._spec().coef is not None:  # formed on reading; kept for readers of the .npz
        fitted.update(coef_=estimator.coef_, intercept_=estimator.intercept_)
    for key, value in fitted.items():
        if key != AUTO_STEP_ATTR and (not key.endswith("_") or key.startswith("_")):
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
    return arrays, meta


def save(estimator, path) -> tuple[Path, Path]:
    """Save a fitted aucopt estimator to ``PATH.json`` and ``PATH.npz``, atomically.

    Both files are written to temporary files in the same directory, synced to
    disk, checked by loading them back (the checks of :func:`load`), and only
    then renamed into place, the ``.npz`` first; the directory is synced last.
    The ``.json`` holds the SHA-256 of the ``.npz`` (``npz_sha256``) and of its
    own other fields (``meta_sha256``), so the two parts of different saves never
    load together. Concurrent saves to one directory are serialised by a lock.

    Parameters
    ----------
    estimator : BaseAUCClassifier or aucopt.AUCClassifier
        A fitted estimator. An :class:`aucopt.AUCClassifier` (``make("auto")``) is
        saved as the estimator it chose (``estimator_``, of the id ``algorithm_``):
        :func:`load` returns that estimator, which scores the same.
    path : str or Path
        Base path; a ``.json`` or ``.npz`` suffix is dropped. Missing parent
        directories are created.

    Returns
    -------
    (json_path, npz_path) : tuple of Path

    Raises
    ------
    TypeError
        If ``estimator`` is not an aucopt estimator (a Pipeline, say).
    ValueError
        If it is not fitted.
    ModelFileError
        (a ``ValueError``) If the files written would not load (for example a
        subnormal hyperparameter that makes the scores NaN), or if ``PATH.json``
        or ``PATH.npz`` exists and is not a regular file (a directory).
    OSError
        As the operating system reports it (``PermissionError``, a full disk
        ``ENOSPC``, a file-size limit ``EFBIG``...).

    Notes
    -----
    After any of these errors, and if the process is killed during the save,
    the model previously saved at ``path`` (if any) is unchanged and loads, and
    the temporary files are removed (a killed save leaves hidden
    ``.NAME.*.tmp`` / ``.old`` files, removed by the next save of ``NAME``).
    """
    estimator = picked(estimator)  # make("auto"): the estimator it chose
    if not hasattr(estimator, "_algorithm") and type(estimator).__module__.startswith(
            ("aucopt.river", "river.")):
        raise TypeError(
            f"aucopt.io.save stores one scikit-learn aucopt estimator; got a River model "
            f"({type(estimator).__name__}). A River model keeps the columns of its feature "
            "names beside its estimator: save the whole model (or pipeline) with pickle or "
            "joblib, which keeps both (saving its .estimator alone would lose the names).")
    if not hasattr(estimator, "_algorithm"):
        raise TypeError(
            f"aucopt.io.save stores one aucopt estimator; got a {type(estimator).__name__}. "
            "For a Pipeline, save its final aucopt step (pipeline[-1]) and keep the other "
            "steps' settings in your code (or use joblib/skops for the whole pipeline).")
    if not hasattr(estimator, "_state"):
        raise ValueError(f"{type(estimator).__name__} is not fitted; call fit before save.")
    json_path, npz_path = _paths(path)
    arrays, meta = _arrays_and_meta(estimator)
    blocked = next((p for p in (json_path.parent, *json_path.parent.parents)
                    if p.exists() and not p.is_dir()), None)
    if blocked is not None:
        raise NotADirectoryError(f"cannot save to {json_path}: {blocked} is a file, not a "
                                 "folder; choose another path.")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    with Transaction(json_path, npz_path) as saving:
        npz_tmp = saving.write(npz_path, lambda handle: np.savez(handle, **arrays))
        with open(npz_tmp, "rb") as handle:
            meta["npz_sha256"] = sha256_file(handle, npz_tmp.stat().st_size)
        meta["meta_sha256"] = meta_digest(meta)
        text = json.dumps(meta, indent=1, sort_keys=True).encode()
        json_tmp = saving.write(json_path, lambda handle: handle.write(text))
        try:  # what load would refuse never replaces a model
            _load_pair(json_tmp, npz_tmp)
        except ModelFileError as exc:  # named by the paths asked for, not the temporary ones
            text = str(exc).replace(str(json_tmp), str(json_path))
            raise ModelFileError(f"{text.replace(str(npz_tmp), str(npz_path))} (nothing was "
                                 "saved: the previous files are as they were)") from None
        saving.commit()
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
        for this algorithm: a path that is not a regular file (a directory, FIFO or
        device: refused without reading), a ``.json`` and a ``.npz`` of different
        saves or edited after the save (their SHA-256 hashes), unreadable or
        inconsistent arrays, state entries of the wrong name, dtype or shape,
        non-finite values, out-of-range counters or indices, ``classes_`` that are
        not two sorted distinct finite numbers or strings, an algorithm id that is
        not registered, invalid or subnormal hyperparameters, scores that are not
        finite at the training data's class means, an unknown random generator.
        Nothing from the file reaches a kernel before these checks pass.
    OSError
        Other errors of the operating system, as it reports them
        (``PermissionError``...).

    Notes
    -----
    Files of format version 1 (no hashes, written by earlier aucopt versions) load
    with every check but the hashes. When the hashes of the pair differ because a
    save is replacing it, ``load`` reads the pair again a few times (within about
    a second); after a save killed between its two renames, it loads the pair of
    that save (the new or the previous model) from the files the save left.
    """
    json_path, npz_path = _paths(path)
    for p in (json_path, npz_path):
        if not p.exists():
            raise FileNotFoundError(f"{p} not found: a saved model is a .json and a .npz file "
                                    "written by aucopt.io.save.")
    unhashed = False  # the .json records no hash, the .npz was saved with one
    for attempt in range(_ATTEMPTS):
        try:
            return _load_pair(json_path, npz_path)
        except _Mismatch as mismatch:
            unhashed = mismatch.digest is None
            settled = (same_file(mismatch.json_info, json_path)
                       and same_file(mismatch.npz_info, npz_path))
            if settled and not pending_files(npz_path) + pending_files(json_path):
                break  # no save under way: reading again cannot help
            time.sleep(0.005 * 2**attempt)
    estimator = _recover(json_path, npz_path)
    if estimator is not None:
        return estimator
    why = ("the .json records no SHA-256, as a save of format version 1 did, and the .npz "
           "was written by a later save" if unhashed else
           "the SHA-256 recorded in the .json differs")
    raise ModelFileError(
        f"{npz_path} is not the .npz saved with {json_path} ({why}): the two files come from "
        "different saves, or one was modified or cut short (an interrupted copy). Restore the "
        "pair from the same save, or refit and save again.")


class _Mismatch(ModelFileError):
    """The ``.npz`` read is not the one the ``.json`` read was saved with."""

    def __init__(self, json_info, npz_info, digest):
        super().__init__("hash mismatch")
        self.json_info, self.npz_info, self.digest = json_info, npz_info, digest


def _load_pair(json_path: Path, npz_path: Path, meta=None):
    """Read, check and rebuild the model of one ``.json`` / ``.npz`` pair."""
    json_info = None
    if meta is None:
        data, json_info = read_regular(json_path, MAX_JSON_BYTES)
        meta = parse_meta(json_path, data, range(1, FORMAT_VERSION + 1))
    handle, npz_info = open_regular(npz_path)
    with handle:
        if "npz_sha256" in meta:
            digest = sha256_file(handle, npz_info.st_size)
            if digest != meta["npz_sha256"]:
                raise _Mismatch(json_info, npz_info, digest)
        arrays = read_arrays(npz_path, handle, npz_info.st_size)
    if "npz_sha256" not in meta and _ID in arrays:  # a .json of version 1, an .npz of 2
        raise _Mismatch(json_info, npz_info, None)
    return _rebuild(json_path, npz_path, meta, arrays)


def _recover(json_path: Path, npz_path: Path):
    """Return the model of a save killed between its renames, or None.

    Such a save left its ``.json`` as a temporary file beside the new ``.npz``
    (its hash is the ``.npz``'s) and kept the previous ``.npz`` (whose hash is
    in the previous ``.json``). Every candidate is checked by its hash.
    """
    try:
        handle, info = open_regular(npz_path)
        with handle:
            digest = sha256_file(handle, info.st_size)
    except (OSError, ModelFileError):
        return None
    for candidate in pending_files(json_path):  # the .json of the new model, not renamed
        estimator = _try_pair(candidate, npz_path, digest)
        if estimator is not None:
            logger.warning("%s: loaded the save that was interrupted before its .json "
                           "was renamed into place.", json_path)
            return estimator
    for candidate in pending_files(npz_path):  # the .npz of the previous model, kept
        estimator = _try_pair(json_path, candidate)
        if estimator is not None:
            logger.warning("%s: loaded the previous model, kept by a save that was "
                           "interrupted.", json_path)
            return estimator
    return None


def _try_pair(json_path: Path, npz_path: Path, digest=None):
    """Return the model of a candidate pair (a hashed .json, matching ``digest`` if given),
    or None if it does not load."""
    try:
        data, _ = read_regular(json_path, MAX_JSON_BYTES)
        meta = parse_meta(json_path, data, range(2, FORMAT_VERSION + 1))
        if digest is not None and meta["npz_sha256"] != digest:
            return None
        return _load_pair(json_path, npz_path, meta)
    except (OSError, ModelFileError):
        return None


def _rebuild(json_path: Path, npz_path: Path, meta: dict, arrays: dict):
    """Return the estimator of checked metadata and arrays, after the remaining checks."""
    if meta["algorithm"] not in list_algorithms():
        raise ModelFileError(f"{json_path}: algorithm {meta['algorithm']!r} is not a "
                             "registered id (see aucopt.list_algorithms()).")
    saved_id = arrays.pop(_ID, None)
    if "npz_sha256" in meta and (saved_id is None or saved_id.shape != ()
                                 or str(saved_id) != meta["algorithm"]):
        raise ModelFileError(f"{npz_path} holds the arrays of algorithm "
                             f"{None if saved_id is None else str(saved_id)!r}, not of "
                             f"{meta['algorithm']!r} named by {json_path}.")
    try:
        spec = get_algorithm(meta["algorithm"])
        estimator = make(meta["algorithm"], **meta["params"])
        estimator._validate_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"{json_path}: {exc}") from None
    state = {k[len(_STATE):]: v for k, v in arrays.items() if k.startswith(_STATE)}
    counts_as_weights(state, "data_count")
    if spec.upgrade_state is not None:
        spec.upgrade_state(state)  # entries renamed since an earlier version; checked below
    upgrade_transform(state)  # a preconditioned state saved before the shared sparse scale
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
    check_scores(npz_path, estimator, state)
    return estimator
