"""Slow NumPy transcription of SOLAM / SOLAM-l1 / regSOLAM (Natole 2020, Algs. 10 and 18, Natole
2020, Algorithm 10; Natole 2020, Algorithm 18).

Written from the pseudocode, independently of the kernel: one Python loop per
example, all partial derivatives of F-hat written out, dense arrays only.
"""

import numpy as np


def project_l1_ball(v, radius):
    """Spec P2, literally (sort-based)."""
    if np.abs(v).sum() <= radius:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    cs = np.cumsum(u)
    j = np.arange(1, len(v) + 1)
    rho = j[u - (cs - radius) / j > 0].max()
    theta = (cs[rho - 1] - radius) / rho
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


def project_l2_ball(v, radius):
    """Spec P1."""
    norm = np.linalg.norm(v)
    return v.copy() if norm <= radius else radius * v / norm


def partials(w, a, b, alpha, x, y, p):
    """Return (dF/dw, dF/da, dF/db, dF/dalpha) of notes.md#saddle-function at one example."""
    s = w @ x
    pos, neg = float(y == 1), float(y == -1)
    dw = (2 * (1 - p) * (s - a) * x * pos + 2 * p * (s - b) * x * neg
          + 2 * (1 + alpha) * (p * neg - (1 - p) * pos) * x)
    da = -2 * (1 - p) * (s - a) * pos
    db = -2 * p * (s - b) * neg
    dalpha = 2 * (p * neg - (1 - p) * pos) * s - 2 * p * (1 - p) * alpha
    return dw, da, db, dalpha


def solam(X, y, orders, *, R, kappa, zeta, ball="l2", lam=0.0, state=None, sample_weight=None):
    """Run SOLAM over the passes ``orders`` (one stream); return a dict of the iterates.

    Parameters
    ----------
    X, y : dense data, labels in {-1, +1}
    orders : list of index arrays (the stream is their concatenation)
    R, kappa, zeta : radius, max row norm, step scale (gamma_t = zeta / sqrt(t))
    ball : "l2" or "l1" (the w constraint)
    lam : regSOLAM's l2 weight (0 for SOLAM); dF_lam/dw = dF/dw + lam w
    state : optional dict (w, a, b, alpha) to start from
    sample_weight : optional weights (notes.md#sample-weights): p_hat is the positive share
        of the weight received, and the partials of F_lam at row i (lam w included) are
        scaled by its weight
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    st = state or {}
    w = np.array(st.get("w", np.zeros(X.shape[1])), dtype=float)
    a, b, alpha = st.get("a", 0.0), st.get("b", 0.0), st.get("alpha", 0.0)
    w_bar, a_bar, b_bar, alpha_bar = np.zeros_like(w), 0.0, 0.0, 0.0
    gamma_bar, p_hat, t = 0.0, 0.0, 0
    scales = []  # l2 ball: the factor (1 - gamma lam) min(1, R / ||step||) of each step
    received = {1: 0.0, -1: 0.0}  # weight received per class (sample_weight given)
    for order in orders:
        for i in order:
            t += 1
            if sample_weight is None:
                p_hat = ((t - 1) * p_hat + float(y[i] == 1)) / t
                dw, da, db, dalpha = partials(w, a, b, alpha, X[i], y[i], p_hat)
                dw = dw + lam * w
                weight = 1.0
            else:
                weight = sample_weight[i]
                received[int(y[i])] += weight
                p_hat = received[1] / (received[1] + received[-1])
                dw, da, db, dalpha = partials(w, a, b, alpha, X[i], y[i], p_hat)
                dw = weight * (dw + lam * w)
                da, db, dalpha = weight * da, weight * db, weight * dalpha
            gamma = zeta / np.sqrt(t)
            # gamma-weighted average of v_1 .. v_t
            new_bar = gamma_bar + gamma
            w_bar = (gamma_bar * w_bar + gamma * w) / new_bar
            a_bar = (gamma_bar * a_bar + gamma * a) / new_bar
            b_bar = (gamma_bar * b_bar + gamma * b) / new_bar
            alpha_bar = (gamma_bar * alpha_bar + gamma * alpha) / new_bar
            gamma_bar = new_bar
            step = w - gamma * dw
            w = project_l1_ball(step, R) if ball == "l1" else project_l2_ball(step, R)
            ball_scale = min(1.0, R / max(np.linalg.norm(step), 1e-300))
            scales.append((1 - gamma * weight * lam) * ball_scale)
            a = np.clip(a - gamma * da, -R * kappa, R * kappa)
            b = np.clip(b - gamma * db, -R * kappa, R * kappa)
            alpha = np.clip(alpha + gamma * dalpha, -2 * R * kappa, 2 * R * kappa)  # ascent
    return dict(w=w, a=a, b=b, alpha=alpha, w_bar=w_bar, a_bar=a_bar, b_bar=b_bar,
                alpha_bar=alpha_bar, t=t, scales=np.array(scales))


def saddle_point(X, y, lam=0.0):
    """Return (w*, a*, b*, alpha*) of E[F_lam] with inactive constraints (notes.md#closed-forms)."""
    X = np.asarray(X, dtype=float)
    pos, neg = X[y > 0], X[y < 0]
    p = len(pos) / len(X)
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    w = np.linalg.solve(sigma2 + lam / (2 * p * (1 - p)) * np.eye(X.shape[1]), mu)
    a, b = w @ pos.mean(0), w @ neg.mean(0)
    return w, a, b, b - a
