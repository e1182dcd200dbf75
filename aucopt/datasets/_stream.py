"""Constant-memory reading of LIBSVM files in chunks, for streaming ``partial_fit``.

One-pass learners follow the order of the stream, and many public LIBSVM files
are sorted by label: a bounded, seeded shuffle buffer (``shuffle_buffer=``)
mixes the rows before they are parsed.
"""

from __future__ import annotations

import io
import lzma
import zlib
from itertools import islice
from numbers import Integral
from pathlib import Path

import numpy as np

from ._fetch import _open

__all__ = ["iter_svmlight", "shuffled_lines"]


def shuffled_lines(lines, buffer_size: int, random_state=None):
    """Yield ``lines`` in a shuffled order, holding at most ``buffer_size`` of them.

    The buffer is filled first; then each new line replaces a uniformly drawn
    buffered one, which is yielded; at the end the rest of the buffer is
    yielded in a random order. A stream no longer than the buffer comes out as
    a uniform random permutation; a longer one is mixed over windows of about
    ``buffer_size`` lines (a file sorted by label then still starts with one
    class, so the estimators warn: see
    :class:`~aucopt.exceptions.OrderedStreamWarning`).

    Parameters
    ----------
    lines : iterable
        Any items (here: raw lines of a LIBSVM file).
    buffer_size : int
        Capacity of the buffer (memory: that many lines).
    random_state : None, int or numpy.random.Generator
        Seed of the draws.

    Yields
    ------
    item
    """
    rng = np.random.default_rng(random_state)
    buffer = []
    for line in lines:
        if len(buffer) < buffer_size:
            buffer.append(line)
            continue
        slot = int(rng.integers(buffer_size))
        yield buffer[slot]
        buffer[slot] = line
    for slot in rng.permutation(len(buffer)):
        yield buffer[slot]


def iter_svmlight(path, chunk_size=10_000, n_features=None, *, zero_based="auto",
                  shuffle_buffer=0, random_state=None):
    """Yield ``(X_chunk, y_chunk)`` from a LIBSVM file, ``chunk_size`` rows at a time.

    Memory is bounded by one chunk whatever the file size: lines are read
    lazily (``.bz2``, ``.gz`` and ``.xz`` are decompressed on the fly) and each
    chunk is parsed with :func:`sklearn.datasets.load_svmlight_file`.

    Parameters
    ----------
    path : str or Path
        LIBSVM text file, optionally compressed.
    chunk_size : int, default=10000
        Rows per chunk (the last chunk may be shorter).
    n_features : int, optional
        Number of features. Without it, the width of each chunk is its largest
        index, so pass it whenever chunks are fed to one model.
    zero_based : bool or "auto", default="auto"
        Index base, as in ``load_svmlight_file``. "auto" decides on the first
        chunk and keeps that choice for the whole file.
    shuffle_buffer : int, default=0
        Shuffle the rows through a buffer of this many lines (see
        :func:`shuffled_lines`; memory grows by that many raw lines). 0 keeps
        the file's order. Use it for one-pass learning on files that may be
        sorted (e.g. by label); a buffer at least as long as the file gives a
        uniform random order.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the shuffle buffer.

    Yields
    ------
    X_chunk : scipy.sparse.csr_matrix of shape (m, n_features), float64
    y_chunk : ndarray of shape (m,), float64 (labels as written in the file)
    """
    from sklearn.datasets import load_svmlight_file

    if not _count(chunk_size) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}.")
    if not _count(shuffle_buffer) or shuffle_buffer < 0:
        raise ValueError(f"shuffle_buffer must be an int >= 0; got {shuffle_buffer!r}.")
    if not (isinstance(zero_based, bool | np.bool_)
            or isinstance(zero_based, str) and zero_based == "auto"):  # (1.0 == True)
        raise ValueError(f"zero_based must be True, False or 'auto'; got {zero_based!r}.")
    if n_features is not None and (not _count(n_features) or n_features < 1):
        raise ValueError(f"n_features must be None or a positive int; got {n_features!r}.")
    chunk_size, shuffle_buffer, path = int(chunk_size), int(shuffle_buffer), Path(path)
    with _open(path) as fh:
        source = _data_lines(fh)
        if shuffle_buffer:
            source = shuffled_lines(source, shuffle_buffer, random_state)
        start = 0  # the data lines before the chunk
        while True:
            lines = _read_lines(source, chunk_size, path)
            if not lines:
                return
            if zero_based == "auto":  # decide once, on the first chunk
                zero_based = _looks_zero_based(lines)
            try:
                X, y = load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=n_features,
                                          zero_based=zero_based, dtype=np.float64)
            except ValueError as exc:
                raise ValueError(_parse_error(path, lines, None if shuffle_buffer else start,
                                              n_features, zero_based, exc)) from None
            start += len(lines)
            yield X, y


