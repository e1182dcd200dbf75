"""The synthetic cases of ``benchmarks/partial_auc.py`` (``benchmarks/_partial_auc_mixture.py``):
the sparse mixture has the dense one's geometry (its top of the ranking and its bulk want
different directions), and the frontier of scorers on the two directions is computed as
stated."""

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _partial_auc_mixture import (  # noqa: E402
    ANGLES,
    excess_loss,
    frontier,
    mixture,
    projections,
    room,
)

N, RATE = 40_000, 0.01


@pytest.fixture(scope="module")
def fronts():
    return {sparse: frontier(*mixture(N, RATE, sparse=sparse, seed=3)) for sparse in (False, True)}


def test_the_sparse_mixture_trades_full_auc_for_the_top_as_the_dense_one_does(fronts):
    """Each sparse row held entries in one direction's block only, so every scorer on the
    two directions ranked the rows alike (the frontier was flat: pAUC@0.1 and AUC at their
    best at the same angles); now both mixtures ask for the far direction at the top and
    for the mild one in the bulk, with the same frontier up to sampling noise."""
    for sparse, front in fronts.items():
        best_pauc, best_auc = ANGLES[front[:, 0].argmax()], ANGLES[front[:, 1].argmax()]
        assert best_auc - best_pauc > 15.0, (sparse, best_pauc, best_auc)
        # the scorer best in full AUC loses much of the top's pAUC
        assert front[:, 0].max() - front[front[:, 1].argmax(), 0] > 0.04, sparse
    assert np.abs(fronts[True] - fronts[False]).max() < 0.03


@pytest.mark.parametrize("sparse", [False, True])
def test_projections_follow_the_construction(sparse):
    """Plain negatives are N(0, 1) along both directions; far positives shifted by 4 along
    ``u1``, decoys by 3 along ``u2`` (a brute-force projection for the dense rows)."""
    X, y = mixture(N, RATE, sparse=sparse, seed=4)
    p1, p2 = projections(X)
    negatives = y < 0
    assert abs(np.median(p1[negatives])) < 0.05 and abs(np.std(p1[negatives]) - 1) < 0.05
    assert np.mean(p2[negatives] > 2.0) > 0.05  # the decoys (8% of the negatives, mean 3)
    assert np.median(p1[y > 0]) > 0.5 and np.max(p1[y > 0]) > 4.0
    if not sparse:
        u1 = np.r_[1.0, 1.0, np.zeros(X.shape[1] - 2)] / np.sqrt(2)
        np.testing.assert_allclose(p1, X @ u1, rtol=1e-12, atol=1e-12)
    else:  # the block sums, by brute force on the dense rows
        dense = X.toarray()
        np.testing.assert_allclose(p1, dense[:, :100].sum(1) / np.sqrt(10), atol=1e-12)
        np.testing.assert_allclose(p2, dense[:, 100:200].sum(1) / np.sqrt(10), atol=1e-12)
        assert (np.diff(X.indptr) == 60).all()
        assert ((X.indices < 100).reshape(-1, 60).sum(1) == 10).all()  # 10 in each block


def test_frontier_scores_each_angle_of_the_plane():
    X, y = mixture(5000, 0.05, seed=5)
    p1, p2 = projections(X)
    front = frontier(X, y)
    for angle, s in ((0.0, p1), (90.0, p2), (45.0, p1 + p2)):
        k = int(np.flatnonzero(ANGLES == angle)[0])
        assert front[k, 1] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert front[k, 0] == pytest.approx(roc_auc_score(y, s, max_fpr=0.1), abs=1e-12)


def test_room_is_the_best_top_within_the_allowed_loss():
    front = np.array([[0.70, 0.80], [0.68, 0.82], [0.60, 0.83]])  # (pAUC@0.1, AUC)
    assert room(front, 0.83, 0.65) == pytest.approx((0.68, 0.03))  # 0.80 is 0.03 below
    assert room(front, 0.84, 0.65)[0] == pytest.approx(0.60)  # only the last
    assert all(np.isnan(room(front, 0.90, 0.65)))


def test_excess_loss_is_measured_from_the_frontier_at_the_same_top():
    front = np.array([[0.70, 0.80], [0.68, 0.82], [0.60, 0.83]])  # (pAUC@0.1, AUC)
    assert excess_loss(front, 0.69, 0.75) == pytest.approx(0.05)  # only 0.70 reaches 0.69
    assert excess_loss(front, 0.65, 0.82) == pytest.approx(0.0)  # on the frontier
    assert np.isnan(excess_loss(front, 0.71, 0.75))  # above every scorer of the frontier
