"""Checks of a saved model, run by :func:`aucopt.io.load` before any kernel sees it.

A model file may come from anywhere, so nothing in it is trusted:

* the ``.json`` must be a small JSON object of the expected structure, its
  hyperparameters must satisfy the estimator's ``_parameter_constraints``;
* the ``.npz`` headers are read first and every array must hold exactly the
  bytes its header declares, and all arrays together at most
  ``MAX_EXPANSION`` times the file's size, before anything is allocated;
* the state must have exactly the entries, dtypes and shapes of the state
  that the algorithm's ``init_state`` builds for the saved ``n_features`` and
  hyperparameters (entries whose shape depends on the data are checked by the
  spec's ``check_state``), finite floats and non-negative integers (the
  spec's ``signed_state`` excepted), and satisfy the spec's ``check_state``
  (index and counter bounds);
* the fitted attributes (``classes_``, ``n_features_in_``, ``t_``, ...) must
  have the types and shapes a fit gives them.

Every failure raises :class:`aucopt.exceptions.ModelFileError` (a
``ValueError``) naming the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import zipfile
from numbers import Integral, Real

import numpy as np

from ..algorithms._calibrate import AUTO_STEP_ATTR
from ..algorithms._data import new_data_stats
from ..algorithms._distributed import STRATEGIES
from ..algorithms._precondition import (
    BOUND_KEY,
    SCALE_KEY,
    SHARED_KEY,
    SHIFT_KEY,
    intercept_shift,
    new_transform,
    rescaled,
)
from ..exceptions import ModelFileError
from ..utils._npz import read_member
from ..utils._param_validation import is_subnormal
from ..utils._random import make_generator
from ..utils._warnings import ignored_warnings

__all__ = ["MAX_JSON_BYTES", "MAX_EXPANSION", "LARGEST_COEF", "HASH_FIELDS", "meta_digest",
           "parse_meta", "read_arrays", "check_attributes", "check_state", "check_scores"]

MAX_JSON_BYTES = 64 * 2**20
MAX_EXPANSION = 4  # arrays may declare at most this many times the .npz file's size
_META_TYPES = {"format": str, "format_version": int, "algorithm": str, "class": str,
               "params": dict, "attributes": dict, "rng_state": dict}
HASH_FIELDS = ("npz_sha256", "meta_sha256")
_HEX = re.compile(r"[0-9a-f]{64}")
_SCALAR_ATTRS = {"n_features_in_": 1, "t_": 0, "n_iter_": 0}  # name -> smallest value


# Largest |coef_| or |intercept_| a file may hold. A fit stops when its margins pass 1e12
# (EXPLODE_LIMIT) on rows it sees at unit scale: precondition="auto" divides a column by its
# scale, which can be as small as ~1e-154 (the root of the smallest normal float64; smaller
# columns are refused as tiny-scaled), and coef_ holds the weights of the raw columns, so a
# fit on features of 1e-150 writes coefficients near 1e150-1e162. 1e200 leaves that room;
# scores stay bounded by check_scores on the data the model was fitted to.
LARGEST_COEF = 1e200


def _canonical(meta: dict) -> bytes:
    """Return the bytes ``meta_sha256`` is taken of: the metadata without its two hashes."""
    body = {k: v for k, v in meta.items() if k not in HASH_FIELDS}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


def meta_digest(meta: dict) -> str:
    """Return the hex SHA-256 that binds the metadata of a save (see :func:`parse_meta`)."""
    return hashlib.sha256(_canonical(meta)).hexdigest()


def parse_meta(json_path, data: bytes, versions: range) -> dict:
    """Return the parsed ``.json`` of a saved model after checking its structure.

    Files of format version 2 carry ``npz_sha256`` (the SHA-256 of the ``.npz``
    bytes, checked by the caller) and ``meta_sha256`` (of the other fields, checked
    here); version 1 files (written before the hashes) have neither.
    """
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(f"{json_path} is not valid JSON ({exc}); it is not a model "
                             "written by aucopt.io.save.") from None
    if not isinstance(meta, dict):
        raise ModelFileError(f"{json_path} does not hold a JSON object.")
    for key, kind in _META_TYPES.items():
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            raise ModelFileError(f"{json_path}: field {key!r} is missing or not a "
                                 f"{kind.__name__} (got {type(meta.get(key)).__name__}).")
    if meta["format"] != "aucopt-model" or meta["format_version"] not in versions:
        raise ModelFileError(f"{json_path} is not an aucopt model of a supported format version "
                             f"(got {meta['format']!r} v{meta['format_version']!r}; this "
                             f"aucopt reads versions {versions.start} to {versions.stop - 1}).")
    hashes = [meta.get(k) for k in HASH_FIELDS]
    if meta["format_version"] >= 2 or any(h is not None for h in hashes):
        if not all(isinstance(h, str) and _HEX.fullmatch(h) for h in hashes):
            raise ModelFileError(f"{json_path}: fields {list(HASH_FIELDS)} must be the SHA-256 "
                                 "hex digests aucopt.io.save writes; they are missing or "
                                 "malformed, so the file cannot be checked.")
        if meta["meta_sha256"] != meta_digest(meta):
            raise ModelFileError(f"{json_path} was modified after it was saved (its content "
                                 "does not match its meta_sha256); refit and save again.")
    for name, value in meta["params"].items():
        if not isinstance(value, bool | int | float | str | type(None)):
            raise ModelFileError(f"{json_path}: hyperparameter {name!r} has a "
                                 f"{type(value).__name__} value; only JSON scalars are saved.")
        if is_subnormal(value):
            raise ModelFileError(f"{json_path}: hyperparameter {name!r}={value!r} is subnormal "
                                 "(below 2.2e-308): its reciprocal and squares are not "
                                 "representable, so the model's scores would be NaN or "
                                 "infinite.")
    return meta


def read_arrays(npz_path, handle, disk: int) -> dict[str, np.ndarray]:
    """Return the arrays of the ``.npz`` open in ``handle`` (``disk`` bytes), each read only
    after its header was checked."""
    try:
        with zipfile.ZipFile(handle) as archive:
            infos = archive.infolist()
            declared = sum(info.file_size for info in infos)
            if declared > MAX_EXPANSION * disk + 2**20:
                raise ModelFileError(
                    f"{npz_path} declares {declared} bytes of arrays in a {disk}-byte file; "
                    "aucopt.io.save writes uncompressed arrays, so this is not a saved model "
                    "(refused before allocating).")
            arrays = {}
            for info in infos:
                name = info.filename.removesuffix(".npy")
                if not info.filename.endswith(".npy") or name in arrays:
                    raise ModelFileError(f"{npz_path}: unexpected member {info.filename!r}.")
                try:
                    arrays[name] = read_member(archive, info)
                except ModelFileError:
                    raise
                except (ValueError, OSError, EOFError, SyntaxError, zipfile.BadZipFile,
                        NotImplementedError, RuntimeError) as exc:
                    raise ModelFileError(f"{npz_path}: array {name!r} is unreadable: {exc}.") \
                        from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ModelFileError(f"{npz_path} is not a readable .npz archive ({exc}).") from None
    return arrays


def _fail(where, message):
    raise ModelFileError(f"{where}: {message}. The file was not written by aucopt.io.save for "
                         "this model, or it was modified; refit and save the model again.")


def _label_family(label):
    """Return "number" or "string" for a label ``fit`` accepts, else None."""
    if isinstance(label, str | np.str_):
        return "string"
    if isinstance(label, Real | np.number) and not isinstance(label, complex | np.complexfloating):
        return "number" if math.isfinite(label) else None
    return None


def _check_classes(where, classes) -> None:
    """``classes_`` as ``fit`` forms it (``numpy.unique`` of the labels): two finite numbers
    or two strings, sorted and distinct; ``predict`` and ``score`` read ``classes_[1]`` as
    the positive class, so any other order would invert every prediction."""
    if (not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.shape[0] != 2
            or classes.dtype.kind not in "biufUO"):
        _fail(where, f"classes_ must be an array of two distinct labels, got {classes!r}")
    families = {_label_family(c) for c in classes.tolist()}
    if None in families or len(families) != 1:
        _fail(where, f"classes_ must hold two finite numbers or two strings, got "
              f"{classes.tolist()!r}")
    if not classes[0] < classes[1]:
        _fail(where, f"classes_ must be sorted and distinct as fit forms them (the positive "
              f"class last), got {classes.tolist()!r}")


def check_attributes(where, attrs: dict, spec) -> int:
    """Check the fitted attributes of a model of ``spec``; return ``n_features_in_``.

    ``coef_`` and ``intercept_`` are only checked for shape here: ``load``
    recomputes them from the validated state.
    """
    allowed = {*_SCALAR_ATTRS, "classes_", "coef_", "intercept_", "feature_names_in_",
               "distributed_strategy_", "libsvm_zero_based_"}
    # the step used last and the one "auto" gave the stream (None until calibrated)
    steps = {f"{spec.step_param}_", AUTO_STEP_ATTR} if spec.calibration is not None else set()
    unknown = sorted(set(attrs) - allowed - steps)
    if unknown:
        _fail(where, f"unknown fitted attribute(s) {unknown}")
    for step in sorted(steps & set(attrs)):
        value = attrs[step]
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real)
                                  or not math.isfinite(value) or value <= 0):
            _fail(where, f"{step} must be a positive finite number or null, got {value!r}")
    strategy = attrs.get("distributed_strategy_", STRATEGIES[0])
    if strategy not in STRATEGIES:  # set by aucopt.distributed.fit, saved as a string
        _fail(where, f"distributed_strategy_ must be one of {list(STRATEGIES)}, got {strategy!r}")
    if not isinstance(attrs.get("libsvm_zero_based_", False), bool):  # set by aucopt fit
        _fail(where, "libsvm_zero_based_ must be true or false, got "
              f"{attrs['libsvm_zero_based_']!r}")
    for name, low in _SCALAR_ATTRS.items():
        value = attrs.get(name)
        if not isinstance(value, Integral) or isinstance(value, bool) or not low <= value < 2**62:
            _fail(where, f"{name} must be an int >= {low}, got {value!r}")
    d = int(attrs["n_features_in_"])
    _check_classes(where, attrs.get("classes_"))
    expected = {"coef_": ((1, d), "f"), "intercept_": ((1,), "f"),
                "feature_names_in_": ((d,), "O")}
    for name, (shape, kind) in expected.items():
        value = attrs.get(name)
        if value is None:  # load forms coef_ and intercept_ from the state
            continue
        if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype.kind != kind:
            _fail(where, f"{name} must be an array of shape {shape}, got "
                  f"{getattr(value, 'dtype', type(value))} {getattr(value, 'shape', '')}")
    names = attrs.get("feature_names_in_")
    if names is not None and not all(isinstance(n, str) for n in names):
        _fail(where, "feature_names_in_ must hold strings")
    return d


def check_state(where, spec, state: dict, params: dict, n_features: int) -> None:
    """Compare ``state`` with the one ``spec.init_state`` builds, then apply the spec's rules."""
    data_sum = state.get("data_sum")
    if data_sum is None or data_sum.shape != (2, n_features):
        _fail(where, f"state entry 'data_sum' must have shape (2, {n_features})")
    reference = spec.init_state(n_features, 1, params, make_generator(0))
    reference.update(new_data_stats(n_features))
    if SCALE_KEY in state:  # a preconditioned model's feature scale (0: not seen) and shift
        reference.update(new_transform(n_features))
    if set(reference) != set(state) and spec.lazy_form is not None:
        spec.lazy_form(reference, params)  # a state saved between CSR partial_fit calls
    missing, extra = sorted(set(reference) - set(state)), sorted(set(state) - set(reference))
    if missing or extra:
        _fail(where, f"state entries differ from {spec.id!r}'s: missing {missing}, "
              f"unexpected {extra}")
    for key, ref in reference.items():
        value = state[key]
        if value.dtype != ref.dtype or value.ndim != ref.ndim:
            _fail(where, f"state entry {key!r} is {value.dtype} with {value.ndim} dimension(s), "
                  f"expected {ref.dtype} with {ref.ndim}")
        if key not in spec.data_shaped and value.shape != ref.shape:
            _fail(where, f"state entry {key!r} has shape {value.shape}, expected {ref.shape} "
                  f"for n_features={n_features} and the saved hyperparameters")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            _fail(where, f"state entry {key!r} holds NaN or infinite values")
        if value.dtype.kind == "i" and key not in spec.signed_state and (value < 0).any():
            _fail(where, f"state entry {key!r} holds negative counts or indices")
    for key in (SCALE_KEY, SHARED_KEY, BOUND_KEY):  # (their type checked above)
        if key in state and (state[key] < 0).any():
            _fail(where, f"state entry {key!r} holds negative scales")
    if (state["data_count"] < 0).any():
        _fail(where, "state entry 'data_count' holds negative sample weights")
    if (state["data_sqmax"] < 0).any():
        _fail(where, "state entry 'data_sqmax' (the largest squared row norm) is negative")
    if spec.check_state is not None:
        try:
            spec.check_state(state, params, n_features)
        except ValueError as exc:
            _fail(where, str(exc))


