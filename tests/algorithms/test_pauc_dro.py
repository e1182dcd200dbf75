"""SOPA-s and SOTA-s (KL-DRO partial AUC) against their slow reference, on CSR and dense
rows, with and without JIT; the objective against its DRO definition."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms import RowData, get_algorithm
from aucopt.algorithms.pauc_dro import kl_objective
from aucopt.io import load, save
from aucopt.linear_model import SOPAClassifier, SOPASClassifier, SOTASClassifier
from aucopt.metrics import partial_roc_auc_score

from .._model_files import resign
from ..reference import pauc_dro as ref
from .test_oam import (
    STREAM_CHUNKS,
    assert_jit_equals_nojit,
    assert_resume_after_load_equals_never_stopping,
    assert_small_memory_at_a_million_features,
    growing_sparse_stream,
    positive_weights,
)


def _imbalanced(n=400, d=12, share=0.15, seed=0, density=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    y = np.where(rng.random(n) < share, 1, -1)
    X[y > 0, :3] += 0.8
    return X, y


PARAMS = dict(eta=0.05, lam=0.7, gamma=0.6, margin=1.0, momentum=0.8, buffer_size=8)
TWO_WAY = dict(lam_pos=2.0, gamma_pos=0.7)


@pytest.mark.parametrize(("two_way", "fmt", "weighted"), [
    (False, "dense", False), (False, "csr", True), (True, "dense", True), (True, "csr", False)])
def test_equals_reference(two_way, fmt, weighted):
    # sparse rows (a tenth of the entries): coordinates skip steps and catch up lazily
    X, y = _imbalanced(d=40, density=0.1)
    sw = positive_weights(len(y)) if weighted else None
    extra = TWO_WAY if two_way else {}
    cls = SOTASClassifier if two_way else SOPASClassifier
    data = sp.csr_matrix(X) if fmt == "csr" else X
    est = cls(**PARAMS, **extra, max_iter=2, shuffle=False).fit(data, y, sample_weight=sw)
    w, t = ref.pauc_dro(X, y, [np.arange(len(y))] * 2, **PARAMS, **extra, sample_weight=sw)
    assert est.t_ == t > 50
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def test_csr_equals_dense_and_chunks_equal_one_pass():
    # chunks in CSR, dense and mixed formats (rows that widen the sparse slots) and one
    # fit pass give one model: the lazy state differs, its caught-up iterate does not
    X, y = growing_sparse_stream()
    dense = X.toarray()
    formats = {"dense": [dense] * 4, "csr": [X] * 4, "mixed": [X, dense, X, dense]}
    fits = {}
    for name, parts in formats.items():
        est = SOTASClassifier(eta=0.2, buffer_size=8)
        for k, chunk in enumerate(STREAM_CHUNKS):
            est.partial_fit(parts[k][chunk], y[chunk], classes=[-1, 1])
        fits[name] = est
    fits["fit"] = SOTASClassifier(eta=0.2, buffer_size=8, max_iter=1, shuffle=False).fit(X, y)
    assert fits["csr"]._state["buf"].shape[-1] == np.diff(X.indptr).max()
    expected = fits.pop("dense")
    assert expected.t_ > 5
    for est in fits.values():
        assert est.t_ == expected.t_
        assert_allclose(est.coef_, expected.coef_, rtol=1e-9,
                        atol=1e-13 * np.abs(expected.coef_).max())


def test_jit_equals_nojit():
    assert_jit_equals_nojit("pauc-sopa", "pauc-sopa-s", "pauc-sota-s")


def test_memory_independent_of_d_on_csr():
    assert_small_memory_at_a_million_features(
        SOPASClassifier(eta=0.1, buffer_size=100, max_iter=1), 200)


def test_resume_after_load(tmp_path):
    assert_resume_after_load_equals_never_stopping(
        lambda: SOPASClassifier(eta=0.2, buffer_size=8, momentum=0.5), tmp_path)


def test_new_step_between_calls_settles_the_lazy_momentum():
    # the step lowered between partial_fit calls: the decays pending at the change keep
    # the old step, as in the reference that changes it after row 200 (wide sparse rows:
    # many coordinates are pending then)
    X, y = _imbalanced(d=300, density=0.02, seed=2)
    est = SOPASClassifier(**PARAMS).partial_fit(sp.csr_matrix(X[:200]), y[:200], classes=[-1, 1])
    est.set_params(eta=0.02).partial_fit(sp.csr_matrix(X[200:]), y[200:])
    w, t = ref.pauc_dro(X, y, [np.arange(len(y))],
                        **{**PARAMS, "eta": lambda rows: PARAMS["eta"] if rows <= 200 else 0.02})
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def _settled(w, mom, last, steps, eta, beta):
    """The lazy momentum caught up, coordinate by coordinate in Python floats:
    ``w - eta m (beta + ... + beta^gap)``."""
    out = []
    for wk, mk, lk in zip(w.tolist(), mom.tolist(), last.tolist(), strict=True):
        gap = steps - lk
        pending = 0.0
        if beta != 0.0 and gap > 1:
            pending = beta * (1.0 - math.pow(beta, float(gap))) / (1.0 - beta)
        elif beta != 0.0 and gap == 1:
            pending = beta
        out.append(wk - eta * mk * pending)
    return np.array(out)


@pytest.mark.parametrize("jit", [True, False])
def test_settled_weights_equal_the_transcription(jit):
    """The weights a score reads (every coordinate caught up, the state untouched): the bits
    of the coordinate-wise transcription (and within rounding of the NumPy expression), gaps
    of 0, 1 and many steps, momentum 0 and not."""
    from aucopt._kernels.pauc_dro import settled_weights

    kernel = settled_weights if jit else settled_weights.py_func
    rng = np.random.default_rng(3)
    for beta in (0.0, 0.1, 0.9, 0.999):
        w, mom = rng.normal(size=500), rng.normal(size=500)
        mom[::7] = 0.0
        last = rng.integers(0, 400, size=500)
        last[::5] = 400  # caught up
        last[1::5] = 399  # one step behind
        out = np.empty_like(w)
        kernel(w, mom, last, 400, 0.37, beta, out)
        np.testing.assert_array_equal(out, _settled(w, mom, last, 400, 0.37, beta))
        gap = 400 - last
        many = beta * (1.0 - beta ** gap.astype(np.float64)) / (1.0 - beta) if beta else 0.0
        pending = np.where(gap > 1, many, np.where(gap == 1, beta, 0.0))
        np.testing.assert_allclose(out, w - 0.37 * mom * pending, rtol=1e-13, atol=1e-15)
        assert (out != w).sum() > 100 if beta else (out == w).all()


def test_two_way_with_infinite_lam_pos_is_one_way():
    # lambda' -> infinity: u_i^(lambda/lambda') -> 1, v -> 1 (gamma' = 1): SOPA-s's weights
    X, y = _imbalanced(seed=3)
    one = SOPASClassifier(**PARAMS, max_iter=1, shuffle=False).fit(X, y)
    two = SOTASClassifier(**PARAMS, lam_pos=1e12, gamma_pos=1.0, max_iter=1,
                          shuffle=False).fit(X, y)
    assert_allclose(two.coef_, one.coef_, rtol=1e-8)


def test_objective_is_the_kl_regularised_worst_case():
    # lam log mean exp(L / lam) = max_p sum p L - lam KL(p, uniform), at p ~ exp(L / lam)
    rng = np.random.default_rng(0)
    s, y = rng.normal(size=30), np.where(rng.random(30) < 0.3, 1.0, -1.0)
    lam = 0.4
    value = 0.0
    pos, neg = s[y > 0], s[y < 0]
    for si in pos:
        loss = np.maximum(0.0, 1.0 - (si - neg)) ** 2
        p = np.exp(loss / lam)
        p /= p.sum()
        value += p @ loss - lam * np.sum(p * np.log(p * len(neg)))
    assert kl_objective(s, y, lam) == pytest.approx(value / len(pos), rel=1e-12)
    # two-way with lam_pos = lam: lam log mean_i mean_j exp(L_ij / lam)
    pairs = np.maximum(0.0, 1.0 - (pos[:, None] - neg[None, :])) ** 2
    assert kl_objective(s, y, lam, lam) == pytest.approx(lam * np.log(np.exp(pairs / lam).mean()))
    # a large temperature: the mean pairwise squared hinge (the full AUC's surrogate)
    assert kl_objective(s, y, 1e8) == pytest.approx(pairs.mean(), rel=1e-6)


@pytest.mark.parametrize("cls", [SOPASClassifier, SOTASClassifier])
def test_default_fit_lowers_the_objective(cls):
    X, y = _imbalanced(n=1500, seed=1)
    est = cls(random_state=0).fit(X, y)
    yy = y.astype(float)
    lam_pos = est.lam_pos if cls is SOTASClassifier else None
    before = kl_objective(np.zeros(len(y)), yy, est.lam, lam_pos)
    after = kl_objective(est.decision_function(X), yy, est.lam, lam_pos)
    assert after < 0.8 * before


def test_bad_params_and_state(tmp_path):
    X, y = _imbalanced(n=100)
    for bad in ({"lam": 0.0}, {"gamma": 0.0}, {"gamma": 1.5}, {"momentum": 1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SOPASClassifier(**bad).fit(X, y)
    with pytest.raises(ValueError, match="lam_pos"):
        SOTASClassifier(lam_pos=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="pairs would take 8e"):  # B^2 pair weights
        SOPASClassifier(buffer_size=10**6).fit(X, y)
    est = SOPASClassifier(eta=0.1, buffer_size=8).fit(X, y)
    save(est, tmp_path / "m")
    npz = dict(np.load(tmp_path / "m.npz"))
    npz["state__last"] = npz["state__last"] + 10**6
    np.savez(tmp_path / "m.npz", **npz)
    resign(tmp_path / "m")  # a consistent pair: the state's own check must refuse it
    with pytest.raises(ValueError, match="clock"):
        load(tmp_path / "m")


@pytest.mark.parametrize("lam_pos", [None, 0.5])
def test_a_whole_batch_step_is_the_objective_gradient(lam_pos):
    # with every row in one batch, gamma = gamma' = 1 and no momentum, a step is a gradient
    # step on the KL-DRO objective: G = grad F(w), checked by central differences of F
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 5))
    y = np.where(np.arange(40) < 12, 1, -1)
    two_way = lam_pos is not None
    spec = get_algorithm("pauc-sota-s" if two_way else "pauc-sopa-s")
    params = {**SOTASClassifier().get_params(), "lam_pos": lam_pos} if two_way else \
        SOPASClassifier().get_params()
    params.update(eta=0.1, lam=0.6, gamma=1.0, gamma_pos=1.0, momentum=0.0, buffer_size=28)
    state = spec.init_state(5, 40, params)
    w0 = rng.normal(size=5)
    state["w"][:] = w0
    state["batches"][0] = 62  # the first batch is already of full size: one step on all rows
    rows = RowData(X, None, None, 40, 5)
    t, status = spec.run(state, rows, y.astype(float), np.arange(40), params, 0, True)
    assert (t, status) == (1, 0)
    grad = (w0 - spec.coef(state, params)) / params["eta"]

    def objective(w):
        return kl_objective(X @ w, y.astype(float), params["lam"], lam_pos)

    numeric = [(objective(w0 + 1e-6 * e) - objective(w0 - 1e-6 * e)) / 2e-6 for e in np.eye(5)]
    assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(("make", "gain"), [
    (lambda: SOPASClassifier(lam=0.1, random_state=0), 0.01),  # measured: 0.674
    # measured: 0.662 (0.679 with a step 40x smaller than the calibrated one: on these data
    # the first direction is nearly the best, benchmarks/robustness.py's cases want more)
    (lambda: SOPAClassifier(max_fpr=0.05, random_state=0), 0.01),
])
def test_beats_full_auc_learner_at_low_fpr(make, gain):
    # SOPA-s at a low temperature, SOPA at a low max_fpr, on the data of the pauc-1pmb test:
    # rare positives far out along one feature (the top of the ranking) or slightly shifted
    # along two others (most of the full AUC)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 10))
    y = np.where(rng.random(4000) < 0.05, 1, -1)
    pos = rng.permutation(np.flatnonzero(y > 0))
    X[pos[: len(pos) // 2], 0] += 3.0
    X[pos[len(pos) // 2:], 1:3] += 0.7
    got, full = (partial_roc_auc_score(y[2500:], est.fit(X[:2500], y[:2500])
                                       .decision_function(X[2500:]), max_fpr=0.05)
                 for est in (make(), aucopt.make("spam-l2", random_state=0)))
    assert got > full + gain  # spam-l2 measured: 0.646
