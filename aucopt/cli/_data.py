"""Resolve a DATA argument: a registered dataset name or a LIBSVM/CSV file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp


def load_data(source: str, n_features: int | None = None):
    """Return ``(X, y, name)`` for a dataset name or a file path.

    Parameters
    ----------
    source : str
        A name from ``aucopt datasets list`` (bundled, cached, mirrored or
        downloaded), a LIBSVM file (optionally .bz2/.gz/.xz) or a CSV file
        whose last column is the label.
    n_features : int, optional
        Width of a model the data is for: a LIBSVM file whose highest feature
        index is lower is read with this width (its missing columns are zero).

    Returns
    -------
    tuple
    """
    from ..datasets import dataset_info, fetch, list_datasets

    path = Path(source)
    registered = {info.name for info in list_datasets()}
    if source not in registered and not path.exists() and _looks_like_a_path(source):
        raise FileNotFoundError(
            f"no such file: {path} (DATA is a dataset name from 'aucopt datasets list' or the "
            "path of a LIBSVM or CSV file).")
    if path.exists():
        if path.suffix.lower() == ".csv":
            table = np.genfromtxt(path, delimiter=",", dtype=float)
            if np.isnan(table[0]).all():
                table = table[1:]  # header row
            return table[:, :-1], table[:, -1], path.name
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(str(path))
        if n_features is not None and X.shape[1] < n_features:  # pad: no copy of the values
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
        return X, y, path.name
    dataset_info(source)  # raises a helpful error for unknown names
    X, y = fetch(source)
    return X, y, source


_FILE_SUFFIXES = (".csv", ".svm", ".libsvm", ".txt", ".dat", ".bz2", ".gz", ".xz")


def _looks_like_a_path(source: str) -> bool:
    """Whether ``source`` names a file rather than a dataset (a separator or a file suffix)."""
    return any(sep in source for sep in ("/", "\\")) or source.lower().endswith(_FILE_SUFFIXES)
