"""Kernels cannot read or write out of bounds: invalid CSR structures and structural
hyperparameters changed mid-stream are refused with a ValueError before any kernel runs.

Each case that crashed the process (SIGSEGV, heap corruption) before the checks runs in a
subprocess, so that a regression fails the test instead of killing the test run.
"""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
import aucopt.io
from aucopt.algorithms import get_algorithm
from aucopt.algorithms._structure import check_sparse_structure

# ---------------------------------------------------------------- CSR structure
# (name, how the valid matrix's index arrays are damaged after construction)
DAMAGES = {
    "index_too_large": "X.indices[3] = X.shape[1]",
    "index_int32_max": "X.indices[3] = 2**31 - 1",
    "index_negative": "X.indices[3] = -5",
    "indptr_decreasing": "X.indptr[10] = X.indptr[12] + 3",
    "indptr_negative": "X.indptr[5] = -7",
    "indptr_past_nnz": "X.indptr[-1] = X.indptr[-1] + 50",
    "indptr_not_from_0": "X.indptr[0] = 2",
    "indptr_too_short": "X.indptr = X.indptr[:-3]",
    "int64_index_too_large": "X.indices = X.indices.astype('int64'); X.indices[3] = 2**40",
}

# a linear streaming id (plain fast path of partial_fit), a kernel model (its own
# decision), a batch cutting-plane solver
CSR_IDS = ["spam-l2", "projection-pp", "svm-perf"]
WORKER = Path(__file__).with_name("_safety_worker.py")
STRUCTURAL = [(a, name) for a in aucopt.list_algorithms() for name in aucopt.make(a)._structural()]
STREAMING_STRUCTURAL = [(a, n) for a, n in STRUCTURAL if get_algorithm(a).streaming]


def _other_value(algorithm, name):
    default = aucopt.make(algorithm).get_params()[name]
    if isinstance(default, str):  # another of the declared options
        declared = next(p for p in get_algorithm(algorithm).params if p.name == name)
        options = next(c.options for c in declared.constraints if hasattr(c, "options"))
        others = sorted(options - {default})
        return others[0] if others else 1.5  # "auto" or a number (a kernel's bandwidth)
    return max(int(default or 1) // 2, 2) + 1


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """Run every crash-prone case in one subprocess; return (exit code, {case: line}, stderr)."""
    folder = tmp_path_factory.mktemp("safety")
    cases = {"csr_ids": CSR_IDS, "damages": DAMAGES,
             "structural": [(a, n, _other_value(a, n), str(folder / f"{a}-{n}"))
                            for a, n in STREAMING_STRUCTURAL]}
    (folder / "cases.json").write_text(json.dumps(cases))
    done = subprocess.run([sys.executable, str(WORKER), str(folder / "cases.json")],
                          capture_output=True, text=True, timeout=1800)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, {line["case"]: line for line in lines}, done.stderr[-3000:]


def _case(worker, key):
    rc, lines, err = worker
    assert key in lines, f"the worker died (exit {rc}) before {key}: {err}"
    return lines[key]


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("algorithm", CSR_IDS)
def test_invalid_csr_structure_is_a_value_error_naming_the_problem(worker, algorithm, damage):
    """fit, partial_fit (its fast path: float64 CSR of the right width) and
    decision_function on CSR matrices whose index arrays were damaged after construction."""
    calls = ["fit", "decision_function"]
    if get_algorithm(algorithm).streaming:
        calls.append("partial_fit")
    for call in calls:
        out = _case(worker, f"csr/{algorithm}/{damage}/{call}")
        assert out["outcome"] == "ValueError" and "Sparse X (csr)" in out["message"], out


def test_structure_check_accepts_what_scipy_builds_and_names_the_entry():
    X = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    for fmt in ("csr", "csc", "coo", "bsr", "lil"):
        check_sparse_structure(X.asformat(fmt))
    check_sparse_structure(sp.csr_matrix((0, 5)))
    check_sparse_structure(sp.csr_array(X))
    X.indices[7] = 30
    with pytest.raises(ValueError, match=r"entry 7 has column index 30, outside \[0, 30\)"):
        check_sparse_structure(X)
    C = sp.random(20, 10, density=0.3, format="csc", random_state=0)
    C.indices[0] = 20
    with pytest.raises(ValueError, match="row index 20"):
        check_sparse_structure(C)


def test_duplicate_and_unsorted_entries_still_train(tmp_path):
    """Valid but non-canonical CSR passes the check (and is summed, as before)."""
    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3, 3])),
                      shape=(2, 4))
    assert not X.has_canonical_format
    est = aucopt.make("spam-l2", random_state=0).fit(X, np.array([1, -1]))
    assert np.isfinite(est.decision_function(X)).all()


