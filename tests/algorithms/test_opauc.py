"""OPAUC, OPAUCr and the reduced baselines against the slow reference and notes.md#closed-forms."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from aucopt.algorithms.opauc import class_covariance
from aucopt.datasets import make_auc_problem
from aucopt.linear_model import (
    OPAUCClassifier,
    OPAUCfClassifier,
    OPAUCpcaClassifier,
    OPAUCrClassifier,
    OPAUCrpClassifier,
)
from aucopt.metrics import roc_auc_score

from .._model_files import as_version_1
from ..reference import opauc as ref


def _orders(seed, n, passes):
    """The sample orders the estimator draws: one permutation per pass from its Generator."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


@pytest.mark.parametrize("eta", ["auto", 2.0**-6])
def test_opauc_matches_reference_same_order(eta, german, as_format):
    X, y = german
    X, y = X[:250], y[:250]
    est = OPAUCClassifier(eta=eta, lam=1e-2, max_iter=2, random_state=5).fit(as_format(X), y)
    w, t = ref.opauc(X, y, _orders(5, len(y), 2), eta=est.eta_, lam=1e-2)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_an_uncalibrated_auto_step_follows_the_reference_rule(german):
    """A stream's chunks of fewer than 20 rows keep "auto" uncalibrated: the step is
    0.1 / (M^2 + lam) with M^2 the largest squared norm so far (the reference's rule once
    read 0.1 / M^2, which no test reached)."""
    X, y = german
    X, y = X[:60], y[:60]
    est = OPAUCClassifier(lam=0.5, precondition=None)
    for start in range(0, 60, 10):
        est.partial_fit(X[start:start + 10], y[start:start + 10], classes=[-1, 1])
    assert est.eta_ is None  # never calibrated
    w, t = ref.opauc(X, y, [np.arange(60)], eta="auto", lam=0.5)
    assert est.t_ == t > 0
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_welford_statistics_equal_numpy_cov(german, as_format):
    X, y = german
    est = OPAUCClassifier(random_state=0).fit(as_format(X), y)
    for c, sign in ((0, -1), (1, 1)):
        rows = X[y == sign]
        assert est._state["count"][c] == len(rows)
        assert_allclose(est._state["mean"][c], rows.mean(0), rtol=1e-12, atol=1e-14)
        assert_allclose(class_covariance(est._state, c), np.cov(rows.T, bias=True), rtol=1e-10,
                        atol=1e-14)


@pytest.mark.parametrize("jit", [True, False])
def test_deferred_welford_equals_numpy_cov_across_folds(jit):
    """Spec P9 with the rank-one terms deferred in blocks of 3 (several folds by BLAS)."""
    from aucopt._kernels._stats import scatter_times, welford_deferred

    update = welford_deferred if jit else welford_deferred.py_func
    times = scatter_times if jit else scatter_times.py_func
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * [1, 10, 100, 0.1] + 1000.0  # large offset: stability
    count, mean, n_pending = np.zeros(1, np.int64), np.zeros(4), np.zeros(1, np.int64)
    scatter, pending = np.full((4, 4), np.nan), np.zeros((3, 4))
    scatter[np.tril_indices(4)] = 0.0  # the upper triangle is never read or written
    w, out = rng.normal(size=4), np.zeros(4)
    for k, x in enumerate(X, start=1):
        update(count, mean, scatter, pending, n_pending, x)
        state = {"scatter": scatter[None], "pending": pending[None], "n_pending": n_pending,
                 "count": count}
        cov = class_covariance(state, 0)
        assert_allclose(cov, np.cov(X[:k].T, bias=True), rtol=1e-9, atol=1e-9)
        times(out, scatter, pending, n_pending, w)
        assert_allclose(out, k * cov @ w, rtol=1e-9)
    assert count[0] == 50 and n_pending[0] == 50 % 3
    assert_allclose(mean, X.mean(0), rtol=1e-13)
    assert np.isnan(scatter[np.triu_indices(4, 1)]).all()


def test_no_update_before_both_classes_seen():
    X, y = make_auc_problem(50, 4, random_state=0)
    first = np.flatnonzero(y < 0)[:10]
    est = OPAUCClassifier().partial_fit(X[first], y[first], classes=[-1, 1])
    assert est.t_ == 0 and not est.coef_.any()


