"""Reading the ``.npy`` members of an ``.npz`` archive without :mod:`ast`.

``numpy.lib.format`` parses a member's header with ``ast.literal_eval``, whose recursion
counter CPython 3.11 shares between threads (gh-106905): a garbage collection running a
finalizer in the middle of a parse lets another thread's parse move the counter, and the
first one raises ``SystemError: AST constructor recursion depth mismatch``. Loads of
models or of cached datasets from several threads then failed. The header numpy writes
is a dict literal of three keys; it is matched here, and the member's size is checked
against it before anything is allocated.
"""

from __future__ import annotations

import math
import re
import zipfile

import numpy as np

_HEADER = re.compile(
    r"\{\s*'descr'\s*:\s*'(?P<descr>[^'\\]{1,64})'\s*,"
    r"\s*'fortran_order'\s*:\s*(?P<fortran>False|True)\s*,"
    r"\s*'shape'\s*:\s*\((?P<shape>\s*(?:\d+\s*,\s*)*(?:\d+\s*)?)\)\s*,?\s*\}\s*")
# numpy's own bound on the header it reads without being told to trust the file.
_MAX_HEADER = 10_000
# The width of the header's length field, by format version.
_LENGTH = {(1, 0): "<u2", (2, 0): "<u4", (3, 0): "<u4"}


def _header(member, file_size: int):
    """Read the header of one ``.npy`` member and return ``(dtype, shape)`` after checking
    that the member holds exactly the bytes the header declares."""
    version = np.lib.format.read_magic(member)
    if version not in _LENGTH:
        raise ValueError(f"unsupported .npy version {version}")
    width = np.dtype(_LENGTH[version]).itemsize
    length = int(np.frombuffer(member.read(width).ljust(width, b"\0"), _LENGTH[version])[0])
    if length > _MAX_HEADER:
        raise ValueError(f"its header declares {length} bytes (numpy writes under {_MAX_HEADER})")
    text = member.read(length).decode("latin1")
    match = _HEADER.fullmatch(text)
    if len(text) != length or match is None:
        raise ValueError("its header is not the one numpy writes for an array")
    try:
        dtype = np.dtype(match["descr"])
    except TypeError:
        raise ValueError(f"its header declares an unknown dtype {match['descr']!r}") from None
    shape = tuple(int(n) for n in match["shape"].replace(",", " ").split())
    if dtype.hasobject or match["fortran"] == "True":
        raise ValueError("object or Fortran-ordered arrays are never written by aucopt")
    nbytes = math.prod(shape) * dtype.itemsize
    held = file_size - member.tell()
    if nbytes != held:
        raise ValueError(f"its header declares shape {shape} ({nbytes} bytes) but it holds "
                         f"{held} bytes")
    return dtype, shape


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """Return the array of one ``.npy`` member of ``archive``, read after its header was
    checked.

    Raises
    ------
    ValueError
        The header is not numpy's, declares an object or Fortran-ordered array, or another
        size than the member holds.
    """
    with archive.open(info) as member:
        dtype, shape = _header(member, info.file_size)
        array = np.empty(shape, dtype=dtype)
        view = memoryview(array.reshape(-1).view(np.uint8)) if array.size else None
        done = 0
        while view is not None and done < len(view):
            read = member.readinto(view[done:])
            if not read:
                raise EOFError(f"the member ends after {done} of {len(view)} bytes")
            done += read
    return array


def read_npz(path) -> dict[str, np.ndarray]:
    """Return every array of the ``.npz`` archive at ``path`` (see :func:`read_member`)."""
    with zipfile.ZipFile(path) as archive:
        return {info.filename.removesuffix(".npy"): read_member(archive, info)
                for info in archive.infolist()}
