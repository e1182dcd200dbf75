"""In-run floors of the benchmark: the least work any one-pass method must do per row.

* :func:`dot_floor`: one dot product per row (the issue's floor for every one-pass method),
  compiled with numba's default flags like the default kernels; its fastmath twin
  (``fastmath={'reassoc', 'contract'}``, a distinct cached function) is the streaming-read
  bound.
* :func:`symv_floors`: one symmetric d x d matrix-vector product per row, the intrinsic cost of
  OPAUC-type methods; the faster of BLAS ``dsymv`` (one triangle, called from numba through
  the same cacheable path as the kernels) and a numba loop over the full matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from aucopt._kernels._stats import symv_lower
from aucopt._kernels._variants import fastmath_variant

__all__ = ["dot_floor", "symv_floors"]


@njit(cache=True, nogil=True)
def _dot_dense(w, X):
    s = 0.0
    for i in range(X.shape[0]):
        t = 0.0
        for j in range(X.shape[1]):
            t += w[j] * X[i, j]
        s += t
    return s


@njit(cache=True, nogil=True)
def _dot_csr(w, data, indices, indptr):
    s = 0.0
    for i in range(indptr.shape[0] - 1):
        t = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            t += w[indices[k]] * data[k]
        s += t
    return s


@njit(cache=True, nogil=True)
def _symv_blas(S, X, out):
    s = 0.0
    for i in range(X.shape[0]):
        symv_lower(S, X[i], out)
        s += out[0]
    return s


@njit(cache=True, nogil=True)
def _symv_loop(S, X, out):
    d = S.shape[0]
    s = 0.0
    for i in range(X.shape[0]):
        for k in range(d):
            out[k] = 0.0
        for j in range(d):  # row axpys over the full symmetric matrix (they vectorise)
            xj = X[i, j]
            for k in range(d):
                out[k] += S[j, k] * xj
        s += out[0]
    return s


def dot_floor(X, fastmath=False):
    """Return a function running the dot-product floor over the rows of ``X``.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix
        The workload (C-contiguous float64 or CSR).
    fastmath : bool
        Use the fastmath twin.

    Returns
    -------
    callable
        No arguments; runs one pass.
    """
    w = np.full(X.shape[1], 0.5)
    if sp.issparse(X):
        kernel = fastmath_variant(_dot_csr) if fastmath else _dot_csr
        return lambda: kernel(w, X.data, X.indices, X.indptr)
    kernel = fastmath_variant(_dot_dense) if fastmath else _dot_dense
    return lambda: kernel(w, X)


def symv_floors(X):
    """Return ``{"blas": f, "loop": f}``: one symmetric matrix-vector product per row of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Dense rows.

    Returns
    -------
    dict of callables
    """
    d = X.shape[1]
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (d, d))
    S = np.ascontiguousarray(A + A.T)
    out = np.zeros(d)
    return {"blas": lambda: _symv_blas(S, X, out), "loop": lambda: _symv_loop(S, X, out)}
