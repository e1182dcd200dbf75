"""The command line never shows a traceback: one ``error:`` line and a non-zero exit.

Covers what reached users as tracebacks or wrong results: truncated compressed files
("Aborted!"), svmlight indices beyond 2^31, unreadable paths, a single-class stream saved
as an all-zero model, ``evaluate`` on labels that are not the model's classes, and an
absurd ``--n-features``.
"""

import bz2
import gzip
import lzma
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from typer.testing import CliRunner

from aucopt.cli import app

runner = CliRunner()
OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, 1, -1)
    dump_svmlight_file(X, y, str(folder / "data.svm"), zero_based=False)
    dump_svmlight_file(X, np.where(y > 0, 2, 1), str(folder / "labels12.svm"), zero_based=False)
    dump_svmlight_file(X, np.ones(300), str(folder / "one_class.svm"), zero_based=False)
    raw = (folder / "data.svm").read_bytes()
    for suffix, opener in OPENERS.items():
        with opener(folder / f"full.svm{suffix}", "wb") as fh:
            fh.write(raw)
        packed = (folder / f"full.svm{suffix}").read_bytes()
        (folder / f"cut.svm{suffix}").write_bytes(packed[: len(packed) // 2])
    (folder / "huge_index.svm").write_text("1 1:0.5 3000000000:1.0\n-1 2:0.3\n" * 5)
    fitted = runner.invoke(app, ["fit", "spam-l2", str(folder / "data.svm"), "--out",
                                 str(folder / "model")])
    assert fitted.exit_code == 0, fitted.output
    return folder


def _fails_cleanly(result, *fragments):
    text = result.output
    assert result.exit_code != 0, text
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in text and "Aborted" not in text, text
    lines = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, text
    for fragment in fragments:
        assert fragment in lines[0], text


@pytest.mark.parametrize("suffix", sorted(OPENERS))
@pytest.mark.parametrize("stream", [False, True])
def test_truncated_compressed_file_is_one_error_line(folder, suffix, stream):
    extra = ["--stream", "--n-features", "5"] if stream else []
    result = runner.invoke(app, ["fit", "spam-l2", str(folder / f"cut.svm{suffix}"), "--out",
                                 str(folder / "cut"), *extra])
    _fails_cleanly(result)


def test_svmlight_index_beyond_2_31_is_one_error_line(folder):
    for extra in ([], ["--stream", "--n-features", "5"]):
        result = runner.invoke(app, ["fit", "spam-l2", str(folder / "huge_index.svm"),
                                     "--out", str(folder / "h"), *extra])
        _fails_cleanly(result)


def test_unreadable_paths_are_one_error_line(folder):
    _fails_cleanly(runner.invoke(app, ["fit", "spam-l2", str(folder), "--out",
                                       str(folder / "d")]))
    _fails_cleanly(runner.invoke(app, ["evaluate", str(folder / "nothing"),
                                       str(folder / "data.svm")]))


def test_single_class_stream_is_refused_and_saves_nothing(folder):
    out = folder / "single"
    result = runner.invoke(app, ["fit", "spam-l2", str(folder / "one_class.svm"), "--stream",
                                 "--n-features", "5", "--out", str(out)])
    _fails_cleanly(result, "no row of class", "no model was saved")
    assert not out.with_suffix(".json").exists()


def test_evaluate_refuses_labels_that_are_not_the_model_classes(folder):
    result = runner.invoke(app, ["evaluate", str(folder / "model"),
                                 str(folder / "labels12.svm")])
    _fails_cleanly(result, "not the model's classes")
    ok = runner.invoke(app, ["evaluate", str(folder / "model"), str(folder / "data.svm")])
    assert ok.exit_code == 0 and "AUC on data.svm" in ok.output


def test_absurd_n_features_is_one_error_line(folder):
    result = runner.invoke(app, ["fit", "spam-l2", str(folder / "data.svm"), "--stream",
                                 "--n-features", str(10**12), "--out", str(folder / "w")])
    _fails_cleanly(result, "n_features=1000000000000")


def test_real_process_prints_no_traceback(folder):
    """The installed entry point, end to end: a truncated .xz file."""
    done = subprocess.run([sys.executable, "-m", "aucopt", "fit", "spam-l2",
                           str(folder / "cut.svm.xz"), "--out", str(folder / "x")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("error:"), done.stderr