def test_distributed_partitions_are_checked():
    from aucopt.distributed._data import as_block

    X = sp.random(20, 6, density=0.5, format="csr", random_state=0)
    X.indices[0] = 99
    with pytest.raises(ValueError, match="partition 3: Sparse X"):
        as_block(X, 3)


# ---------------------------------------------------- structural hyperparameters
def test_structural_declarations_cover_the_state_sizes():
    """Every size hyperparameter is declared structural (one declaration per fact)."""
    found = {name for _, name in STRUCTURAL}
    assert {"budget", "buffer_size", "rank", "n_components"} <= found
    assert ("projection-pp", "budget") in STREAMING_STRUCTURAL


@pytest.mark.parametrize("algorithm, name", STREAMING_STRUCTURAL)
def test_structural_change_mid_stream_is_refused_and_the_model_saves(worker, algorithm, name):
    """partial_fit after set_params of a structural value: a ValueError naming fit, the
    model unchanged, save + load round-trips, the loaded model continues, fit restarts."""
    out = _case(worker, f"structural/{algorithm}/{name}")
    assert name in out["partial_fit"] and "call fit" in out["partial_fit"], out
    assert out["unchanged"] and out["round_trip"] and out["refit"], out


def test_river_learn_one_refuses_a_structural_change():
    from aucopt.river import AUCClassifier

    model = AUCClassifier("projection-pp", n_features=8, budget=5, seed=0)
    rng = np.random.default_rng(0)
    for i in range(30):
        model.learn_one({f"f{j}": float(v) for j, v in enumerate(rng.normal(size=4))}, i % 2 == 0)
    model.estimator.set_params(budget=50)
    with pytest.raises(ValueError, match="budget was changed from 5 to 50.*call fit"):
        model.learn_one({"f0": 1.0}, True)
    model.estimator.set_params(budget=5)  # back: the stream continues
    model.learn_one({"f0": 1.0}, True)


def test_warm_start_refuses_a_state_of_another_width():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(80, 5)), np.tile([1, -1], 40)
    est = aucopt.make("spam-l2", warm_start=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="warm_start=True cannot reuse"):
        est.fit(np.hstack([X, X]), y)
    est.set_params(warm_start=False).fit(np.hstack([X, X]), y)


def test_non_structural_changes_still_apply_mid_stream():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(80, 5)), np.tile([1, -1], 40)
    est = aucopt.make("projection-pp", random_state=0).partial_fit(X, y, classes=[-1, 1])
    est.set_params(lam=0.5, eta=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.partial_fit(X, y)
    assert est.t_ > 80


def test_the_structural_check_is_from_the_declarations():
    """A spec's declaration, not the estimator, says what is structural."""
    spec = get_algorithm("projection-pp")
    assert spec.param("budget").structural and not spec.param("lam").structural
    assert aucopt.make("kar")._structural() == ("buffer_size", "precondition")


def test_a_stream_refuses_a_changed_precondition_and_keeps_its_scales():
    """partial_fit accepted a changed precondition: a stream started under None went on
    unpreconditioned while get_params said "auto", and one set from "auto" to None left the
    features first seen meanwhile without a scale (a coefficient then jumped x0.01)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 4)), np.tile([1, -1], 60)
    X[:60, 3] = 0.0  # a feature first seen in the second chunk
    est = aucopt.make("spam-l2", random_state=0).partial_fit(X[:60], y[:60], classes=[-1, 1])
    scales = est._state["feature_scale"].copy()
    est.set_params(precondition=None)
    with pytest.raises(ValueError, match="precondition was changed from 'auto' to None"):
        est.partial_fit(X[60:], y[60:])
    np.testing.assert_array_equal(est._state["feature_scale"], scales)
    plain = aucopt.make("spam-l2", precondition=None).partial_fit(X, y, classes=[-1, 1])
    plain.set_params(precondition="auto")
    with pytest.raises(ValueError, match="precondition was changed from None to 'auto'"):
        plain.partial_fit(X, y)
