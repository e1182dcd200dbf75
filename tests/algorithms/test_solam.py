"""SOLAM / SOLAM-l1 / regSOLAM against the slow reference and the closed-form saddle point."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
import aucopt.io
from aucopt._kernels.solam import FOLD_BELOW as _FOLD_BELOW
from aucopt._kernels.solam import saddle_partials
from aucopt.algorithms.solam import iterates
from aucopt.datasets import make_auc_problem
from aucopt.linear_model._solam import RegSOLAMClassifier, SOLAMClassifier, SOLAML1Classifier

from .._model_files import as_version_1
from ..reference import solam as ref


def _orders(seed, n, passes):
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


CASES = {
    "solam": (SOLAMClassifier, dict(R=0.2), dict(R=0.2, ball="l2", lam=0.0)),
    "solam-l1": (SOLAML1Classifier, dict(R=0.2), dict(R=0.2, ball="l1", lam=0.0)),
    "reg-solam": (RegSOLAMClassifier, dict(lam=0.5), dict(R=np.sqrt(2 / 0.5), ball="l2",
                                                         lam=0.5)),
}


@pytest.mark.parametrize("eta0", [0.05, "auto"])
@pytest.mark.parametrize("algorithm", list(CASES))
def test_matches_reference_same_order(algorithm, eta0, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    cls, params, ref_params = CASES[algorithm]
    est = cls(eta0=eta0, max_iter=2, random_state=4, **params).fit(as_format(X), y)
    kappa = np.sqrt(max(float(x @ x) for x in X))
    zeta = est.eta0_  # the calibrated "auto" step, or the number given
    out = ref.solam(X, y, _orders(4, len(y), 2), kappa=kappa, zeta=zeta, **ref_params)
    assert est.t_ == out["t"] == 600
    assert_allclose(est.coef_[0], out["w_bar"], rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], out["w"], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["ab"], [out["a"], out["b"]], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["alpha"], [out["alpha"]], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["ab_avg"], [out["a_bar"], out["b_bar"]], rtol=1e-10,
                    atol=1e-13)
    assert_allclose(est._state["alpha_avg"], [out["alpha_bar"]], rtol=1e-10, atol=1e-13)
    # the constraints were active (otherwise the test would not check the projections)
    if algorithm == "solam-l1":
        assert 0.18 < np.abs(out["w"]).sum() <= 0.2 + 1e-12  # measured 0.19-0.199
    elif algorithm == "solam":
        assert 0.18 < np.linalg.norm(out["w"]) <= 0.2 + 1e-12


@pytest.mark.parametrize("algorithm", list(CASES))
def test_weighted_steps_match_reference_same_order(algorithm, german, as_format):
    """notes.md#sample-weights: p_hat is the positive share of the weight, a row's partials
    are scaled by its weight. (On the code before weights, they were refused.)"""
    X, y = german[0][:300], german[1][:300]
    weight = np.random.default_rng(0).uniform(0.1, 3.0, len(y))
    cls, params, ref_params = CASES[algorithm]
    est = cls(eta0=0.05, max_iter=2, random_state=4, **params)
    est.fit(as_format(X), y, sample_weight=weight)
    kappa = np.sqrt(max(float(x @ x) for x in X))
    out = ref.solam(X, y, _orders(4, len(y), 2), kappa=kappa, zeta=0.05, sample_weight=weight,
                    **ref_params)
    plain = ref.solam(X, y, _orders(4, len(y), 2), kappa=kappa, zeta=0.05, **ref_params)
    assert est.t_ == out["t"] == 600
    assert_allclose(est._state["seen"], [weight[y < 0].sum() * 2, weight[y > 0].sum() * 2],
                    rtol=1e-12)
    assert_allclose(est.coef_[0], out["w_bar"], rtol=1e-10, atol=1e-13)
    assert_allclose(iterates(est._state)[0], out["w"], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["ab"], [out["a"], out["b"]], rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["alpha_avg"], [out["alpha_bar"]], rtol=1e-10, atol=1e-13)
    assert not np.allclose(out["w_bar"], plain["w_bar"], rtol=1e-3)  # the weights matter


def test_weighted_lazy_kernel_folds_like_the_dense_kernel(german):
    """The weighted shrinkage 1 - gamma w_i lam decides the folds of the lazy CSR kernel."""
    X, y = german[0][:300], german[1][:300]
    weight = np.random.default_rng(5).uniform(0.1, 3.0, len(y))
    models = [RegSOLAMClassifier(lam=0.5, eta0=0.5, random_state=0) for _ in range(2)]
    for chunk in np.array_split(np.arange(300), 3):
        models[0].partial_fit(X[chunk], y[chunk], classes=[-1, 1], sample_weight=weight[chunk])
        models[1].partial_fit(sp.csr_matrix(X[chunk]), y[chunk], classes=[-1, 1],
                              sample_weight=weight[chunk])
    for got, expected in zip(iterates(models[1]._state), iterates(models[0]._state)):
        assert_allclose(got, expected, rtol=1e-9, atol=1e-14)
    kappa = np.sqrt(max(float(x @ x) for x in X))
    out = ref.solam(X, y, [np.arange(300)], R=2.0, kappa=kappa, zeta=0.5, lam=0.5,
                    sample_weight=weight)
    assert np.prod(out["scales"]) < _FOLD_BELOW
    assert_allclose(models[0].coef_[0], out["w_bar"], rtol=1e-10, atol=1e-13)


def test_fixed_kappa_and_warm_start_match_reference(german):
    X, y = german
    first = SOLAMClassifier(R=2.0, eta0=0.1, kappa=3.0, max_iter=1, random_state=1,
                            warm_start=True).fit(X[:200], y[:200])
    start = dict(w=iterates(first._state)[0].copy(), a=first._state["ab"][0],
                 b=first._state["ab"][1], alpha=first._state["alpha"][0])
    first.fit(X[200:500], y[200:500])
    out = ref.solam(X[200:500], y[200:500], _orders(1, 300, 1), R=2.0, kappa=3.0, zeta=0.1,
                    state=start)
    assert_allclose(first.coef_[0], out["w_bar"], rtol=1e-10, atol=1e-13)
    assert_allclose(first._state["alpha"], [out["alpha"]], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_closed_form_saddle_point_zeroes_the_expected_gradient(lam):
    """notes.md#closed-forms: at (w*, a*, b*, alpha*) every partial of E[F_lam] vanishes."""
    X, y = make_auc_problem(400, 5, pos_rate=0.3, separation=1.0, random_state=2)
    w, a, b, alpha = ref.saddle_point(X, y, lam)
    p = np.mean(y > 0)
    total = np.zeros(X.shape[1] + 3)
    for x, label in zip(X, y, strict=True):
        g, da, db, dal = saddle_partials(x @ w, a, b, alpha, p, label > 0)
        total += np.concatenate([g * x + lam * w, [da, db, dal]])
    assert_allclose(total / len(y), 0.0, atol=1e-12)
    # and the kernel's partials are those of the reference transcription
    x, label = X[0], y[0]
    g, da, db, dal = saddle_partials(x @ w, a, b, alpha, p, label > 0)
    dw_ref, da_ref, db_ref, dal_ref = ref.partials(w, a, b, alpha, x, label, p)
    assert_allclose(np.concatenate([g * x, [da, db, dal]]),
                    np.concatenate([dw_ref, [da_ref, db_ref, dal_ref]]), rtol=1e-13)