def test_long_stream_approaches_closed_form():
    """notes.md#closed-forms: with a small constant step, w_T -> (lam I + Sigma2)^-1 mu."""
    X, y = make_auc_problem(60000, 5, pos_rate=0.3, separation=1.0, random_state=0)
    lam = 0.1
    w_star = ref.closed_form(X, y, lam)
    est = OPAUCClassifier(eta=0.002, lam=lam, shuffle=False)
    for chunk in np.array_split(np.arange(len(y)), 6):
        est.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    err = np.linalg.norm(est.coef_[0] - w_star) / np.linalg.norm(w_star)
    early = OPAUCClassifier(eta=0.002, lam=lam, shuffle=False).fit(X[:3000], y[:3000])
    err_early = np.linalg.norm(early.coef_[0] - w_star) / np.linalg.norm(w_star)
    assert err < 0.05 < err_early


def test_memory_limit_error_before_allocating():
    X = sp.csr_matrix(([1.0, 1.0], ([0, 1], [0, 999_999])), shape=(2, 1_000_000))
    with pytest.raises(ValueError, match="opauc-r"):
        OPAUCClassifier().fit(X, [-1, 1])  # 2 x 10^12 doubles: refused, not allocated
    X, y = make_auc_problem(40, 30, random_state=0)
    with pytest.raises(ValueError, match="max_memory_gb"):
        OPAUCClassifier(max_memory_gb=1e-5).fit(X, y)
    OPAUCClassifier(max_memory_gb=1e-4).fit(X, y)  # 2 * 30^2 * 8 bytes = 1.44e-5 GB


def test_diverges_loudly_with_a_huge_step(german_raw):
    from aucopt.exceptions import DivergenceError

    X, y = german_raw
    with pytest.raises(DivergenceError, match="eta"):
        OPAUCClassifier(eta=10.0).fit(X, y)
    assert OPAUCClassifier(random_state=0).fit(X, y).score(X, y) > 0.6  # auto step: stable


@pytest.mark.parametrize("centering", ["unbiased", "paper"])
def test_opauc_r_matches_reference_same_sketch(centering, german, as_format):
    X, y = german
    X, y = X[:250], y[:250]
    rank = 7
    est = OPAUCrClassifier(rank=rank, lam=1e-2, centering=centering, max_iter=2,
                           random_state=3).fit(as_format(X), y)
    rng = np.random.default_rng(3)
    first = rng.permutation(len(y))
    sketch = rng.standard_normal((len(y), rank)) / np.sqrt(rank)  # drawn after the order
    second = rng.permutation(len(y))
    w, t = ref.opauc_r(X, y, [first, second], sketch, eta=est.eta_, lam=1e-2,
                       centering=centering)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


def test_opauc_r_never_allocates_d_by_d():
    est = OPAUCrClassifier(rank=5)
    X = sp.random(30, 200_000, density=1e-4, format="csr", random_state=0)
    y = np.r_[np.ones(15), -np.ones(15)]
    est.fit(X, y)
    assert max(v.size for v in est._state.values()) == 2 * 5 * 200_000


