"""OGD-FIFO (Yang et al. 2021) and Kar et al.'s OLP against the slow reference and RS-x's law."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.base import clone

from aucopt._kernels._buffers import Buffer, rsx_update
from aucopt.algorithms._fast import generic_kernels
from aucopt.algorithms.pairwise_buffer import iterates
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.linear_model._pairwise_buffer import KarClassifier, OGDFIFOClassifier

from ..reference import pairwise_buffer as ref
from .test_oam import (
    STREAM_CHUNKS,
    _csr_triple,
    _slots,
    assert_csr_equals_dense,
    assert_jit_equals_nojit,
    assert_resume_after_load_equals_never_stopping,
    assert_small_memory_at_a_million_features,
    growing_sparse_stream,
    positive_weights,
)


def _orders_and_draws(seed, n, passes, width):
    """Replay the estimator's Generator: per pass the permutation, then the uniforms."""
    rng = np.random.default_rng(seed)
    orders, draws = [], []
    for _ in range(passes):
        orders.append(rng.permutation(n))
        draws.append(rng.random((n, width)) if width else None)
    return orders, draws


PARAMS = [
    dict(loss="square", lam=1e-2, radius=None, schedule="inv_sqrt"),
    dict(loss="hinge", lam=0.0, radius=0.8, schedule="constant"),
]