def test_regsolam_converges_to_the_saddle_point():
    """notes.md#closed-forms: with inactive constraints the averaged iterates approach the
    saddle point (w*, a*, b*, alpha*).

    The gamma-weighted average converges slowly (O(1/sqrt(T)) up to logs): measured
    relative errors 0.11 after 100 passes and 0.054 after 400.
    """
    X, y = make_auc_problem(200, 3, pos_rate=0.4, separation=1.0, random_state=0)
    lam = 0.2
    w, a, b, alpha = ref.saddle_point(X, y, lam)
    assert np.linalg.norm(w) < np.sqrt(2 / lam) / 2  # the ball is inactive
    errors = []
    for passes in (100, 400):
        est = RegSOLAMClassifier(lam=lam, eta0=0.5, max_iter=passes, random_state=0).fit(X, y)
        errors.append(np.linalg.norm(est.coef_[0] - w) / np.linalg.norm(w))
    assert errors[1] < 0.08 and errors[1] < 0.6 * errors[0]
    ab, al = est._state["ab_avg"], est._state["alpha_avg"][0]
    assert_allclose([ab[0], ab[1], al], [a, b, alpha], atol=0.1 * np.linalg.norm(w))


def test_solam_converges_to_the_unregularised_saddle_point():
    X, y = make_auc_problem(200, 3, pos_rate=0.4, separation=1.0, random_state=0)
    w = ref.saddle_point(X, y)[0]
    est = SOLAMClassifier(R=100.0, eta0=0.5, max_iter=400, random_state=0).fit(X, y)
    assert np.linalg.norm(est.coef_[0] - w) < 0.08 * np.linalg.norm(w)  # measured 0.06


def test_l1_ball_gives_exact_zeros():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(1500) < 0.3, 1, -1)
    X = 0.5 * rng.standard_normal((1500, 10))
    X[y > 0, :2] += 1.0
    est = SOLAML1Classifier(R=0.5, eta0=0.05, random_state=0).fit(X, y)
    assert np.sum(iterates(est._state)[0] == 0.0) >= 5
    assert np.abs(iterates(est._state)[0]).sum() <= 0.5 + 1e-12
    assert est.score(X, y) > 0.9