def test_opauc_r_approaches_opauc_as_rank_grows(german):
    """Gao et al. 2013, Section 4: with a large sketch the unbiased OPAUCr reproduces OPAUC."""
    X, y = german
    full = OPAUCClassifier(lam=1e-2, shuffle=False).fit(X, y).coef_[0]
    errs = [np.mean([np.linalg.norm(OPAUCrClassifier(rank=r, lam=1e-2, shuffle=False,
                                                     random_state=s).fit(X, y).coef_[0] - full)
                     for s in range(3)]) / np.linalg.norm(full) for r in (5, 50, 2000)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 0.1


def test_reduced_full_dimension_equals_opauc(german):
    """All features (opauc-f) or all principal axes (opauc-pca, a rotation) give OPAUC."""
    X, y = german
    base = OPAUCClassifier(lam=1e-2, shuffle=False).fit(X, y)
    subset = OPAUCfClassifier(lam=1e-2, n_components=None, shuffle=False).fit(X, y)
    assert_allclose(subset.coef_, base.coef_, rtol=1e-12, atol=1e-15)
    pca = OPAUCpcaClassifier(lam=1e-2, shuffle=False).fit(X, y)
    assert_allclose(pca.coef_, base.coef_, rtol=1e-7, atol=1e-9)
    rp = OPAUCrpClassifier(lam=1e-2, n_components=X.shape[1], shuffle=False).fit(X, y)
    assert_allclose(rp.coef_, base.coef_, rtol=1e-12, atol=1e-15)  # k >= d: no projection


@pytest.mark.parametrize("cls", [OPAUCfClassifier, OPAUCrpClassifier, OPAUCpcaClassifier])
def test_reduced_variants_map_back_and_rank_well(cls, german, as_format):
    X, y = german
    Xtr, ytr, Xte, yte = X[:700], y[:700], X[700:], y[700:]
    est = cls(n_components=12, random_state=0).fit(as_format(Xtr), ytr)
    assert est.coef_.shape == (1, X.shape[1])
    assert_allclose(est.decision_function(Xte), Xte @ est.coef_[0] + est.intercept_[0],
                    rtol=1e-12, atol=1e-12)
    if cls is OPAUCfClassifier:
        assert np.count_nonzero(est.coef_) <= 12
    ls = roc_auc_score(yte, Xte @ ref.closed_form(Xtr, ytr, 1e-2))
    floor = 0.03 if cls is OPAUCpcaClassifier else 0.1  # random halves lose information
    assert est.score(Xte, yte) > ls - floor


def test_pca_is_batch_only():
    assert not hasattr(OPAUCpcaClassifier(), "partial_fit")
    assert hasattr(OPAUCrpClassifier(), "partial_fit")


# ---------------------------------------------------------------- sample weights
def _sample_weights(n, seed=0):
    """Positive non-integer weights (none dropped, none equal to 1)."""
    return np.random.default_rng(seed).uniform(0.2, 3.0, n)


@pytest.mark.parametrize("jit", [True, False])
def test_weighted_welford_equals_weighted_cov_and_repeated_rows(jit):
    """West's weighted update: numpy's aweights covariance; weight k = k copies of the row."""
    from aucopt._kernels._stats import welford_deferred

    update = welford_deferred if jit else getattr(welford_deferred, "py_func", welford_deferred)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3)) * [1, 10, 0.1] + 100.0
    v = rng.integers(1, 4, size=40).astype(float)
    v[::5] = rng.uniform(0.1, 2.0, size=8)  # and non-integer weights

    def run(rows, weights):
        count, mean, n_pending = np.zeros(1), np.zeros(3), np.zeros(1, np.int64)
        scatter, pending = np.zeros((3, 3)), np.zeros((4, 3))
        for x, weight in zip(rows, weights, strict=True):
            update(count, mean, scatter, pending, n_pending, x, weight)
        state = {"scatter": scatter[None], "pending": pending[None], "n_pending": n_pending,
                 "count": count}
        return count[0], mean, class_covariance(state, 0)

    count, mean, cov = run(X, v)
    assert_allclose(count, v.sum(), rtol=1e-15)
    assert_allclose(mean, np.average(X, axis=0, weights=v), rtol=1e-13)
    assert_allclose(cov, np.cov(X.T, aweights=v, bias=True), rtol=1e-9, atol=1e-12)
    whole = v == np.round(v)
    rep = np.repeat(np.flatnonzero(whole), v[whole].astype(int))
    _, mean_w, cov_w = run(X[whole], v[whole])
    _, mean_r, cov_r = run(X[rep], np.ones(len(rep)))
    assert_allclose(mean_w, mean_r, rtol=1e-13)
    assert_allclose(cov_w, cov_r, rtol=1e-9, atol=1e-12)


