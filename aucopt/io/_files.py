"""File-system side of :mod:`aucopt.io`: bounded reads of regular files and atomic saves.

A saved model is two files, ``PATH.npz`` and ``PATH.json``. The JSON holds the
SHA-256 of the ``.npz`` bytes, so the two parts of one save are bound to each
other. A save

1. writes both parts to temporary files in the target directory
   (``.NAME.npz.<token>.tmp``, ``.NAME.json.<token>.tmp``), flushes and
   ``fsync``\\ s them;
2. keeps a hard link to the previous ``PATH.npz`` (``.NAME.npz.<token>.old``);
3. renames the new ``.npz`` into place, then the new ``.json`` (each rename
   is atomic), and ``fsync``\\ s the directory;
4. removes the link and any temporary file left in the directory by an
   earlier save of the same model that was killed.

If anything fails before the second rename, the previous ``.npz`` is put back
and the temporary files are removed. A process killed between the two
renames leaves the new ``.npz`` beside the old ``.json``; their hashes differ,
and :func:`aucopt.io.load` then finds the pending ``.json`` (or the kept
``.npz``) of that save and loads the new (or the old) model whole. Saves of
models in one directory are serialised by an advisory lock (``flock``) on the
directory, so two processes saving the same path cannot interleave their
renames.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import secrets
import stat
from pathlib import Path

from ..exceptions import ModelFileError

__all__ = ["read_regular", "open_regular", "sha256_file", "Transaction", "pending_files",
           "same_file"]

logger = logging.getLogger(__name__)

_CHUNK = 1 << 20
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW_DIR = getattr(os, "O_DIRECTORY", 0)


def _open_fd(path: Path) -> tuple[int, os.stat_result]:
    """Open ``path`` read-only without blocking; refuse anything but a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a directory, not a saved model file.") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise ModelFileError(f"{path} is {kind} (a FIFO, device or socket cannot hold a "
                             "saved model); nothing was read from it.")
    return fd, info


def read_regular(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """Return the bytes of the regular file ``path`` (at most its size, at most ``limit``)."""
    fd, info = _open_fd(path)
    try:
        if info.st_size > limit:
            raise ModelFileError(f"{path} has {info.st_size} bytes, more than the {limit} a "
                                 "saved model's metadata can have; it is not an aucopt model.")
        parts, left = [], info.st_size
        while left > 0:
            block = os.read(fd, min(left, _CHUNK))
            if not block:
                break
            parts.append(block)
            left -= len(block)
        return b"".join(parts), info
    finally:
        os.close(fd)


def open_regular(path: Path):
    """Return ``(file object, stat)`` of the regular file ``path`` opened for binary reading."""
    fd, info = _open_fd(path)
    return os.fdopen(fd, "rb"), info


def sha256_file(handle, size: int) -> str:
    """Return the hex SHA-256 of the first ``size`` bytes of ``handle`` (read from offset 0)."""
    digest = hashlib.sha256()
    handle.seek(0)
    left = size
    while left > 0:
        block = handle.read(min(left, _CHUNK))
        if not block:
            break
        digest.update(block)
        left -= len(block)
    handle.seek(0)
    return digest.hexdigest()


def same_file(info: os.stat_result, path: Path) -> bool:
    """Return whether ``path`` is still the file ``info`` was taken from."""
    try:
        now = os.stat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)


def pending_files(target: Path) -> list[Path]:
    """Return the temporary and kept files of saves of ``target`` (``PATH.npz``/``.json``)."""
    prefix = f".{target.name}."
    try:
        names = os.listdir(target.parent)
    except OSError:
        return []
    return sorted(target.parent / n for n in names
                  if n.startswith(prefix) and n.endswith((".tmp", ".old")))


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | _NOFOLLOW_DIR)
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems cannot sync a directory; the data is synced
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _unlink(path: Path) -> None:
    """Remove ``path`` if it exists (a missing file is no error, whatever the file system
    says: a read-only one answers EROFS for a file that was never created)."""
    try:
        os.unlink(path)
    except OSError:
        if os.path.lexists(path):
            raise


class Transaction:
    """One atomic save of ``npz_path`` and ``json_path`` (see the module docstring).

    Use as a context manager: write the parts with :meth:`write`, then call
    :meth:`commit`. Leaving the block without a commit (any exception) removes
    the temporary files; the previous model is untouched.
    """

    def __init__(self, json_path: Path, npz_path: Path):
        self.json_path, self.npz_path = json_path, npz_path
        self.folder = json_path.parent
        token = secrets.token_hex(6)
        self.tmp = {p: p.with_name(f".{p.name}.{token}.tmp") for p in (npz_path, json_path)}
        self.kept = npz_path.with_name(f".{npz_path.name}.{token}.old")
        self._lock, self.committed = None, False

    def __enter__(self):
        for target in (self.json_path, self.npz_path):
            if target.exists() and not target.is_file():
                raise ModelFileError(f"cannot save to {target}: it exists and is not a regular "
                                     "file (a directory?); choose another path.")
        self._lock = os.open(self.folder, os.O_RDONLY | _NOFOLLOW_DIR)
        try:
            import fcntl

            fcntl.flock(self._lock, fcntl.LOCK_EX)
        except (ImportError, OSError) as exc:  # no advisory locks here (some network file
            # systems): concurrent saves of one path may race; each save is still atomic
            logger.debug("No lock on %s (%s); saving without it.", self.folder, exc)
        return self

    def __exit__(self, kind, exc, tb):
        try:
            if not self.committed:
                for path in self.tmp.values():
                    try:
                        _unlink(path)
                    except OSError as error:  # keep the error that stopped the save
                        logger.warning("Could not remove the temporary file %s: %s", path,
                                       error)
        finally:
            os.close(self._lock)  # releases the lock
        return False

    def write(self, target: Path, fill) -> Path:
        """Create the temporary file of ``target``, let ``fill(handle)`` write it, fsync it."""
        path = self.tmp[target]
        with open(path, "xb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        return path

    def commit(self) -> None:
        """Rename both temporary files into place (``.npz`` first) and sync the directory.

        Once both renames are done the save has taken effect; the steps after them
        (syncing the directory, removing the kept ``.npz`` and files left by killed
        saves) are best effort: a failure there is logged, not raised, so that an
        error from :func:`aucopt.io.save` always means the previous model is in place.
        """
        kept = False
        if self.npz_path.exists():
            try:
                os.link(self.npz_path, self.kept)
                kept = True
            except OSError:  # no hard links here: a failure below cannot restore the old .npz
                kept = False
        try:
            os.replace(self.tmp[self.npz_path], self.npz_path)
        except BaseException:
            if kept:
                _unlink(self.kept)
            raise
        try:
            os.replace(self.tmp[self.json_path], self.json_path)
        except BaseException:
            if kept:  # put the previous .npz back beside the previous .json
                os.replace(self.kept, self.npz_path)
            raise
        self.committed = True
        try:
            _fsync_dir(self.folder)
            for stale in pending_files(self.npz_path) + pending_files(self.json_path):
                _unlink(stale)  # the kept .npz, files of killed saves (we hold the lock)
        except OSError as exc:
            logger.warning("%s was saved, but syncing or tidying its directory failed (%s); "
                           "a crash now may bring back the previous model.", self.json_path,
                           exc)