@pytest.mark.parametrize("cls", [SOLAMClassifier, SOLAML1Classifier, RegSOLAMClassifier])
def test_default_step_on_unscaled_data(cls, german_raw):
    X, y = german_raw
    est = cls(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.6


def test_kappa_auto_follows_the_chunks():
    X, y = make_auc_problem(300, 4, random_state=1)
    X[250] *= 10  # a large row arrives late: kappa grows with it
    est = SOLAMClassifier(random_state=0)
    est.partial_fit(X[:200], y[:200], classes=[-1, 1])
    k1 = np.sqrt(est._state["data_sqmax"][0])
    est.partial_fit(X[200:], y[200:])
    assert np.sqrt(est._state["data_sqmax"][0]) == pytest.approx(np.linalg.norm(X[250]))
    assert k1 < np.linalg.norm(X[250]) / 2


LAZY_CASES = {
    "inactive ball": (SOLAMClassifier, dict(R=10.0, eta0=0.05)),
    "active ball": (SOLAMClassifier, dict(R=0.2, eta0=0.05)),
    "projection folds": (SOLAMClassifier, dict(R=0.05, eta0=0.5)),
    "shrinkage folds": (RegSOLAMClassifier, dict(lam=0.5, eta0=0.5)),
    "shrinkage to zero": (RegSOLAMClassifier, dict(lam=0.5, eta0=2.0)),  # gamma_1 lam = 1
}


@pytest.mark.parametrize("case", list(LAZY_CASES))
def test_lazy_sparse_kernel_equals_dense_kernel(case, german):
    """CSR rows with the l2 ball run the O(nnz) lazy kernel; it must equal the dense kernel."""
    cls, params = LAZY_CASES[case]
    X, y = german[0][:500], german[1][:500]
    params = dict(max_iter=3, random_state=0, **params)
    dense = cls(**params).fit(X, y)
    lazy = cls(**params).fit(sp.csr_matrix(X), y)
    chunked_dense, chunked_lazy = cls(**params), cls(**params)  # enter and leave the lazy form
    for chunk in np.array_split(np.arange(500), 3):
        chunked_dense.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
        chunked_lazy.partial_fit(sp.csr_matrix(X[chunk]), y[chunk], classes=[-1, 1])
    for a, b in ((dense, lazy), (chunked_dense, chunked_lazy)):
        for key in ("ab", "alpha", "ab_avg", "alpha_avg", "gamma_sum"):
            assert_allclose(b._state[key], a._state[key], rtol=1e-9, atol=1e-14)
        for got, expected in zip(iterates(b._state), iterates(a._state)):
            assert_allclose(got, expected, rtol=1e-9, atol=1e-14)
    # the case exercises what its name says: w is scaled by (1 - gamma lam) min(1, R/||.||)
    # at every step; a pass whose product is below _FOLD_BELOW must fold the scale into v
    kappa = np.sqrt(max(float(x @ x) for x in X))
    lam = params.get("lam", 0.0)
    radius = np.sqrt(2 / lam) if lam else params["R"]
    out = ref.solam(X, y, _orders(0, 500, 1), R=radius, kappa=kappa, zeta=params["eta0"],
                    lam=lam)
    scales = out["scales"]
    if case == "inactive ball":
        assert np.all(scales == 1.0)
    elif case == "active ball":
        assert np.mean(scales < 1) > 0.3 and np.prod(scales) > _FOLD_BELOW  # measured 0.41, 0.07
        assert 0.18 < np.linalg.norm(iterates(lazy._state)[0]) <= 0.2 * (1 + 1e-12)
    elif case == "projection folds":
        assert np.prod(scales) < _FOLD_BELOW and np.mean(scales < 1) > 0.9
    elif case == "shrinkage folds":
        assert np.prod(scales) < _FOLD_BELOW and np.all(scales > 0.5)
    else:
        assert scales[0] == 0.0


# the class counts of the saddle-function family and the univariate methods, int64 rows in files
# saved before sample weights (the upgrade is shared: aucopt.algorithms._data.counts_as_weights)
OLD_COUNTS = {"solam": ("seen", {}), "fsauc": ("run_count", {}), "ftrl-auc": ("run_count", {}),
              "uni-squ": ("run_count", {"weights": "online"})}


@pytest.mark.parametrize("algorithm", list(OLD_COUNTS))
def test_files_with_int64_class_counts_still_load(algorithm, tmp_path):
    key, params = OLD_COUNTS[algorithm]
    X, y = make_auc_problem(200, 6, random_state=5)
    est = aucopt.make(algorithm, random_state=0, **params).fit(X[:150], y[:150])
    aucopt.io.save(est, tmp_path / "m")
    npz = dict(np.load(tmp_path / "m.npz"))
    npz[f"state__{key}"] = npz[f"state__{key}"].astype(np.int64)  # the earlier layout
    np.savez(tmp_path / "m.npz", **npz)
    as_version_1(tmp_path / "m")  # a file of an earlier aucopt: no hashes
    old = aucopt.io.load(tmp_path / "m")
    assert old._state[key].dtype == np.float64
    for model in (old, est):
        model.partial_fit(X[150:], y[150:])
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))
