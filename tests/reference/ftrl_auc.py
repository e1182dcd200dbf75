"""Slow NumPy transcription of FTRL-AUC (Zhou, Ying, Skiena, ICDM 2020).

Written from the method's description, independently of the kernel: dense
vectors only, every coordinate's weight recomputed from ``(z, n)`` at every
step (no laziness), class statistics recomputed from the samples seen so far.

Per sample ``(x, y)`` (first pass: added to the statistics before its step):

* ``p = n+/n``, ``m+``, ``m-`` the class means of the samples seen;
* ``w_j = 0`` if ``|z_j| <= lam1`` else
  ``-(z_j - sign(z_j) lam1) / ((beta + sqrt(n_j))/alpha + lam2)`` (FTRL-Proximal);
* ``a = w.m+``, ``b = w.m-``, ``alpha_F = b - a`` (inner optimum of the saddle
  function F of Ying et al. 2016), gradient of F in ``w``:
  ``G = 2(1-p)(w.x - a) x - 2(1 + alpha_F)(1-p) x`` (y = +1) or
  ``G = 2p(w.x - b) x + 2(1 + alpha_F) p x`` (y = -1);
* ``sigma = (sqrt(n + G^2) - sqrt(n))/alpha``, ``z += G - sigma w``, ``n += G^2``.
"""

import numpy as np


def weights(z, n, alpha, beta, lam1, lam2):
    """Return the FTRL-Proximal weights of all coordinates."""
    w = -(z - np.sign(z) * lam1) / ((beta + np.sqrt(n)) / alpha + lam2)
    return np.where(np.abs(z) <= lam1, 0.0, w)


def ftrl_auc(X, y, orders, *, alpha, beta=1.0, lam1=0.0, lam2=0.0, z0=None, n0=None,
             sample_weight=None):
    """Run FTRL-AUC over the passes ``orders``; return ``(w, z, n, t)``.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n, d)
    y : ndarray of shape (n,) in {-1, +1}
    orders : list of int arrays, one per pass (the first pass sees new data)
    alpha, beta, lam1, lam2 : FTRL-Proximal hyperparameters
    z0, n0 : initial per-coordinate state (warm start), zeros by default
    sample_weight : optional weights (notes.md#sample-weights): p and the class means are
        weighted, and the gradient of row i is scaled by its weight
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    d = X.shape[1]
    z = np.zeros(d) if z0 is None else np.array(z0, dtype=float)
    n = np.zeros(d) if n0 is None else np.array(n0, dtype=float)
    seen = []
    t = 0
    for epoch, order in enumerate(orders):
        for i in order:
            if epoch == 0:
                seen.append(i)
            idx = np.asarray(seen)
            pos, neg = idx[y[idx] > 0], idx[y[idx] < 0]
            if pos.size == 0 or neg.size == 0:
                continue
            w = weights(z, n, alpha, beta, lam1, lam2)
            if sample_weight is None:
                p = pos.size / idx.size
                a, b = w @ X[pos].mean(axis=0), w @ X[neg].mean(axis=0)
            else:
                sw = np.asarray(sample_weight, dtype=float)
                p = sw[pos].sum() / sw[idx].sum()
                a = w @ np.average(X[pos], axis=0, weights=sw[pos])
                b = w @ np.average(X[neg], axis=0, weights=sw[neg])
            alpha_f = b - a
            x = X[i]
            if y[i] > 0:
                G = 2 * (1 - p) * (w @ x - a) * x - 2 * (1 + alpha_f) * (1 - p) * x
            else:
                G = 2 * p * (w @ x - b) * x + 2 * (1 + alpha_f) * p * x
            if sample_weight is not None:
                G = sample_weight[i] * G
            t += 1
            sigma = (np.sqrt(n + G**2) - np.sqrt(n)) / alpha
            z = z + G - sigma * w
            n = n + G**2
    return weights(z, n, alpha, beta, lam1, lam2), z, n, t
