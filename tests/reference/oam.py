"""Slow NumPy transcription of OAM_seq / OAM_gra (thesis Algorithms 4-7, Natole 2020, Algorithms
4-7).

Written from the pseudocode, independently of the kernel: Python lists as
reservoirs, one loop per sample, dense arrays only. The random draws (two
uniforms per arrival: reservoir coin and slot) are passed in.
"""

import numpy as np


def reservoir_update(buffer, item, capacity, seen, u_coin, u_slot):
    """Reservoir sampling (Vitter's algorithm R): append ``item = (x, weight)`` while not
    full, else replace a random slot w.p. N / seen."""
    x, weight = item
    if len(buffer) < capacity:
        buffer.append((x.copy(), weight))
    elif u_coin < capacity / seen:
        buffer[int(u_slot * capacity)] = (x.copy(), weight)


def oam(X, y, orders, draws, *, C, buffer_size, update, w0=None, sample_weight=None):
    """Run OAM over the passes ``orders``; return ``(w, t)``.

    ``sample_weight`` (notes.md#sample-weights): the comparison of the arriving row ``t``
    with a stored row ``b`` costs ``C_t w_t w_b`` (OAM_seq: the proximal step's cap;
    OAM_gra: the hinge subgradient's weight); the reservoirs keep rows as without weights.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,) in {-1, +1}
    orders : list of int arrays, one per pass
    draws : list of arrays of shape (len(order), 2), one per pass
    C : float
    buffer_size : int (N+ = N- = N)
    update : "sequential" or "gradient"
    sample_weight : ndarray of shape (n,) or None
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    w = np.zeros(X.shape[1]) if w0 is None else np.array(w0, dtype=float)
    buffers = {1.0: [], -1.0: []}
    seen = {1.0: 0, -1.0: 0}
    t = 0
    for order, pass_draws in zip(orders, draws):
        for r, i in enumerate(order):
            x, yt, wt = X[i], float(y[i]), weight[i]
            seen[yt] += 1
            c_t = C * max(1.0, seen[-yt] / buffer_size)  # notes.md#oam
            reservoir_update(buffers[yt], (x, wt), buffer_size, seen[yt], *pass_draws[r])
            other = buffers[-yt]
            if not other:
                continue
            t += 1
            if update == "sequential":  # Alg. 6: argmin ||w' - w||^2 + C_t hinge(w'.u)
                for b, wb in other:
                    u = yt * (x - b)
                    if u @ u <= 1e-12 * (x @ x + b @ b):
                        continue
                    loss = max(0.0, 1.0 - w @ u)
                    w = w + min(c_t * wt * wb / 2.0, loss / (u @ u)) * u
            else:  # Alg. 7: all comparisons with the incoming w
                w_new = w.copy()
                for b, wb in other:
                    if yt * (w @ (x - b)) <= 1.0:
                        w_new = w_new + c_t * wt * wb * yt * (x - b) / 2.0
                w = w_new
    return w, t


def oam_gra_all_pairs(X, y, order, C):
    """OAM_gra with unbounded buffers written over the data: all earlier opposite examples."""
    X = np.asarray(X, dtype=float)
    w = np.zeros(X.shape[1])
    for k, i in enumerate(order):
        earlier = [j for j in order[:k] if y[j] != y[i]]
        step = np.zeros_like(w)
        for j in earlier:
            if y[i] * (w @ (X[i] - X[j])) <= 1.0:
                step += y[i] * (X[i] - X[j])
        w = w + C / 2.0 * step
    return w
