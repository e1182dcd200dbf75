"""Slow NumPy transcription of FSAUC (Liu et al. 2018, Algorithms 1-3, Lemma 1; Liu et al. 2018,
Algorithms 1-3).

Written from the pseudocode, independently of the kernel: stages as an explicit
outer loop, the projection P5 by plain bisection on the multiplier, dense only.
"""

import math

import numpy as np

from .solam import partials, project_l1_ball


def project_c(v, R, box):
    """Pi onto Omega_1 = {||w||_1 <= R} x [-box, box]^2 (P2, P3, P4)."""
    out = v.copy()
    out[:-2] = project_l1_ball(v[:-2], R)
    out[-2:] = np.clip(v[-2:], -box, box)
    return out


def project_exact(v, c, r, R, box):
    """Spec P5: x(mu) = Pi_C((v + mu c)/(1 + mu)), bisection on mu to full precision."""
    def x(mu):
        return project_c((v + mu * c) / (1 + mu), R, box)

    x0 = x(0.0)
    if np.linalg.norm(x0 - c) <= r:
        return x0
    lo, hi = 0.0, 1.0
    while np.linalg.norm(x(hi) - c) > r:
        lo, hi = hi, 2 * hi
    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if np.linalg.norm(x(mid) - c) > r:
            lo = mid
        else:
            hi = mid
    return x(hi)


def project_dykstra(v, c, r, R, box, rounds=100000, tol=1e-15):
    """Dykstra's algorithm for C cap B(c, r)."""
    y, p, q = v.copy(), np.zeros_like(v), np.zeros_like(v)
    for _ in range(rounds):
        x = project_c(y + p, R, box)
        p = y + p - x
        z = x + q
        d = z - c
        y_new = c + d * min(1.0, r / np.linalg.norm(d)) if np.linalg.norm(d) > 0 else z
        q = z - y_new
        moved = np.sqrt(np.sum((y_new - y) ** 2) + np.sum((y - x) ** 2) + np.sum((x - y_new) ** 2))
        done = moved <= tol * (1 + np.linalg.norm(y_new))
        y = y_new
        if done:
            break
    return y


def project_alternating(v, c, r, R, box, rounds=100):
    """x <- Pi_B(Pi_C(x)) (Liu et al. 2018, Section 3.2)."""
    x = v.copy()
    for _ in range(rounds):
        x = project_c(x, R, box)
        d = x - c
        if np.linalg.norm(d) <= r * (1 + 1e-12):
            break
        x = c + d * r / np.linalg.norm(d)
    return x


def fsauc(X, y, orders, *, R, kappa, eta1, n, delta=0.1, decay="capped", stats="global",
          projection="exact", sample_weight=None):
    """Run FSAUC on the stream ``concat(orders)`` with budget ``n``.

    Stages of n0 = n // m examples; examples after the m-th stage continue in
    further stages (the output after stage m is v_hat_m). Returns a dict.
    ``sample_weight`` (notes.md#sample-weights): T and A are the weight and the weighted
    sum of each class, and the partials of F at row i are scaled by its weight.
    """
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    d = X.shape[1]
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    stream = np.concatenate(orders)
    m = 1 if n < 3 else max(1, math.floor(0.5 * math.log2(2 * n / math.log2(n))) - 1)
    n0 = max(1, n // m)
    R0 = 2 * math.sqrt(1 + 2 * kappa**2) * R
    beta_prev = 1 + 8 * kappa**2
    D = 2 * math.sqrt(2) * kappa * R0
    r, eta = R0, eta1
    L = math.log(12 / delta)
    v_hat, alpha_hat = np.zeros(d + 2), 0.0
    A = {1: np.zeros(d), -1: np.zeros(d)}
    T = {1: 0, -1: 0}
    project = {"exact": project_exact, "dykstra": project_dykstra,
               "alternating": project_alternating}[projection]
    pos = 0
    stages_done = 0
    while pos < len(stream):
        # PDSG(v_hat, alpha_hat, r, D, n0, eta)
        v1, alpha1 = v_hat.copy(), alpha_hat
        v, alpha = v1.copy(), alpha1
        if stats == "local":
            A = {1: np.zeros(d), -1: np.zeros(d)}
            T = {1: 0, -1: 0}
        iterates = []
        for i in stream[pos:pos + n0]:
            A[int(y[i])] = A[int(y[i])] + weights[i] * X[i]
            T[int(y[i])] += weights[i]
            p_hat = T[1] / (T[1] + T[-1])
            dw, da, db, dalpha = (weights[i] * g for g in
                                  partials(v[:d], v[d], v[d + 1], alpha, X[i], y[i], p_hat))
            iterates.append(v.copy())
            step = v - eta * np.concatenate([dw, [da, db]])
            v = project(step, v1, r, R, R * kappa)
            lo = max(-2 * R * kappa, alpha1 - D)
            hi = min(2 * R * kappa, alpha1 + D)
            alpha = min(max(alpha + eta * dalpha, lo), hi)
        pos += n0
        if len(iterates) < n0:
            break  # incomplete stage: its output is never used
        v_bar = np.mean(iterates, axis=0)
        mean_neg = A[-1] / T[-1] if T[-1] else np.zeros(d)
        mean_pos = A[1] / T[1] if T[1] else np.zeros(d)
        alpha_hat = float((mean_neg - mean_pos) @ v_bar[:d])
        v_hat = v_bar
        r = r / 2
        p_hat = T[1] / (T[1] + T[-1])
        q = min(p_hat, 1 - p_hat)
        c = 2 + math.sqrt(2 * L)
        den_d = q * n0 - math.sqrt(2 * n0 * L)
        D = (2 * math.sqrt(2) * kappa * r + 4 * math.sqrt(2) * kappa * c * (1 + 2 * kappa) * R
             / math.sqrt(den_d)) if den_d > 0 else 4 * R * kappa
        den_b = q - math.sqrt(2 * L / n0)
        beta = (1 + 8 * kappa**2 + 32 * kappa**2 * (1 + 2 * kappa) ** 2 * c**2 / den_b
                if den_b > 0 else beta_prev)
        if decay == "halve":
            eta_next = eta / 2
        else:
            eta_next = math.sqrt(beta) / (2 * math.sqrt(beta_prev)) * eta
            if decay == "capped":
                eta_next = min(eta_next, eta)
        beta_prev, eta = beta, eta_next
        stages_done += 1
    return dict(v_hat=v_hat, alpha_hat=alpha_hat, m=m, n0=n0, stages=stages_done, w=v_hat[:d])
