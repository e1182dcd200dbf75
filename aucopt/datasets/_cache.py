"""The files of the dataset cache: downloads keyed by address, parsed ``NAME.npz`` files
stamped with their record, and partial files that never outlive their writer."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import time
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..utils._atomic import replaced_on_success
from ..utils._npz import read_npz
from . import _registry
from ._registry import _url_file_name, list_datasets

logger = logging.getLogger(__name__)

_NPZ_VERSION = 1
#: The record fields that decide the parsed arrays: which files are read (and checked
#: against what) and how their labels map. A ``NAME.npz`` made under other values is rebuilt.
_PARSED_FROM = ("url", "extra_urls", "filename", "format", "n_samples", "n_features", "sha256",
                "sha256_of", "positive_label", "binarize")
#: A partial file of a process that does not run here is removed once it has not been
#: written for this long (seconds): a writer on another machine sharing the cache writes
#: far more often than that.
STALE_PART_SECONDS = 600.0


def record_fingerprint(info) -> str:
    """Return a short hash of the fields of ``info`` that shape its parsed arrays.

    Parameters
    ----------
    info : DatasetInfo
        A registry record.

    Returns
    -------
    str
        16 hex digits.
    """
    fields = {key: getattr(info, key) for key in _PARSED_FROM}
    text = json.dumps(fields, sort_keys=True,
                      default=lambda v: v.item() if hasattr(v, "item") else str(v))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def download_path(home: Path, url: str) -> Path:
    """Return where the download of ``url`` is cached: ``downloads/KEY/FILE``.

    ``KEY`` is a hash of the whole address, so two addresses whose files have the same
    name (``.../a/train.svm``, ``.../b/train.svm``) never share a file; ``FILE`` is the
    file name of the address (its suffix picks the decompressor). A copy of the
    address's file that an earlier aucopt cached as ``downloads/FILE`` is moved there
    when the address is a built-in record's and no other known address serves a file of
    that name (otherwise it is left alone, and the file is downloaded again).

    Parameters
    ----------
    home : Path
        The cache directory.
    url : str
        The address.

    Returns
    -------
    Path
    """
    name = _url_file_name(url) or "download"
    target = home / "downloads" / hashlib.sha256(url.encode()).hexdigest()[:12] / name
    legacy = home / "downloads" / name
    if not target.is_file() and legacy.is_file() and _only_address(name) == url:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(legacy, target)
        logger.info("Moved %s, downloaded by an earlier aucopt from %s, to %s", legacy, url,
                    target)
    return target


def _only_address(name: str) -> str | None:
    """The one built-in address serving a file called ``name``, if no record names another."""
    def addresses(records):
        return {u for info in records for u in (info.url, *info.extra_urls)
                if _url_file_name(u) == name}

    builtin = addresses(_registry._RECORDS)
    known = addresses([*_registry._RECORDS, *list_datasets()])
    return next(iter(builtin)) if len(builtin) == 1 and known == builtin else None


def _running(pid: int) -> bool:
    """Whether the process ``pid`` runs on this machine (True when it cannot be told)."""
    if pid == os.getpid() or os.name == "nt":  # (os.kill would end a Windows process)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


def _drop_stale_parts(target: Path) -> None:
    """Remove the partial files of ``target`` left by processes that no longer run."""
    pattern = re.compile(re.escape(target.name) + r"\.(\d+)\.part")
    with contextlib.suppress(OSError):
        for part in target.parent.iterdir():
            match = pattern.fullmatch(part.name)
            if match is None or _running(int(match[1])):
                continue
            with contextlib.suppress(OSError):
                if time.time() - part.stat().st_mtime > STALE_PART_SECONDS:
                    part.unlink()
                    logger.info("Removed %s, left by an interrupted process %s", part, match[1])


@contextlib.contextmanager
def part_file(target: Path):
    """Yield the partial file ``target.NAME.<pid>.part`` to write ``target`` through.

    When the block ends without an error the part is moved onto ``target``, and the
    partial files of ``target`` that processes no longer running left behind (a power
    cut, ``kill -9``) are removed; whatever the block raises, Ctrl-C included, the part
    is removed.

    Parameters
    ----------
    target : Path
        The file to write.

    Yields
    ------
    Path
    """
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    with replaced_on_success(target, part):
        yield part
    _drop_stale_parts(target)


def discard(path: Path) -> None:
    """Remove ``path`` from the cache if it can (a read-only cache keeps it: the caller
    rebuilds what it needs from the raw file without it)."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        logger.warning("Could not remove %s from the cache (%s).", path, exc)


def load_npz(path: Path, info, verify: bool):
    """Return ``(X, y)`` from the parsed cache ``path``, or None (then removed) when it is
    missing, unreadable, of another shape or made from another version of the record."""
    if not path.is_file():
        return None
    try:
        z = read_npz(path)
        if int(z["version"]) != _NPZ_VERSION:
            raise ValueError(f"format version {int(z['version'])}")
        stamp = str(z["record"]) if "record" in z else None
        shape = tuple(int(s) for s in z["shape"])
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
        y = z["y"].astype(np.int64)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        logger.warning("Ignoring the unreadable parsed cache %s (%s); rebuilding it.", path, exc)
        discard(path)
        return None
    if stamp != record_fingerprint(info):
        logger.info("%s: the parsed cache %s was made from %s version of the record; "
                    "rebuilding it.", info.name, path, "another" if stamp else "an older")
        discard(path)
        return None
    if len(y) != shape[0] or shape[1] != info.n_features or (verify and
                                                               shape[0] != info.n_samples):
        logger.warning("The parsed cache %s (%d x %d) does not match the registry (%d x %d); "
                       "rebuilding it.", path, *shape, info.n_samples, info.n_features)
        discard(path)
        return None
    return X, y


def save_npz(path: Path, X, y, info) -> None:
    """Write the parsed cache ``path`` (no pickle), stamped with ``info``'s fingerprint; a
    failure is logged, not raised (the data were read)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    try:
        with part_file(path) as tmp, tmp.open("wb") as fh:
            np.savez(fh, version=np.int64(_NPZ_VERSION), record=np.str_(record_fingerprint(info)),
                     data=X.data, indices=X.indices, indptr=X.indptr,
                     shape=np.asarray(X.shape, dtype=np.int64), y=np.asarray(y, dtype=np.int64))
    except OSError as exc:
        logger.warning("Could not write the parsed cache %s (%s).", path, exc)
