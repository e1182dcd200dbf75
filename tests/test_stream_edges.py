"""Streams at their edges: mini-batches whose labels do not match their rows, River labels
of -1, hashed names that are equal but not alike, windows reverted past an eviction, LIBSVM
files without a final newline through a shuffle, the arguments of ``iter_svmlight``, and the
message of a dataset mirror that is not there."""

import gzip
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

pytest.importorskip("river")
from river import metrics  # noqa: E402

from aucopt.datasets import iter_svmlight  # noqa: E402
from aucopt.river import (  # noqa: E402
    AUCClassifier,
    ExactPartialAUC,
    ExactRollingROCAUC,
    prequential,  # noqa: E402
)

_LEARN_MANY = """
import sys
import numpy as np, pandas as pd
from aucopt.river import AUCClassifier
for case in sys.argv[1:]:
    algorithm, rows, labels = case.split(":")
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=int(rows)), "b": rng.normal(size=int(rows))})
    y = pd.Series(rng.integers(0, 2, int(labels)).astype(bool))
    try:
        AUCClassifier(algorithm, seed=0).learn_many(X, y)
    except ValueError as error:
        print(case, "refused:", error, flush=True)
"""
_SHAPES = [(5, 10), (3, 2000), (10, 5)]
_LEARNERS = ["spam-l2", "ftrl-auc"]


@pytest.fixture(scope="module")
def learn_many_outcomes():
    """Every case of the test below in one subprocess (one interpreter start), so that a
    crash is a failure: ``(return code, stdout, stderr)``."""
    cases = [f"{a}:{rows}:{labels}" for a in _LEARNERS for rows, labels in _SHAPES]
    done = subprocess.run([sys.executable, "-c", _LEARN_MANY, *cases], capture_output=True,
                          text=True)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("rows, labels", _SHAPES)
@pytest.mark.parametrize("algorithm", _LEARNERS)
def test_learn_many_refuses_labels_that_are_not_one_per_row(rows, labels, algorithm,
                                                            learn_many_outcomes):
    """The kernels read a label per row: more labels than rows crashed the interpreter
    (SIGSEGV), fewer were read past their end."""
    returncode, stdout, stderr = learn_many_outcomes
    assert returncode == 0, (returncode, stderr[-2000:])
    assert (f"{algorithm}:{rows}:{labels} refused: learn_many needs one label per row: "
            f"X has {rows} rows, y {labels}") in stdout


def test_the_fit_refuses_rows_and_labels_of_different_lengths():
    """The last guard before the kernels, whatever front end called them."""
    import aucopt
    from aucopt.algorithms._data import as_rows

    est = aucopt.make("spam-l2")
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"4 rows but \(6,\) labels reached the fit"):
        est._fit_rows(as_rows(X), np.ones(6), np.array([-1, 1]), n_epochs=1, shuffle=False,
                      reset=True)


