"""The streaming pAUC 1PMB against its slow reference, on CSR and dense rows, with and
without JIT, and its partial AUC against full-AUC learners on imbalanced data."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms.pauc import partial_auc_surrogate
from aucopt.io import load, save
from aucopt.linear_model import PAUC1PMBClassifier
from aucopt.metrics import partial_roc_auc_score

from .._model_files import resign
from ..reference import pauc as ref
from .test_oam import (
    STREAM_CHUNKS,
    assert_jit_equals_nojit,
    assert_small_memory_at_a_million_features,
    growing_sparse_stream,
    positive_weights,
)


def _imbalanced(n=600, d=8, share=0.1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < share, 1, -1)
    X[y > 0, :3] += 1.0
    return X, y


PARAMS = dict(eta=0.05, max_fpr=0.2, lam=1e-3, buffer_size=16)


@pytest.mark.parametrize("loss", ["hinge", "square"])
@pytest.mark.parametrize("schedule", ["inv_sqrt", "constant"])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_reference(loss, schedule, weighted):
    X, y = _imbalanced()
    sw = positive_weights(len(y)) if weighted else None
    est = PAUC1PMBClassifier(**PARAMS, loss=loss, schedule=schedule, max_iter=2,
                             shuffle=False).fit(X, y, sample_weight=sw)
    w, t = ref.pauc_1pmb(X, y, [np.arange(len(y))] * 2, **PARAMS, loss=loss, schedule=schedule,
                         sample_weight=sw)
    assert est.t_ == t > 10
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


@pytest.mark.parametrize("params", [dict(max_fpr=0.28, buffer_size=25),
                                    dict(max_fpr=0.2, min_tpr=0.29, buffer_size=100)])
def test_shares_of_a_batch_count_as_the_decimals_given(params):
    # 0.28 x 25 is 7.000000000000001 and 0.29 x 100 is 28.999999999999996 in floating point:
    # the steps took the top 8 negatives, and all but 28 positives, where 7 and 29 are meant
    X, y = _imbalanced(n=2000, share=0.15)
    given = dict(eta=0.05, lam=1e-3, loss="hinge", schedule="inv_sqrt", **params)
    est = PAUC1PMBClassifier(**given, max_iter=1, shuffle=False, precondition=None).fit(X, y)
    w, t = ref.pauc_1pmb(X, y, [np.arange(len(y))], **given)
    assert est.t_ == t > 10
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


def test_csr_equals_dense_and_chunks_equal_one_pass():
    X, y = growing_sparse_stream()
    fits = {}
    for name, data in (("dense", X.toarray()), ("csr", X)):
        est = PAUC1PMBClassifier(eta=0.2, buffer_size=8, max_fpr=0.3)
        for chunk in STREAM_CHUNKS:
            est.partial_fit(data[chunk], y[chunk], classes=[-1, 1])
        fits[name] = est
    one = PAUC1PMBClassifier(eta=0.2, buffer_size=8, max_fpr=0.3, max_iter=1,
                             shuffle=False).fit(X, y)
    assert fits["csr"].t_ == fits["dense"].t_ == one.t_ > 5
    assert fits["csr"]._state["buf"].shape[-1] == np.diff(X.indptr).max()
    for est in (fits["csr"], one):
        assert_allclose(est.coef_, fits["dense"].coef_, rtol=1e-9,
                        atol=1e-13 * np.abs(one.coef_).max())


def test_jit_equals_nojit():
    assert_jit_equals_nojit("pauc-1pmb")


def test_memory_independent_of_d_on_csr():
    assert_small_memory_at_a_million_features(
        PAUC1PMBClassifier(eta=0.1, buffer_size=50, max_iter=1), 100)


def test_resume_after_load(tmp_path):
    X, y = growing_sparse_stream()
    a = PAUC1PMBClassifier(eta=0.2, buffer_size=8).partial_fit(X[:150], y[:150], classes=[-1, 1])
    save(a, tmp_path / "m")
    a.partial_fit(X[150:], y[150:])
    b = load(tmp_path / "m").partial_fit(X[150:], y[150:])
    for key, value in a._state.items():
        np.testing.assert_array_equal(b._state[key], value, err_msg=key)


def test_steps_lower_the_batch_surrogate():
    # the pAUC surrogate of the whole sample falls from its value 1 at w = 0 (hinge)
    X, y = _imbalanced(n=2000, seed=1)
    est = PAUC1PMBClassifier(max_fpr=0.1, loss="hinge", random_state=0).fit(X, y)
    value = partial_auc_surrogate(est.decision_function(X), y.astype(float), 0.1, "hinge")
    assert value < 0.98


def test_max_fpr_one_is_the_pairwise_surrogate():
    # with beta = 1 every negative of the batch is in the top k: the loss of all pairs
    X, y = _imbalanced(n=300, seed=3)
    s = np.random.default_rng(0).normal(size=300)
    yy = y.astype(float)
    pos, neg = s[y > 0], s[y < 0]
    full = np.maximum(0, 1 - (pos[:, None] - neg[None, :])).mean()
    assert partial_auc_surrogate(s, yy, 1.0, "hinge") == pytest.approx(full)


def two_clusters(n=4000, d=10, seed=0):
    """Rare positives (5%) in two clusters: one far out along one feature (it makes the top
    of the ranking), one slightly shifted along two others (it makes most of the full AUC);
    return ``X, y``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.05, 1, -1)
    pos = rng.permutation(np.flatnonzero(y > 0))
    X[pos[: len(pos) // 2], 0] += 3.0
    X[pos[len(pos) // 2:], 1] += 0.7
    X[pos[len(pos) // 2:], 2] += 0.7
    return X, y


def test_beats_full_auc_learner_at_low_fpr_on_imbalanced_data():
    X, y = two_clusters()
    Xt, yt = X[:2500], y[:2500]
    Xv, yv = X[2500:], y[2500:]
    got, full = (partial_roc_auc_score(yv, aucopt.make(a, random_state=0, **kw).fit(Xt, yt)
                                       .decision_function(Xv), max_fpr=0.05)
                 for a, kw in (("pauc-1pmb", {"max_fpr": 0.05}), ("spam-l2", {})))
    assert got > full + 0.01  # measured: 0.663 and 0.646


def test_bad_params_and_state(tmp_path):
    X, y = _imbalanced(n=100)
    with pytest.raises(ValueError, match="max_fpr"):
        PAUC1PMBClassifier(max_fpr=0.0).fit(X, y)
    with pytest.raises(ValueError, match="max_fpr"):
        PAUC1PMBClassifier(max_fpr=1.5).fit(X, y)
    est = PAUC1PMBClassifier(eta=0.1, buffer_size=8).fit(X, y)
    save(est, tmp_path / "m")
    npz = dict(np.load(tmp_path / "m.npz"))
    npz["state__ring"] = np.array([99], dtype=np.int64)
    np.savez(tmp_path / "m.npz", **npz)
    resign(tmp_path / "m")  # a consistent pair: the state's own check must refuse it
    with pytest.raises(ValueError, match="ring"):
        load(tmp_path / "m")


def test_sparse_and_dense_predict_alike():
    X, y = _imbalanced(n=400)
    est = PAUC1PMBClassifier(eta=0.1, buffer_size=8, max_iter=1).fit(sp.csr_matrix(X), y)
    assert_allclose(est.decision_function(X), est.decision_function(sp.csr_matrix(X)))
