"""AOGD against the slow reference, the feature-map invariants and the issue's claims."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import aucopt
from aucopt.datasets import make_nonlinear_problem
from aucopt.kernel_model import AOGDClassifier, RandomFourierFeatures

from ..reference import aogd as ref


def _draws(seed, n, d, D, passes):
    """Replay the estimator's Generator: frequencies, then per pass (permutation, uniforms)."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((D // 2, d))
    out = []
    for _ in range(passes):
        order = rng.permutation(n)
        out.append((order, rng.random(n)))
    return G, out


def xor_problem(n, seed):
    """Noiseless XOR on [-1, 1]^2: no linear scorer beats AUC 0.5 by much."""
    return make_nonlinear_problem(n, "xor", random_state=seed)


def circles_problem(n, seed):
    """Noiseless concentric circles (radius 0.5 positive, 1.0 negative), 30% positives."""
    return make_nonlinear_problem(n, "circles", random_state=seed)


@pytest.mark.parametrize("averaging", ["per_class", "global"])
def test_matches_reference_same_order_and_draws(averaging, german, as_format):
    X, y = german
    X, y = X[:300], y[:300]
    params = dict(n_components=40, bandwidth=3.0, eta=0.1, eta_random=0.05, lam=1e-3, q=0.3,
                  averaging=averaging)
    est = AOGDClassifier(**params, max_iter=2, random_state=5).fit(as_format(X), y)
    G, passes = _draws(5, len(y), X.shape[1], 40, 2)
    w, t = ref.aogd(X, y, G / 3.0, passes, eta=0.1, gamma=0.05, lam=1e-3, q=0.3,
                    averaging=averaging)
    assert est.t_ == t > 500
    assert est.eta_ == 0.1 and est.eta == 0.1  # a step given is used as it is
    assert_allclose(est._state["w"], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est.decision_function(as_format(X)) - est.intercept_[0],
                    ref.features(X, G / 3.0) @ w, rtol=1e-10, atol=1e-12)


def test_auto_bandwidth_is_root_total_variance(german, as_format):
    X, y = german
    est = AOGDClassifier(random_state=0).fit(as_format(X), y)
    expected = np.sqrt(np.sum(X.var(axis=0)))
    assert_allclose(est._state["bandwidth"][0], expected, rtol=1e-10)
    # the stored frequencies are the standard normal draws divided by it
    G, _ = _draws(0, len(y), X.shape[1], 200, 0)
    assert_allclose(est._state["freq"], (G / expected).T, rtol=1e-12)


