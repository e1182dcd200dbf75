"""Slow NumPy transcription of SPAM (thesis Algorithm 20, Natole 2020, Algorithm 20).

Written from the pseudocode, independently of the kernel: one Python loop per
sample, class statistics recomputed from the samples seen, dense arrays only.
"""

import numpy as np


def _statistics(X, y, seen, decay=0.0, sample_weight=None):
    """Return p, m+, m-, M^2 of the rows ``seen`` (None when a class is missing).

    With ``decay``, the k-th of N rows seen weighs ``(1 - decay)^(N - 1 - k)``; with
    ``sample_weight``, row i also weighs ``sample_weight[i]`` (weighted proportion and
    means, notes.md#sample-weights).
    """
    idx = np.asarray(seen, dtype=int)
    pos, neg = idx[y[idx] > 0], idx[y[idx] < 0]
    if pos.size == 0 or neg.size == 0:
        return None
    m2 = max(float(X[i] @ X[i]) for i in idx)
    if decay == 0.0 and sample_weight is None:
        p = pos.size / idx.size
        return p, X[pos].mean(axis=0), X[neg].mean(axis=0), m2
    weight = (1.0 - decay) ** np.arange(idx.size - 1, -1, -1)
    if sample_weight is not None:
        weight = weight * sample_weight[idx]
    is_pos = y[idx] > 0
    w_pos, w_neg = weight[is_pos], weight[~is_pos]
    p = w_pos.sum() / weight.sum()
    return p, w_pos @ X[pos] / w_pos.sum(), w_neg @ X[neg] / w_neg.sum(), m2


def _step(schedule, t, eta0, beta, power_t, m2, t0):
    if schedule == "inv_sqrt":
        c = 4.0 / m2 if eta0 == "auto" else eta0
        return c / np.sqrt(t + t0)
    if schedule == "theory_poly":  # Theorem 4.1
        return beta / (128.0 * m2**2) / t**power_t
    c_tilde = beta / (1.0 + beta**2 / (128.0 * m2**2)) ** 2  # Theorem 4.2
    return 1.0 / (c_tilde * (t + 1.0))


def spam(X, y, orders, *, beta, beta1=0.0, eta0="auto", schedule="inv_sqrt", power_t=0.5,
         stats="train", n_warmup=0, w0=None, decay=0.0, t0=30.0, sample_weight=None):
    """Run SPAM over the passes ``orders``; return ``(w_last, w_average, t)``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,) in {-1, +1}
    orders : list of int arrays, one per pass (the first pass sees new data)
    beta, beta1 : l2 and l1 weights
    eta0 : float or "auto" (4 / max squared row norm of the statistics' rows)
    schedule : "inv_sqrt" (eta0 / sqrt(t + t0); the papers' schedule is t0 = 0),
        "theory_poly" or "theory_1_over_t"
    stats : "train" (all rows of X), "online" (rows seen, including the
        current one) or "warmup" (the first n_warmup rows seen, no step on them)
    decay : exponential forgetting of the "online" statistics (rows weighted by
        (1 - decay)^age)
    sample_weight : None or positive weights: weighted statistics, row i's step
        scaled by its weight, warm-up counted in weight (notes.md#sample-weights)
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1]) if w0 is None else np.array(w0, dtype=float)
    w_bar = np.zeros(X.shape[1])
    t = 0
    seen = list(range(X.shape[0])) if stats == "train" else []
    for epoch, order in enumerate(orders):
        for i in order:
            if epoch == 0 and stats == "online":
                seen.append(i)
            if epoch == 0 and stats == "warmup" and (
                    _weight(seen, sample_weight) < n_warmup  # (until both classes joined)
                    or min(_weight([j for j in seen if y[j] == c], sample_weight)
                           for c in (1.0, -1.0)) == 0):
                seen.append(i)
                continue
            st = _statistics(X, y, seen, decay, sample_weight) if seen else None
            if st is None:
                continue
            p, m_pos, m_neg, m2 = st
            a, b = w @ m_pos, w @ m_neg
            alpha = b - a
            x = X[i]
            if y[i] > 0:
                G = 2 * (1 - p) * (w @ x - a) * x - 2 * (1 + alpha) * (1 - p) * x
            else:
                G = 2 * p * (w @ x - b) * x + 2 * (1 + alpha) * p * x
            if sample_weight is not None:
                G = sample_weight[i] * G
            t += 1
            eta = _step(schedule, t, eta0, beta, power_t, m2, t0)
            w_hat = w - eta * G
            w = np.sign(w_hat) * np.maximum(np.abs(w_hat) - eta * beta1, 0.0) / (1 + eta * beta)
            w_bar = w_bar + (w - w_bar) / t
    return w, w_bar, t


def _weight(seen, sample_weight):
    return len(seen) if sample_weight is None else float(np.sum(sample_weight[seen]))


def closed_form(X, y, beta):
    """Return the SPAM-L2 minimiser ``(Sigma2 + beta/(2p(1-p)) I)^-1 mu``
    (notes.md#closed-forms)."""
    X = np.asarray(X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    p = len(pos) / len(X)
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    return np.linalg.solve(sigma2 + beta / (2 * p * (1 - p)) * np.eye(X.shape[1]), mu)


def objective(X, y, w, beta):
    """Return ``p(1-p) L_sq(w) + (beta/2)||w||^2`` with the empirical pairwise L_sq."""
    X = np.asarray(X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    p = len(pos) / len(X)
    diffs = 1.0 - (pos @ w)[:, None] + (neg @ w)[None, :]
    return p * (1 - p) * np.mean(diffs**2) + 0.5 * beta * w @ w
