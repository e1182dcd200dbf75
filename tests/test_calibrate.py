"""The calibration of ``"auto"`` steps: weighted objectives, the ladder search, the sample.

Its accuracy on data nobody tuned it for is tests/test_robustness.py; its cost is
benchmarks/robustness.py (docs/robustness.md).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import aucopt
from aucopt.algorithms import get_algorithm
from aucopt.algorithms._calibrate import (
    LADDER_RATIO,
    _mean_sq_norm,
    best_scale_loss,
    calibrate_step,
    pairwise_loss,
    regularised,
    univariate_loss,
)
from aucopt.algorithms._data import as_rows
from aucopt.exceptions import DivergenceError

OBJECTIVES = [  # (name, objective hook) as the specs declare them
    ("pairwise square", regularised("square")),
    ("pairwise hinge", regularised("hinge")),
    ("pairwise square + l2 + l1", regularised("square", l2="lam", l1="lam1")),
    ("pairwise hinge + l2", regularised("hinge", l2="lam")),
    ("univariate exp + l2", regularised("exp", kind="univariate", l2="lam")),
    ("univariate square + l2", regularised("square", kind="univariate", l2="lam")),
]


def _scores(n=60, seed=0):
    rng = np.random.default_rng(seed)
    sign = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    return sign + 1.5 * rng.normal(size=n), sign, rng.integers(1, 4, size=n)


@pytest.mark.parametrize("name, objective", OBJECTIVES, ids=[o[0] for o in OBJECTIVES])
def test_weighted_objective_equals_the_objective_on_duplicated_rows(name, objective):
    """Integer weights ``k`` (labels ``y = ±k``) count a row ``k`` times, a pair ``k_i k_j``
    times (notes.md#sample-weights)."""
    scores, sign, k = _scores()
    w, params = np.array([0.5, -2.0, 1.0]), {"lam": 0.1, "lam1": 0.01}
    weighted = objective(scores, w, params, sign * k)
    duplicated = objective(np.repeat(scores, k), w, params, np.repeat(sign, k))
    # the scale-free hinge is minimised over the scale numerically (Brent, xatol 1e-4)
    assert_allclose(weighted, duplicated, rtol=1e-6 if name == "pairwise hinge" else 1e-12)


def test_unit_weights_give_the_unweighted_objectives_bit_for_bit():
    scores, sign, _ = _scores()
    pos, neg = scores[sign > 0], scores[sign < 0]
    gap = pos.mean() - neg.mean()
    assert pairwise_loss(scores, sign, "square") == (1.0 - gap) ** 2 + pos.var() + neg.var()
    assert univariate_loss(scores, sign, "square") == 0.5 * (2.0 - gap) ** 2 + pos.var() + \
        neg.var()
    order = np.sort(neg)
    tail = np.concatenate([np.cumsum(order[::-1])[::-1], [0.0]])
    first = np.searchsorted(order, pos - 1.0, side="right")
    hinge = np.sum((order.size - first) * (1.0 - pos) + tail[first]) / (pos.size * neg.size)
    assert pairwise_loss(scores, sign, "hinge") == hinge
    shift = 0.5 * (pos.min() + neg.max())
    exp = 2.0 * np.sqrt(np.mean(np.exp(shift - pos)) * np.mean(np.exp(neg - shift)))
    assert univariate_loss(scores, sign, "exp") == exp


@pytest.mark.parametrize("kind", ["pairwise", "univariate"])
def test_closed_form_best_scale_of_the_square_loss_matches_a_search(kind):
    scores, sign, k = _scores(seed=1)
    measure = pairwise_loss if kind == "pairwise" else univariate_loss
    unit = scores / np.std(scores)
    grid = np.linspace(0.0, 5.0, 50001)
    searched = min(measure(c * unit, sign * k, "square") for c in grid)
    assert_allclose(best_scale_loss(scores, sign * k, "square", kind), searched, rtol=1e-7)


def test_weighted_mean_squared_norm_of_dense_and_sparse_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 4)) * (rng.random((7, 4)) < 0.5)
    X[-1] = X[2] = 0.0  # empty rows, one of them last
    y = np.array([1.0, -2.0, 3.0, -1.0, 0.5, -1.0, 2.0])
    expected = np.sum(np.abs(y) * (X**2).sum(axis=1)) / np.abs(y).sum()
    assert_allclose(_mean_sq_norm(as_rows(X), y), expected, rtol=1e-12)
    assert_allclose(_mean_sq_norm(as_rows(sp.csr_matrix(X)), y), expected, rtol=1e-12)


