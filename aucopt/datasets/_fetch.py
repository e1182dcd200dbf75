"""Loading, caching, mirroring, downloading and verifying datasets."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import http.client
import logging
import lzma
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._config import cache_home
from ._cache import discard, download_path, load_npz, part_file, save_npz
from ._preprocessing import as_output, file_labels, sparse_flag
from ._registry import _manifest_entry, _suggest, dataset_info, list_datasets

__all__ = ["get_data_home", "load", "fetch", "DatasetIntegrityError", "DatasetDownloadError",
           "DatasetNotAvailableError"]

logger = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).parent / "data"
DOWNLOAD_TIMEOUT = 60.0  # seconds without data before a download is abandoned
_READABLE = ("libsvm", "libsvm-multilabel")
_OPENERS = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}


class DatasetIntegrityError(ValueError):
    """A dataset file does not match its registry record (it is removed from the cache)."""


class DatasetDownloadError(OSError):
    """A download failed: network error, HTTP error or truncated transfer."""


class DatasetNotAvailableError(FileNotFoundError):
    """No usable copy of a dataset exists, and it may not or cannot be downloaded."""


@dataclass
class _Source:
    """Raw LIBSVM file(s) of one dataset, where they came from and how to check them."""

    paths: list
    sha256: str | None
    origin: str
    hint: str
    removable: bool = True


def get_data_home(data_home=None) -> Path:
    """Return the cache directory, created if missing.

    Parameters
    ----------
    data_home : str or Path, optional
        Explicit directory; else ``$AUCOPT_DATA``; else ``~/.cache/aucopt``.

    Returns
    -------
    Path
    """
    path = cache_home(data_home)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"Cannot create the dataset cache {path} ({exc}). Pass data_home=... or "
                      "set AUCOPT_DATA to a writable directory.") from exc
    return path


def _open(path: Path):
    """Open ``path`` for reading bytes, decompressed by its suffix (``.gz`` or ``.GZ`` alike)."""
    return _OPENERS.get(path.suffix.lower(), open)(path, "rb")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with _open(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _integrity(source: _Source, info, what: str) -> DatasetIntegrityError:
    if source.removable:
        for path in source.paths:
            discard(path)
    done = "The file was removed from the cache. " if source.removable else ""
    return DatasetIntegrityError(f"{', '.join(map(str, source.paths))} failed verification as "
                                 f"dataset {info.name!r}: {what}. {done}{source.hint}")


def _read(source: _Source, info, verify: bool):
    """Verify ``source`` (sha256 when known, else the number of rows) and parse it."""
    from sklearn.datasets import load_svmlight_files

    broken = (ValueError, OSError, EOFError, lzma.LZMAError)
    if verify and source.sha256 is not None:
        try:
            got = _sha256(source.paths[0])
        except broken as exc:
            raise _integrity(source, info, f"cannot decompress it ({exc})") from exc
        if got != source.sha256.lower():  # (a digest written in upper-case hex is the same)
            raise _integrity(source, info, f"sha256 of the uncompressed text: expected "
                                           f"{source.sha256}, got {got}")
    try:
        with contextlib.ExitStack() as stack:
            files = [stack.enter_context(_open(p)) for p in source.paths]
            parsed = load_svmlight_files(files, n_features=info.n_features, dtype=np.float64,
                                         multilabel=info.format == "libsvm-multilabel")
    except broken as exc:
        raise _integrity(source, info, f"not a readable LIBSVM file with at most "
                                       f"{info.n_features} features ({exc})") from exc
    X = sp.vstack(parsed[0::2], format="csr") if len(parsed) > 2 else parsed[0]
    y = ([row for part in parsed[1::2] for row in part] if info.format == "libsvm-multilabel"
         else np.concatenate(parsed[1::2]))
    if verify and X.shape[0] != info.n_samples:
        raise _integrity(source, info, f"number of rows: expected {info.n_samples}, got "
                                       f"{X.shape[0]}")
    try:
        return X, file_labels(y, info)
    except ValueError as exc:
        raise _integrity(source, info, str(exc)) from exc


def load(name: str, *, return_sparse=None):
    """Return a dataset bundled with aucopt as ``(X, y)``: no network, no cache.

    Parameters
    ----------
    name : str
        A bundled dataset: ``"german.numer"`` (alias ``"german"``).
    return_sparse : bool, optional
        Force CSR (True) or dense (False) output; by default dense unless the
        registry marks the dataset as sparse.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        float64; dense arrays are C-contiguous, CSR matrices have sorted indices.
    y : ndarray of shape (n_samples,)
        int64 labels in {-1, +1}.
    """
    bundled = [d.name for d in list_datasets() if d.bundled]
    try:
        info = dataset_info(name)
    except ValueError:
        info = None
    if info is None:
        raise ValueError(f"Unknown dataset {name!r}.{_suggest(str(name))} Bundled datasets: "
                         f"{bundled}; read any other registered dataset (list_datasets()) "
                         "with aucopt.datasets.fetch(name).")
    if not info.bundled:
        raise ValueError(f"{name!r} is not bundled with aucopt (bundled: {bundled}); use "
                         f"aucopt.datasets.fetch({name!r}), which reads the cache or a mirror, "
                         "or downloads it.")
    sparse = sparse_flag(return_sparse, info.sparse)
    path = BUNDLED_DIR / info.filename
    if not path.is_file():
        raise DatasetNotAvailableError(f"The bundled file {path} is missing: the aucopt "
                                       "installation is incomplete; reinstall aucopt.")
    sha = info.sha256 if info.sha256_of == "mirror" else None
    X, y = _read(_Source([path], sha, "bundled", "Reinstall aucopt.", removable=False), info,
                 verify=True)
    logger.info("%s: bundled file %s", info.name, path)
    return as_output(X, y, sparse)


def _cached_raw(info, home: Path) -> _Source | None:
    retry = f"Run fetch({info.name!r}) again to get a fresh copy (mirror or network)."
    for ext in ("", *_OPENERS):  # a copy from a mirror, or a file placed there by hand
        if (home / f"{info.name}{ext}").is_file():
            sha = info.sha256 if info.sha256_of == "mirror" else None
            return _Source([home / f"{info.name}{ext}"], sha, "cache", retry)
    parts = [download_path(home, u) for u in (info.url, *info.extra_urls)]
    if info.format in _READABLE and all(p.is_file() for p in parts):
        sha = info.sha256 if info.sha256_of == "download" and len(parts) == 1 else None
        return _Source(parts, sha, "cache", retry)
    return None


def _mirror_dir(mirror) -> Path | None:
    if mirror is not None:
        root = Path(mirror).expanduser()
        if not root.is_dir():
            raise DatasetNotAvailableError(f"The mirror directory {root} does not exist. Pass a "
                                           "directory holding NAME.bz2 files and a "
                                           "MANIFEST.json, or mirror=None.")
        return root
    env = os.environ.get("AUCOPT_DATA_MIRROR")
    if env and Path(env).expanduser().is_dir():
        return Path(env).expanduser()
    if env:
        logger.warning("AUCOPT_DATA_MIRROR=%s is not a directory; ignoring it.", env)
    return None


def _from_mirror(info, root: Path, home: Path) -> _Source | None:
    entry = _manifest_entry(root, info.name)
    names = [entry["file"]] if entry.get("file") else [info.filename, f"{info.name}.bz2"]
    src = next((root / n for n in names if (root / n).is_file()), None)
    if src is None:  # (a name in other case: NAME.BZ2 is the mirror's file too)
        wanted = {n.lower() for n in names}
        src = next((p for p in sorted(root.iterdir()) if p.name.lower() in wanted
                    and p.is_file()), None)
    if src is None:
        logger.info("%s: not in the mirror %s", info.name, root)
        return None
    registry = info.sha256 if info.sha256_of == "mirror" else None
    listed = entry.get("sha256_uncompressed")
    if registry and listed and str(listed).lower() != registry.lower():
        # (accepted now, the copy would fail the registry's digest at its next read)
        raise DatasetIntegrityError(
            f"{info.name}: the mirror's MANIFEST.json in {root} gives sha256 {listed}, the "
            f"registry {registry} for the same file: the mirror holds another version of the "
            "data (or its entry is wrong). Rebuild the mirror's file and entry, or unset "
            "AUCOPT_DATA_MIRROR to download the dataset instead.")
    for key, expected in (("n_samples", info.n_samples), ("n_features", info.n_features)):
        if key in entry and entry[key] != expected:
            logger.warning("%s: the mirror's MANIFEST.json says %s = %s, the registry %s.",
                           info.name, key, entry[key], expected)
    # (the suffix in lower case, as the cache is searched: a mirror's .BZ2 is still bz2)
    dest = home / (info.name + next((e for e in _OPENERS if src.name.lower().endswith(e)), ""))
    try:
        with part_file(dest) as tmp:
            shutil.copyfile(src, tmp)
    except PermissionError as exc:
        raise DatasetNotAvailableError(
            f"Cannot copy {src} into the dataset cache {home} ({exc.strerror}): make it "
            "writable, or set AUCOPT_DATA to a directory you can write.") from exc
    logger.info("%s: copied from the mirror file %s to %s", info.name, src, dest)
    hint = (f"The mirror file {src} is damaged or holds another version of the data: check or "
            f"rebuild it (and its MANIFEST.json entry) in {root}, or unset AUCOPT_DATA_MIRROR "
            "to download the dataset instead.")
    return _Source([dest], entry.get("sha256_uncompressed") or info.sha256, "mirror", hint)


def _download(url: str, target: Path) -> None:
    """Download ``url`` to ``target`` through a partial file, removed if anything fails
    (Ctrl-C included)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    advice = ("Check the network and the address (dataset_info(name).url; point the record at "
              "a new address with register_dataset(..., replace=True)), or put the file in a "
              "mirror directory named by AUCOPT_DATA_MIRROR.")
    logger.info("Downloading %s to %s", url, target)
    request = urllib.request.Request(url, headers={"User-Agent": "aucopt-datasets"})
    with part_file(target) as part:
        try:
            with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response, \
                    part.open("wb") as fh:
                length = response.headers.get("Content-Length")
                shutil.copyfileobj(response, fh, 1 << 20)
                got = fh.tell()
        except (OSError, http.client.HTTPException) as exc:  # HTTPError and URLError included
            why = (f"HTTP error {exc.code} ({exc.reason})"
                   if isinstance(exc, urllib.error.HTTPError) else getattr(exc, "reason", exc))
            raise DatasetDownloadError(f"Could not download {url}: {why}. {advice}") from exc
        if length is not None and length.isdigit() and got != int(length):
            raise DatasetDownloadError(f"The download of {url} was cut short ({got} of {length} "
                                       f"bytes). Retry. {advice}")
    logger.info("Downloaded %s (%d bytes)", url, got)


