"""Common tests run on every registered algorithm (driven by the registry).

A newly registered algorithm is checked here with no edits: scikit-learn's
estimator checks, fit == chunked partial_fit, persistence round trips, an AUC
floor, and JIT against ``NUMBA_DISABLE_JIT=1``.
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.utils.estimator_checks import parametrize_with_checks

import aucopt
from aucopt.algorithms import get_algorithm
from aucopt.datasets import make_auc_problem
from aucopt.io import load, save
from aucopt.metrics import roc_auc_score

from ._jit_pair import compiled_output, interpreted_output
from .conftest import ALGORITHMS, STREAMING

# Every expected failure carries its reason, derived from the spec's declared facts.
_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")
_ONE_STEP = ("a stochastic method scales a row's step by its weight (and draws rows, not "
             "weight): k copies of a row are not one row of weight k, step for step "
             "(docs/algorithms/notes.md#sample-weights)")


_CLASS_WEIGHT = ("class_weight is 'balanced' or None (which objective ranks), not a "
                 "dict of label weights; predict thresholds at the class means' midpoint "
                 "(intercept_), which no class weight moves")


# Sparse Kernel weighs its objective exactly and departs from repeated rows only in the
# N_CANDIDATES rows it draws per basis point: scikit-learn's weight checks have fewer rows,
# all of them candidates, so they pass
_EXACT_ON_FEW_ROWS = ("sparse-kernel",)


def _expected_failed_checks(algorithm_id: str) -> dict[str, str]:
    spec = get_algorithm(algorithm_id)
    steps = spec.weights == "steps" and algorithm_id not in _EXACT_ON_FEW_ROWS
    out = dict.fromkeys(_WEIGHT_CHECKS, _ONE_STEP) if steps else {}
    if any(p.name == "class_weight" for p in spec.params):
        out["check_class_weight_classifiers"] = _CLASS_WEIGHT
    return out


EXPECTED_FAILED_CHECKS = {a: _expected_failed_checks(a) for a in ALGORITHMS}


@parametrize_with_checks(
    [aucopt.make(a, random_state=0) for a in ALGORITHMS],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS.get(est._algorithm, {}),
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _equivalence_estimator(algorithm_id):
    spec = get_algorithm(algorithm_id)
    return aucopt.make(algorithm_id, **{**spec.equivalence_params, "random_state": 0,
                                        "shuffle": False, "max_iter": 1})


# Streaming algorithms whose chunked or row-by-row results differ from one fit pass in the last
# bits, with the reason; every other one must give the same bits (same operations in the
# same order), which the O(nnz) methods get by keeping their lazy form between calls.
NOT_BIT_IDENTICAL: dict[tuple[str, str], str] = {
    ("fsauc", "dense"): "O(d) per sample anyway; its dense pass recomputes w . sums per call",
    ("kar", "csr"): "lazy form left at the end of each call (O(d) per call)",
}


def _assert_same_model(streamed, full, X, exact):
    assert streamed.t_ == full.t_ > 0
    same = (np.testing.assert_array_equal if exact
            else lambda a, b, err_msg="": assert_allclose(a, b, rtol=1e-12, atol=1e-13,
                                                          err_msg=err_msg))
    if exact:  # the state itself may differ in form (e.g. lazily scaled), not in the model
        if hasattr(full, "coef_"):
            same(streamed.coef_, full.coef_)
    else:
        for key, value in full._state.items():
            same(streamed._state[key], value, err_msg=key)
    same(streamed.decision_function(X), full.decision_function(X))
    same(streamed.intercept_, full.intercept_)


@pytest.mark.parametrize("algorithm_id", STREAMING)
def test_chunked_and_row_by_row_partial_fit_equal_fit(algorithm_id, easy_problem, as_format,
                                                      request):
    X, y = easy_problem
    # the stream opens with five negatives: learners must cope with one class (USERS.md ask 4)
    first = np.flatnonzero(y < 0)[:5]
    order = np.concatenate([first, np.setdiff1d(np.arange(len(y)), first)])
    X, y = as_format(X)[order], y[order]
    exact = (algorithm_id, request.node.callspec.params["as_format"]) not in NOT_BIT_IDENTICAL
    full = _equivalence_estimator(algorithm_id).fit(X, y)
    spec = get_algorithm(algorithm_id)
    # "auto": the streams use the step fit calibrated
    same_step = ({spec.step_param: getattr(full, f"{spec.step_param}_")}
                 if spec.calibration is not None else {})
    chunked = _equivalence_estimator(algorithm_id).set_params(**same_step)
    chunked.partial_fit(X[:5], y[:5], classes=[-1, 1])
    for chunk in np.array_split(np.arange(5, len(y)), 6):
        chunked.partial_fit(X[chunk], y[chunk])
    _assert_same_model(chunked, full, X, exact)
    row_by_row = _equivalence_estimator(algorithm_id).set_params(**same_step)
    for i in range(len(y)):
        row_by_row.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
    _assert_same_model(row_by_row, full, X, exact)


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_save_load_round_trip(algorithm_id, easy_problem, tmp_path):
    X, y = easy_problem
    est = aucopt.make(algorithm_id, random_state=0).fit(X, y)
    save(est, tmp_path / "model")
    loaded = load(tmp_path / "model.json")
    assert type(loaded) is type(est)
    assert loaded.get_params() == est.get_params()
    assert_allclose(loaded.decision_function(X), est.decision_function(X), rtol=0, atol=0)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    assert loaded.t_ == est.t_ and loaded.n_features_in_ == est.n_features_in_
    meta = json.loads((tmp_path / "model.json").read_text())
    assert meta["algorithm"] == algorithm_id and "numpy" in meta["versions"]


@pytest.mark.parametrize("algorithm_id", STREAMING)
def test_resume_after_load_equals_never_stopping(algorithm_id, easy_problem, tmp_path):
    X, y = easy_problem
    half = len(y) // 2
    never_stopped = aucopt.make(algorithm_id, random_state=0)
    never_stopped.partial_fit(X[:half], y[:half], classes=[-1, 1])
    save(never_stopped, tmp_path / "m")
    never_stopped.partial_fit(X[half:], y[half:])
    resumed = load(tmp_path / "m").partial_fit(X[half:], y[half:])
    assert resumed.t_ == never_stopped.t_
    for key, value in never_stopped._state.items():
        np.testing.assert_array_equal(resumed._state[key], value, err_msg=key)
    # the generator continues too: a shuffled fit pass after both draws the same order
    assert resumed._rng.integers(1 << 30) == never_stopped._rng.integers(1 << 30)


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_auc_floor_on_easy_problem(algorithm_id):
    # one problem, split in halves (another seed would draw another class direction)
    X_all, y_all = make_auc_problem(4000, 10, pos_rate=0.2, separation=2.0, random_state=1)
    X, y, X_test, y_test = X_all[:2000], y_all[:2000], X_all[2000:], y_all[2000:]
    # least-squares AUC optimum (notes.md#closed-forms) as the yardstick
    pos, neg = X[y > 0], X[y < 0]
    mu = pos.mean(0) - neg.mean(0)
    sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
    best = roc_auc_score(y_test, X_test @ np.linalg.solve(sigma2 + 1e-6 * np.eye(10), mu))
    assert best > 0.9  # the yardstick itself is meaningful
    est = aucopt.make(algorithm_id, random_state=0).fit(X, y)
    assert est.score(X_test, y_test) > best - 0.02


@pytest.mark.parametrize("algorithm_id", ALGORITHMS)
def test_dense_and_csr_give_the_same_model(algorithm_id, easy_problem):
    if not get_algorithm(algorithm_id).sparse:
        pytest.skip("dense-only algorithm")
    X, y = easy_problem
    dense = aucopt.make(algorithm_id, random_state=3).fit(X, y)
    csr = aucopt.make(algorithm_id, random_state=3).fit(sp.csr_matrix(X), y)
    assert_allclose(csr.decision_function(X), dense.decision_function(X), rtol=1e-10,
                    atol=1e-12)


def _stored_zeros(A):
    """Canonical CSR of the dense ``A`` that stores every zero too."""
    rows, cols = np.nonzero(np.ones_like(A))
    M = sp.csr_matrix((A[rows, cols], (rows, cols)), shape=A.shape)
    M.sort_indices()
    return M


@pytest.mark.parametrize("algorithm_id", STREAMING)
def test_a_stream_of_small_chunks_is_the_same_dense_or_csr(algorithm_id):
    """Defaults, chunks of 3 rows with zeros among the values: the same model from dense
    rows, canonical CSR and CSR that stores the zeros. (FTRL-AUC, before its step was
    calibrated, formed w_j again under the new step at every stored entry of a row, zeros
    included: the three gave three models.)"""
    if not get_algorithm(algorithm_id).sparse:
        pytest.skip("dense-only algorithm")
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(60, 6)), 2)
    X[rng.random(X.shape) < 0.5] = 0.0
    y = np.where(X[:, 1] + X[:, 2] + rng.normal(size=60) > 0, 1, -1)
    scores = []
    for convert in (np.asarray, sp.csr_matrix, _stored_zeros):
        est = aucopt.make(algorithm_id, random_state=0)
        for start in range(0, 60, 3):
            est.partial_fit(convert(X[start:start + 3]), y[start:start + 3], classes=[-1, 1])
        scores.append(est.decision_function(X))
    assert_allclose(scores[1], scores[0], rtol=1e-10, atol=1e-12)
    assert_allclose(scores[2], scores[1], rtol=1e-10, atol=1e-12)


_NOJIT_SCRIPT = """
import json, sys
import numpy as np, scipy.sparse as sp
import aucopt
from aucopt.datasets import make_auc_problem
X, y = make_auc_problem(150, 6, pos_rate=0.3, separation=2.0, random_state=0)
out = {}
# pure-Python speed matters without the JIT: buffers smaller than the 150 rows
smaller = {"sparse-kernel": {"budget": 10}, "projection-pp": {"budget": 10},
           "oam-seq": {"buffer_size": 20}, "oam-gra": {"buffer_size": 20},
           "kar": {"buffer_size": 20}}