def _ladder_problem():
    rng = np.random.default_rng(0)
    return rng.normal(size=(300, 3)), np.where(rng.random(300) < 0.5, 1.0, -1.0)


def _rung_objective(monkeypatch, spec, X, y, values):
    """Make every brief run return ``values(rung)``, the rung counted from the centre."""
    centre = spec.calibration.centre(_mean_sq_norm(as_rows(X), y))

    def rung(step):
        return round(np.log(step / centre) / np.log(LADDER_RATIO))

    monkeypatch.setattr("aucopt.algorithms._calibrate._brief_run",
                        lambda spec, params, *args: values(rung(params[spec.step_param])))
    return rung


def test_a_scale_free_objective_climbs_the_whole_ladder(monkeypatch):
    """Flat over the steps too small to leave the first direction, then up, then down where
    the steps converge (measured: SOLAM on an inner fold of 1% positives)."""
    spec, (X, y) = get_algorithm("solam"), _ladder_problem()
    measured = dict(zip(range(-2, 4), (0.17135, 0.18102, 0.18674, 0.16263, 0.17692, 0.29015)))
    rung = _rung_objective(monkeypatch, spec, X, y, lambda k: measured.get(k, 1.0))
    step, trials = calibrate_step(spec, aucopt.make("solam").get_params(), as_rows(X), y)
    assert rung(step) == 1
    assert sorted(rung(s) for s in trials) == list(range(-2, 4))


@pytest.mark.parametrize("best", range(-2, 6))
def test_the_ladder_stops_after_two_rises_past_the_minimum(monkeypatch, best):
    """A unimodal objective over the ladder: the search stops after two steps out of reach of
    the lowest, and chooses as the full ladder would."""
    spec, (X, y) = get_algorithm("opauc"), _ladder_problem()
    rung = _rung_objective(monkeypatch, spec, X, y, lambda k: 1.0 + (k - best) ** 2)
    step, trials = calibrate_step(spec, aucopt.make("opauc").get_params(), as_rows(X), y)
    assert rung(step) == best
    # climbed from the ladder's bottom (-2) to two rungs past the best or the top (3); one
    # rung beyond an end of the ladder while the best is at that end
    top = min(best + 2, 3) if best < 3 else best + 1
    assert sorted(rung(s) for s in trials) == list(range(min(-2, best - 1), top + 1))


@pytest.mark.parametrize("algorithm_id", ["opauc", "ftrl-auc", "spam-l2", "uni-squ",
                                          "ogd-fifo"])
def test_leaving_the_ladder_early_chooses_as_the_whole_ladder(monkeypatch, algorithm_id):
    """On real brief runs (heavy-tailed columns, 7% positives) a regularised objective rises
    past its minimum and stays up: the early stop saves runs without changing the step."""
    rng = np.random.default_rng(3)
    X = rng.lognormal(size=(1500, 6)) * rng.choice([1.0, 20.0], size=6)
    y = np.where(X @ rng.normal(size=6) > np.quantile(X @ rng.normal(size=6), 0.95), 1.0, -1.0)
    X = (X - X.mean(0)) / X.std(0)
    spec, params = get_algorithm(algorithm_id), aucopt.make(algorithm_id).get_params()
    step, trials = calibrate_step(spec, params, as_rows(X), y)
    monkeypatch.setattr("aucopt.algorithms._calibrate.past_the_best", lambda *args: False)
    whole, every = calibrate_step(spec, params, as_rows(X), y)
    assert step == whole
    assert set(trials) < set(every)  # fewer runs
    assert all(trials[s] == every[s] for s in trials)


@pytest.mark.parametrize("algorithm_id, chosen", [("opauc", 0), ("vrspam-l2", 1)])
def test_the_calibrations_tolerance_decides_which_close_step_wins(monkeypatch, algorithm_id,
                                                                   chosen):
    """A step 3% above the lowest objective is close enough for the stochastic methods (5%),
    not for VRSPAM (1%), which converges to the minimiser and gains from the larger step."""
    spec, (X, y) = get_algorithm(algorithm_id), _ladder_problem()
    values = {-2: 2.0, -1: 1.5, 0: 1.03, 1: 1.0, 2: 1.5, 3: 2.0}
    rung = _rung_objective(monkeypatch, spec, X, y, lambda k: values.get(k, 3.0))
    params = aucopt.make(algorithm_id, beta=0.1).get_params() if algorithm_id != "opauc" else (
        aucopt.make("opauc").get_params())
    step, _ = calibrate_step(spec, params, as_rows(X), y)
    assert rung(step) == chosen