def test_feature_map_has_unit_norm_and_matches_transformer():
    """sqrt(2/D) scaling (notes.md#rff-scale): ||phi(x)|| = 1, the same map as
    RandomFourierFeatures."""
    X, y = xor_problem(200, 0)
    est = AOGDClassifier(n_components=64, bandwidth=0.7, random_state=3).fit(X, y)
    rff = RandomFourierFeatures(n_components=64, bandwidth=0.7, random_state=3).fit(X)
    Phi = rff.transform(X)
    assert_allclose(np.linalg.norm(Phi, axis=1), 1.0, rtol=1e-12)
    assert_allclose(est._state["freq"], rff.frequencies_.T, rtol=1e-12)
    assert_allclose(est.decision_function(X) - est.intercept_[0], Phi @ est._state["w"],
                    rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("problem", [xor_problem, circles_problem])
def test_learns_nonlinear_problem_where_linear_fails(problem):
    """Issue #5: AUC >= 0.95 on a noiseless non-linear problem; spam-l2 stays below 0.65."""
    X, y = problem(2000, 0)
    X_test, y_test = problem(2000, 1)
    assert AOGDClassifier(random_state=0).fit(X, y).score(X_test, y_test) >= 0.95
    assert aucopt.make("spam-l2", random_state=0).fit(X, y).score(X_test, y_test) < 0.65


def test_global_averaging_skips_same_label_representatives():
    """With q = 0 the global representative is the first row; same-label rows take one step."""
    X, y = xor_problem(50, 0)
    est = AOGDClassifier(averaging="global", q=0.0, eta=2.0**-5, shuffle=False,
                         random_state=0).fit(X, y)
    w, t = ref.aogd(X, y, est._state["freq"].T, [(np.arange(50), np.ones(50))], eta=2.0**-5,
                    gamma=2.0**-5, lam=1e-4, q=0.0, averaging="global")
    assert est.t_ == t == 49
    assert est._state["rep_label"][0] == y[0]
    assert_allclose(est._state["w"], w, rtol=1e-10, atol=1e-13)


def test_unscaled_data_does_not_diverge(german_raw):
    X, y = german_raw
    est = AOGDClassifier(random_state=0).fit(X, y)
    assert np.all(np.isfinite(est._state["w"])) and est.score(X, y) > 0.6


def test_partial_fit_waits_for_the_opposite_class():
    X, y = xor_problem(100, 0)
    neg = np.flatnonzero(y < 0)[:10]
    est = AOGDClassifier(bandwidth=1.0).partial_fit(X[neg], y[neg], classes=[-1, 1])
    assert est.t_ == 0 and np.all(est._state["w"] == 0)
    est.partial_fit(X, y)
    first_pos = np.flatnonzero(y > 0)[0]  # negatives before it have no positive to pair with
    assert first_pos > 0 and est.t_ == 100 - first_pos


def test_transposed_draw_is_the_same_stream():
    """Frequencies drawn in blocks straight into U^T equal one draw of U, and leave the
    Generator in the same state."""
    from aucopt.algorithms.aogd import draw_frequencies

    a, b = np.random.default_rng(7), np.random.default_rng(7)
    U = draw_frequencies(37, 5, a)
    Ut = draw_frequencies(37, 5, b, transposed=True)
    assert Ut.shape == (5, 18) and Ut.flags.c_contiguous
    np.testing.assert_array_equal(Ut, U.T)
    assert a.random() == b.random()


def test_partial_fit_shares_the_read_only_frequencies(german, as_format):
    """No O(D d) copy per partial_fit call: the frequencies are read-only and shared."""
    X, y = german
    est = AOGDClassifier(random_state=0).partial_fit(as_format(X[:100]), y[:100], classes=[-1, 1])
    freq = est._state["freq"]
    assert not freq.flags.writeable
    est.partial_fit(as_format(X[100:200]), y[100:200])
    assert est._state["freq"] is freq
    assert not AOGDClassifier(random_state=0).fit(X[:50], y[:50])._state["freq"].flags.writeable


@pytest.mark.parametrize("averaging", ["per_class", "global"])
def test_weighted_matches_weighted_reference(averaging, german, as_format):
    """Weighted means; steps scaled by v (mean) and v v' (representative of weight v')."""
    X, y = german
    X, y = X[:200], y[:200]
    sw = np.random.default_rng(6).uniform(0.2, 3.0, len(y))
    params = dict(n_components=40, bandwidth=3.0, eta=0.05, eta_random=0.02, lam=1e-3, q=0.3,
                  averaging=averaging)
    est = AOGDClassifier(**params, max_iter=2, random_state=5)
    est.fit(as_format(X), y, sample_weight=sw)
    G, passes = _draws(5, len(y), X.shape[1], 40, 2)
    w, t = ref.aogd(X, y, G / 3.0, passes, eta=0.05, gamma=0.02, lam=1e-3, q=0.3,
                    averaging=averaging, sample_weight=sw)
    assert est.t_ == t
    assert_allclose(est._state["w"], w, rtol=1e-10, atol=1e-13)
    assert_allclose(est._state["phi_count"].sum(), sw.sum(), rtol=1e-13)


def test_weighted_auto_bandwidth_equals_repeated_rows(german, as_format):
    X, y = german
    sw = np.arange(len(y)) % 3 + 1.0
    rep = np.repeat(np.arange(len(y)), sw.astype(int))
    weighted = AOGDClassifier(random_state=0).fit(as_format(X), y, sample_weight=sw)
    repeated = AOGDClassifier(random_state=0).fit(as_format(X[rep]), y[rep])
    assert_allclose(weighted._state["bandwidth"], repeated._state["bandwidth"], rtol=1e-12)
    assert weighted._state["bandwidth"][0] != AOGDClassifier(random_state=0).fit(
        as_format(X), y)._state["bandwidth"][0]



def test_auto_eta_is_calibrated_on_fit_and_recorded(german):
    """notes.md#kernel-steps: the default step is calibrated on the data and kept in eta_;
    the fit equals a fit with that number given."""
    X, y = german
    est = AOGDClassifier(random_state=0).fit(X, y)
    assert est.eta == "auto" and isinstance(est.eta_, float) and est.eta_ > 0
    given = AOGDClassifier(eta=est.eta_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(given._state["w"], est._state["w"])


def test_uncalibrated_auto_eta_is_the_former_constant(german):
    """Single rows never calibrate: "auto" is then 2^-5, bit for bit (also eta_random=None)."""
    X, y = german
    auto, fixed = AOGDClassifier(random_state=0), AOGDClassifier(eta=2.0**-5, random_state=0)
    for est in (auto, fixed):
        for i in range(150):
            est.partial_fit(X[i:i + 1], y[i:i + 1], classes=[-1, 1])
    assert auto.eta_ is None and auto.t_ == fixed.t_ > 100
    np.testing.assert_array_equal(auto._state["w"], fixed._state["w"])


def test_averaging_set_after_a_fit_is_structural(tmp_path):
    """``averaging`` decides what the state's means and representatives are (per class, or
    one for all): set after a fit, a stream continued on per-class means read as global ones,
    and a save wrote the new value with the old state, whose loaded scores differed (by 0.17
    on the fuzz's case); now partial_fit refuses, the model scores as fitted, and a save and
    load give the same scores."""
    import aucopt.io

    X, y = make_nonlinear_problem(120, kind="circles", random_state=7)
    est = AOGDClassifier(random_state=0).fit(X, y)
    before = est.decision_function(X)
    est.set_params(averaging="global")
    assert np.array_equal(est.decision_function(X), before)
    with pytest.raises(ValueError, match="averaging was changed from 'per_class'"):
        est.partial_fit(X, y)
    aucopt.io.save(est, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    assert np.array_equal(loaded.decision_function(X), before)
    assert loaded.averaging == "per_class"
    est._set_coef()  # formed again from the state: with the values it was built with
    assert np.array_equal(est.decision_function(X), before)
    est.fit(X, y)  # fit restarts with the new value
    assert est._state is not None and np.isfinite(est.decision_function(X)).all()


def test_a_bandwidth_set_after_the_first_call_is_refused_not_ignored():
    """The frequencies are divided by the bandwidth once, on the first call: a bandwidth set
    later changed nothing, without a word (the stream went on with the first width, and a
    warm-started fit too). A stream now refuses it, as every hyperparameter that shapes the
    state, and so does a warm start; fit restarts with it."""
    X, y = make_nonlinear_problem(120, kind="circles", random_state=7)
    est = AOGDClassifier(random_state=0, bandwidth=0.5).partial_fit(X, y, classes=[-1, 1])
    before = est.decision_function(X)
    est.set_params(bandwidth=2.0)
    with pytest.raises(ValueError, match="bandwidth was changed from 0.5 to 2.0"):
        est.partial_fit(X, y)
    assert np.array_equal(est.decision_function(X), before)
    warm = AOGDClassifier(random_state=0, bandwidth=0.5, warm_start=True).fit(X, y)
    warm_before = warm.decision_function(X)
    warm.set_params(bandwidth=2.0)
    with pytest.raises(ValueError, match="drawn for bandwidth=0.5, with bandwidth=2.0"):
        warm.fit(X, y)
    assert np.array_equal(warm.decision_function(X), warm_before)
    fresh = AOGDClassifier(random_state=0, bandwidth=2.0).fit(X, y)
    assert np.array_equal(warm.set_params(warm_start=False).fit(X, y).decision_function(X),
                          fresh.decision_function(X))


def test_an_auto_bandwidth_from_one_row_is_its_length():
    """A River stream fixes bandwidth='auto' on its first row, whose spread is 0: the width
    was 1 whatever the features' units (Projection++ 0.66 and AOGD 0.49 prequential AUC on
    20 standard normal features, against 0.94 and 0.81 now)."""
    from aucopt.algorithms._data import as_rows
    from aucopt.algorithms.aogd import auto_bandwidth

    x = np.array([[3.0, 4.0, 0.0]])
    assert auto_bandwidth(as_rows(x)) == 5.0
    assert auto_bandwidth(as_rows(np.zeros((1, 3)))) == 1.0  # (no length either: 1)
    two = np.array([[3.0, 4.0, 0.0], [3.0, 4.0, 0.0]])
    assert auto_bandwidth(as_rows(two)) == 1.0  # constant rows: as before
