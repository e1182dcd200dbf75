"""``min_tpr`` of pauc-1pmb and pauc-2pmb: the two-way partial AUC (TPR >= min_tpr,
FPR <= max_fpr; docs/algorithms/notes.md#pauc-two-way).

Against the slow NumPy transcription (tests/reference/pauc.py) on the estimator's own sample
order, a brute force of one step (the selected pairs maximise the summed hinge loss over all
subsets), the former one-way results to the last bit at ``min_tpr=0``, JIT on and off, fit
against chunked ``partial_fit`` and River's ``learn_one``, bad values, and the two-way
partial AUC on imbalanced data.
"""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import aucopt
from aucopt._kernels.pauc import _bottom_positives
from aucopt.algorithms.pauc import partial_auc_objective
from aucopt.linear_model import PAUC1PMBClassifier, PAUC2PMBClassifier
from aucopt.metrics import partial_roc_auc_score, two_way_partial_auc_score

from ._jit_pair import compiled_output, interpreted_output
from .algorithms.test_oam import STREAM_CHUNKS, growing_sparse_stream, positive_weights
from .algorithms.test_pauc import PARAMS, _imbalanced
from .algorithms.test_pauc_2pmb import _reference as reference_2pmb
from .reference import pauc as ref

PAPERS = dict(precondition=None)  # the transcription's algorithm (no preconditioner)


