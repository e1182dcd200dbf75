"""One-row scores of AUCClassifier in O(nnz) from the lazy form of the state.

``score_one`` / ``predict_proba_one`` of the ids whose specs declare ``coef_terms`` take
the weights at the row's features only and the intercept from dots kept current around
each ``learn_one`` (:mod:`aucopt.algorithms._row_score`; formed afresh after each update
where a step writes the weights whole): they must equal the estimator's
``decision_function`` of the same committed state up to the order of the additions, in
every situation a stream meets (preconditioning, hashed and growing widths, a refused row,
``learn_many``, pickling, ``aucopt.io`` save and load, the JIT off).
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import aucopt
from aucopt.algorithms._row_score import ScorePath, linear_form
from aucopt.river import AUCClassifier
from aucopt.river._classifier import probe_feature_axes

from ._jit_pair import compiled_output, interpreted_output

# streaming ids scored from their lazy form (with their default hyperparameters)
FAST = ("spam-l2", "ftrl-auc", "solam", "reg-solam", "uni-squ", "uni-exp", "ogd-fifo")
# ids whose steps write the weights whole (a prox, a projection, a stage's average) or at
# more columns than the row's (another reservoir's rows, a buffer's) without declaring them
# by columns: the row scored at its features, the intercept's dots formed afresh after each
# update
WHOLE = ("spam-net", "solam-l1", "fsauc", "adaoam", "opauc", "opauc-r", "oam-seq", "oam-gra",
         "kar", "pauc-1pmb-l2", "pauc-sopa-m0", "pauc-sopa-s-m0", "pauc-sota-s-m0")
SCORED = FAST + WHOLE
# ids that keep forming coef_ (no column form of their weights: the KL-DRO and CVaR ids
# catch a coordinate up by a factor of its own, beta + ... + beta^gap): same scores
FORMED = ("pauc-sopa", "pauc-sopa-s", "pauc-sota-s")
# cases of the lists above that are an id with other hyperparameters: without momentum,
# the KL-DRO and CVaR ids' iterate is the entry w; with an l2 weight, 1PMB's scale moves
CASES = {"pauc-1pmb-l2": ("pauc-1pmb", {"lam": 0.05}),
         **{f"{a}-m0": (a, {"momentum": 0.0})
            for a in ("pauc-sopa", "pauc-sopa-s", "pauc-sota-s")}}


def _classifier(case, **kwargs) -> AUCClassifier:
    """The ``AUCClassifier`` of a case of the lists above."""
    algorithm, params = CASES.get(case, (case, {}))
    return AUCClassifier(algorithm, **kwargs, **params)


def _growing(case, width=32):
    """``n_features=None`` where the state can widen for new names, else ``width``."""
    try:
        probe_feature_axes(CASES.get(case, (case,))[0])
    except ValueError:
        return width
    return None


def _stream(n=120, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        names = rng.choice(14, size=5, replace=False)
        x = {f"f{j}": float(rng.normal()) for j in names}
        out.append((x, bool(x.get("f1", 0.0) + 0.7 * rng.normal() > 0.3)))
    return out


def _reference(model, x) -> tuple[float, float]:
    """``decision_function`` of ``x`` and the size of the terms the two computations add
    in different orders (for the tolerance of reassociation)."""
    est = model.estimator
    rows = model._map.row(x, model._width, grow=False)
    X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(1, rows.n_features))
    ref = float(est.decision_function(X)[0])
    state = est._state
    form = linear_form(est._spec(), state, est._params())
    if form is None:
        return ref, float(np.abs(X.multiply(est.coef_).data).sum()) + abs(est.intercept_[0])
    w = sum(abs(c) * np.abs(m[:, k]) for c, m, k in zip(form.coefs, form.mats, form.cols))
    scale = state.get("feature_scale", np.ones_like(w))
    w = w / np.where(scale > 0, scale, 1.0)
    counts, sums = state["data_count"], np.abs(state["data_sum"])
    means = [w @ sums[c] / counts[c] for c in (1, 0) if counts[c]]
    size = float(np.abs(X.data) @ w[X.indices]) + sum(means) + float(
        w @ np.abs(state.get("feature_shift", np.zeros_like(w))))
    return ref, size


def _assert_scores(model, xs):
    for x in xs:
        ref, size = _reference(model, x)
        assert abs(model.score_one(x) - ref) <= 1e-12 * (abs(ref) + size) + 1e-300


def _fast_path_taken(model, x) -> bool:
    return model.estimator._score_row(model._map.row(x, model._width, grow=False)) is not None


@pytest.mark.parametrize("precondition", [None, "auto"])
@pytest.mark.parametrize("n_features", [32, None], ids=["hashed", "growing"])
@pytest.mark.parametrize("algorithm", SCORED)
def test_score_one_equals_decision_function(algorithm, n_features, precondition):
    data = _stream()
    if n_features is None:
        n_features = _growing(algorithm)
    model = _classifier(algorithm, n_features=n_features, seed=0, precondition=precondition)
    for x, y in data:
        if model._learned:
            ref, size = _reference(model, x)
            assert abs(model.score_one(x) - ref) <= 1e-12 * (abs(ref) + size) + 1e-300
        model.learn_one(x, y)
    assert _fast_path_taken(model, data[0][0])


def _count_dots(monkeypatch) -> list:
    """Count the dots formed in O(d) from here on (one entry each)."""
    made = []
    form_dots = ScorePath.form_dots

    def counted(self, token):
        made.append(1)
        form_dots(self, token)

    monkeypatch.setattr(ScorePath, "form_dots", counted)
    return made


@pytest.mark.parametrize("algorithm", SCORED)
def test_test_then_train_never_forms_coef(algorithm, monkeypatch):
    """After the first score, a test-then-train step never forms ``coef_``, nor the dots of
    the intercept in O(d) again where the form is by columns; where a step writes the
    weights whole (not by columns), it forms the dots once per update (O(d), compiled)."""
    made = _count_dots(monkeypatch)
    data = _stream(150, seed=3)
    model = _classifier(algorithm, n_features=64, seed=0)
    for x, y in data[:50]:
        model.learn_one(x, y)
    for x, y in data[50:]:
        p = model.predict_proba_one(x)
        assert 0.0 < p[True] < 1.0
        assert model.score_one(x) == model.score_one(x)  # the same state: dots current
        assert "coef_" not in model.estimator._fitted  # not formed by the score
        model.learn_one(x, y)
    by_columns = model.estimator.__dict__["_score_path"].form.by_columns
    assert by_columns == (algorithm in FAST)
    assert len(made) == (1 if by_columns else 100)


@pytest.mark.parametrize("algorithm", SCORED)
def test_after_a_refused_row_and_learn_many(algorithm):
    data = _stream(160, seed=5)
    model = _classifier(algorithm, n_features=_growing(algorithm), seed=0,
                        precondition="auto")
    for x, y in data[:60]:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    with pytest.raises(ValueError):
        model.learn_one({"f1": float("nan"), "f2": 1.0}, True)
    with pytest.raises(ValueError):  # a new name and a bad label: the row is refused
        model.learn_one({"f1": 1.0, "brand_new": 2.0}, "yes")
    _assert_scores(model, [x for x, _ in data[60:70]])
    frame = pd.DataFrame([x for x, _ in data[60:100]]).fillna(0.0)
    model.learn_many(frame, pd.Series([y for _, y in data[60:100]]))
    for x, y in data[100:]:
        _assert_scores(model, [x])
        model.learn_one(x, y)
    assert _fast_path_taken(model, data[0][0])


@pytest.mark.parametrize("algorithm", ["spam-l2", "ftrl-auc", "ogd-fifo", "spam-net",
                                       "pauc-1pmb-l2", "kar"])
def test_after_pickle_and_io_round_trip(algorithm, tmp_path):
    data = _stream(120, seed=7)
    model = _classifier(algorithm, n_features=48, seed=0, precondition="auto")
    for x, y in data[:80]:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(model))
    for x, y in data[80:]:
        # (the original keeps its running dots, the copy forms them afresh: the same to
        # rounding; pickling once emptied the original's caches too)
        assert restored.score_one(x) == pytest.approx(model.score_one(x), rel=1e-12, abs=1e-14)
        restored.learn_one(x, y)
        model.learn_one(x, y)
        _assert_scores(restored, [x])
    aucopt.io.save(model.estimator, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    xs = [x for x, _ in data[:20]]
    for x in xs:
        rows = model._map.row(x, model._width, grow=False)
        X = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(1, rows.n_features))
        score = loaded._score_row(rows)
        ref = float(loaded.decision_function(X)[0])
        assert score is not None and score == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert score == pytest.approx(model.score_one(x), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("algorithm", FORMED)
def test_ids_without_a_column_form_score_as_before(algorithm):
    data = _stream(80, seed=11)
    model = AUCClassifier(algorithm, n_features=24, seed=0)
    for x, y in data:
        model.learn_one(x, y)
    assert not _fast_path_taken(model, data[0][0])
    _assert_scores(model, [x for x, _ in data[:10]])


_SCRIPT = """
import json, sys
import numpy as np
from aucopt.river import AUCClassifier
rng = np.random.default_rng(0)
out = {}
for case, algorithm, params in json.loads(sys.argv[1]):
    model = AUCClassifier(algorithm, n_features=40, seed=0, **params)
    scores = []
    for i in range(60):
        x = {f"f{j}": float(rng.normal()) for j in rng.choice(12, 4, replace=False)}
        scores.append(model.score_one(x))
        model.learn_one(x, bool(x.get("f1", 0.0) > 0) != (i % 9 == 0))
    rows = model._map.row(x, model._width, grow=False)
    out[case] = [model.estimator._score_row(rows) is not None, scores]
