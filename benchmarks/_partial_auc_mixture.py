"""The synthetic cases of ``benchmarks/partial_auc.py``: imbalanced mixtures whose top of the
ranking and bulk want different directions, and the frontier of the scorers built on those
directions (what any linear learner can reach at once in pAUC@0.1 and full AUC).

Negatives are standard normal, except ``DECOYS`` of them shifted by 3 along a direction
``u2``; positives are of two kinds: ``TOP`` of them far along ``u1`` (shift 4: they make the
top of a good ranking) and the others mildly along ``u2`` (shift 1.5: much of the full AUC,
but the decoys outrank them, and any weight on ``u2`` lifts the decoys into the top). A
full-AUC scorer leans on ``u2`` for the bulk; at low FPR ``u1`` matters.

Dense: d = 20, ``u1`` and ``u2`` the unit vectors of two coordinates each. Sparse (CSR):
d = 2,000, 60 non-zeros per row, every row with ``BLOCK_ENTRIES`` N(0, 1) entries at random
features of each direction's block of 100 features (the rest at random features outside the
blocks); a shifted row adds ``shift / sqrt(BLOCK_ENTRIES)`` to its entries in its
direction's block, so that the block sums scaled by ``1 / sqrt(BLOCK_ENTRIES)`` follow the
dense case's projections exactly (N(0, 1), plus the shift).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from aucopt.metrics import partial_roc_auc_score, roc_auc_score

__all__ = ["SHIFTS", "excess_loss", "frontier", "mixture", "projections", "room"]

DECOYS, TOP = 0.08, 0.4  # share of decoys among the negatives, of far positives
#: row kind -> (its direction, its shift along it); kind 0 (plain negatives) is not shifted
SHIFTS = {1: ("u2", 3.0), 2: ("u1", 4.0), 3: ("u2", 1.5)}
DENSE_FEATURES = 20
DENSE_AXES = {"u1": (0, 1), "u2": (2, 3)}  # the coordinates of each direction (dense)
SPARSE_FEATURES, SPARSE_NNZ, BLOCK = 2000, 60, 100
BLOCK_START = {"u1": 0, "u2": BLOCK}  # each direction's block of features (sparse)
BLOCK_ENTRIES = 10  # entries of every sparse row in each block
#: angles of the frontier's scorers ``cos(a) p_u1 + sin(a) p_u2``, in degrees
ANGLES = np.arange(-10.0, 100.25, 0.5)


def _kinds(n, pos_rate, rng):
    """Labels and row kinds: 0 plain negative, 1 decoy negative (DECOYS of the negatives),
    2 positive far along u1 (TOP of the positives), 3 positive mildly along u2."""
    n_pos = max(2, round(pos_rate * n))
    y = -np.ones(n, dtype=np.int64)
    y[rng.choice(n, n_pos, replace=False)] = 1
    kind = np.where(y > 0, np.where(rng.random(n) < TOP, 2, 3),
                    np.where(rng.random(n) < DECOYS, 1, 0))
    return y, kind


def mixture(n, pos_rate, *, sparse=False, seed=0):
    """Return ``(X, y)``: ``n`` rows of the mixture (module docstring), labels in {-1, 1}."""
    rng = np.random.default_rng(seed)
    y, kind = _kinds(n, pos_rate, rng)
    if not sparse:
        X = rng.standard_normal((n, DENSE_FEATURES))
        for k, (name, shift) in SHIFTS.items():
            axes = list(DENSE_AXES[name])
            X[np.ix_(kind == k, axes)] += shift * (1.0 / np.sqrt(len(axes)))
        return X, y
    outside = SPARSE_NNZ - 2 * BLOCK_ENTRIES
    cols = np.empty((n, SPARSE_NNZ), dtype=np.int64)
    for i in range(n):
        cols[i, :BLOCK_ENTRIES] = rng.choice(BLOCK, BLOCK_ENTRIES, replace=False)
        cols[i, BLOCK_ENTRIES:2 * BLOCK_ENTRIES] = BLOCK + rng.choice(BLOCK, BLOCK_ENTRIES,
                                                                      replace=False)
        cols[i, 2 * BLOCK_ENTRIES:] = rng.choice(np.arange(2 * BLOCK, SPARSE_FEATURES),
                                                 outside, replace=False)
    vals = rng.standard_normal((n, SPARSE_NNZ))
    for k, (name, shift) in SHIFTS.items():
        at = slice(0, BLOCK_ENTRIES) if BLOCK_START[name] == 0 else slice(
            BLOCK_ENTRIES, 2 * BLOCK_ENTRIES)
        vals[kind == k, at] += shift / np.sqrt(BLOCK_ENTRIES)
    order = np.argsort(cols, axis=1)
    cols, vals = np.take_along_axis(cols, order, 1), np.take_along_axis(vals, order, 1)
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n * SPARSE_NNZ + 1, SPARSE_NNZ)),
                      shape=(n, SPARSE_FEATURES))
    return X, y


def projections(X) -> tuple[np.ndarray, np.ndarray]:
    """Return the rows' coordinates along ``u1`` and ``u2`` (dense: the unit vectors; CSR:
    the block sums over ``sqrt(BLOCK_ENTRIES)``), each N(0, 1) plus the row's shift."""
    if not sp.issparse(X):
        return tuple(X[:, list(DENSE_AXES[u])].sum(1) / np.sqrt(len(DENSE_AXES[u]))
                     for u in ("u1", "u2"))
    X = sp.csc_matrix(X)
    return tuple(np.asarray(X[:, BLOCK_START[u]:BLOCK_START[u] + BLOCK].sum(1)).ravel()
                 / np.sqrt(BLOCK_ENTRIES) for u in ("u1", "u2"))


def frontier(X, y, max_fpr=0.1) -> np.ndarray:
    """Return an array of shape ``(len(ANGLES), 2)``: test pAUC at ``max_fpr`` and full AUC
    of the scorer ``cos(a) p_u1 + sin(a) p_u2`` of :func:`projections` at each angle ``a``
    (the scorers in the plane of the two directions the data are built from)."""
    p1, p2 = projections(X)
    out = np.empty((ANGLES.size, 2))
    for k, a in enumerate(np.radians(ANGLES)):
        s = np.cos(a) * p1 + np.sin(a) * p2
        out[k] = partial_roc_auc_score(y, s, max_fpr=max_fpr), roc_auc_score(y, s)
    return out


def room(front: np.ndarray, best_auc: float, best_pauc: float, allowed: float = 0.01):
    """Return ``(the frontier's best pAUC among its scorers whose AUC is at least best_auc -
    allowed, that minus best_pauc)``: how far above ``best_pauc`` a scorer of the frontier
    gets while losing at most ``allowed`` of full AUC (NaN, NaN if none is that close)."""
    within = front[:, 1] >= best_auc - allowed
    if not within.any():
        return float("nan"), float("nan")
    top = float(front[within, 0].max())
    return top, top - best_pauc


def excess_loss(front: np.ndarray, pauc: float, auc: float) -> float:
    """Return how much full AUC a model with test ``(pauc, auc)`` gives up beyond the trade-off
    itself: the frontier's best AUC among its scorers with a pAUC@0.1 of at least ``pauc``,
    minus ``auc`` (NaN if no scorer of the frontier reaches ``pauc``)."""
    reach = front[:, 0] >= pauc
    return float(front[reach, 1].max() - auc) if reach.any() else float("nan")