def _orders(seed, epochs, n):
    """The estimator's permutations: one per pass from ``default_rng(random_state)``."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(epochs)]


def _assert_close(coef, w):
    assert_allclose(coef, w, rtol=1e-10, atol=1e-13 * np.abs(w).max())


@pytest.mark.parametrize("min_tpr", [0.3, 0.7])
@pytest.mark.parametrize(("fmt", "loss", "weighted"), [
    ("dense", "hinge", True), ("csr", "square", False), ("csr", "hinge", False),
    ("dense", "square", True)])
def test_1pmb_equals_reference(min_tpr, fmt, loss, weighted):
    X, y = _imbalanced()
    sw = positive_weights(len(y)) if weighted else None
    data = sp.csr_matrix(X) if fmt == "csr" else X
    est = PAUC1PMBClassifier(**PARAMS, min_tpr=min_tpr, loss=loss, max_iter=2, random_state=7,
                             **PAPERS).fit(data, y, sample_weight=sw)
    w, t = ref.pauc_1pmb(X, y, _orders(7, 2, len(y)), **PARAMS, loss=loss, sample_weight=sw,
                         min_tpr=min_tpr)
    assert est.t_ == t > 50
    _assert_close(est.coef_[0], w)
    # the selection matters: the one-way transcription is far from it
    one_way, _ = ref.pauc_1pmb(X, y, _orders(7, 2, len(y)), **PARAMS, loss=loss,
                               sample_weight=sw)
    assert np.abs(one_way - w).max() > 0.01 * np.abs(w).max()


@pytest.mark.parametrize("min_tpr", [0.3, 0.7])
@pytest.mark.parametrize(("fmt", "loss", "weighted"), [
    ("csr", "hinge", True), ("dense", "square", False)])
def test_2pmb_equals_reference(min_tpr, fmt, loss, weighted):
    X, y = _imbalanced()
    sw = positive_weights(len(y)) if weighted else None
    data = sp.csr_matrix(X) if fmt == "csr" else X
    est = PAUC2PMBClassifier(**PARAMS, min_tpr=min_tpr, loss=loss, max_iter=3, random_state=7,
                             **PAPERS).fit(data, y, sample_weight=sw)
    w, t = reference_2pmb(X, y, seed=7, epochs=3, **PARAMS, loss=loss, sample_weight=sw,
                          min_tpr=min_tpr)
    assert est.t_ == t > 50
    _assert_close(est.coef_[0], w)


@pytest.mark.parametrize("algorithm", ["pauc-1pmb", "pauc-2pmb"])
def test_ties_go_to_the_earlier_slot(algorithm):
    # short CSR rows: many positives share no column with w and score exactly 0, so the
    # tie rule decides which of them a step keeps (and 1PMB's ring wraps: slot order is
    # not arrival order)
    X, y = growing_sparse_stream()
    kw = dict(eta=0.2, max_fpr=0.3, lam=0.0, loss="hinge", buffer_size=8)
    est = aucopt.make(algorithm, **kw, min_tpr=0.5, max_iter=2, random_state=3,
                      **PAPERS).fit(X, y)
    if algorithm == "pauc-1pmb":
        w, t = ref.pauc_1pmb(X, y, _orders(3, 2, len(y)), **kw, min_tpr=0.5)
    else:
        w, t = reference_2pmb(X, y, seed=3, epochs=2, **kw, min_tpr=0.5)
    assert est.t_ == t > 20
    _assert_close(est.coef_[0], w)


def test_bottom_positives_are_a_stable_sort_prefix():
    # the m lowest scores, ties to the earlier slot: the first m of a stable argsort, on
    # scores with and without ties, with scratch longer than the scores
    rng = np.random.default_rng(0)
    heap, chosen = np.empty(40), np.empty(40, dtype=np.int64)
    for trial in range(400):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(1, n + 1))
        scores = rng.integers(0, 4, n).astype(float) if trial % 2 else rng.normal(size=n)
        _bottom_positives(scores, n, m, heap, chosen)
        want = np.zeros(n, dtype=np.int64)
        want[np.argsort(scores, kind="stable")[:m]] = 1
        assert_array_equal(chosen[:n], want, err_msg=str(scores))


def _batch_loss(w, Xp, Xn, loss):
    """Mean of ``phi`` over every (positive, negative) pair of the rows given."""
    margin = (Xp @ w)[:, None] - (Xn @ w)[None, :]
    phi = np.maximum(0.0, 1.0 - margin) if loss == "hinge" else (1.0 - margin) ** 2
    return float(phi.mean())


def _largest_loss(w, Xp, Xn, m, k):
    """The brute force: the largest mean hinge loss over every m positives and k negatives."""
    return max(_batch_loss(w, Xp[list(p)], Xn[list(q)], "hinge")
               for p in itertools.combinations(range(len(Xp)), m)
               for q in itertools.combinations(range(len(Xn)), k))


def _gradient(f, w, h=1e-6):
    return np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(len(w))])


@pytest.mark.parametrize("loss", ["hinge", "square"])
def test_one_step_is_the_gradient_of_the_brute_force(loss):
    # 5 positives (the ring holds them all: buffer_size 8), then 15 negatives: batches of 1,
    # 2, 4 and 8; the fourth step keeps m = 5 - floor(0.5 * 5) = 3 positives and the top
    # k = ceil(0.5 * 8) = 4 negatives
    rng = np.random.default_rng(2)
    Xp, Xn = 0.3 * rng.normal(size=(5, 4)) + 0.1, 0.3 * rng.normal(size=(15, 4))
    X, y = np.vstack([Xp, Xn]), np.r_[np.ones(5), -np.ones(15)]
    eta = 0.1

    def fit(n_neg):
        rows = np.arange(5 + n_neg)
        return PAUC1PMBClassifier(eta=eta, max_fpr=0.5, min_tpr=0.5, lam=0.0, loss=loss,
                                  buffer_size=8, schedule="constant", max_iter=1,
                                  shuffle=False, **PAPERS).fit(X[rows], y[rows])

    before, after = fit(7), fit(15)
    assert (before.t_, after.t_) == (3, 4)
    w, batch = before.coef_[0], Xn[7:]
    used = (w - after.coef_[0]) / eta
    margins = (Xp @ w)[:, None] - (batch @ w)[None, :]
    assert np.abs(margins).max() < 0.9  # every hinge term active: the maximiser is unique
    low, top = np.argsort(Xp @ w)[:3], np.argsort(-(batch @ w))[:4]
    if loss == "hinge":  # the selected pairs are the maximiser of the brute force
        assert _largest_loss(w, Xp, batch, 3, 4) == pytest.approx(
            _batch_loss(w, Xp[low], batch[top], "hinge"), rel=1e-14)
        grad = _gradient(lambda v: _largest_loss(v, Xp, batch, 3, 4), w)
    else:  # the selection by score, held fixed
        grad = _gradient(lambda v: _batch_loss(v, Xp[low], batch[top], loss), w)
    assert np.abs(grad).max() > 0.05
    assert_allclose(used, grad, rtol=1e-6, atol=1e-9)
    # and it is not the step of every positive against the top negatives
    every = _gradient(lambda v: _batch_loss(v, Xp, batch[top], loss), w)
    assert np.abs(every - grad).max() > 1e-3


# fits of both ids before min_tpr existed (the one-way code): coef_ as float.hex and t_ of
# each run of _one_way_runs with a fixed step (recorded on one machine: compared to 1e-9, as
# another CPU's compiled code may round a sum differently)
ONE_WAY = json.loads((Path(__file__).parent / "reference" / "pauc_one_way.json").read_text())


def _one_way_runs():
    """The runs of :data:`ONE_WAY`: both ids, dense and CSR rows (a 40% zero entries),
    weights, both losses, fixed steps, the default preconditioner."""
    rng = np.random.default_rng(11)
    n, d = 300, 5
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.15, 1, -1)
    X[y > 0, :2] += 1.0
    X[rng.random((n, d)) < 0.4] = 0.0
    sw = rng.uniform(0.2, 3.0, n)
    csr = sp.csr_matrix(X)
    fixed = dict(buffer_size=8, max_iter=2)
    return {
        "1pmb-dense-hinge-w": ("pauc-1pmb", X, dict(loss="hinge", eta=0.1, max_fpr=0.2,
                                                    random_state=0, **fixed), sw),
        "1pmb-csr-square": ("pauc-1pmb", csr, dict(loss="square", eta=0.05, max_fpr=0.3,
                                                   lam=1e-3, random_state=1, **fixed), None),
        "2pmb-dense-square-w": ("pauc-2pmb", X, dict(loss="square", eta=0.05, max_fpr=0.2,
                                                     random_state=3, **fixed), sw),
        "2pmb-csr-hinge": ("pauc-2pmb", csr, dict(loss="hinge", eta=0.1, max_fpr=0.1,
                                                  schedule="constant", random_state=4,
                                                  **fixed), None),
    }, y


@pytest.mark.parametrize("key", sorted(ONE_WAY))
def test_min_tpr_zero_is_the_one_way_method(key):
    runs, y = _one_way_runs()
    algorithm, data, params, sw = runs[key]
    est = aucopt.make(algorithm, **params, min_tpr=0.0).fit(data, y, sample_weight=sw)
    assert est.t_ == ONE_WAY[key]["t"]
    assert_allclose(est.coef_[0], [float.fromhex(v) for v in ONE_WAY[key]["coef"]],
                    rtol=1e-9, atol=1e-12)


def test_calibration_objective():
    # min_tpr = 0: McClish's one-way area as before; > 0: the two-way area standardised
    # alike (0.5 random, 1 perfect), on the rows' scores
    rng = np.random.default_rng(0)
    y = np.where(rng.random(300) < 0.2, 1, -1)
    s = rng.normal(size=300) + (y > 0)
    one_way = partial_auc_objective(s, None, {"max_fpr": 0.2, "min_tpr": 0.0}, y)
    assert one_way == partial_auc_objective(s, None, {"max_fpr": 0.2}, y)
    assert one_way == pytest.approx(1 - partial_roc_auc_score(y, s, max_fpr=0.2), rel=1e-12)
    for alpha, beta in ((0.5, 0.2), (0.1, 0.5)):
        got = partial_auc_objective(s, None, {"max_fpr": beta, "min_tpr": alpha}, y)
        area = two_way_partial_auc_score(y, s, min_tpr=alpha, max_fpr=beta)
        least, most = max(0.0, beta - alpha) ** 2 / 2, (1 - alpha) * beta
        assert got == pytest.approx(0.5 - 0.5 * (area - least) / (most - least), rel=1e-12)
        perfect = np.where(y > 0, 1.0, 0.0)
        assert partial_auc_objective(perfect, None, {"max_fpr": beta, "min_tpr": alpha},
                                     y) == pytest.approx(0.0, abs=1e-12)


_NOJIT_SCRIPT = """
import json, sys
import aucopt
from aucopt._kernels.pauc import _bottom_positives
from tests.algorithms.test_oam import STREAM_CHUNKS, growing_sparse_stream
X, y = growing_sparse_stream(d=400)  # pure Python without the JIT: O(d) loops
out = {}
kw = dict(eta=0.2, buffer_size=8, min_tpr=0.5, random_state=0, precondition=None)
for name, data in (("csr", X), ("dense", X.toarray())):
    one = aucopt.make("pauc-1pmb", loss="hinge", **kw)
    for chunk in STREAM_CHUNKS:
        one.partial_fit(data[chunk], y[chunk], classes=[-1, 1])
    two = aucopt.make("pauc-2pmb", max_iter=2, **kw).fit(data, y)
    out["1pmb/" + name] = one.decision_function(X).tolist()
    out["2pmb/" + name] = two.decision_function(X).tolist()
