"""Loading, caching, mirroring, downloading and verifying datasets."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import logging
import lzma
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._registry import dataset_info, list_datasets

__all__ = ["get_data_home", "load", "fetch", "binarize", "BINARIZATION_SCHEMES"]

logger = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).parent / "data"
BINARIZATION_SCHEMES = ("random-half", "even-odd", "largest-vs-rest")
_OPENERS = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}


def get_data_home(data_home=None) -> Path:
    """Return the cache directory (created if missing).

    Parameters
    ----------
    data_home : str or Path, optional
        Explicit directory; else ``$AUCOPT_DATA``; else ``~/.cache/aucopt``.

    Returns
    -------
    Path
    """
    path = Path(data_home or os.environ.get("AUCOPT_DATA") or Path.home() / ".cache" / "aucopt")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _open_text(path: Path):
    return _OPENERS.get(path.suffix, open)(path, "rb")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with _open_text(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _signed(y: np.ndarray) -> np.ndarray:
    labels = np.unique(y)
    if labels.size != 2:
        return y.astype(np.int64)  # multi-class: the caller binarises
    return np.where(y == labels[1], 1, -1).astype(np.int64)


def _finish(X, y, info, return_sparse):
    sparse = info.sparse if return_sparse is None else return_sparse
    if sparse:
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        return X, y
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64), y


def _parse(path: Path, info, verify: bool):
    from sklearn.datasets import load_svmlight_file

    if verify and info.sha256 is not None:
        got = _sha256(path)
        if got != info.sha256:
            raise _corrupt(path, "sha256 of the uncompressed text", info.sha256, got)
    try:
        X, y = load_svmlight_file(str(path), n_features=info.n_features)
    except ValueError as exc:
        raise _corrupt(path, "a readable LIBSVM file", "LIBSVM text", str(exc)) from exc
    if verify and info.sha256 is None and X.shape[0] != info.n_samples:
        raise _corrupt(path, "number of rows", info.n_samples, X.shape[0])
    return X, _signed(y)


class DatasetIntegrityError(ValueError):
    """A dataset file does not match its registry record (removed from the cache)."""


def _corrupt(path, what, expected, got):
    path.unlink(missing_ok=True)
    return DatasetIntegrityError(
        f"{path.name} failed verification ({what}: expected {expected}, got {got}); the file "
        "was removed from the cache. Retry the download, or check the file in "
        "AUCOPT_DATA_MIRROR."
    )


def load(name: str, *, return_sparse=None):
    """Return a dataset bundled with aucopt as ``(X, y)``.

    Parameters
    ----------
    name : str
        A bundled dataset (``"german.numer"``).
    return_sparse : bool, optional
        Force CSR (True) or dense (False); default: dense for small sets.

    Returns
    -------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    y : ndarray of int64 in {-1, +1}
    """
    bundled = [d.name for d in list_datasets() if d.bundled]
    info = dataset_info(name) if name in bundled else None
    if info is None:
        raise ValueError(f"{name!r} is not bundled with aucopt (bundled: {bundled}); use "
                         f"aucopt.datasets.fetch({name!r}) for the others.")
    X, y = _parse(BUNDLED_DIR / info.filename, info, verify=False)
    return _finish(X, y, info, return_sparse)


def _mirror_file(info, mirror) -> Path | None:
    mirror = mirror or os.environ.get("AUCOPT_DATA_MIRROR")
    if not mirror:
        return None
    mirror = Path(mirror)
    manifest = mirror / "MANIFEST.json"
    entry = json.loads(manifest.read_text()).get(info.name) if manifest.exists() else None
    candidate = mirror / (entry["file"] if entry else f"{info.name}.bz2")
    return candidate if candidate.exists() else None


def _download(url: str, target: Path, timeout: float = 60.0) -> None:
    part = target.with_name(target.name + ".part")
    logger.info("Downloading %s", url)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, part.open("wb") as fh:
            shutil.copyfileobj(response, fh)
    except (urllib.error.URLError, OSError) as exc:
        part.unlink(missing_ok=True)
        raise OSError(f"Could not download {url}: {exc}. Check the network, or place the file "
                      "in a mirror directory named by AUCOPT_DATA_MIRROR.") from exc
    part.replace(target)


def fetch(name: str, *, data_home=None, mirror=None, download=True, return_sparse=None,
          verify=True):
    """Return a registered dataset as ``(X, y)``: bundled, cached, mirrored or downloaded.

    Looks, in order, at the bundled files, the parsed cache (``NAME.npz`` in
    :func:`get_data_home`), the raw file in the cache, the mirror directory
    (``mirror`` or ``$AUCOPT_DATA_MIRROR``, laid out as ``NAME.bz2`` +
    ``MANIFEST.json``) and finally the official address. Raw files are verified
    (sha256 when known, else the row count) and a file that fails is removed.

    Parameters
    ----------
    name : str
        Registry name (see :func:`list_datasets`).
    data_home : str or Path, optional
        Cache directory.
    mirror : str or Path, optional
        Mirror directory.
    download : bool, default=True
        Allow the network.
    return_sparse : bool, optional
        Force CSR or dense output.
    verify : bool, default=True
        Verify raw files.

    Returns
    -------
    X : ndarray or CSR matrix
    y : ndarray of int64: {-1, +1} for binary data, the original labels otherwise
        (apply :func:`binarize` with the record's ``binarize`` scheme).
    """
    info = dataset_info(name)
    if info.bundled:
        return load(info.name, return_sparse=return_sparse)
    home = get_data_home(data_home)
    parsed = home / f"{info.name}.npz"
    if parsed.exists():
        with np.load(parsed, allow_pickle=False) as z:
            X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            logger.info("%s: parsed cache %s", info.name, parsed)
            return _finish(X, z["y"], info, return_sparse)
    if info.format != "libsvm":
        raise ValueError(f"{info.name} is distributed as {info.format!r} at {info.url}; convert "
                         f"it to LIBSVM text and put it in AUCOPT_DATA_MIRROR as {info.name}.bz2.")
    raw = home / (info.filename or f"{info.name}.bz2")
    if not raw.exists():
        source = _mirror_file(info, mirror)
        if source is not None:
            raw = home / source.name
            shutil.copyfile(source, raw)
            logger.info("%s: copied from mirror %s", info.name, source)
        elif download:
            _download(info.url, raw)
        else:
            raise FileNotFoundError(
                f"{info.name} is not in the cache {home} nor in a mirror, and download=False. "
                f"Set AUCOPT_DATA_MIRROR to a directory holding {info.name}.bz2, or allow the "
                f"download from {info.url}."
            )
    X, y = _parse(raw, info, verify)
    X = sp.csr_matrix(X)
    np.savez(parsed, data=X.data, indices=X.indices, indptr=X.indptr,
             shape=np.array(X.shape), y=y)
    return _finish(X, y, info, return_sparse)


def binarize(y, scheme="random-half", random_state=None):
    """Map multi-class labels to {-1, +1}.

    Parameters
    ----------
    y : array-like of shape (n,)
        Class labels.
    scheme : {"random-half", "even-odd", "largest-vs-rest"}
        ``"random-half"``: the classes are randomly permuted and the first
        ``floor(K/2)`` become +1 (spec A-09); ``"even-odd"``: even label ids
        are +1; ``"largest-vs-rest"``: the most frequent class is +1.
    random_state : int or Generator, optional
        Seed of ``"random-half"``.

    Returns
    -------
    ndarray of int64 in {-1, +1}
    """
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError("binarize needs at least two classes.")
    if scheme == "random-half":
        perm = np.random.default_rng(random_state).permutation(classes)
        positive = perm[: classes.size // 2]
    elif scheme == "even-odd":
        positive = classes[classes.astype(np.int64) % 2 == 0]
    elif scheme == "largest-vs-rest":
        positive = classes[[np.argmax(counts)]]
    else:
        raise ValueError(f"Unknown scheme {scheme!r}; use one of {BINARIZATION_SCHEMES}.")
    return np.where(np.isin(y, positive), 1, -1).astype(np.int64)