def test_weighted_opauc_matches_weighted_reference(german, as_format):
    X, y = german
    X, y = X[:200], y[:200]
    sw = _sample_weights(len(y))
    est = OPAUCClassifier(eta=2.0**-8, lam=1e-2, max_iter=2, random_state=5)
    est.fit(as_format(X), y, sample_weight=sw)
    w, t = ref.opauc(X, y, _orders(5, len(y), 2), eta=2.0**-8, lam=1e-2, sample_weight=sw)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)
    for c, sign in ((0, -1), (1, 1)):
        rows = y == sign
        assert_allclose(est._state["count"][c], sw[rows].sum(), rtol=1e-13)
        assert_allclose(class_covariance(est._state, c),
                        np.cov(X[rows].T, aweights=sw[rows], bias=True), rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("centering", ["unbiased", "paper"])
def test_weighted_opauc_r_matches_weighted_reference(centering, german, as_format):
    X, y = german
    X, y = X[:200], y[:200]
    sw, rank = _sample_weights(len(y), 1), 5
    est = OPAUCrClassifier(rank=rank, eta=2.0**-8, lam=1e-2, centering=centering, max_iter=2,
                           random_state=3).fit(as_format(X), y, sample_weight=sw)
    rng = np.random.default_rng(3)
    first = rng.permutation(len(y))
    sketch = rng.standard_normal((len(y), rank)) / np.sqrt(rank)
    second = rng.permutation(len(y))
    w, t = ref.opauc_r(X, y, [first, second], sketch, eta=2.0**-8, lam=1e-2,
                       centering=centering, sample_weight=sw)
    assert est.t_ == t
    assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("cls", [OPAUCfClassifier, OPAUCrpClassifier, OPAUCpcaClassifier])
def test_weighted_reduced_variants_match_the_reference_in_their_space(cls, german, as_format):
    """OPAUC on the reduced rows; OPAUC^pca's axes are those of the weighted covariance."""
    X, y = german
    X, y = X[:200], y[:200]
    sw = _sample_weights(len(y), 2)
    est = cls(n_components=8, eta=2.0**-8, lam=1e-2, shuffle=False, random_state=0)
    est.fit(as_format(X), y, sample_weight=sw)
    state = est._state
    Z = X[:, state["features"]] if "features" in state else X @ state["proj"].T
    w, t = ref.opauc(Z, y, [np.arange(len(y))], eta=2.0**-8, lam=1e-2, sample_weight=sw)
    assert est.t_ == t
    assert_allclose(state["w"], w, rtol=1e-10, atol=1e-13)
    if cls is OPAUCpcaClassifier:
        values, vectors = np.linalg.eigh(np.cov(X.T, aweights=sw, bias=True))
        top = vectors[:, ::-1][:, :8]
        assert_allclose(np.abs(state["proj"] @ top), np.eye(8), atol=1e-8)


def test_weighted_pca_equals_pca_of_repeated_rows(german, as_format):
    from aucopt.algorithms._data import as_rows
    from aucopt.algorithms._pca import pca_components

    X = german[0][:150]
    sw = np.arange(150) % 3 + 1.0
    rep = np.repeat(np.arange(150), sw.astype(int))
    weighted = pca_components(as_rows(as_format(X)), 6, sw)
    repeated = pca_components(as_rows(as_format(X[rep])), 6)
    assert_allclose(weighted, repeated, atol=1e-9)


@pytest.mark.parametrize("algorithm, key", [("opauc", "count"), ("opauc-r", "count"),
                                            ("adaoam", "count"), ("aogd", "phi_count")])
def test_files_saved_with_integer_class_counts_still_load(algorithm, key, tmp_path):
    """The class counts were int64 (rows) before sample weights; such files load."""
    import aucopt

    X, y = make_auc_problem(120, 5, random_state=1)
    est = aucopt.make(algorithm, eta=0.01, random_state=0).fit(X, y)
    base = tmp_path / algorithm
    aucopt.io.save(est, base)
    npz = dict(np.load(f"{base}.npz"))
    npz[f"state__{key}"] = npz[f"state__{key}"].astype(np.int64)
    np.savez(f"{base}.npz", **npz)
    as_version_1(base)  # a file of an earlier aucopt: no hashes
    old = aucopt.io.load(base)
    assert old._state[key].dtype == np.float64
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))
    old.partial_fit(X[:40], y[:40], sample_weight=np.full(40, 2.0))
    est.partial_fit(X[:40], y[:40], sample_weight=np.full(40, 2.0))
    np.testing.assert_array_equal(old.decision_function(X), est.decision_function(X))


@pytest.mark.parametrize("algorithm", ["opauc", "opauc-r"])
def test_a_stream_of_small_rows_before_calibration_does_not_diverge(algorithm):
    """Single rows never calibrate "auto": the rule AUTO_ETA / M^2 grew like 1/scale^2 on
    rows of norm 1e-4 while lam did not, so 1 - eta lam fell below -1 and the stream
    diverged at its eighth row; the rule is AUTO_ETA / (M^2 + lam)."""
    import aucopt

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0.5, 1, -1)
    est = aucopt.make(algorithm, random_state=0)
    for i in range(300):
        est.partial_fit(X[i:i + 1] * 1e-4, y[i:i + 1], classes=[-1, 1])
    assert est.score(X, y) > 0.7
