"""Slow NumPy transcription of VRSPAM (prox-SVRG on SPAM's finite sum, Dan & Sahoo, Algorithm 1)."""

import numpy as np

from . import spam as spam_ref


def gradient(X, y, w, p, m_pos, m_neg, i):
    """Return SPAM's per-sample gradient ``G(w; z_i)`` (Natole 2020, Algorithm 20, Lemma 4.1)."""
    a, b = w @ m_pos, w @ m_neg
    alpha = b - a
    x = X[i]
    if y[i] > 0:
        return 2 * (1 - p) * (w @ x - a) * x - 2 * (1 + alpha) * (1 - p) * x
    return 2 * p * (w @ x - b) * x + 2 * (1 + alpha) * p * x


def vrspam(X, y, picks, *, beta, beta1=0.0, eta, w0=None, spam_order=None, sample_weight=None):
    """Run one stage per entry of ``picks``; return the list of snapshots.

    ``spam_order``: when given (and ``w0`` is None), start from the averaged
    iterate of one SPAM pass over that order with the training statistics (with weights,
    its steps scaled by ``n w_i / W`` too).
    ``sample_weight``: the finite sum ``(1/W) sum_i w_i F_i`` with weighted statistics;
    the full gradient weighs row i by ``w_i / W``, an inner step on a uniformly drawn
    row is scaled by ``n w_i / W`` (notes.md#sample-weights).
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    pos, neg = y > 0, y < 0
    p = sw[pos].sum() / sw.sum()
    m_pos, m_neg = sw[pos] @ X[pos] / sw[pos].sum(), sw[neg] @ X[neg] / sw[neg].sum()
    if w0 is not None:
        w_tilde = np.array(w0, dtype=float)
    elif spam_order is not None:
        # its steps scaled by n w_i / W, as the inner steps (the statistics do not change)
        _, w_tilde, _ = spam_ref.spam(X, y, [spam_order], beta=beta, beta1=beta1, t0=0.0,
                                      sample_weight=None if sample_weight is None
                                      else sw * (n / sw.sum()))
    else:
        w_tilde = np.zeros(X.shape[1])
    snapshots = []
    for stage_picks in picks:
        mu = sum(sw[i] * gradient(X, y, w_tilde, p, m_pos, m_neg, i) for i in range(n)) / sw.sum()
        w = w_tilde.copy()
        for i in stage_picks:
            v = (n * sw[i] / sw.sum() * (gradient(X, y, w, p, m_pos, m_neg, i)
                                         - gradient(X, y, w_tilde, p, m_pos, m_neg, i)) + mu)
            w_hat = w - eta * v
            w = np.sign(w_hat) * np.maximum(np.abs(w_hat) - eta * beta1, 0) / (1 + eta * beta)
        w_tilde = w
        snapshots.append(w_tilde.copy())
    return snapshots
