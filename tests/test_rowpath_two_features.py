"""Two features: the class sums ``data_sum`` are a square (2, 2) array there.

Their features are on the last axis whatever their shape
(:func:`aucopt.algorithms._rowpath.feature_axis`); taken by their shape, the row path saved
their rows (the classes) for features and, with no entry left to save by columns, its
compiled transaction did not type (a numba ``TypingError`` from a one-row CSR
``partial_fit`` and from River's ``learn_one`` with ``n_features=2``).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
from aucopt._kernels.row_step import OK, begin_row, undo_row
from aucopt.algorithms._rowpath import compiled_entry, feature_axis

from ._general_path import general
from .test_river import STREAMING


def _rows(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[rng.random(n) < 0.3, 1] = 0.0  # rows with one stored value too
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    y[:2] = (1, -1)
    return sp.csr_matrix(X), y


@pytest.mark.parametrize("algorithm", STREAMING)
def test_one_row_chunks_of_two_features_equal_the_general_path(algorithm):
    X, y = _rows()
    est, ref = aucopt.make(algorithm, random_state=0), general(
        aucopt.make(algorithm, random_state=0))
    for model in (est, ref):
        model.partial_fit(X[:1], y[:1], classes=[-1, 1])
        for i in range(1, X.shape[0]):
            model.partial_fit(X[i:i + 1], y[i:i + 1])
    assert est._state.keys() == ref._state.keys()
    for key in est._state:
        np.testing.assert_array_equal(est._state[key], ref._state[key], err_msg=key)


def test_the_class_sums_are_saved_and_restored_by_columns():
    X, y = _rows()
    est = aucopt.make("spam-l2", random_state=0)
    est.partial_fit(X[:10], y[:10], classes=[-1, 1])
    path = est._new_row_path(est._params())
    sums = est._state["data_sum"]
    assert any(a is sums for a in path.undo.by_cols)
    assert not any(np.shares_memory(a, sums) for a in path.undo.by_rows)
    before = sums.copy()
    row = sp.csr_matrix([[3.0, 0.0]])  # column 0 only, a positive: data_sum[1, 0] moves
    data, indices, indptr = row.data, row.indices, row.indptr
    signed = np.array([1.0])
    begin = compiled_entry(begin_row, (path.stats, path.undo, data, indices, indptr, signed))
    assert begin(path.stats, path.undo, data, indices, indptr, signed) == OK
    assert sums[1, 0] != before[1, 0]
    compiled_entry(undo_row, (path.undo, indices, indptr))(path.undo, indices, indptr)
    np.testing.assert_array_equal(sums, before)


def test_the_feature_axis_of_an_entry():
    assert feature_axis("data_sum", np.zeros((2, 2)), 2) == 1
    assert feature_axis("data_sum", np.zeros((2, 5)), 5) == 1
    assert feature_axis("w", np.zeros(2), 2) == 0
    assert feature_axis("pack", np.zeros((5, 5)), 5) == 0  # (d, k): the features first
    assert feature_axis("buf", np.zeros((1, 7)), 7) == 1
    assert feature_axis("data_sum", np.zeros((2, 3)), 4) is None