def _hinge_pairs(s, y):
    return np.mean(np.maximum(0.0, 1.0 - (s[y > 0][:, None] - s[y < 0][None, :])))


def _square_pairs(s, y):
    return np.mean((1.0 - (s[y > 0][:, None] - s[y < 0][None, :])) ** 2)


def _gram(sv, sigma):
    sq = ((sv[:, None, :] - sv[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-sq / (2.0 * sigma**2))


KERNEL_OBJECTIVES = {  # the kernel learners' own regularised objectives, by brute force
    "aogd": lambda est, s, y: (_square_pairs(s, y)
                               + 0.5 * est.lam * est._state["w"] @ est._state["w"]),
    "projection-pp": lambda est, s, y: (
        est.budget * _hinge_pairs(s, y) + 0.5 * est.lam * _alpha_gram_alpha(est._state)),
}


def _alpha_gram_alpha(state):
    used = state["used"]
    alpha = state["alpha"][used]
    return alpha @ _gram(state["sv"][used], state["bandwidth"][0]) @ alpha


@pytest.mark.parametrize("algorithm_id", sorted(KERNEL_OBJECTIVES))
def test_kernel_learner_trials_are_the_own_objective_of_a_fit_on_the_sample(algorithm_id,
                                                                            german):
    """Each trial is the algorithm's own regularised objective of the model a fit with that
    step makes on the calibration sample, scored on its held-out part for AOGD (brute force
    over the pairs and the support vectors), and ``eta_`` is the smallest step within
    TOLERANCE of the lowest trial."""
    from aucopt.algorithms._calibrate import TOLERANCE, _hold_out, sample_rows

    X, y = german[0][:600], german[1][:600]
    spec = get_algorithm(algorithm_id)
    est = aucopt.make(algorithm_id, random_state=0).fit(X, y)
    step, trials = calibrate_step(spec, est.get_params(), as_rows(X), y.astype(float))
    assert est.eta_ == step and len(trials) >= 3
    low = min(trials.values())
    assert step == min(s for s, v in trials.items() if v <= low + TOLERANCE * abs(low))
    sample = sample_rows(as_rows(X), y.astype(float))  # 600 rows: all, reordered
    share = spec.calibration.held_out  # AOGD scores held-out rows, Projection++ the rows learned
    (rows, signed), scored = _hold_out(*sample, share) if share else (sample, None)
    held, held_y = scored or (rows, signed)
    assert len(held_y) == (sum(int(share * np.sum(c)) for c in (y > 0, y <= 0)) if share
                           else 600)
    for s, value in trials.items():
        brief = aucopt.make(algorithm_id, random_state=0, eta=s)
        if not np.isfinite(value):  # a brief run that diverged
            with pytest.raises(DivergenceError):
                brief.fit(rows.data, signed)
            continue
        brief.fit(rows.data, signed)
        scores = brief.decision_function(held.data)
        assert_allclose(value, KERNEL_OBJECTIVES[algorithm_id](brief, scores, held_y),
                        rtol=1e-9)


def test_hold_out_keeps_a_share_of_each_class_and_needs_two_rows_of_each():
    from aucopt.algorithms._calibrate import _hold_out

    X = np.arange(40.0).reshape(20, 2)
    y = np.where(np.arange(20) % 4 == 0, 2.0, -1.0)  # 5 positives (weight 2), 15 negatives
    (rows, learned), (held, scored) = _hold_out(as_rows(sp.csr_matrix(X)), y, 0.3)
    assert (np.sum(scored > 0), np.sum(scored < 0)) == (1, 4)
    assert sorted(np.r_[rows.data, held.data]) == sorted(X[X != 0.0])  # a split, nothing lost
    assert_allclose(np.sort(np.r_[learned, scored]), np.sort(y))
    one = np.where(np.arange(20) == 3, 1.0, -1.0)
    (rows, learned), none = _hold_out(as_rows(X), one, 0.3)
    assert none is None and rows.n_samples == 20


def test_aogd_frequencies_are_drawn_once_and_shared_by_the_brief_runs(monkeypatch, german):
    """AOGD's d x D/2 frequencies are drawn and divided by the bandwidth once per calibration;
    the brief runs share the read-only array instead of copying it."""
    from aucopt.algorithms import _calibrate, aogd

    draws, seen = [], []
    original_draw, original_fix = aogd.draw_frequencies, aogd.fix_bandwidth
    monkeypatch.setattr(aogd, "draw_frequencies",
                        lambda *a, **k: draws.append(1) or original_draw(*a, **k))
    monkeypatch.setattr(aogd, "fix_bandwidth",  # what each brief run calls first
                        lambda state, *a: seen.append(state["freq"]) or original_fix(state, *a))
    X, y = german
    _, trials = _calibrate.calibrate_step(get_algorithm("aogd"), aucopt.make("aogd").get_params(),
                                          as_rows(X), np.where(y > 0, 1.0, -1.0))
    assert len(draws) == 1 and len(seen) == len(trials) >= 3
    assert all(f is seen[0] for f in seen) and not seen[0].flags.writeable


def _sparse_wide(n=300, d=3_000, nnz=8, seed=0):
    """CSR rows whose non-zeros fall in a few hundred of ``d`` columns."""
    rng = np.random.default_rng(seed)
    active = rng.choice(d, 300, replace=False)
    cols = np.sort(rng.choice(active, (n, nnz)), axis=1)
    X = sp.csr_matrix((rng.normal(size=n * nnz), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    X.sum_duplicates()
    y = np.where(np.asarray(X @ rng.normal(size=d)).ravel() + rng.normal(size=n) > 0.5, 1.0,
                 -1.0)
    return as_rows(X), y


NARROWED = [a for a in aucopt.list_algorithms()
            if get_algorithm(a).calibration is not None and get_algorithm(a).calibration.narrow]


def test_spam_calibrates_sparse_samples_on_their_own_columns():
    assert {"spam-l2", "spam-net"} <= set(NARROWED)


@pytest.mark.parametrize("algorithm_id", NARROWED)
def test_sparse_samples_calibrate_on_their_own_columns_as_on_all(monkeypatch, algorithm_id):
    """The brief runs on a sparse sample use only its columns (O(sample), not O(d) a run):
    the same trials and step as at the full width."""
    from aucopt.algorithms import _calibrate

    rows, y = _sparse_wide()
    spec = get_algorithm(algorithm_id)
    params = aucopt.make(algorithm_id, random_state=0)._params()
    narrowed = []
    real = _calibrate.compact_columns
    monkeypatch.setattr(_calibrate, "compact_columns",
                        lambda r: narrowed.append(real(r)) or narrowed[-1])
    step, trials = calibrate_step(spec, params, rows, y, 2)
    assert narrowed and narrowed[0].n_features <= 300 < rows.n_features
    monkeypatch.setattr(_calibrate, "compact_columns", lambda r: r)
    full_step, full_trials = calibrate_step(spec, params, rows, y, 2)
    assert step == full_step and list(trials) == list(full_trials)
    assert_allclose(list(trials.values()), list(full_trials.values()), rtol=1e-9)


@pytest.mark.parametrize("d", [40, 10**6])
def test_compact_columns_renumbers_the_used_columns_in_order(d):
    """Both ways of renumbering (a table of the columns when the rows store at least d / 8
    entries, a sort otherwise) give the used columns in order, as numpy.unique does; a
    slice of rows whose pointers do not start at 0 included."""
    from aucopt.algorithms._calibrate import compact_columns

    rng = np.random.default_rng(4)
    X = sp.random(60, d, density=min(0.3, 2000 / d), format="csr", random_state=rng)
    X.data[::7] = 0.0  # stored zeros stay stored
    whole = as_rows(X)
    rows = whole._replace(indptr=whole.indptr[5:51], n_samples=45)  # pointers from > 0
    got = compact_columns(rows)
    stored = rows.indices[rows.indptr[0]:rows.indptr[-1]]
    used, inverse = np.unique(stored, return_inverse=True)
    assert (rows.n_features <= 8 * stored.size) == (d == 40)  # the path this case takes
    assert got.n_features == used.size and got.n_samples == rows.n_samples
    np.testing.assert_array_equal(got.indices, inverse)
    np.testing.assert_array_equal(got.indptr, rows.indptr - rows.indptr[0])
    np.testing.assert_array_equal(got.data, rows.data[rows.indptr[0]:rows.indptr[-1]])


def test_spam_scores_held_out_rows_only_when_the_sample_is_every_row(monkeypatch):
    """With ``precondition="auto"`` SPAM's brief runs are scored on held-out rows when the
    calibration sample holds the whole training set (a few hundred rows), and on their own
    rows, as with ``precondition=None``, when it is a sample of a larger set."""
    from aucopt.algorithms import spam

    rng = np.random.default_rng(3)
    X = sp.random(6000, 3000, density=0.01, format="csr", random_state=4, data_rvs=np.ones)
    y = np.where(X @ rng.normal(size=3000) + 0.3 * rng.normal(size=6000) > 0.4, 1.0, -1.0)
    spec = get_algorithm("spam-l2")
    params = {**aucopt.make("spam-l2").get_params(), "max_iter": 1}
    steps, held = {}, spam.HELD_OUT
    for share in (held, 0.0):
        monkeypatch.setattr(spam, "HELD_OUT", share)
        for n in (400, 6000):  # the sample (2,000 rows for one pass): all rows / a part
            steps[share, n] = calibrate_step(spec, params, as_rows(X[:n]), y[:n])[1]
    assert steps[held, 6000] == steps[0.0, 6000]
    assert steps[held, 400] != steps[0.0, 400]


def test_brief_runs_last_a_share_of_a_long_fit(monkeypatch):
    """A brief run makes ``RUN_SHARE`` of the fit's updates (rows x passes) when that is more
    than ``SAMPLE_ROWS``, at most ``MAX_UPDATES``; on a stream's first chunk, whose run
    length is unknown, and for the papers' algorithm (``precondition=None``),
    ``SAMPLE_ROWS``."""
    from aucopt.algorithms import _calibrate
    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(6000, 5, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    spec = get_algorithm("spam-l2")
    params = {**aucopt.make("spam-l2").get_params(), "max_iter": 1}
    sizes, real = [], _calibrate.sample_rows
    monkeypatch.setattr(_calibrate, "sample_rows",
                        lambda rows, y, size: sizes.append(size) or real(rows, y, size))
    calibrate_step(spec, params, as_rows(X), y)  # 6,000 updates / 128 < SAMPLE_ROWS
    monkeypatch.setattr(_calibrate, "RUN_SHARE", 0.5)
    calibrate_step(spec, params, as_rows(X), y)  # 3,000 updates: 3,000 rows
    calibrate_step(spec, params, as_rows(X), y, 2)  # 6,000 updates: 2 passes of 3,000 rows
    calibrate_step(spec, params, as_rows(X), y, 1, stream=True)
    monkeypatch.setattr(_calibrate, "MAX_UPDATES", 2500)
    calibrate_step(spec, params, as_rows(X), y)
    # the papers' algorithm keeps the papers' calibration (the reproduced tables do not move)
    calibrate_step(spec, {**params, "precondition": None}, as_rows(X), y)
    calibrate_step(spec, {**params, "precondition": "none"}, as_rows(X), y)
    assert sizes == [2000, 3000, 3000, 2000, 2500, 2000, 2000]


def test_a_stream_chunk_is_not_held_out_as_a_whole_training_set(monkeypatch):
    """SPAM's preconditioned calibration scores held-out rows when the sample is the whole
    training set of a ``fit``; a stream's first chunk is not (more rows follow), so
    ``partial_fit`` scores the brief runs on the rows they learned from."""
    from aucopt.algorithms import spam
    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(400, 10, random_state=0)
    classes = np.unique(y)
    streamed = aucopt.make("spam-l2").partial_fit(X, y, classes=classes).eta0_
    held_out = aucopt.make("spam-l2", max_iter=1).fit(X, y).eta0_
    monkeypatch.setattr(spam, "HELD_OUT", 0.0)
    learned = aucopt.make("spam-l2", max_iter=1).fit(X, y).eta0_
    assert streamed == learned != held_out


def test_a_backed_off_step_is_the_best_of_the_rungs_below():
    """SOPA's safety rung landed on the worst objective of the ladder (0.49 between 0.29 below
    and 0.26 above): eta_ 0.167 and a test AUC of 0.65, where every lower rung fits at about
    0.92. The step backed off to is now chosen among the rungs at or below it."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import StratifiedKFold

    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    y = (y == 1).astype(int)
    train, test = list(StratifiedKFold(3).split(X, y))[2]
    est = aucopt.make("pauc-sopa", random_state=0).fit(X[train], y[train])
    assert est.eta_ < 0.1
    assert est.score(X[test], y[test]) > 0.85