@pytest.mark.parametrize("params", PARAMS)
def test_fifo_matches_reference_same_order(params, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = OGDFIFOClassifier(eta=0.05, max_iter=2, random_state=4, **params)
    est.fit(as_format(X), y)
    orders, _ = _orders_and_draws(4, len(y), 2, 0)
    w, w_bar, t = ref.pairwise_ogd(X, y, orders, eta=0.05, policy="fifo", **params)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("params", PARAMS)
def test_kar_matches_reference_same_order_and_draws(params, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    est = KarClassifier(eta=0.05, buffer_size=7, max_iter=2, random_state=5, **params)
    est.fit(as_format(X), y)
    orders, draws = _orders_and_draws(5, len(y), 2, 7)
    w, w_bar, t = ref.pairwise_ogd(X, y, orders, draws, eta=0.05, policy="rsx",
                                   buffer_size=7, **params)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("policy", ["fifo", "rsx"])
def test_weighted_matches_weighted_reference(policy, params, german, as_format):
    """Sample weights: the pair of row t with a stored row j is weighted by w_t w_j, the
    buffer divides by its row count and keeps its rows as without weights; the stored
    rows' weights live in buf_y as +-w (notes.md#sample-weights)."""
    X, y = german
    X, y = X[:300], y[:300]
    sw = positive_weights(len(y), seed=1)
    if policy == "fifo":
        est, size, seed = OGDFIFOClassifier(eta=0.05, max_iter=2, random_state=4, **params), 1, 4
    else:
        est, size, seed = KarClassifier(eta=0.05, buffer_size=7, max_iter=2, random_state=5,
                                        **params), 7, 5
    est.fit(as_format(X), y, sample_weight=sw)
    orders, draws = _orders_and_draws(seed, len(y), 2, 0 if policy == "fifo" else size)
    run = dict(eta=0.05, policy=policy, buffer_size=size, **params)
    w, w_bar, t = ref.pairwise_ogd(X, y, orders, draws, sample_weight=sw, **run)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)
    assert not np.allclose(w, ref.pairwise_ogd(X, y, orders, draws, **run)[0], rtol=1e-3)
    stored = est._state["buf_y"]
    assert np.all(np.isin(np.abs(stored), sw))
    with generic_kernels():  # the generic kernel, not its specialised twins
        generic = clone(est).fit(as_format(X), y, sample_weight=sw)
    assert_allclose(iterates(generic._state)[0], w, rtol=1e-10, atol=1e-13)


def test_kar_repopulation_inside_a_later_chunk(german):
    """The RS-x repopulation step (t = s + 1) falls in the second partial_fit chunk."""
    X, y = german
    X, y = X[:60], y[:60]
    est = KarClassifier(eta=0.05, buffer_size=12, random_state=0)
    est.partial_fit(X[:5], y[:5], classes=[-1, 1]).partial_fit(X[5:], y[5:])
    draws = [np.random.default_rng(0).random((60, 12))]
    w, _, t = ref.pairwise_ogd(X, y, [np.arange(60)], draws, eta=0.05, lam=1e-4,
                               policy="rsx", buffer_size=12)
    assert est.t_ == t
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("lam, radius", [(1e-3, None), (30.0, None), (0.0, 0.05)])
def test_fifo_lazy_sparse_kernel_equals_dense_kernel(lam, radius):
    """CSR rows run the O(nnz) lazy kernel (scale folds at lam=30, projection at radius);
    it must equal the dense kernel, also across chunks and mixed dense/CSR chunks."""
    X, y = make_auc_problem(400, 30, sparsity=0.8, random_state=5)
    params = dict(eta=0.05, lam=lam, radius=radius, max_iter=3, random_state=2)
    dense = OGDFIFOClassifier(**params).fit(X, y)
    lazy = OGDFIFOClassifier(**params).fit(sp.csr_matrix(X), y)
    assert lazy.t_ == dense.t_
    assert_allclose(lazy.coef_, dense.coef_, rtol=1e-9, atol=1e-14)
    assert_allclose(iterates(lazy._state)[0], iterates(dense._state)[0], rtol=1e-9, atol=1e-14)
    mixed = OGDFIFOClassifier(**params)
    mixed.partial_fit(sp.csr_matrix(X[:100]), y[:100], classes=[-1, 1])
    mixed.partial_fit(X[100:250], y[100:250])
    mixed.partial_fit(sp.csr_matrix(X[250:]), y[250:])
    chunked = OGDFIFOClassifier(**params)
    for a, b in ((0, 100), (100, 250), (250, 400)):
        chunked.partial_fit(X[a:b], y[a:b], classes=[-1, 1])
    assert_allclose(mixed.coef_, chunked.coef_, rtol=1e-9, atol=1e-14)
    assert_allclose(mixed._state["buf"], chunked._state["buf"], rtol=0, atol=0)


def test_fifo_steps_only_on_label_changes():
    """Same-label pairs carry no AUC loss: one step per change of label in the stream."""
    X, y = make_auc_problem(300, 5, pos_rate=0.3, random_state=1)
    est = OGDFIFOClassifier(shuffle=False, max_iter=1).fit(X, y)
    assert est.t_ == int(np.sum(y[1:] != y[:-1]))
    held = est._state["buf"][0]
    assert_allclose(held, X[-1]) and est._state["buf_y"][0] == y[-1]


def test_kar_with_a_buffer_larger_than_the_stream_uses_all_past_examples():
    """While t <= s, RS-x stores every example: the step averages over all earlier pairs."""
    X, y = make_auc_problem(80, 4, pos_rate=0.4, random_state=2)
    est = KarClassifier(eta=0.1, lam=0.0, buffer_size=100, shuffle=False, max_iter=1,
                        output="last").fit(X, y)
    w = np.zeros(4)
    steps = 0
    for k in range(len(y)):
        opposite = [j for j in range(k) if y[j] != y[k]]
        if not opposite:
            continue
        steps += 1
        d = X[k] - X[opposite]  # rows x_k - x_j
        grad = -2.0 * ((1.0 - y[k] * (d @ w))[:, None] * (y[k] * d)).sum(0) / k
        w = w - 0.1 / np.sqrt(steps) * grad
    assert est.t_ == steps
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_rsx_slots_hold_uniform_draws_from_the_past(layout):
    """P11 (Kar et al.): after t > s arrivals each slot holds each past point w.p. 1/t."""
    rng = np.random.default_rng(2024)
    n_items, capacity, runs = 30, 5, 6000
    X = np.arange(1, n_items + 1, dtype=float)[:, None]  # item k is the value k + 1
    rows = (X, None, None) if layout == "dense" else _csr_triple(X)
    counts = np.zeros((capacity, n_items))
    slots, scratch = _slots(capacity, 1, layout), _slots(capacity, 1, layout)
    buf_sq, buf_y = np.zeros(capacity), np.zeros(capacity)
    scratch_sq, scratch_y = np.zeros(capacity), np.zeros(capacity)
    buf, spare = Buffer(*slots, buf_sq, buf_y), Buffer(*scratch, scratch_sq, scratch_y)
    for _ in range(runs):
        size = 0
        u = rng.random((n_items, capacity))
        for i in range(n_items):
            size = rsx_update(buf, spare, size, i + 1, u[i], 1.0, *rows, i)
        counts[np.arange(capacity), slots[0][:, 0].astype(int) - 1] += 1
    freq = counts / runs  # (slot, item): each ~ 1/30, std ~ 0.0023
    assert np.abs(freq - 1.0 / n_items).max() < 0.014
    assert np.abs(freq.mean(0) - 1.0 / n_items).max() < 0.006
    assert_allclose(buf_sq, slots[0][:, 0] ** 2)


@pytest.mark.parametrize("cls", [OGDFIFOClassifier, KarClassifier])
def test_default_does_not_diverge_on_unscaled_data(cls, german_raw):
    X, y = german_raw
    est = cls(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


@pytest.mark.parametrize("cls", [OGDFIFOClassifier, KarClassifier])
def test_divergence_names_eta_and_keeps_the_model(cls, german_raw):
    X, y = german_raw
    est = cls(random_state=0, max_iter=1).partial_fit(X[:100], y[:100], classes=[-1, 1])
    before = {k: v.copy() for k, v in est._state.items()}
    est.set_params(eta=10.0, schedule="constant")
    with pytest.raises(DivergenceError, match="Lower 'eta'"):
        est.partial_fit(X[100:], y[100:])
    for key, value in before.items():
        np.testing.assert_array_equal(est._state[key], value)


KAR_SPARSE_PARAMS = PARAMS + [dict(loss="square", lam=30.0, radius=None, schedule="inv_sqrt")]


@pytest.mark.parametrize("params", KAR_SPARSE_PARAMS)
def test_kar_csr_lazy_sparse_kernel_equals_dense_kernel(params):
    """CSR rows run the O(s nnz) lazy kernel on sparse slots (scale folds at lam=30, projection
    with a radius); it must equal the dense kernel, over chunks that widen the slots, a first
    chunk of one class, mixed dense/CSR chunks and a shuffled 3-pass fit."""
    fits = assert_csr_equals_dense(
        lambda: KarClassifier(eta=0.05, buffer_size=10, random_state=1, **params))
    for name in ("csr", "mixed"):
        assert_allclose(fits[name]._state["buf_y"], fits["dense"]._state["buf_y"], rtol=0)
        average = iterates(fits["dense"]._state)[1]
        assert_allclose(iterates(fits[name]._state)[1], average, rtol=1e-9,
                        atol=1e-13 * np.abs(average).max())


@pytest.mark.parametrize("params", PARAMS)
def test_kar_sparse_slots_match_reference_over_chunks(params):
    """Chunks with longer and longer CSR rows (slots widened; the RS-x repopulation at
    t = s + 1 inside the second chunk) against the reference."""
    X, y = growing_sparse_stream()
    est = KarClassifier(eta=0.05, buffer_size=10, random_state=6, **params)
    for chunk in STREAM_CHUNKS:
        est.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    draws = [np.random.default_rng(6).random((len(y), 10))]
    w, w_bar, t = ref.pairwise_ogd(X, y, [np.arange(len(y))], draws, eta=0.05, policy="rsx",
                                   buffer_size=10, **params)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w_bar, rtol=1e-10, atol=1e-13 * np.abs(w_bar).max())
    assert_allclose(iterates(est._state)[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def test_kar_sparse_slots_jit_equals_numba_disable_jit():
    assert_jit_equals_nojit("kar")


def test_kar_csr_fit_at_a_million_features_stores_rows_sparsely():
    assert_small_memory_at_a_million_features(KarClassifier(max_iter=1, random_state=0), 100)


def test_kar_csr_resume_after_load_equals_never_stopping(tmp_path):
    assert_resume_after_load_equals_never_stopping(
        lambda: KarClassifier(eta=0.05, buffer_size=10, random_state=2), tmp_path)


@pytest.mark.parametrize("loss", ["square", "hinge"])
@pytest.mark.parametrize("lam, radius", [(0.0, 0.0), (1e-2, 0.0), (1e-3, 0.3)])
def test_fifo_dense_fused_kernel_equals_generic_buffer_kernel(loss, lam, radius):
    """The two-sweep dense FIFO kernel is the generic buffer kernel (s = 1) rearranged: same
    steps, iterate, average and stored example, over several calls (chunks)."""
    from aucopt._kernels._buffers import LOSS_CODES
    from aucopt._kernels._schedules import INV_SQRT
    from aucopt._kernels.pairwise_buffer import (
        FIFO,
        FifoState,
        PairWork,
        fifo_epoch_dense,
        pairwise_buffer_epoch,
    )
    from aucopt.algorithms.pairwise_buffer import PairwiseHyper

    X, y = make_auc_problem(300, 13, pos_rate=0.35, random_state=3)  # d = 13: a 4-lane tail
    y = y.astype(float)
    hp = PairwiseHyper(eta=0.2, auto_eta=False, schedule=INV_SQRT, lam=lam, radius=radius,
                       loss=LOSS_CODES[loss])
    noidx = None  # dense rows carry no index arrays (aucopt._kernels._rows)

    def state():
        return [np.zeros(13), np.zeros(13), np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.int64),
                np.zeros(1, dtype=np.int64), np.zeros((1, 13)), np.zeros(0, dtype=np.int64),
                np.zeros(1, dtype=np.int64)]

    fused, generic = state(), state()
    t_fused = t_generic = 0
    order = np.random.default_rng(0).permutation(300)
    spare = Buffer(np.zeros((0, 13)), None, None, np.zeros(0), np.zeros(0))
    for chunk in np.array_split(order, 4):
        t_fused, ok1 = fifo_epoch_dense(FifoState(*fused), X, noidx, noidx, y, chunk, hp, t_fused)
        st = FifoState(*generic)
        t_generic, ok2 = pairwise_buffer_epoch(
            st, Buffer(st.buf, None, None, st.buf_sq, st.buf_y),
            PairWork(np.empty(1), np.zeros(13), spare), X, noidx, noidx, y, chunk,
            np.zeros((len(chunk), 0)), hp, t_generic, FIFO)
        assert ok1 == ok2 == 0 and t_fused == t_generic
    for a, b in zip(fused, generic):
        assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    if radius:
        assert np.linalg.norm(fused[0]) <= radius * (1 + 1e-12)
