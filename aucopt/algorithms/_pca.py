"""Principal axes of the rows for OPAUC^pca (Gao et al. 2013, Section 6.2: the data projected on
its top principal components before OPAUC runs)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._spec import RowData

__all__ = ["pca_components"]


def pca_components(rows: RowData, k: int, weights=None) -> np.ndarray:
    """Return the top-``k`` principal axes of the rows as a (k, d) array (rows orthonormal).

    The covariance (1/n) sum (x - m)(x - m)^T is formed (d x d, the memory
    limit was checked for k <= d) and diagonalised; the sign of each axis is
    fixed so that its largest-magnitude entry is positive (deterministic).
    With sample ``weights`` ``v`` the mean and covariance are weighted,
    ``sum v (x - m)(x - m)^T / sum v`` (integer weights: the PCA of repeated rows;
    notes.md#sample-weights); all-ones weights take the unweighted path.
    """
    d = rows.n_features
    if weights is not None and (weights == 1.0).all():
        weights = None
    X = rows.data
    if rows.is_sparse:
        X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.n_samples, d))
    if weights is not None:
        total = float(weights.sum())
        mean = np.asarray(X.T @ weights).ravel() / total
        gram = X.T @ (X.multiply(weights[:, None]) if rows.is_sparse else X * weights[:, None])
        gram = np.asarray(gram.toarray() if sp.issparse(gram) else gram) / total
    elif rows.is_sparse:
        mean = np.asarray(X.mean(axis=0)).ravel()
        gram = np.asarray((X.T @ X).toarray()) / rows.n_samples
    else:
        mean = X.mean(axis=0)
        gram = X.T @ X / rows.n_samples
    cov = gram - np.outer(mean, mean)
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    top = vectors[:, ::-1][:, :k].T.copy()
    signs = np.sign(top[np.arange(k), np.argmax(np.abs(top), axis=1)])
    signs[signs == 0] = 1.0
    return np.ascontiguousarray(top * signs[:, None])