json.dump(out, sys.stdout)
"""


def test_jit_equals_numba_disable_jit():
    ids = ["spam-l2", "ftrl-auc", "uni-squ", "solam", "ogd-fifo", "spam-net", "solam-l1",
           "fsauc", "oam-seq", "kar", "opauc-r", "pauc-1pmb-l2", "pauc-sopa-s-m0"]
    cases = json.dumps([(case, *CASES.get(case, (case, {}))) for case in ids])
    jit = json.loads(compiled_output(_SCRIPT, cases))
    nojit = json.loads(interpreted_output(_SCRIPT, cases))
    for algorithm in ids:
        assert jit[algorithm][0] and nojit[algorithm][0], algorithm  # the O(nnz) path ran
        np.testing.assert_allclose(nojit[algorithm][1], jit[algorithm][1], rtol=1e-10,
                                   atol=1e-12, err_msg=algorithm)


@pytest.mark.parametrize("algorithm", ["ftrl-auc", "spam-l2", "uni-squ"])
def test_row_path_saves_the_preconditioner_by_columns(algorithm):
    """A learn_one on the row path saves nothing of size O(d) whole: the preconditioner's
    scale and shift (written before the step, at the row's columns) are saved there."""
    width = 4096
    model = AUCClassifier(algorithm, n_features=width, seed=0, precondition="auto")
    for x, y in _stream(60, seed=13):
        model.learn_one(x, y)
    path = model.estimator.__dict__.get("_row_path")
    assert path is not None and "feature_scale" in model.estimator._state
    assert sum(b.size for b in path.undo.whole) < width * 8


@pytest.mark.parametrize("algorithm", ["spam-l2", "ogd-fifo", "solam"])
def test_general_path_rows_keep_the_dots(algorithm, monkeypatch):
    """Rows learnt by partial_fit's general path (no row path) that write only their
    columns keep the dots current too; the scores stay equal."""
    made = _count_dots(monkeypatch)
    data = _stream(120, seed=17)
    # 512 columns: narrower states are logged whole (cheaper than finding the columns)
    model = AUCClassifier(algorithm, n_features=512, seed=0, precondition="auto")
    model.estimator._new_row_path = lambda params: None
    for x, y in data[:40]:
        model.learn_one(x, y)
    for x, y in data[40:]:
        _assert_scores(model, [x])
        model.learn_one(x, y)
        assert model.estimator.__dict__.get("_row_path") is None
    assert len(made) <= 3  # formed at the first score, and after a fold of the scales


@pytest.mark.parametrize("algorithm", SCORED)
def test_a_replaced_state_array_is_scored_from_the_new_one(algorithm):
    """The score path holds the arrays it was made from: once the state holds another
    array (a copy with other values, the old one freed) or the hyperparameter dict is new,
    the scores are those of the state as it is now, and learning goes on from it."""
    data = _stream(140, seed=19)
    model = _classifier(algorithm, n_features=40, seed=0)
    for x, y in data[:60]:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    est = model.estimator
    path = est.__dict__["_score_path"]
    for key, _ in path.form.terms:  # same token: only the arrays tell the state changed
        est._state[key] = est._state[key] * 2.0 + 0.5
    del path
    _assert_scores(model, [x for x, _ in data[60:70]])
    est.verbose = 0  # a new hyperparameter dict, the same arrays
    for x, y in data[60:]:
        _assert_scores(model, [x])
        model.learn_one(x, y)
    assert _fast_path_taken(model, data[0][0])


@pytest.mark.parametrize("algorithm", ["spam-l2", "ftrl-auc"])
def test_a_scale_of_another_length_is_not_read(algorithm):
    """A preconditioner scale of the wrong length makes no O(nnz) score (its kernels read
    it at the row's columns)."""
    data = _stream(80, seed=23)
    model = AUCClassifier(algorithm, n_features=40, seed=0, precondition="auto")
    for x, y in data:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    est = model.estimator
    est._state["feature_scale"] = est._state["feature_scale"][:3].copy()
    assert not _fast_path_taken(model, data[0][0])


def test_the_columns_of_a_row_and_its_extra_ones_are_their_sorted_union():
    """``row_columns`` (one compiled merge of sorted parts) gives ``numpy.unique`` of the
    parts, compiled and interpreted, sorted or not, for both index types."""
    from aucopt._kernels.row_score import merged_columns
    from aucopt.algorithms._row_score import row_columns

    rng = np.random.default_rng(29)
    for trial in range(400):
        parts = [np.unique(rng.integers(0, 25, size=rng.integers(0, 7))).astype(kind)
                 for kind in (np.int32, np.int64, np.int32)]
        if trial % 4 == 0:  # a part out of order (or repeated): numpy.unique decides
            parts[trial % 3] = rng.integers(0, 25, size=4)
        expected = np.unique(np.concatenate(parts))
        if parts[1].size or parts[2].size:
            got = row_columns(*parts)
            assert got.dtype == np.int64 and np.array_equal(got, expected)
        for kernel in (merged_columns, merged_columns.py_func):
            out = np.empty(sum(p.size for p in parts), dtype=np.int64)
            n = kernel(*parts, out)
            sorted_parts = all((np.diff(p) > 0).all() for p in parts)
            assert n == (expected.size if sorted_parts else -1)
            if n >= 0:
                assert np.array_equal(out[:n], expected)
    assert merged_columns(np.arange(3), np.arange(2), np.arange(0), np.empty(4, np.int64)) == -1


@pytest.mark.parametrize("algorithm", ["spam-l2", "solam", "ogd-fifo"])
def test_a_chunk_after_learn_one_drops_the_update_left_to_the_next_score(algorithm):
    """A learn_one leaves the update of the dots to the next score; a chunk learnt before
    that score (learn_many, a new committed state) makes the dots afresh, without it."""
    data = _stream(140, seed=31)
    model = AUCClassifier(algorithm, n_features=40, seed=0, stats="online") if (
        algorithm == "spam-l2") else AUCClassifier(algorithm, n_features=40, seed=0)
    for x, y in data[:60]:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    for start in range(60, 140, 20):
        model.learn_one(*data[start])  # left to the next score
        assert model.estimator.__dict__["_score_path"].pending is not None
        frame = pd.DataFrame([x for x, _ in data[start + 1:start + 20]]).fillna(0.0)
        model.learn_many(frame, pd.Series([y for _, y in data[start + 1:start + 20]]))
        _assert_scores(model, [x for x, _ in data[start:start + 20]])


def test_the_score_after_a_pending_update_is_the_two_calls():
    from aucopt._kernels.row_score import column_dots, row_score_after, row_score_intercept

    rng = np.random.default_rng(37)
    mats = (rng.normal(size=(9, 2)), rng.normal(size=(9, 1)))
    cols, coefs = np.array([1, 0]), np.array([0.5, -2.0])
    sums, scale, shift = rng.normal(size=(2, 9)), rng.uniform(1, 2, size=9), rng.normal(size=9)
    data, indices, counts = rng.normal(size=3), np.array([1, 4, 8]), np.array([3.0, 5.0])
    dots = rng.normal(size=(2, 3))
    expected_dots = dots.copy()
    pending = np.array([0, 4, 7])
    assert column_dots(mats, cols, sums, scale, shift, pending, 1.0, expected_dots)
    expected = row_score_intercept(mats, cols, coefs, scale, data, indices, expected_dots,
                                   counts)
    for kernel in (row_score_after, row_score_after.py_func):
        got = dots.copy()
        score, added = kernel(mats, cols, coefs, sums, scale, shift, pending, data, indices,
                              got, counts)
        assert added and score == expected and np.array_equal(got, expected_dots)
        got = dots.copy()  # not increasing: refused, the dots unchanged
        score, added = kernel(mats, cols, coefs, sums, scale, shift, pending[::-1].copy(),
                              data, indices, got, counts)
        assert not added and np.isnan(score) and np.array_equal(got, dots)


@pytest.mark.parametrize("algorithm", ["spam-l2", "solam", "reg-solam", "ogd-fifo"])
def test_the_plain_form_of_a_lazy_id_is_scored_whole(algorithm):
    """Dense rows keep these ids' state in its plain form, whose steps write every weight:
    a score is then taken from the plain entries (a form not by columns), equal to
    ``decision_function``."""
    from aucopt._api import estimator_class
    from aucopt.algorithms._data import as_rows

    rng = np.random.default_rng(41)
    X = rng.normal(size=(260, 12))
    y = (X[:, 0] + rng.normal(size=260) > 0).astype(int)
    est = estimator_class(algorithm)(random_state=0).partial_fit(X[:200], y[:200],
                                                                 classes=[0, 1])
    for i in range(200, 260):
        row = sp.csr_matrix(X[i:i + 1])
        score = est._score_row(as_rows(row))
        assert score == pytest.approx(est.decision_function(row)[0], rel=1e-12, abs=1e-12)
        assert not est.__dict__["_score_path"].form.by_columns
        est.partial_fit(X[i:i + 1], y[i:i + 1])


def test_a_batch_id_with_a_column_form_is_scored_from_its_state():
    """pauc-2pmb (``fit`` only) shares 1PMB's iterate ``scale * v``: a row of the fitted
    model is scored from it as ``decision_function``."""
    from aucopt._api import estimator_class
    from aucopt.algorithms._data import as_rows

    rng = np.random.default_rng(43)
    X = sp.random(300, 30, density=0.2, format="csr", random_state=43)
    y = (X[:, 0].toarray().ravel() + 0.1 * rng.normal(size=300) > 0.05).astype(int)
    est = estimator_class("pauc-2pmb")(random_state=0, max_iter=2, lam=0.01).fit(X, y)
    assert est._state["scale"][0] != 1.0  # the scale is a coefficient of the form
    for i in range(40):
        row = X[i:i + 1]
        score = est._score_row(as_rows(row))
        assert score == pytest.approx(est.decision_function(row)[0], rel=1e-12, abs=1e-12)
