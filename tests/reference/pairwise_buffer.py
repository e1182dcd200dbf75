"""Slow NumPy transcription of the buffered online pairwise OGD (Yang et al. 2021; Kar et al. 2013;
notes.md#reservoir).

OGD-FIFO (Yang et al. 2021): the buffer is the previous example. Kar et al.'s
OLP: an RS-x buffer. Python lists as buffers, one loop per sample, dense
arrays only; RS-x draws (one uniform per slot and arrival) are passed in.
"""

import numpy as np


def rsx_update(buffer, item, capacity, t, u):
    """RS-x: fill; at t = s+1 resample s with replacement from the s+1 points; then 1/t swaps."""
    if len(buffer) < capacity:
        buffer.append(item)
    elif t == capacity + 1:
        pool = buffer + [item]
        buffer[:] = [pool[int(u[k] * (capacity + 1))] for k in range(capacity)]
    else:
        for k in range(capacity):
            if u[k] < 1.0 / t:
                buffer[k] = item


def dphi(loss, m):
    """Derivative of the pairwise surrogate phi at margin m."""
    if loss == "square":
        return -2.0 * (1.0 - m)
    return -1.0 if m <= 1.0 else 0.0


def pairwise_ogd(X, y, orders, draws=None, *, eta, lam=0.0, loss="square", radius=None,
                 schedule="inv_sqrt", policy="fifo", buffer_size=1, sample_weight=None):
    """Run the buffered OGD over the passes ``orders``; return ``(w_last, w_average, t)``.

    ``sample_weight`` (notes.md#sample-weights): the pair of the arriving row ``t`` with a
    stored row ``b`` is weighted by ``w_t w_b``; the buffer still divides by its number of
    rows and keeps its rows as without weights.
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w = np.zeros(X.shape[1])
    w_bar = np.zeros(X.shape[1])
    buffer = []
    t = seen = 0
    for p, order in enumerate(orders):
        for r, i in enumerate(order):
            x, yt, wt = X[i], float(y[i]), weight[i]
            seen += 1
            opposite = [(b, wb) for b, yb, wb in buffer if yb != yt]
            if opposite:
                t += 1
                eta_t = eta / np.sqrt(t) if schedule == "inv_sqrt" else eta
                grad = sum(wt * wb * dphi(loss, yt * (w @ (x - b))) * yt * (x - b)
                           for b, wb in opposite)
                w = (w - eta_t * grad / len(buffer)) / (1.0 + eta_t * lam)
                if radius is not None and np.linalg.norm(w) > radius:
                    w = w * radius / np.linalg.norm(w)
                w_bar = w_bar + (w - w_bar) / t
            if policy == "fifo":
                buffer = [(x.copy(), yt, wt)]
            else:
                rsx_update(buffer, (x.copy(), yt, wt), buffer_size, seen, draws[p][r])
    return w, w_bar, t
