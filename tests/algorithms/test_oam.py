"""OAM_seq / OAM_gra against the slow reference, the closed forms and the reservoir's law.

Also the helpers (a sparse stream whose rows get longer, CSR == dense, JIT ==
no JIT, memory at d = 10^6) shared with the RS-x buffer of
``test_pairwise_buffer.py``.
"""

import json
import os
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.optimize import minimize_scalar
from sklearn.base import clone

from aucopt._kernels._buffers import reservoir_update
from aucopt._kernels.oam import oam_seq_pair
from aucopt.algorithms._data import as_rows
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.io import load, save
from aucopt.linear_model._oam import OAMGraClassifier, OAMSeqClassifier

from .._jit_pair import compiled_output, interpreted_output
from .._model_files import as_version_1
from ..reference import oam as ref

CLASSES = {"sequential": OAMSeqClassifier, "gradient": OAMGraClassifier}


def _csr_triple(X):
    X = sp.csr_matrix(X)
    return X.data, X.indices, X.indptr


def _slots(capacity, width, layout):
    """Empty slots ``(bval, bidx, bnnz)`` of the given layout (see aucopt._kernels._slots)."""
    if layout == "dense":
        return np.zeros((capacity, width)), None, None
    return (np.zeros((capacity, width)), np.zeros((capacity, width), dtype=np.int64),
            np.zeros(capacity, dtype=np.int64))


