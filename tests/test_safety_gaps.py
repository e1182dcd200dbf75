"""Safety rules without a test of their own elsewhere: load takes only an exactly
registered algorithm id, and an arithmetic error inside a kernel reaches the user as a
DivergenceError (a ValueError), never as the error of the code that reports it."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
import aucopt.io
from aucopt.exceptions import ModelFileError
from tests._model_files import resign


@pytest.mark.parametrize("algorithm", ["SPAM-L2", " spam-l2", "spam-l2\x00", "spam_l2"])
def test_load_refuses_an_algorithm_id_that_is_not_exactly_registered(tmp_path, algorithm):
    """Re-signed (the hashes match): the id itself must be refused, not looked up loosely."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    aucopt.io.save(aucopt.make("spam-l2", random_state=0).fit(X, y), tmp_path / "m")
    meta = json.loads((tmp_path / "m.json").read_text())
    meta["algorithm"] = algorithm
    resign(tmp_path / "m", meta)
    with pytest.raises(ModelFileError, match="not a registered id"):
        aucopt.io.load(tmp_path / "m")


def test_an_arithmetic_error_of_a_kernel_on_csr_rows_ending_empty_is_a_divergence_error():
    """Weights of 1e-300 make a pAUC kernel divide by zero; its report measured the rows with
    ``np.add.reduceat``, which raised IndexError on CSR rows ending in an empty row."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 6))
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, 1, -1)
    y[:2] = [1, -1]
    X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    assert np.diff(X.indptr)[-1] == 0 or np.diff(X.indptr).min() == 0  # empty rows
    est = aucopt.make("pauc-1pmb", random_state=0)
    try:
        est.fit(X, y, sample_weight=np.full(60, 1e-300))
    except ValueError as exc:
        assert "diverged" in str(exc) and "eta" in str(exc)
        assert not hasattr(est, "coef_")
    else:  # a kernel that learns to divide safely
        assert np.isfinite(est.decision_function(X)).all()


@pytest.mark.parametrize(("algorithm", "name"), [("opauc", "eta"), ("spam-l2", "eta0"),
                                                 ("mba", "lam1"), ("svm-pauc", "max_fpr")])
def test_a_subnormal_hyperparameter_is_refused_by_fit_as_by_load(algorithm, name):
    """fit accepted 5e-324 (within the declared range), and save then refused the model it
    made, or its scores were NaN; now the rule of load applies to every call."""
    X, y = np.eye(4), np.array([1, -1, 1, -1])
    est = aucopt.make(algorithm, **{name: 5e-324})
    with pytest.raises(ValueError, match=f"'{name}' parameter .* is subnormal"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("algorithm", ["sparse-kernel", "projection-pp", "aogd"])
@pytest.mark.parametrize("bandwidth", [1e-300, 1e300])
def test_a_bandwidth_whose_kernel_is_nan_or_constant_is_refused_by_fit(algorithm, bandwidth):
    """As load refuses it: 1 / (2 sigma^2) is inf or 0 (before: fit made such a model)."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.raises(ValueError, match="1/\\(2 sigma\\^2\\)"):
        aucopt.make(algorithm, bandwidth=bandwidth).fit(X, y)


def test_aogd_load_refuses_a_width_whose_features_are_constant(tmp_path):
    """AOGD's frequencies divided by a bandwidth of 1e200 make every random feature
    constant (a model of equal scores, saved and loaded without a word before)."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    aucopt.io.save(aucopt.make("aogd", random_state=0).fit(X, np.where(X[:, 0] > 0, 1, -1)),
                   tmp_path / "m")
    npz = next(tmp_path.glob("m*.npz"))
    arrays = dict(np.load(npz))
    arrays["state__bandwidth"][0] = 1e200
    np.savez(npz, **arrays)
    resign(tmp_path / "m")
    with pytest.raises(ModelFileError, match="1/\\(2 sigma\\^2\\)"):
        aucopt.io.load(tmp_path / "m")


def test_mba_refuses_a_round_of_pairs_beyond_max_memory_gb():
    """batch_size=10^9 drew 10^9-row matrices (the process was killed for memory)."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    est = aucopt.make("mba", batch_size=10**9)
    with pytest.raises(ValueError, match="batch_size=1000000000 .*max_memory_gb"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
