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


def vrspam(X, y, picks, *, beta, beta1=0.0, eta, w0=None, spam_order=None):
    """Run one stage per entry of ``picks``; return the list of snapshots.

    ``spam_order``: when given (and ``w0`` is None), start from the averaged
    iterate of one SPAM pass over that order with the training statistics.
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    p = np.mean(y > 0)
    m_pos, m_neg = X[y > 0].mean(0), X[y < 0].mean(0)
    if w0 is not None:
        w_tilde = np.array(w0, dtype=float)
    elif spam_order is not None:
        _, w_tilde, _ = spam_ref.spam(X, y, [spam_order], beta=beta, beta1=beta1)
    else:
        w_tilde = np.zeros(X.shape[1])
    snapshots = []
    for stage_picks in picks:
        mu = sum(gradient(X, y, w_tilde, p, m_pos, m_neg, i) for i in range(n)) / n
        w = w_tilde.copy()
        for i in stage_picks:
            v = (gradient(X, y, w, p, m_pos, m_neg, i)
                 - gradient(X, y, w_tilde, p, m_pos, m_neg, i) + mu)
            w_hat = w - eta * v
            w = np.sign(w_hat) * np.maximum(np.abs(w_hat) - eta * beta1, 0) / (1 + eta * beta)
        w_tilde = w
        snapshots.append(w_tilde.copy())
    return snapshots