def _norm(v: np.ndarray) -> float:
    """Return the Euclidean norm of ``v`` without overflow in its squares (inf only when an
    entry is)."""
    top = float(np.abs(v).max(initial=0.0))
    return top * float(np.linalg.norm(v / top)) if 0.0 < top < math.inf else top


def _original_rows(rows: np.ndarray, state: dict) -> np.ndarray:
    """Map rows of the space the kernels learn in back to the original features: ``x' s + c``
    where a preconditioner's scale is set (``notes.md#preconditioning``), as they are
    elsewhere (the data statistics of a preconditioned state are those of ``x'``)."""
    if SCALE_KEY not in state:
        return rows
    scale, shift = state[SCALE_KEY], state[SHIFT_KEY]
    return np.where(scale > 0, rows * scale + shift, rows)


def check_scores(where, estimator, state: dict) -> None:
    """Refuse a model whose scores are not finite where its training data lay.

    The probe rows are the origin and the mean of each class seen (from the
    data statistics every state keeps, in the original features); a linear model must
    also satisfy ``|v|_2 * max_i |x'_i|_2 + |b'|`` finite, a bound on its scores over
    the rows it was fitted to, with ``v``, ``x'`` and ``b'`` the weights, rows and
    intercept of the space its kernels learnt in (``coef_``, the rows and
    ``intercept_`` without a preconditioner). ``fit`` stops before its margins pass
    ``1e12``, so a model that fails either check was not written by a fit
    (a subnormal bandwidth, an edited state...).
    """
    counts, sums = state["data_count"], state["data_sum"]
    rows = [np.zeros(sums.shape[1])] + [sums[c] / counts[c] for c in (0, 1) if counts[c] > 0]
    with np.errstate(all="ignore"), ignored_warnings():
        probe = _original_rows(np.vstack(rows), state)
        if not np.isfinite(probe).all():
            _fail(where, "the class means of the data statistics are not finite")
        try:
            scores = estimator.decision_function(probe)
        except (ArithmeticError, ValueError) as exc:
            _fail(where, f"scoring a probe row fails ({type(exc).__name__}: {exc})")
        coef = getattr(estimator, "coef_", None) if estimator._spec().coef is not None else None
        bound = 0.0
        if coef is not None:
            weights = rescaled(coef[0], state)
            intercept = float(estimator.intercept_[0]) + intercept_shift(coef[0], state)
            bound = _norm(weights) * math.sqrt(float(state["data_sqmax"][0])) + abs(intercept)
    if not np.isfinite(scores).all() or not math.isfinite(bound):
        _fail(where, "its scores overflow or are NaN on the data it was fitted to "
              f"(probe scores {scores.tolist()}, linear bound {bound:g}); its state or "
              "hyperparameters are not ones a fit produces")