json.dump(out, sys.stdout)
"""


def test_jit_equals_nojit():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    nojit = json.loads(interpreted_output(_NOJIT_SCRIPT, cwd=root))
    jit = json.loads(compiled_output(_NOJIT_SCRIPT))
    assert set(jit) == set(nojit) == {"1pmb/csr", "1pmb/dense", "2pmb/csr", "2pmb/dense"}
    for key in jit:
        assert_allclose(nojit[key], jit[key], rtol=1e-10, atol=1e-12, err_msg=key)


def test_fit_equals_chunks_and_learn_one():
    X, y = growing_sparse_stream()
    kw = dict(eta=0.2, buffer_size=8, max_fpr=0.3, min_tpr=0.5, **PAPERS)
    one = PAUC1PMBClassifier(**kw, max_iter=1, shuffle=False).fit(X, y)
    chunks = PAUC1PMBClassifier(**kw)
    for chunk in STREAM_CHUNKS:
        chunks.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    assert chunks.t_ == one.t_ > 20
    assert_array_equal(chunks.coef_, one.coef_)
    assert not np.allclose(one.coef_, PAUC1PMBClassifier(**{**kw, "min_tpr": 0.0}, max_iter=1,
                                                         shuffle=False).fit(X, y).coef_)
    river = pytest.importorskip("aucopt.river")
    stable_hash = pytest.importorskip("aucopt.river._columns").stable_hash
    Xd, yd = _imbalanced(n=300, d=6)
    width = 512  # the names f0-f5 hash to distinct columns
    columns = [stable_hash(f"f{j}") % width for j in range(6)]
    assert len(set(columns)) == 6
    Xh = sp.csr_matrix((Xd.ravel(), np.tile(columns, len(yd)), np.arange(len(yd) + 1) * 6),
                       shape=(len(yd), width))
    model = river.AUCClassifier("pauc-1pmb", n_features=width, seed=0, **kw)
    for x, label in zip(Xd, yd):
        model.learn_one({f"f{j}": float(v) for j, v in enumerate(x)}, bool(label > 0))
    hashed = PAUC1PMBClassifier(**kw, max_iter=1, shuffle=False).fit(Xh, yd)
    assert model.estimator.t_ == hashed.t_ > 10
    assert_array_equal(model.estimator.coef_, hashed.coef_)


@pytest.mark.parametrize("value", [1.0, 1.5, -0.1, float("nan"), "0.5", None])
@pytest.mark.parametrize("algorithm", ["pauc-1pmb", "pauc-2pmb"])
def test_bad_min_tpr_refused(algorithm, value):
    X, y = _imbalanced(n=100)
    with pytest.raises(ValueError, match="min_tpr"):
        aucopt.make(algorithm, min_tpr=value).fit(X, y)