def _not_available(info, home: Path, root) -> DatasetNotAvailableError:
    env = os.environ.get("AUCOPT_DATA_MIRROR")
    where = (f"the cache {home} (NAME.npz, NAME[.bz2|.gz|.xz], downloads/) and "
             + (f"the mirror {root}" if root else
                f"no mirror (AUCOPT_DATA_MIRROR={env} is not a directory)" if env else
                "no mirror (AUCOPT_DATA_MIRROR is unset)"))
    provide = (f"set AUCOPT_DATA_MIRROR (or pass mirror=...) to a directory holding "
               f"{info.name}.bz2 in LIBSVM format (with a MANIFEST.json entry)")
    if info.format not in _READABLE:
        return DatasetNotAvailableError(
            f"{info.name} is distributed as {info.format!r} ({info.url}), which fetch cannot "
            f"read, and no LIBSVM copy was found in {where}. Convert it to LIBSVM text, then "
            f"{provide}.")
    return DatasetNotAvailableError(
        f"{info.name} is not available locally and download=False. Looked in {where}. To "
        f"provide it, {provide}; or allow the download from "
        f"{' + '.join((info.url, *info.extra_urls))}.")


def fetch(name: str, *, data_home=None, mirror=None, download=True, return_sparse=None,
          verify=True):
    """Return a registered dataset as ``(X, y)``: bundled, cached, mirrored or downloaded.

    Looks at (a) the bundled files, (b) the parsed cache ``NAME.npz`` in
    :func:`get_data_home`, (c) raw files already in the cache, (d) the mirror
    directory (``NAME.bz2`` files plus a ``MANIFEST.json`` giving ``file``,
    ``n_samples``, ``n_features`` and ``sha256_uncompressed``), copied into the cache,
    and (e) the record's official address(es), downloaded into
    ``data_home/downloads/KEY/FILE`` (``KEY`` a hash of the whole address, ``FILE`` the
    file name of its path). Raw files are verified (sha256 of the uncompressed text when
    known, else the number of rows); a file that fails is removed from the cache. The
    parsed data are cached as ``NAME.npz`` (no pickle), stamped with the record fields
    they depend on (addresses, checksum, format, size, ``positive_label``, ``binarize``):
    after ``register_dataset(..., replace=True)`` changes one, they are parsed again. A
    download or copy goes through a partial file, removed if it fails or is interrupted.
    The source used is logged (``logging.INFO``).

    Parameters
    ----------
    name : str
        Registry name (see :func:`list_datasets`).
    data_home : str or Path, optional
        Cache directory (default: :func:`get_data_home`).
    mirror : str or Path, optional
        Mirror directory; default ``$AUCOPT_DATA_MIRROR`` if set.
    download : bool, default=True
        Allow downloads from the official address.
    return_sparse : bool, optional
        Force CSR (True) or dense (False) output; default: CSR for the datasets the
        registry marks as sparse.
    verify : bool, default=True
        Check the sha256 / shape of raw files before using them. Data read without the
        check are not written to the parsed cache (a later ``verify=True`` call checks
        the raw file).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or CSR matrix
        float64; dense arrays are C-contiguous, CSR matrices have sorted indices.
    y : ndarray of shape (n_samples,)
        int64. Two-class data: {-1, +1}, +1 being the registry's positive class.
        Multi-class data (``dataset_info(name).binarize`` is set): the original
        class labels, to be passed to :func:`aucopt.datasets.binarize`.

    Raises
    ------
    DatasetNotAvailableError
        Nothing local and ``download=False``, or a format fetch cannot read.
    DatasetDownloadError
        The download failed (network, HTTP error such as 404, cut short).
    DatasetIntegrityError
        A file does not match the registry record (it was removed from the cache).
    """
    info = dataset_info(name)
    sparse = sparse_flag(return_sparse, info.sparse)
    if info.bundled:
        return load(info.name, return_sparse=return_sparse)
    home = get_data_home(data_home)
    npz = home / f"{info.name}.npz"
    cached = load_npz(npz, info, verify)
    if cached is not None:
        logger.info("%s: parsed cache %s", info.name, npz)
        return as_output(*cached, sparse)
    source, root = _cached_raw(info, home), None
    if source is None:
        root = _mirror_dir(mirror)
        source = _from_mirror(info, root, home) if root is not None else None
    if source is None:
        if info.format not in _READABLE or not download:
            raise _not_available(info, home, root)
        urls = (info.url, *info.extra_urls)
        paths = [download_path(home, url) for url in urls]
        for url, path in zip(urls, paths):
            if not path.is_file():
                _download(url, path)
        sha = info.sha256 if info.sha256_of == "download" and len(urls) == 1 else None
        source = _Source(paths, sha, "download",
                         f"Retry fetch({info.name!r}); if the check fails again, the file at "
                         f"{info.url} differs from the registry record (report it, or "
                         "register_dataset(..., replace=True) an updated record).")
    X, y = _read(source, info, verify)
    logger.info("%s: %d x %d read from %s (%s)", info.name, X.shape[0], X.shape[1],
                source.origin, ", ".join(str(p) for p in source.paths))
    if verify:  # unverified data are not kept as if they had been checked
        save_npz(npz, X, y, info)
    return as_output(X, y, sparse)