def _parse_error(path: Path, lines: list, start, n_features, zero_based,
                 exc: Exception) -> str:
    """Return the message for a chunk that does not parse: the first line that does not, by
    its place among the data lines (blank and comment lines not counted; ``start``: those
    before the chunk, None if shuffled), and its start."""
    from sklearn.datasets import load_svmlight_file

    for k, line in enumerate(lines):
        try:
            load_svmlight_file(io.BytesIO(line), n_features=n_features, zero_based=zero_based)
        except ValueError as error:
            hint = (" Its first lines hold no index 0, so it was read as one-based; a file "
                    "written from index 0 needs zero_based=True."
                    if not zero_based and "Invalid index 0" in str(error) else "")
            text = line.decode("utf-8", "replace").strip()
            if "," in text and ":" not in text:  # a CSV line
                hint += (" It looks like a CSV file: streams are read from LIBSVM files (or "
                         "River datasets); convert it, e.g. with "
                         "sklearn.datasets.dump_svmlight_file, or fit it with `aucopt fit`.")
            where = "a data line" if start is None else f"data line {start + k + 1}"
            return (f"{path.name}: {where} is not LIBSVM ({error}): "
                    f"{text[:60]!r}{'...' if len(text) > 60 else ''}.{hint}")
    return f"{path.name} is not a valid LIBSVM file ({exc})."


def _count(value) -> bool:
    """Whether ``value`` is an integer (numpy's too), not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool | np.bool_)


def _read_lines(source, n: int, path: Path) -> list:
    """Return the next ``n`` lines; a damaged or truncated compressed file is a ValueError."""
    try:
        return list(islice(source, n))
    except (EOFError, lzma.LZMAError, zlib.error) as exc:
        raise ValueError(f"{path} is truncated or damaged ({exc}): decompress it by hand to "
                         "see where, or download it again.") from None
    except OSError as exc:
        if exc.errno is not None:  # a failure of the file system: an OSError as it is
            raise
        raise ValueError(f"{path} is not a valid {path.suffix} file ({exc}).") from None


def _data_lines(fh):
    """The data lines of an open LIBSVM file (neither blank nor comments), every one ending
    with a newline (a last line without one, moved by a shuffle, would join the next)."""
    return (line if line.endswith(b"\n") else line + b"\n" for line in fh
            if line.strip() and not line.lstrip().startswith(b"#"))


def leading_zero_based(path, n_lines: int) -> bool:
    """Whether the first ``n_lines`` data lines of a LIBSVM file use feature index 0 (the
    base :func:`iter_svmlight`'s ``"auto"`` takes from the file without a shuffle)."""
    path = Path(path)
    with _open(path) as fh:
        return _looks_zero_based(_read_lines(_data_lines(fh), n_lines, path))


def _looks_zero_based(lines) -> bool:
    """Return True if some line of the chunk uses feature index 0 (in its data: a comment
    after ``#`` may hold any text)."""
    for line in lines:
        for token in line.split(b"#", 1)[0].split()[1:]:
            if token.split(b":", 1)[0] == b"0":
                return True
    return False
