"""Constant-memory reading of LIBSVM files in chunks, for streaming ``partial_fit``."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from itertools import islice
from pathlib import Path

import numpy as np

__all__ = ["iter_svmlight"]

_OPENERS = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}


def iter_svmlight(path, chunk_size=10_000, n_features=None, *, zero_based="auto"):
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

    Yields
    ------
    X_chunk : scipy.sparse.csr_matrix of shape (m, n_features), float64
    y_chunk : ndarray of shape (m,), float64 (labels as written in the file)
    """
    from sklearn.datasets import load_svmlight_file

    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}.")
    path = Path(path)
    opener = _OPENERS.get(path.suffix, open)
    with opener(path, "rb") as fh:
        while True:
            lines = list(islice(fh, chunk_size))
            if not lines:
                return
            if zero_based == "auto":  # decide once, on the first chunk
                zero_based = _looks_zero_based(lines)
            X, y = load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=n_features,
                                      zero_based=zero_based, dtype=np.float64)
            yield X, y


def _looks_zero_based(lines) -> bool:
    """Return True if some line of the chunk uses feature index 0."""
    for line in lines:
        for token in line.split()[1:]:
            if token.split(b":", 1)[0] == b"0":
                return True
    return False