def growing_sparse_stream(n=360, d=3000, seed=0):
    """CSR rows whose length grows along the stream (1-7 entries, then 8-39) and labels.

    The first rows are negatives only; the later chunks bring rows longer than
    any seen before, so sparse buffer slots must widen.
    """
    rng = np.random.default_rng(seed)
    lengths = np.concatenate([rng.integers(1, 8, n // 2), rng.integers(8, 40, n - n // 2)])
    indices = np.concatenate([np.sort(rng.choice(d, m, replace=False)) for m in lengths])
    data = rng.uniform(-1.0, 1.0, lengths.sum())
    X = sp.csr_matrix((data, indices, np.concatenate([[0], np.cumsum(lengths)])), shape=(n, d))
    direction = rng.standard_normal(d)
    y = np.where(X @ direction + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    first = np.flatnonzero(y < 0)[:6]
    order = np.concatenate([first, np.setdiff1d(np.arange(n), first)])
    return X[order], y[order]


STREAM_CHUNKS = (slice(0, 6), slice(6, 100), slice(100, 230), slice(230, None))


def assert_csr_equals_dense(make):
    """CSR (sparse slots) and mixed-format chunks give the dense kernels' model to 1e-9.

    ``make()`` returns a fresh estimator. Checked over ``partial_fit`` chunks
    (a first chunk of one class, later chunks with longer rows) and over a
    shuffled ``fit`` of three passes.
    """
    X, y = growing_sparse_stream()
    dense_X = X.toarray()
    formats = {"dense": [dense_X] * 4, "csr": [X] * 4, "mixed": [X, dense_X, X, dense_X]}
    fits = {}
    for name, parts in formats.items():
        est = make()
        for k, chunk in enumerate(STREAM_CHUNKS):
            est.partial_fit(parts[k][chunk], y[chunk], classes=[-1, 1])
            if k == 0:
                assert est.t_ == 0 and np.all(est.coef_ == 0)  # one class so far
                if name == "csr":  # sparse slots as wide as the longest row so far
                    assert est._state["buf"].shape[-1] == np.diff(X[:6].indptr).max()
        fits[name] = est
    longest = np.diff(X.indptr).max()
    assert fits["csr"]._state["buf"].shape[-1] == longest < 40  # grown, not densified
    assert fits["dense"]._state["buf"].shape[-1] == X.shape[1]
    for name in ("csr", "mixed"):
        _assert_same_model(fits[name], fits["dense"], dense_X)
    passes = {name: make().set_params(max_iter=3, shuffle=True).fit(data, y)
              for name, data in (("dense", dense_X), ("csr", X))}
    _assert_same_model(passes["csr"], passes["dense"], dense_X)
    return fits


def _assert_same_model(est, expected, X):
    assert est.t_ == expected.t_ > 0
    scale = np.abs(expected.coef_).max()
    assert_allclose(est.coef_, expected.coef_, rtol=1e-9, atol=1e-13 * scale)
    assert_allclose(est._state["w"], expected._state["w"], rtol=1e-9, atol=1e-13 * scale)
    for key in ("buf_sq", "size", "seen"):
        assert_allclose(est._state[key], expected._state[key], rtol=1e-12, err_msg=key)
    scores = expected.decision_function(X)
    assert_allclose(est.decision_function(X), scores, rtol=1e-9,
                    atol=1e-13 * np.abs(scores).max())


_NOJIT_SCRIPT = """
import json, sys
import aucopt
from tests.algorithms.test_oam import STREAM_CHUNKS, growing_sparse_stream
X, y = growing_sparse_stream(d=400)  # pure Python without the JIT: O(d) loops
out = {}
for a in sys.argv[1:]:
    for name, parts in (("csr", [X] * 4), ("mixed", [X, X.toarray()] * 2)):
        est = aucopt.make(a, buffer_size=8, random_state=0)
        for k, chunk in enumerate(STREAM_CHUNKS):
            est.partial_fit(parts[k][chunk], y[chunk], classes=[-1, 1])
        out[a + "/" + name] = est.decision_function(X).tolist()
json.dump(out, sys.stdout)
"""


def assert_jit_equals_nojit(*algorithm_ids):
    """The sparse-slot kernels give the same numbers with ``NUMBA_DISABLE_JIT=1``."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    nojit = json.loads(interpreted_output(_NOJIT_SCRIPT, *algorithm_ids, cwd=root))
    jit = json.loads(compiled_output(_NOJIT_SCRIPT, *algorithm_ids))
    assert set(nojit) == set(jit) and len(jit) == 2 * len(algorithm_ids)
    for key in jit:
        assert_allclose(nojit[key], jit[key], rtol=1e-10, atol=1e-12, err_msg=key)


def assert_resume_after_load_equals_never_stopping(make, tmp_path):
    """Save after CSR chunks with short rows, load, continue with longer rows (the slots widen
    after loading): the state equals that of a model that never stopped."""
    X, y = growing_sparse_stream()
    never_stopped = make().partial_fit(X[:150], y[:150], classes=[-1, 1])
    save(never_stopped, tmp_path / "m")
    never_stopped.partial_fit(X[150:], y[150:])
    resumed = load(tmp_path / "m").partial_fit(X[150:], y[150:])
    assert resumed.t_ == never_stopped.t_
    assert never_stopped._state["buf"].shape[-1] > 7  # widened after the save
    for key, value in never_stopped._state.items():
        np.testing.assert_array_equal(resumed._state[key], value, err_msg=key)


def positive_weights(n, seed=0):
    """Sample weights in [0.2, 3): not integers, far from one (notes.md#sample-weights)."""
    return np.random.default_rng(seed).uniform(0.2, 3.0, n)


def assert_old_files_load_with_unit_weights(make, key, tmp_path):
    """A file saved before sample weights (no entry ``key``, the stored rows' weights) loads
    with weights one and goes on learning as the model saved; negative weights are refused."""
    X, y = make_auc_problem(200, 6, random_state=1)
    est = make().partial_fit(X[:120], y[:120], classes=[-1, 1])
    save(est, tmp_path / "m")
    npz = dict(np.load(tmp_path / "m.npz"))
    npz.pop(f"state__{key}")
    np.savez(tmp_path / "m.npz", **npz)
    as_version_1(tmp_path / "m")  # a file of an earlier aucopt: no hashes
    old = load(tmp_path / "m")
    assert_allclose(old._state[key], np.ones_like(est._state[key]), rtol=0)
    old.partial_fit(X[120:], y[120:])
    est.partial_fit(X[120:], y[120:])
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))
    npz[f"state__{key}"] = -np.ones_like(est._state[key])
    np.savez(tmp_path / "m.npz", **npz)
    as_version_1(tmp_path / "m")
    with pytest.raises(ValueError, match="sample weights of the stored rows"):
        load(tmp_path / "m")


def assert_small_memory_at_a_million_features(est, capacity):
    """A CSR fit at d = 10^6 allocates O(d + capacity nnz), never O(capacity d)."""
    d, n, nnz = 10**6, 600, 50
    rng = np.random.default_rng(0)
    indices = np.concatenate([np.sort(rng.choice(d, nnz, replace=False)) for _ in range(n)])
    X = sp.csr_matrix((rng.uniform(0.0, 1.0, n * nnz), indices, np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    y = np.where(rng.random(n) < 0.4, 1, -1)
    dense_buffers = capacity * d * 8
    clone(est).fit(X[:60], y[:60])  # compile first: numba's compiler allocations are not the fit's
    tracemalloc.start()
    try:
        est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    state_bytes = sum(value.nbytes for value in est._state.values())
    assert est.t_ > 0 and est._state["buf"].shape[-1] == nnz
    assert state_bytes < 0.05 * dense_buffers  # w, averages, class sums: a few d-vectors
    assert peak < 0.1 * dense_buffers


def _orders_and_draws(seed, n, passes, width):
    """Replay the estimator's Generator: per pass the permutation, then the uniforms."""
    rng = np.random.default_rng(seed)
    orders, draws = [], []
    for _ in range(passes):
        orders.append(rng.permutation(n))
        draws.append(rng.random((n, width)))
    return orders, draws


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_matches_reference_same_order_and_draws(update, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = CLASSES[update](C=0.05, buffer_size=7, max_iter=2, random_state=3)
    est.fit(as_format(X), y)
    orders, draws = _orders_and_draws(3, len(y), 2, 2)
    w, t = ref.oam(X, y, orders, draws, C=0.05, buffer_size=7, update=update)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert np.all(est._state["size"] == 7)  # both reservoirs full: replacements happened


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_weighted_matches_weighted_reference(update, german, as_format):
    """Sample weights: the comparison of row t with a stored row j costs C_t w_t w_j; the
    reservoirs admit rows as without weights (notes.md#sample-weights)."""
    X, y = german
    X, y = X[:300], y[:300]
    sw = positive_weights(len(y))
    est = CLASSES[update](C=0.05, buffer_size=7, max_iter=2, random_state=3)
    est.fit(as_format(X), y, sample_weight=sw)
    orders, draws = _orders_and_draws(3, len(y), 2, 2)
    w, t = ref.oam(X, y, orders, draws, C=0.05, buffer_size=7, update=update, sample_weight=sw)
    plain, _ = ref.oam(X, y, orders, draws, C=0.05, buffer_size=7, update=update)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    assert not np.allclose(w, plain, rtol=1e-3)  # the weights matter
    stored = est._state["buf_w"]
    assert np.all(np.isin(stored, sw)) and len(np.unique(stored)) > 2


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_old_files_load_with_unit_weights(update, tmp_path):
    assert_old_files_load_with_unit_weights(lambda: CLASSES[update](C=0.05, random_state=0),
                                            "buf_w", tmp_path)


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_auto_C_is_the_calibrated_constant(update, german):
    X, y = german
    X, y = X[:200], y[:200]
    est = CLASSES[update](max_iter=1, shuffle=False, random_state=0).fit(X, y)
    c = est.C_
    draws = [np.random.default_rng(0).random((len(y), 2))]
    w, _ = ref.oam(X, y, [np.arange(len(y))], draws, C=c, buffer_size=100, update=update)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_sequential_step_is_the_exact_minimiser_of_its_proximal_objective():
    """Natole 2020, Eq. 2.8: w + min(C/2, loss/||u||^2) u minimises ||w' - w||^2 + C hinge(w'.u)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        d = 5
        w, u = rng.standard_normal(d), rng.standard_normal(d)
        c = 10.0 ** rng.uniform(-3, 2)

        def objective(v, w=w, u=u, c=c):
            return (v - w) @ (v - w) + c * max(0.0, 1.0 - v @ u)

        def on_line(s, w=w, u=u, objective=objective):
            return objective(w + s * u)

        tau = oam_seq_pair(w @ u, u @ u, c)
        best = w + tau * u
        # the minimiser lies on w + s u (optimality: 2(w' - w) in -C d hinge); 1-D check
        line = minimize_scalar(on_line, bounds=(-1.0, c + 1.0), method="bounded",
                               options={"xatol": 1e-12})
        assert objective(best) <= line.fun + 1e-9
        for scale in (1e-4, 1e-2, 1.0):  # and no direction of R^d does better
            for _ in range(20):
                assert objective(best) <= objective(best + scale * rng.standard_normal(d)) + 1e-12


def test_first_pair_update_of_the_estimator():
    """A negative then a positive: one sequential step with C_1 = C from w = 0."""
    X = np.array([[0.2, -0.1, 0.4], [0.5, 0.3, -0.2]])
    y = np.array([-1, 1])
    est = OAMSeqClassifier(C=0.3, shuffle=False).fit(X, y)
    u = X[1] - X[0]
    assert_allclose(est.coef_[0], min(0.15, 1.0 / (u @ u)) * u, rtol=1e-14)
    assert est.t_ == 1


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_reservoir_keeps_each_item_with_probability_N_over_t(layout):
    """P10: after t arrivals each of them is in the reservoir with probability N/t."""
    rng = np.random.default_rng(12345)
    n_items, capacity, runs = 40, 8, 4000
    X = np.arange(1, n_items + 1, dtype=float)[:, None]  # item k is the value k + 1
    rows = (X, None, None) if layout == "dense" else _csr_triple(X)
    slots = _slots(capacity, 1, layout)
    kept = np.zeros(n_items)
    buf_sq = np.zeros(capacity)
    for _ in range(runs):
        size = 0
        u = rng.random((n_items, 2))
        for i in range(n_items):
            size, _ = reservoir_update(buf_sq, size, i + 1, u[i, 0], u[i, 1], *rows, i, *slots)
        assert size == capacity
        kept[slots[0][:, 0].astype(int) - 1] += 1
    freq = kept / runs
    assert np.abs(freq - capacity / n_items).max() < 0.035  # 5.5 sigma of Binomial(4000, .2)
    assert_allclose(buf_sq, slots[0][:, 0] ** 2)


def test_gradient_update_with_a_large_buffer_is_the_all_pairs_update(german):
    """Buffers larger than the stream hold every past example and C_t = C."""
    X, y = german
    X, y = X[:150], y[:150]
    est = OAMGraClassifier(C=0.01, buffer_size=200, shuffle=False).fit(X, y)
    w = ref.oam_gra_all_pairs(X, y, np.arange(len(y)), 0.01)
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_C_t_grows_with_the_other_class_count():
    """notes.md#oam: C_t = C max(1, N_opp^t / N); with N = 1 the 2nd positive sees C_t = 2C."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([-1, -1, 1, 1])
    est = OAMGraClassifier(C=1e-3, buffer_size=1, shuffle=False, random_state=0).fit(X, y)
    draws = [np.random.default_rng(0).random((4, 2))]
    w, t = ref.oam(X, y, [np.arange(4)], draws, C=1e-3, buffer_size=1, update="gradient")
    assert_allclose(est.coef_[0], w, rtol=1e-12)
    # both positives see the one stored negative with C_t = 1e-3 * 2 (two negatives seen)
    stored = X[0] if draws[0][1, 0] >= 0.5 else X[1]
    expected = 1e-3 * ((X[2] - stored) + (X[3] - stored))
    assert_allclose(est.coef_[0], expected, rtol=1e-12)
    assert t == est.t_ == 2


@pytest.mark.parametrize("cls", [OAMSeqClassifier, OAMGraClassifier])
def test_default_does_not_diverge_on_unscaled_data(cls, german_raw):
    X, y = german_raw  # raw features up to a few hundred
    est = cls(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


@pytest.mark.parametrize("cls", [OAMSeqClassifier, OAMGraClassifier])
def test_easy_problem_and_one_class_prefix(cls):
    X, y = make_auc_problem(600, 8, pos_rate=0.3, separation=2.5, random_state=0)
    neg = np.flatnonzero(y < 0)[:10]
    est = cls(random_state=0).partial_fit(X[neg], y[neg], classes=[-1, 1])
    assert est.t_ == 0 and np.all(est.coef_ == 0)
    est.partial_fit(X, y)
    assert est.score(X, y) > 0.9


def test_divergence_names_C_and_keeps_the_model():
    X, y = make_auc_problem(200, 4, random_state=0)
    est = OAMGraClassifier(C=1e15, random_state=0)  # scores beyond 1e12 count as divergence
    with pytest.raises(DivergenceError, match="Lower 'C'"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_csr_sparse_slots_equal_dense_kernels(update):
    assert_csr_equals_dense(lambda: CLASSES[update](C=0.05, buffer_size=10, random_state=1))


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_sparse_slots_match_reference_over_chunks(update):
    """Chunks with longer and longer CSR rows (slots widened between chunks) vs the reference."""
    X, y = growing_sparse_stream()
    est = CLASSES[update](C=0.05, buffer_size=10, random_state=4)
    for chunk in STREAM_CHUNKS:
        est.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    draws = [np.random.default_rng(4).random((len(y), 2))]  # partial_fit: no permutation
    w, t = ref.oam(X, y, [np.arange(len(y))], draws, C=0.05, buffer_size=10, update=update)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def test_sparse_slots_jit_equals_numba_disable_jit():
    assert_jit_equals_nojit("oam-seq", "oam-gra")


@pytest.mark.parametrize("cls", [OAMSeqClassifier, OAMGraClassifier])
def test_csr_fit_at_a_million_features_stores_rows_sparsely(cls):
    assert_small_memory_at_a_million_features(cls(buffer_size=50, random_state=0), 2 * 50)


def test_slot_conversions_are_exact():
    """Dense -> sparse -> dense slots (a format switch between chunks) give back the rows."""
    from aucopt.algorithms.oam import match_slots, new_slots

    X, _ = growing_sparse_stream(n=40, d=50)
    state = new_slots((2, 3))
    match_slots(state, as_rows(X[:1].toarray()))  # dense slots
    state["buf"][:] = X[:6].toarray().reshape(2, 3, 50)
    bval, bidx, bnnz = match_slots(state, as_rows(X[6:8]))  # to sparse, width >= 8 entries
    assert bval.shape == (2, 3, max(np.diff(X[:8].indptr).max(), np.diff(X[:6].indptr).max()))
    for slot in range(6):
        c, j = divmod(slot, 3)
        row = X[slot]
        assert bnnz[c, j] == row.nnz
        np.testing.assert_array_equal(bidx[c, j, :row.nnz], row.indices)
        np.testing.assert_array_equal(bval[c, j, :row.nnz], row.data)
        assert np.all(bval[c, j, row.nnz:] == 0) and np.all(bidx[c, j, row.nnz:] == 0)
    dense, none, _ = match_slots(state, as_rows(X[:1].toarray()))  # back to dense
    assert none is None
    np.testing.assert_array_equal(dense.reshape(6, 50), X[:6].toarray())


@pytest.mark.parametrize("update", ["sequential", "gradient"])
def test_csr_resume_after_load_equals_never_stopping(update, tmp_path):
    assert_resume_after_load_equals_never_stopping(
        lambda: CLASSES[update](C=0.05, buffer_size=10, random_state=2), tmp_path)
