"""Files that appear whole or not at all: reports, tables and figures written atomically."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["replaced_on_success", "write_atomic"]


@contextlib.contextmanager
def replaced_on_success(path, tmp=None):
    """Yield a temporary path beside ``path`` (``tmp``, or a hidden name of its own); when the
    block ends without an error, move it onto ``path`` (``os.replace``: a reader sees the old
    file or the new one, never a part).

    Whatever fails inside the block (a full disk, an error while the content is formed,
    Ctrl-C) leaves ``path`` as it was and no temporary file behind.
    """
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():  # (else the error would name the hidden temporary file)
        raise (NotADirectoryError if folder.exists() else FileNotFoundError)(
            f"cannot write {path}: {folder} is not a folder"
            f"{'' if folder.exists() else ' (no such folder; create it first)'}.")
    if path.is_dir():  # (the same: os.replace would name the temporary file)
        raise IsADirectoryError(f"cannot write {path}: it is a folder; give a file name "
                                "(inside it, or beside it).")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp") if tmp is None else Path(tmp)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            if os.path.lexists(tmp):
                os.unlink(tmp)


def write_atomic(path, data: str | bytes, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` atomically; return the path."""
    with replaced_on_success(path) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding=encoding)
        else:
            tmp.write_bytes(data)
    return Path(path)
