"""aucopt.metrics against scikit-learn (the oracle) and brute-force pair loops."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from aucopt.metrics import (
    StreamingROCAUC,
    _pairwise,
    auc_from_curve,
    pairwise_auc_loss,
    roc_auc_score,
    roc_curve,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# scores drawn from small sets so that ties are frequent
scores_st = st.one_of(
    st.integers(0, 4).map(float),
    st.sampled_from([-1.5, 0.0, 0.25, 1e-3, 7.0]),
    st.floats(-10, 10, allow_nan=False, width=32),
)


@st.composite
def binary_problems(draw, min_size=2, max_size=40):
    """(y in {0, 1} with both classes, float scores with many ties)."""
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y[0], y[1] = 0, 1
    perm = draw(st.permutations(range(n)))
    scores = draw(st.lists(scores_st, min_size=n, max_size=n))
    return np.asarray(y)[list(perm)], np.asarray(scores, dtype=np.float64)


def brute_force_auc(y, s, pos=1):
    """Exact rational AUC by the double loop over pairs."""
    p, q = s[y == pos], s[y != pos]
    twice = sum(2 * int(a > b) + int(a == b) for a in p for b in q)
    return Fraction(twice, 2 * len(p) * len(q))


# -------------------------------------------------------------------------------------
# roc_auc_score / roc_curve / auc_from_curve versus scikit-learn
# -------------------------------------------------------------------------------------


@SETTINGS
@given(binary_problems())
def test_roc_auc_score_matches_sklearn_and_exact_value(problem):
    y, s = problem
    auc = roc_auc_score(y, s)
    assert auc == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    # the pair count is exact, so the result is the correctly rounded rational
    assert auc == float(brute_force_auc(y, s))


@SETTINGS
@given(binary_problems(), st.booleans())
def test_roc_curve_matches_sklearn(problem, drop_intermediate):
    y, s = problem
    ours = roc_curve(y, s, drop_intermediate=drop_intermediate)
    theirs = skm.roc_curve(y, s, drop_intermediate=drop_intermediate)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert ours[2][0] == np.inf
    assert auc_from_curve(ours[0], ours[1]) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


@SETTINGS
@given(binary_problems(), st.integers(1, 5))
def test_invariant_under_strictly_increasing_transforms(problem, scale):
    y, s = problem
    s = np.round(s * scale)  # integer scores: the transforms below stay strictly increasing
    auc = roc_auc_score(y, s)
    for transform in (lambda t: 3.0 * t - 7.0, lambda t: t**3 + t, np.arctan, np.exp):
        assert roc_auc_score(y, transform(s)) == auc


@SETTINGS
@given(binary_problems())
def test_flipping_labels_or_negating_scores_gives_one_minus_auc(problem):
    y, s = problem
    auc = roc_auc_score(y, s)
    assert roc_auc_score(1 - y, s) == pytest.approx(1.0 - auc, abs=1e-12)
    assert roc_auc_score(y, s, pos_label=0) == pytest.approx(1.0 - auc, abs=1e-12)
    assert roc_auc_score(y, -s) == pytest.approx(1.0 - auc, abs=1e-12)


@pytest.mark.parametrize(
    "labels",
    [(0, 1), (-1, 1), ("neg", "pos"), (False, True), (0.0, 1.0), ("b", "a"), (2, 7)],
    ids=["01", "pm1", "str", "bool", "float", "str-reversed", "ints"],
)
def test_label_types_positive_class_is_the_larger_label(labels):
    rng = np.random.default_rng(0)
    idx = np.r_[0, 1, rng.integers(0, 2, 60)]
    y = np.asarray(labels)[idx]
    s = rng.integers(0, 6, idx.shape[0]).astype(float)
    larger = max(labels)
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert roc_auc_score(y, s) == roc_auc_score(y, s, pos_label=larger)
    assert roc_auc_score(y.tolist(), s.tolist()) == roc_auc_score(y, s)
    for a, b in zip(roc_curve(y, s), skm.roc_curve(y, s, pos_label=larger)):
        np.testing.assert_array_equal(a, b)
    smaller = min(labels)
    for a, b in zip(
        roc_curve(y, s, pos_label=smaller, drop_intermediate=False),
        skm.roc_curve(y, s, pos_label=smaller, drop_intermediate=False),
    ):
        np.testing.assert_array_equal(a, b)


def test_sklearn_docstring_example_and_integer_and_bool_scores():
    fpr, tpr, thr = roc_curve([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    np.testing.assert_array_equal(fpr, [0.0, 0.0, 0.5, 0.5, 1.0])
    np.testing.assert_array_equal(tpr, [0.0, 0.5, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(thr, [np.inf, 0.8, 0.4, 0.35, 0.1])
    y = np.array([0, 1, 1, 0, 1])
    for s in (np.array([1, 3, 3, 2, 0]), np.array([False, True, True, True, False])):
        assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
        for a, b in zip(roc_curve(y, s), skm.roc_curve(y, s)):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_large_integer_scores_are_not_merged_by_a_float_cast():
    s = np.array([2**60, 2**60 + 1], dtype=np.int64)
    assert roc_auc_score([0, 1], s) == 1.0


def test_large_n_with_ties_matches_sklearn():
    rng = np.random.default_rng(1)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.3 * y, 2)
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    fpr, tpr, _ = roc_curve(y, s)
    assert auc_from_curve(fpr, tpr) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def test_all_tied_scores_give_exactly_one_half_for_large_n():
    n = 2_000_000
    y = np.arange(n) % 3 == 0
    assert roc_auc_score(y, np.zeros(n)) == 0.5
    assert roc_auc_score(y, y.astype(float)) == 1.0


# -------------------------------------------------------------------------------------
# errors
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize("func", [roc_auc_score, roc_curve, pairwise_auc_loss])
@pytest.mark.parametrize(
    ("y_true", "y_score", "error", "match"),
    [
        ([0, 1, 1], [0.1, np.nan, 0.3], ValueError, "contains NaN"),
        ([0, 1, 1], [0.1, 0.2], ValueError, "different lengths"),
        ([], [], ValueError, "empty"),
        ([1, 1, 1], [0.1, 0.2, 0.3], ValueError, "AUC is undefined when y_true has only one"),
        ([0, 1, 2], [0.1, 0.2, 0.3], ValueError, "3 classes"),
        ([0, 1], [[0.1, 0.9], [0.8, 0.2]], ValueError, r"1-D array of scores.*y_score\[:, 1\]"),
        ([[0, 1]], [0.1, 0.2], ValueError, "y_true must be a 1-D"),
        ([0, 1], ["a", "b"], TypeError, "real numbers"),
        ([0, np.nan], [0.1, 0.2], ValueError, "y_true contains NaN"),
        (np.array([0, "a"], dtype=object), [0.1, 0.2], TypeError, "cannot be sorted"),
    ],
)
def test_input_errors(func, y_true, y_score, error, match):
    with pytest.raises(error, match=match):
        func(y_true, y_score)


def test_a_nan_score_is_named_alone_where_infinite_scores_are_ranked():
    with pytest.raises(ValueError, match=r"contains NaN \(infinite scores have a rank"):
        roc_auc_score([0, 1, 1], [0.1, np.nan, 0.3])
    assert roc_auc_score([0, 1, 1], [0.1, np.inf, 0.3]) == 1.0


def test_roc_curve_documents_how_it_ranks_infinite_scores():
    """Its docstring said "finite scores" while it ranks +-inf as extreme values
    (tests/test_safety_inputs.py checks the curve against scikit-learn's on +-1e300)."""
    assert "+inf" in roc_curve.__doc__ and "Finite real-valued" not in roc_curve.__doc__
    with pytest.raises(ValueError, match="NaN"):
        roc_curve([0, 1, 1], [0.1, np.nan, 0.3])


def test_pairwise_loss_rejects_infinite_scores():
    with pytest.raises(ValueError, match="NaN or infinity"):
        pairwise_auc_loss([0, 1, 1], [0.1, np.inf, 0.3])


def test_pos_label_not_in_labels():
    with pytest.raises(ValueError, match=r"pos_label=5 is not one of the labels"):
        roc_auc_score([0, 1], [0.2, 0.3], pos_label=5)
    with pytest.raises(ValueError, match=r"pos_label='yes' is not one of the labels"):
        roc_curve(["a", "b"], [0.2, 0.3], pos_label="yes")


def test_roc_curve_rejects_non_boolean_drop_intermediate():
    with pytest.raises(TypeError, match="drop_intermediate must be True or False"):
        roc_curve([0, 1], [0.2, 0.3], drop_intermediate="yes")


def test_auc_from_curve_checks_and_direction():
    assert auc_from_curve([0, 0.5, 1], [0, 1, 1]) == 0.75
    assert auc_from_curve([1, 0.5, 0], [1, 1, 0]) == 0.75
    with pytest.raises(ValueError, match="neither non-decreasing nor non-increasing"):
        auc_from_curve([0, 1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match="different lengths"):
        auc_from_curve([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="At least 2 points"):
        auc_from_curve([0], [0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        auc_from_curve([0, np.nan], [0, 1])


# -------------------------------------------------------------------------------------
# pairwise_auc_loss
# -------------------------------------------------------------------------------------


def brute_force_loss(y, s, loss, margin):
    total, count = 0.0, 0
    for a in s[y == 1]:
        for b in s[y != 1]:
            d = a - b
            total += {
                "square": (margin - d) ** 2,
                "hinge": max(0.0, margin - d),
                "logistic": np.log1p(np.exp(-d)),
                "exponential": np.exp(-d),
            }[loss]
            count += 1
    return total / count


@settings(max_examples=40, deadline=None)
@given(
    binary_problems(max_size=25),
    st.sampled_from(["square", "hinge", "logistic", "exponential"]),
    st.sampled_from([1.0, 0.5, 2.0, 0.0]),
)
def test_pairwise_auc_loss_matches_brute_force(problem, loss, margin):
    y, s = problem
    if loss in ("logistic", "exponential"):
        margin = 1.0
    expected = brute_force_loss(y, s, loss, margin)
    got = pairwise_auc_loss(y, s, loss, margin)
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_pairwise_logistic_loss_chunks(monkeypatch):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    y[:2] = [0, 1]
    s = rng.normal(size=40)
    expected = brute_force_loss(y, s, "logistic", 1.0)
    monkeypatch.setattr(_pairwise, "_PAIR_CHUNK", 7)
    assert pairwise_auc_loss(y, s, "logistic") == pytest.approx(expected, rel=1e-10)


def test_pairwise_loss_string_labels_and_overflow():
    y = np.array(["neg", "pos", "pos"])
    s = np.array([0.0, 1.0, 3.0])
    assert pairwise_auc_loss(y, s, "hinge") == 0.0
    assert pairwise_auc_loss(y, s, "hinge", pos_label="neg") == pytest.approx(3.0)
    assert pairwise_auc_loss([0, 1], [1000.0, 0.0], "exponential") == np.inf


def test_pairwise_loss_errors():
    y, s = [0, 1], [0.2, 0.3]
    with pytest.raises(ValueError, match="Unknown loss='cubic'"):
        pairwise_auc_loss(y, s, "cubic")
    with pytest.raises(TypeError, match="loss must be a string"):
        pairwise_auc_loss(y, s, None)
    with pytest.raises(ValueError, match="margin must be finite"):
        pairwise_auc_loss(y, s, "hinge", np.inf)
    with pytest.raises(TypeError, match="margin must be a real number"):
        pairwise_auc_loss(y, s, "hinge", "1")
    with pytest.raises(ValueError, match="logistic loss has no margin"):
        pairwise_auc_loss(y, s, "logistic", 0.5)


# -------------------------------------------------------------------------------------
# StreamingROCAUC
# -------------------------------------------------------------------------------------

def test_a_text_score_is_refused_one_at_a_time_as_in_an_array():
    """update(1, "0.5") parsed the text where update([1], ["0.5"]) refused it."""
    metric = StreamingROCAUC()
    for score in ("0.5", b"0.5"):
        with pytest.raises(TypeError, match="must be a real number"):
            metric.update(1, score)
    with pytest.raises(TypeError, match="must contain real numbers"):
        metric.update([1], ["0.5"])
    assert metric.n_pos == 0 and not StreamingROCAUC.requires_labels


stream_st = st.lists(st.tuples(st.integers(0, 1), st.integers(-2, 2).map(float)), max_size=40)


@SETTINGS
@given(stream_st)
def test_streaming_matches_sklearn_after_every_update_and_revert_restores(stream):
    metric = StreamingROCAUC()
    ys, ss, history = [], [], []
    for y, s in stream:
        metric.update(y, s)
        ys.append(y)
        ss.append(s)
        if len(set(ys)) == 2:
            assert metric.get() == pytest.approx(skm.roc_auc_score(ys, ss), abs=1e-12)
        else:
            assert np.isnan(metric.get())
        history.append(metric.get())
    for k in range(len(stream) - 1, 0, -1):
        metric.revert(*stream[k])
        np.testing.assert_equal(metric.get(), history[k - 1])  # exact; NaN equals NaN
    assert metric.n_pos + metric.n_neg == min(len(stream), 1)


@SETTINGS
@given(stream_st, st.integers(0, 40))
def test_streaming_array_updates_equal_one_at_a_time(stream, cut):
    y = np.array([p[0] for p in stream], dtype=int)
    s = np.array([p[1] for p in stream], dtype=float)
    one, batch = StreamingROCAUC(), StreamingROCAUC()
    for yi, si in zip(y, s):
        one.update(yi, si)
    batch.update(y[:cut], s[:cut])
    batch.update(y[cut:], s[cut:])
    assert batch._twice_u == one._twice_u
    assert (batch.n_pos, batch.n_neg) == (one.n_pos, one.n_neg)
    batch.revert(y[cut:], s[cut:])
    reference = StreamingROCAUC()
    reference.update(y[:cut], s[:cut])
    assert batch._twice_u == reference._twice_u
    assert batch._pos == reference._pos and batch._neg == reference._neg


def test_streaming_pos_label_spellings_and_string_labels():
    y = [False, True, True, False, True]
    s = [0.1, 0.9, 0.4, 0.4, 0.3]
    expected = skm.roc_auc_score(y, s)
    for pos_label in (True, 1, +1):
        metric = StreamingROCAUC(pos_label=pos_label)
        metric.update(y, s)
        assert metric.get() == pytest.approx(expected, abs=1e-12)
    metric = StreamingROCAUC(pos_label="yes")
    for yi, si in zip(y, s):
        metric.update("yes" if yi else "no", si)
    assert metric.get() == pytest.approx(expected, abs=1e-12)
    assert repr(metric).startswith("StreamingROCAUC: ")


def test_streaming_errors_leave_state_unchanged():
    metric = StreamingROCAUC()
    metric.update([0, 1, 1], [0.1, 0.5, 0.2])
    before = (metric._twice_u, list(metric._pos), list(metric._neg))
    with pytest.raises(ValueError, match="Cannot revert 1 sample"):
        metric.revert([1, 0], [0.5, 0.3])
    with pytest.raises(ValueError, match="more than one negative label"):
        metric.update(-1, 0.3)
    with pytest.raises(ValueError, match="must be finite"):
        metric.update(1, float("nan"))
    with pytest.raises(ValueError, match="one label per score"):
        metric.update([0, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="single score but y_true is not"):
        metric.update([0, 1], 0.3)
    with pytest.raises(TypeError, match="real number"):
        metric.update(1, "high")
    assert (metric._twice_u, metric._pos, metric._neg) == before


@pytest.mark.parametrize("tied", [False, True])
def test_weighted_auc_equals_sklearn_and_repeated_rows(tied):
    """Each pair weighs the product of its weights, ties one half; integer weights give the
    AUC of the rows repeated; weights of 0 leave rows out."""
    from ._weighted_cases import weighted_cases

    for y, s, w in weighted_cases(3, 100, tied):
        got = roc_auc_score(y, s, sample_weight=w)
        assert got == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        keep = np.repeat(np.arange(y.size), w.astype(int))
        assert got == pytest.approx(roc_auc_score(y[keep], s[keep]), abs=1e-14)
    assert roc_auc_score([0, 1, 1], [-np.inf, np.inf, 0.0], sample_weight=[1, 2, 3]) == 1.0
