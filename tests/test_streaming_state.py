"""Streaming at O(nnz) per call: the lazy state kept between calls, its all-or-nothing update,
persistence mid-stream, and the forgetting class statistics of SPAM (``decay``)."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.exceptions import DivergenceError
from aucopt.io import load, save
from aucopt.linear_model import SPAML2Classifier
from aucopt.linear_model._undo import UndoLog, next_plan

from ._general_path import general
from .reference import spam as ref

STREAMING = [a for a in aucopt.list_algorithms() if aucopt.algorithm_info(a)["streaming"]]

# (algorithm, params that make the lazy scale fold within a few rows)
FOLDING = [
    ("spam-l2", {"beta": 100.0, "eta0": 0.1, "stats": "online"}),
    ("uni-squ", {"lam": 50.0, "eta": 0.05, "weights": "online"}),
    ("uni-exp", {"lam": 50.0, "eta": 0.05, "weights": "online"}),
    ("ftrl-auc", {}),
    ("reg-solam", {"lam": 1.0, "eta0": 0.9, "kappa": 2.0}),
    ("solam", {"R": 0.01, "eta0": 4.0, "kappa": 2.0}),
    ("ogd-fifo", {"eta": 0.5, "lam": 50.0, "loss": "square"}),
]


def _wide_stream(n=240, d=3000, nnz=12, seed=0):
    """CSR rows wide enough for the undo log to work by columns (d >= 256)."""
    rng = np.random.default_rng(seed)
    indptr = np.arange(n + 1) * nnz
    indices = np.concatenate([np.sort(rng.choice(d, nnz, replace=False)) for _ in range(n)])
    X = sp.csr_matrix((rng.uniform(-1, 1, n * nnz), indices, indptr), shape=(n, d))
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    y[:2] = [-1.0, 1.0]
    return X, y


def _snapshot(est):
    return est.t_, {k: v.copy() for k, v in est._state.items()}, est.coef_.copy()


def _assert_unchanged(est, snapshot):
    t, state, coef = snapshot
    assert est.t_ == t
    assert set(est._state) == set(state)
    for key, value in state.items():
        assert_array_equal(est._state[key], value, err_msg=key)
    assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("one_row_calls", [0, 3])
@pytest.mark.parametrize("algorithm, params", FOLDING)
def test_failed_call_leaves_state_as_before(algorithm, params, one_row_calls):
    """A NaN in the last row (found by the statistics pass) and a divergence after folds of the
    lazy scale (O(d) writes announced to the undo log) both leave every entry as it was, and
    the stream then continues as if the bad chunk had never come. After one-row calls the
    state lives in one buffer (the undo log's arena) and is logged by columns plus a copy of
    the buffer's prefix."""
    X, y = _wide_stream()
    # the papers' steps: precondition="auto" shortens the huge rows below, which then do not
    # diverge (tests/test_precondition_rows.py)
    params = {"precondition": None, **params}
    # the general path's one-row calls (the row path logs nothing: tests/test_rowpath.py)
    est, twin = (general(aucopt.make(algorithm, random_state=0, **params)) for _ in range(2))
    for model in (est, twin):
        model.partial_fit(X[:100], y[:100], classes=[-1, 1])
        for i in range(100 - one_row_calls, 100):  # rows seen twice: fine for this test
            model.partial_fit(X[i:i + 1], y[i:i + 1])
    plan = est.__dict__.get("_undo_plan")
    assert (plan is not None and plan.arena is not None) == (one_row_calls > 1)
    snapshot = _snapshot(est)
    bad = X[100:140].toarray()
    bad[-1, 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.partial_fit(sp.csr_matrix(bad), y[100:140])
    _assert_unchanged(est, snapshot)
    huge = X[100:140].toarray()
    huge[-5, huge[-5] != 0] = 1e14  # blows the iterate up; the same columns again explode
    huge[-4:] = huge[-5] * np.arange(2.0, 6.0)[:, None]
    labels = y[100:140].copy()
    labels[-5:] = [1.0, -1.0, 1.0, -1.0, 1.0]  # pairs for the pairwise learners
    with pytest.raises(DivergenceError):
        est.partial_fit(sp.csr_matrix(huge), labels)
    _assert_unchanged(est, snapshot)
    est.partial_fit(X[100:], y[100:])
    twin.partial_fit(X[100:], y[100:])
    assert_array_equal(est.coef_, twin.coef_)
    assert_array_equal(est.intercept_, twin.intercept_)


@pytest.mark.parametrize("algorithm", STREAMING)
def test_one_row_calls_on_a_small_state_roll_back_exactly(algorithm):
    """One-row calls on a narrow stream log the whole state as one copy of its arena; a call
    with a NaN still leaves every entry as it was (the same arrays, views of the arena), and
    the stream continues exactly as without it. Pickled and deep-copied models mid-stream own
    their state and resume exactly."""
    X, y = make_auc_problem(80, 5, random_state=0)
    est, twin = (aucopt.make(algorithm, random_state=0) for _ in range(2))
    for model in (est, twin):
        model.partial_fit(X[:2], y[:2], classes=[-1, 1])
        for i in range(2, 40):
            model.partial_fit(X[i:i + 1], y[i:i + 1])
    plan = est._undo_plan
    assert plan.arena is not None
    arrays = dict(est._state)
    t, state = est.t_, {k: v.copy() for k, v in est._state.items()}
    bad = X[40:41].copy()
    bad[0, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.partial_fit(bad, y[40:41])
    assert est.t_ == t and list(est._state) == list(state)
    for key, value in state.items():
        assert_array_equal(est._state[key], value, err_msg=key)
        assert est._state[key] is arrays[key], key
    copies = [pickle.loads(pickle.dumps(est)), copy.deepcopy(est)]
    assert all("_undo_plan" not in vars(c) for c in copies)
    for i in range(40, 80):
        for model in (est, twin, *copies):
            model.partial_fit(X[i:i + 1], y[i:i + 1])
    expected = twin.decision_function(X)
    for model in (est, *copies):
        assert_array_equal(model.decision_function(X), expected)


def test_spam_divergence_in_a_one_row_call_rolls_back_the_arena():
    """A one-row call whose step explodes after writing the state (a divergence, not an input
    error) is undone from the arena's copy."""
    X, y = make_auc_problem(60, 5, random_state=1)
    # rows as given: a preconditioned stream refuses a row this far out as an input error
    est, twin = (SPAML2Classifier(eta0=1.0, stats="online", precondition=None, random_state=0)
                 for _ in range(2))
    for model in (est, twin):
        model.partial_fit(X[:2], y[:2], classes=[-1, 1])
        for i in range(2, 30):
            model.partial_fit(X[i:i + 1], y[i:i + 1])
    assert est._undo_plan.arena is not None
    snapshot = _snapshot(est)
    with pytest.raises(DivergenceError):
        est.partial_fit(X[30:31] * 1e150, y[30:31])
    _assert_unchanged(est, snapshot)
    for model in (est, twin):
        model.partial_fit(X[30:], y[30:])
    assert_array_equal(est.coef_, twin.coef_)


def test_undo_plan_moves_only_lone_arrays_and_follows_replaced_ones():
    """The arena takes writable arrays that share memory with no other entry (aliases keep
    aliasing); a rollback restores values, removes new keys and puts back replaced arrays,
    after which the plan still fits; a replaced array makes a new plan without an arena."""
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    state = {"a": np.arange(6.0), "c": np.zeros(3), "n": np.zeros(2, dtype=np.int64),
             "frozen": frozen}
    state["b"] = state["a"][2:4]
    plan = next_plan(None, state, (), 6)
    assert plan.arena is None  # a new form: per-entry copies first
    plan = next_plan(plan, state, (), 6)
    assert plan.arena is not None
    assert np.shares_memory(state["c"], plan.arena) and np.shares_memory(state["n"], plan.arena)
    assert not np.shares_memory(state["a"], plan.arena) and state["b"].base is state["a"]
    assert state["frozen"] is frozen
    assert all(v.flags.aligned and v.flags.c_contiguous for v in state.values())
    before = {k: v.copy() for k, v in state.items()}
    log = UndoLog(state, plan, None, None)
    state["a"][:] = -1.0
    state["c"][:] = 5.0
    state["n"][0] = 7
    state["c"] = np.ones(3)
    state["new"] = np.ones(1)
    del state["frozen"]
    log.rollback()
    assert list(state) == list(before)
    for key, value in before.items():
        assert_array_equal(state[key], value, err_msg=key)
    assert state["b"].base is state["a"] and state["frozen"] is frozen
    assert next_plan(plan, state, (), 6) is plan
    state["c"] = np.ones(3)  # replaced between calls: the arena no longer holds it
    assert next_plan(plan, state, (), 6).arena is None


def test_params_dict_is_reused_until_a_hyperparameter_is_assigned():
    """``_params`` returns the same dict while nothing was assigned (work derived from it is
    cached on its identity), a new one after ``set_params`` or an assignment, and an invalid
    assignment is still caught by the next call, which changes nothing."""
    X, y = make_auc_problem(40, 4, random_state=0)
    est = SPAML2Classifier(beta=0.1).partial_fit(X[:20], y[:20], classes=[-1, 1])
    first = est._params()
    assert est._params() is first and first["beta"] == 0.1
    est.set_params(beta=0.5)
    second = est._params()
    assert second is not first and second["beta"] == 0.5 and first["beta"] == 0.1
    est.verbose = False  # equal to 0, but another value: a new dict
    assert est._params() is not second and est._params()["verbose"] is False
    snapshot = _snapshot(est)
    est.beta = -1.0
    with pytest.raises(ValueError, match="beta"):
        est.partial_fit(X[20:21], y[20:21])
    _assert_unchanged(est, snapshot)


def test_calibrated_step_leaves_the_params_dict_alone():
    """A calibrated ``eta0="auto"`` reaches the spec in a cached copy of the params dict: the
    dict of the hyperparameters keeps "auto" and its identity, and the copy is reused while
    the step is the same (so work cached on either dict's identity stays valid)."""
    X, y = make_auc_problem(120, 5, random_state=0)
    est = SPAML2Classifier(stats="online").partial_fit(X[:100], y[:100], classes=[-1, 1])
    assert est.eta0_ is not None  # calibrated on the first chunk
    params = est._params()
    est.partial_fit(X[100:101], y[100:101])
    stepped = est._step_params[2]
    est.partial_fit(X[101:102], y[101:102])
    assert est._params() is params and params["eta0"] == "auto"
    assert est._step_params[2] is stepped and stepped["eta0"] == est.eta0_


def test_folds_happen_in_the_failing_calls():
    """The parameters above really fold the lazy scale (else the test proves less)."""
    X, y = _wide_stream()
    est = aucopt.make("spam-l2", random_state=0, **FOLDING[0][1])
    est.partial_fit(X[:100], y[:100], classes=[-1, 1])
    scales = []
    for i in range(100, 140):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        scales.append(est._state["lazy"][0])
    assert np.any(np.diff(scales) > 0)  # s only shrinks between folds


@pytest.mark.parametrize("algorithm, params", FOLDING)
def test_save_mid_stream_resumes_exactly(algorithm, params, tmp_path):
    X, y = _wide_stream()
    est = aucopt.make(algorithm, random_state=0, **params)
    for i in range(0, 120):
        est.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
    save(est, tmp_path / "m")
    resumed = load(tmp_path / "m")
    for i in range(120, 240):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        resumed.partial_fit(X[i:i + 1], y[i:i + 1])
    assert resumed.t_ == est.t_
    assert_array_equal(resumed.coef_, est.coef_)
    assert_array_equal(resumed.decision_function(X), est.decision_function(X))


def test_coef_is_formed_when_read_and_refreshed_by_learning():
    X, y = _wide_stream()
    est = SPAML2Classifier(random_state=0).partial_fit(X[:50], y[:50], classes=[-1, 1])
    first = est.coef_
    assert est.coef_ is first  # cached until the next call learns
    est.partial_fit(X[50:51], y[50:51])
    assert est.coef_ is not first and not np.array_equal(est.coef_, first)
    assert "coef_" not in vars(est) and "intercept_" not in vars(est)
    assert not hasattr(SPAML2Classifier(), "coef_")


@pytest.mark.usefixtures("papers_algorithm")  # the papers' SPAM (tests/reference)
@pytest.mark.parametrize("as_format", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("decay", [0.01, 0.2])
def test_decay_matches_reference(decay, as_format):
    X, y = make_auc_problem(300, 6, separation=1.5, random_state=2)
    est = SPAML2Classifier(beta=1e-3, stats="online", decay=decay, output="last", max_iter=1,
                           shuffle=False).fit(as_format(X), y)
    w, w_bar, t = ref.spam(X, y, [np.arange(300)], beta=1e-3, stats="online", decay=decay,
                           eta0=est.eta0_)  # the calibrated "auto" step
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-9, atol=1e-13)


@pytest.mark.usefixtures("papers_algorithm")  # the papers' SPAM (tests/reference)
def test_decay_zero_is_the_running_statistics_and_streams_exactly():
    X, y = make_auc_problem(300, 6, separation=1.5, random_state=2)
    plain = SPAML2Classifier(stats="online", max_iter=1, shuffle=False).fit(X, y)
    zero = SPAML2Classifier(stats="online", decay=0.0, max_iter=1, shuffle=False).fit(X, y)
    assert_array_equal(plain.coef_, zero.coef_)
    full = SPAML2Classifier(stats="online", decay=0.05, max_iter=1, shuffle=False)
    full.fit(sp.csr_matrix(X), y)
    rows = SPAML2Classifier(stats="online", decay=0.05, eta0=full.eta0_)
    for i in range(300):
        rows.partial_fit(sp.csr_matrix(X[i:i + 1]), y[i:i + 1], classes=[-1, 1])
    assert_array_equal(rows.coef_, full.coef_)


@pytest.mark.usefixtures("papers_algorithm")  # the papers' SPAM (tests/reference)
def test_decay_folds_its_scale_on_long_streams():
    """sigma = (1 - decay)^n underflows without folding; the fold keeps the reference."""
    X, y = make_auc_problem(400, 5, separation=1.5, random_state=3)
    est = SPAML2Classifier(beta=1e-3, stats="online", decay=0.1, output="last", max_iter=1,
                           shuffle=False).fit(sp.csr_matrix(X), y)
    w, _, _ = ref.spam(X, y, [np.arange(400)], beta=1e-3, stats="online", decay=0.1,
                       eta0=est.eta0_)
    assert_allclose(est.coef_[0], w, rtol=1e-9, atol=1e-13)


def test_decay_needs_online_statistics():
    X, y = make_auc_problem(50, 3, random_state=0)
    with pytest.raises(ValueError, match="stats='online'"):
        SPAML2Classifier(decay=0.1).fit(X, y)
    with pytest.raises(ValueError, match="decay"):
        SPAML2Classifier(stats="online", decay=1.0).fit(X, y)


@pytest.mark.parametrize("as_format", [np.asarray, sp.csr_matrix])
def test_partial_fit_fast_path_checks_as_the_full_path(as_format):
    """Chunks already in float64 skip the conversions, not the checks."""
    X, y = make_auc_problem(60, 4, random_state=0)
    est = SPAML2Classifier(random_state=0).partial_fit(as_format(X[:20]), y[:20],
                                                       classes=[-1, 1])
    other = SPAML2Classifier(random_state=0).partial_fit(as_format(X[:20]), y[:20],
                                                         classes=[-1, 1])
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(as_format(X[20:30, :3]), y[20:30])
    bad = X[20:30].copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.partial_fit(as_format(bad), y[20:30])
    with pytest.raises(ValueError, match="not in classes"):
        est.partial_fit(as_format(X[20:30]), np.where(y[20:30] > 0, 2, -1))
    est.partial_fit(as_format(X[20:40]), y[20:40])  # fast path: float64
    slow = np.asfortranarray(X[20:40]) if as_format is np.asarray else sp.coo_matrix(X[20:40])
    other.partial_fit(slow, list(y[20:40]))  # full path: converted, list labels
    assert_array_equal(est.coef_, other.coef_)


def test_first_partial_fit_rejects_continuous_classes():
    X, y = make_auc_problem(20, 3, random_state=0)
    with pytest.raises(ValueError, match="continuous"):
        SPAML2Classifier().partial_fit(X, np.where(y > 0, 1.5, 1.0), classes=[1.0, 1.5])


def test_pickling_a_model_leaves_its_caches_in_place():
    """pickle and deepcopy popped the caches (row path, its commit, the parameters) from the
    live model, not from a copy: a thread learning meanwhile failed with KeyError after its
    step had been made."""
    import copy
    import pickle

    from aucopt.river import AUCClassifier

    model = AUCClassifier("spam-l2")
    rng = np.random.default_rng(0)
    for i in range(40):
        model.learn_one({"a": float(rng.normal()), "b": float(rng.normal())}, i % 2 == 0)
    model.predict_proba_one({"a": 1.0, "b": 0.0})
    before = set(model.estimator.__dict__)
    assert {"_row_path", "_row_commit", "_score_path"} <= before
    pickle.dumps(model)
    copy.deepcopy(model.estimator)
    assert set(model.estimator.__dict__) == before