def _stream(labels, n=400, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        positive = rng.random() < 0.3
        x = {"a": rng.normal() + positive, "b": rng.normal()}
        yield x, labels[0] if positive else labels[1]


def test_prequential_reads_minus_one_as_the_negative_class():
    records = {}
    for labels in ((True, False), (1, 0), (1, -1)):
        learners = {"m": AUCClassifier("spam-l2", seed=0)}
        final = prequential(_stream(labels), learners, window=100, every=400)[-1]
        records[labels] = (final["cumulative_auc"], final["window_auc"])
    assert records[(1, -1)] == records[(1, 0)] == records[(True, False)]
    assert records[(1, -1)][0] > 0.6
    with pytest.raises(ValueError, match="labels must be True/False"):
        prequential(_stream(("yes", "no")), {"m": AUCClassifier("spam-l2")})


def test_hashed_names_that_are_equal_but_not_alike_keep_their_columns():
    """``1``, ``1.0`` and ``True`` are equal keys but hash apart: the row made last for one
    of them is not reused for another (it was, so a column depended on the row before)."""
    from aucopt.river._columns import ColumnMap, stable_hash

    width = 64
    for first in ({True: 1.0}, {1.0: 1.0}, {"z": 1.0}):
        columns = ColumnMap(width)
        columns.row(first, width, grow=True)
        assert columns.row({1: 1.0}, width, grow=True).indices.tolist() == [
            stable_hash(1) % width]
    assert len({stable_hash(k) % width for k in (1, 1.0, True)}) == 3  # (the test can fail)


@pytest.mark.parametrize("make", [lambda: ExactRollingROCAUC(window_size=2),
                                  lambda: ExactPartialAUC(max_fpr=1.0, window_size=2)])
def test_a_window_reverted_gets_back_the_sample_it_pushed_out(make):
    """Update then revert is no change, as River's protocol wants (River's own
    ``RollingROCAUC`` agrees after one revert: the case found; not after several)."""
    ours, river = make(), metrics.RollingROCAUC(window_size=2)
    samples = [(True, 0.1), (False, 0.5), (True, 0.9), (False, 0.2), (True, 0.3)]
    for label, score in samples[:2]:
        ours.update(label, score)
        river.update(label, score)
    ours.update(*samples[2])
    river.update(*samples[2])
    ours.revert(*samples[2])
    river.revert(*samples[2])
    assert ours.get() == river.get() == 0.0  # the window (True, 0.1), (False, 0.5) again
    ours.update(*samples[2])
    seen = []
    for k in range(2, len(samples)):
        if k > 2:
            ours.update(*samples[k])
        window = samples[max(0, k - 1):k + 1]
        labels, scores = zip(*window)
        expected = roc_auc_score(labels, scores) if len(set(labels)) == 2 else np.nan
        assert ours.get() == pytest.approx(expected, nan_ok=True)
        seen.append(ours.get())
    for k in range(len(samples) - 1, 2, -1):  # back through every earlier state
        ours.revert(*samples[k])
        assert ours.get() == pytest.approx(seen[k - 3], nan_ok=True)


@pytest.mark.parametrize("suffix", [".svm", ".GZ"])
def test_a_last_line_without_newline_is_a_row_of_its_own_after_a_shuffle(tmp_path, suffix):
    text = b"1 3:1\n-1 2:1\n1 1:0.5\n-1 2:0.25"  # no newline at the end
    path = tmp_path / f"rows{suffix}"
    path.write_bytes(gzip.compress(text) if suffix == ".GZ" else text)
    for seed in range(8):
        chunks = list(iter_svmlight(path, chunk_size=2, n_features=3, shuffle_buffer=4,
                                    random_state=seed))
        rows = sorted((float(y), tuple(X.toarray()[0]))
                      for Xc, yc in chunks for X, y in zip(Xc, yc))
        assert rows == [(-1.0, (0.0, 0.25, 0.0)), (-1.0, (0.0, 1.0, 0.0)),
                        (1.0, (0.0, 0.0, 1.0)), (1.0, (0.5, 0.0, 0.0))], seed


@pytest.mark.parametrize("kwargs, says", [
    ({"chunk_size": True}, "chunk_size must be a positive int"),
    ({"chunk_size": 0}, "chunk_size must be a positive int"),
    ({"shuffle_buffer": -1}, "shuffle_buffer must be an int >= 0"),
    ({"zero_based": "yes"}, "zero_based must be True, False or 'auto'"),
    ({"zero_based": 1}, "zero_based must be True, False or 'auto'"),
])
def test_iter_svmlight_checks_its_arguments(tmp_path, kwargs, says):
    path = tmp_path / "rows.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    with pytest.raises(ValueError, match=says):
        list(iter_svmlight(path, **kwargs))
    assert sum(X.shape[0] for X, _ in iter_svmlight(path, chunk_size=np.int64(1))) == 2


def test_a_mirror_that_is_not_a_directory_is_named_in_the_error(tmp_path, monkeypatch):
    from aucopt.datasets import DatasetNotAvailableError, fetch

    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("AUCOPT_DATA_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(DatasetNotAvailableError,
                       match=r"no mirror \(AUCOPT_DATA_MIRROR=.*nowhere is not a directory\)"):
        fetch("australian", download=False)
    monkeypatch.delenv("AUCOPT_DATA_MIRROR")
    with pytest.raises(DatasetNotAvailableError, match=r"AUCOPT_DATA_MIRROR is unset"):
        fetch("australian", download=False)


def test_an_int_beyond_int64_is_a_number():
    model = AUCClassifier("spam-l2", seed=0)
    model.learn_one({"a": 2**70, "b": 1.0}, True)  # (was refused as "not numbers")
    assert model.predict_proba_one({"a": 2**70, "b": 1.0})[True] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="infinity or a value too large"):
        model.learn_one({"a": 10**400, "b": 1.0}, False)
    with pytest.raises(TypeError, match="feature values must be numbers"):
        model.learn_one({"a": "1.5"}, False)


@pytest.mark.parametrize("frame", [{"a": ["1.5", "-0.5"], "b": [2.0, 0.1]},
                                   {"a": [0.3, -1.0], "b": ["2", None]}])
def test_learn_many_refuses_text_as_learn_one_does(frame):
    """pandas read the strings of a DataFrame as numbers: learn_many and predict_proba_many
    learnt from and scored '1.5', which learn_one refuses."""
    import pandas as pd

    model = AUCClassifier("spam-l2", seed=0)
    model.learn_one({"a": 0.3, "b": -1.0}, True)
    model.learn_one({"a": -0.2, "b": 0.5}, False)
    t = model.estimator.t_
    X = pd.DataFrame(frame)
    with pytest.raises(TypeError, match="feature values must be numbers; column"):
        model.learn_many(X, pd.Series([True, False]))
    with pytest.raises(TypeError, match="feature values must be numbers; column"):
        model.predict_proba_many(X)
    assert model.estimator.t_ == t
    ok = pd.DataFrame({"a": [0.1, None], "b": [1, 2]}, dtype=object)  # numbers as objects
    model.learn_many(ok, pd.Series([True, False]))


def test_learn_many_names_a_missing_label_of_a_nullable_series():
    """A 'boolean' label series holding NA failed in pandas ('boolean value of NA is
    ambiguous') instead of the classifier's own message."""
    import pandas as pd

    X = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, -1.0]})
    with pytest.raises(ValueError, match="labels must be True/False .* got <NA>"):
        AUCClassifier("spam-l2").learn_many(X, pd.Series([True, None], dtype="boolean"))


def test_partial_auc_metrics_in_a_union_are_told_apart_by_their_range():
    """River prints a union of metrics one per line: two partial AUCs were both printed as
    'ExactPartialAUC: ...%'."""
    union = ExactPartialAUC(max_fpr=0.01) + ExactPartialAUC(max_fpr=0.05, min_tpr=0.5,
                                                          window_size=100)
    union.update(True, 0.9)
    union.update(False, 0.1)
    lines = str(union).splitlines()
    assert lines[0].startswith("ExactPartialAUC(max_fpr=0.01): ")
    assert lines[1].startswith("ExactPartialAUC(max_fpr=0.05, min_tpr=0.5, window_size=100): ")
