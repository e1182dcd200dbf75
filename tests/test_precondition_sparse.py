"""The shared scale of the sparse columns under ``precondition="auto"``
(notes.md#preconditioning): its rule, that a sparse signal larger than the noise keeps its
size, streams, and models saved before it.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms._precondition import MIN_NONZEROS, SCALE_KEY, SHARED_KEY, SHIFT_KEY
from aucopt.io import load, save
from aucopt.metrics import roc_auc_score

from ._general_path import general
from .test_precondition_moments import expected_transform


def sparse_signal(n=3000, d=400, nnz=30, seed=0, signal=100, per_row=5, rate=0.03):
    """CSR rows of ``nnz`` N(0, 0.25^2) values in the noise columns; 70% of the positives
    put ``per_row`` of them in the first ``signal`` columns with values 0.75 + N(0, 0.25^2),
    three times the noise (so each signal column holds fewer than ``MIN_NONZEROS`` values)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < rate, 1, -1)
    cols = np.array([rng.choice(np.arange(signal, d), nnz, replace=False) for _ in range(n)])
    vals = 0.25 * rng.normal(size=(n, nnz))
    pos = np.flatnonzero(y > 0)
    for i in pos[rng.random(pos.size) < 0.7]:
        cols[i, :per_row] = rng.choice(signal, per_row, replace=False)
        vals[i, :per_row] += 0.75
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    X.sort_indices()
    return X, y


def _mixed(n=400, seed=0):
    """Two sparse columns of different sizes (zero in 80% and 90% of the rows), one dense."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X @ [1.0, 1.0, 1.0] + rng.normal(size=n) > 0, 1, -1)
    X[:, 0] = np.where(rng.random(n) < 0.2, 5.0 + X[:, 0], 0.0)
    X[:, 1] = np.where(rng.random(n) < 0.1, 0.1 * X[:, 1], 0.0)
    X[:, 2] += 3.0
    return X, y


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_sparse_columns_share_the_root_mean_square_of_their_values(fmt):
    X, y = _mixed()
    weight = 1.0 + np.arange(len(y)) % 3
    data = X if fmt == "dense" else sp.csr_matrix(X)
    state = aucopt.make("spam-l2", random_state=0).fit(data, y, sample_weight=weight)._state
    # the moments of the rows as the kernels see them (the few long ones shortened)
    shared, scale, shift, _ = expected_transform(X, weight)
    assert state[SHARED_KEY][0] == pytest.approx(shared, rel=1e-9)
    assert state[SCALE_KEY][0] == state[SCALE_KEY][1] == state[SHARED_KEY][0]
    assert state[SHIFT_KEY].tolist() == [0.0, 0.0, pytest.approx(shift[2], rel=1e-12)]
    assert state[SCALE_KEY][2] == pytest.approx(scale[2], rel=1e-9)


def test_too_few_sparse_values_keep_scale_one():
    X, y = _mixed()
    X[:, 1] = 0.0
    X[int(MIN_NONZEROS) - 1:, 0] = 0.0  # MIN_NONZEROS - 1 values left
    state = aucopt.make("spam-l2", random_state=0).fit(X, y)._state
    assert state[SHARED_KEY].tolist() == [1.0] and state[SCALE_KEY][0] == 1.0


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "solam"])
def test_a_sparse_signal_larger_than_the_noise_keeps_its_size(algorithm_id):
    """Scaled column by column, the signal columns shrank to the size of the noise: test
    AUC 0.67 with "auto" against 0.84-0.88 without preconditioning."""
    X, y = sparse_signal()
    Xt, yt = sparse_signal(seed=1)
    aucs = [roc_auc_score(yt, aucopt.make(algorithm_id, random_state=0, precondition=p)
                          .fit(X, y).decision_function(Xt)) for p in ("auto", None)]
    assert aucs[0] > 0.8 and aucs[0] == pytest.approx(aucs[1], abs=0.005)


def test_a_stream_gives_later_features_the_shared_scale():
    X, y = sparse_signal(n=600, rate=0.2)
    X = X.tolil()
    X[:300, 399] = 0.0  # column 399 first seen in the second chunk
    X = X.tocsr()
    est = aucopt.make("spam-l2", random_state=0).partial_fit(X[:300], y[:300], classes=[-1, 1])
    shared = est._state[SHARED_KEY][0]
    seen = np.asarray(X[:300].getnnz(axis=0)) > 0
    values = X[:300].data
    assert shared == pytest.approx(np.sqrt(np.mean(values**2)), rel=1e-12)
    assert set(est._state[SCALE_KEY][seen]) == {shared} and est._state[SCALE_KEY][399] == 0
    est.partial_fit(X[300:], y[300:])
    assert est._state[SCALE_KEY][399] == shared and est._state[SHARED_KEY][0] == shared


def test_a_model_saved_without_the_shared_scale_loads(tmp_path):
    from ._model_files import resign

    X, y = sparse_signal(n=600, rate=0.2)
    est = aucopt.make("solam", random_state=0).partial_fit(X[:300], y[:300], classes=[-1, 1])
    save(est, tmp_path / "m")
    npz = next(tmp_path.glob("m*.npz"))
    arrays = dict(np.load(npz))
    del arrays["state__" + SHARED_KEY]  # as an aucopt without it saved it
    np.savez(npz, **arrays)
    resign(tmp_path / "m")
    back = load(tmp_path / "m")
    assert_allclose(back.decision_function(X), est.decision_function(X), rtol=0)
    assert back._state[SHARED_KEY].tolist() == [1.0]  # its later features: scale 1
    back.partial_fit(X[300:], y[300:])
    assert np.isfinite(back.decision_function(X)).all()


@pytest.mark.parametrize("algorithm_id", ["spam-l2", "uni-squ"])
def test_a_later_chunk_logs_the_transform_by_its_columns(algorithm_id, monkeypatch):
    """A later CSR chunk of a wide preconditioned stream saves the scale and the shift at
    its columns only (they were copied whole: every one-row ``partial_fit`` was O(d), 1 ms
    at d = 10^6), and a call that fails after its undo log was made puts back both, the
    scales it had just set for new columns included, and every other entry."""
    from aucopt.linear_model import _base

    X, y = sparse_signal(n=1200, d=20000, nnz=20)
    est = aucopt.make(algorithm_id, random_state=0).partial_fit(X[:1000], y[:1000],
                                                                classes=[-1, 1])
    general(est).partial_fit(X[1000:1001], y[1000:1001])  # the general path's undo log
    logged = dict(est._undo_plan.by_columns)
    assert SCALE_KEY in logged and SHIFT_KEY in logged
    assert SCALE_KEY not in est._undo_plan.copied and SHIFT_KEY not in est._undo_plan.copied
    unseen = np.setdiff1d(X[1001:1003].indices, X[:1001].indices)
    assert unseen.size and (est._state[SCALE_KEY][unseen] == 0).all()  # new columns come
    before = {key: value.copy() for key, value in est._state.items()}

    def failing(*args, **kwargs):
        raise RuntimeError("stop")

    monkeypatch.setattr(_base, "observe_data", failing)  # after the undo log, in the call
    with pytest.raises(RuntimeError, match="stop"):
        est.partial_fit(X[1001:1003], y[1001:1003])
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value, err_msg=key)