for a in sys.argv[1:]:
    for name, data in (("dense", X), ("csr", sp.csr_matrix(X))):
        if name == "csr" and not aucopt.algorithm_info(a)["sparse"]:
            continue
        est = aucopt.make(a, random_state=0, max_iter=2, **smaller.get(a, {})).fit(data, y)
        out[a + "/" + name] = est.decision_function(X).tolist()
json.dump(out, sys.stdout)
"""


_JIT_GROUPS = [ALGORITHMS[k:k + 4] for k in range(0, len(ALGORITHMS), 4)]


@pytest.mark.parametrize("group", _JIT_GROUPS, ids=["+".join(g) for g in _JIT_GROUPS])
def test_jit_equals_numba_disable_jit(group):
    nojit = json.loads(interpreted_output(_NOJIT_SCRIPT, *group))
    jit = json.loads(compiled_output(_NOJIT_SCRIPT, *group))
    assert set(nojit) == set(jit) and len(jit) >= len(group)
    for key in jit:
        assert_allclose(nojit[key], jit[key], rtol=1e-10, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("algorithm_id", STREAMING)
def test_stream_starting_with_one_class(algorithm_id, easy_problem):
    """A stream whose first chunk holds one class only: the learner waits, scores stay
    finite, and it learns once both classes arrive (users' ask: cold starts)."""
    X, y = easy_problem
    first = np.flatnonzero(y < 0)[:50]
    rest = np.setdiff1d(np.arange(len(y)), first)
    est = aucopt.make(algorithm_id, random_state=0).partial_fit(X[first], y[first],
                                                                classes=[-1, 1])
    assert np.isfinite(est.decision_function(X)).all()
    for chunk in np.array_split(rest, 5):
        est.partial_fit(X[chunk], y[chunk])
    assert roc_auc_score(y, est.decision_function(X)) > 0.95
