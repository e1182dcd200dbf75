"""Constant-memory streaming from LIBSVM files: iter_svmlight, fit --stream, peak RSS."""

import bz2
import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from typer.testing import CliRunner

import aucopt
from aucopt.cli import app
from aucopt.datasets import iter_svmlight, make_auc_problem

from ._child_env import child_env


@pytest.fixture
def libsvm_file(tmp_path):
    X, y = make_auc_problem(103, 6, sparsity=0.4, random_state=0)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


@pytest.mark.parametrize("compressed", [False, True])
def test_chunks_concatenate_to_the_whole_file(libsvm_file, compressed):
    path, X, y = libsvm_file
    if compressed:
        packed = path.with_suffix(".svm.bz2")
        packed.write_bytes(bz2.compress(path.read_bytes()))
        path = packed
    chunks = list(iter_svmlight(path, chunk_size=10, n_features=6))
    assert [c[0].shape[0] for c in chunks] == [10] * 10 + [3]
    assert np.allclose(np.vstack([c[0].toarray() for c in chunks]), X)
    assert np.array_equal(np.concatenate([c[1] for c in chunks]), y)


def test_zero_based_files(tmp_path):
    X, y = make_auc_problem(20, 4, random_state=1)
    path = tmp_path / "zero.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    chunks = list(iter_svmlight(path, chunk_size=6, n_features=4))
    assert np.allclose(np.vstack([c[0].toarray() for c in chunks]), X)
    with pytest.raises(ValueError, match="chunk_size"):
        next(iter_svmlight(path, chunk_size=0))


def test_a_zero_in_a_comment_does_not_make_a_file_zero_based(tmp_path):
    """"# row 0" after the data made "auto" read the file as zero-based: every column
    shifted by one (or a valid file refused with n_features)."""
    path = tmp_path / "commented.svm"
    path.write_text("1 1:1.5 2:2.5 # row 0\n-1 2:3.0 # row 1 0:x\n")
    (X, y), = iter_svmlight(path)
    np.testing.assert_array_equal(X.toarray(), [[1.5, 2.5], [0.0, 3.0]])
    assert next(iter_svmlight(path, n_features=2))[0].shape == (2, 2)


@pytest.mark.parametrize("kwargs, message", [({"n_features": 0}, "n_features"),
                                             ({"n_features": 2.0}, "n_features"),
                                             ({"zero_based": 1.0}, "zero_based"),
                                             ({"zero_based": 1}, "zero_based")])
def test_bad_arguments_are_named_not_blamed_on_the_file(tmp_path, kwargs, message):
    path = tmp_path / "ok.svm"
    path.write_text("1 1:1\n-1 2:3\n")
    with pytest.raises(ValueError, match=f"^{message} must be"):
        next(iter_svmlight(path, **kwargs))


def test_fit_stream_equals_partial_fit_over_the_chunks(libsvm_file, tmp_path):
    path, X, y = libsvm_file
    result = CliRunner().invoke(app, ["fit", "spam-l2", str(path), "--stream", "--chunk-size",
                                      "25", "--n-features", "6", "-p", "stats=online",
                                      "--shuffle-buffer", "0", "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert "streamed 103 rows" in result.output
    expected = aucopt.make("spam-l2", stats="online")
    for start in range(0, 103, 25):
        expected.partial_fit(X[start:start + 25], y[start:start + 25], classes=[-1, 1])
    loaded = aucopt.io.load(tmp_path / "m")
    np.testing.assert_allclose(loaded.coef_, expected.coef_, rtol=1e-12)


@pytest.mark.parametrize("args, message", [
    (["--n-features", "6"], "not a file"),
    ([], "--n-features"),
])
def test_fit_stream_errors(libsvm_file, tmp_path, args, message):
    path, _, _ = libsvm_file
    target = "no-such.svm" if message == "not a file" else str(path)
    result = CliRunner().invoke(app, ["fit", "spam-l2", target, "--stream", *args])
    assert result.exit_code == 1 and message in result.output


_STREAM_SCRIPT = """
import resource, sys
import numpy as np
import aucopt
from aucopt.datasets import iter_svmlight
est = aucopt.make("spam-l2", stats="online")
rows = 0
for X, y in iter_svmlight(sys.argv[1], chunk_size=20000, n_features=100):
    est.partial_fit(X, y, classes=[-1.0, 1.0])
    rows += X.shape[0]
print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _write_rows(path, n_rows, block):
    with open(path, "wb") as fh:
        for _ in range(n_rows // block.count(b"\n")):
            fh.write(block)


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_the_stream(tmp_path):
    """Peak RSS growth < 25 MB between 6e4 and 6e5 streamed rows, i.e. under 49 bytes per
    row, less than one stored row of 8 non-zeros (the benchmark runner measures 2e5 to 2e6:
    docs/performance.md)."""
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(20000):  # 20k distinct rows, 8 non-zeros each, repeated to length
        cols = np.sort(rng.choice(100, 8, replace=False)) + 1
        vals = rng.uniform(-1, 1, 8)
        label = "+1" if rng.random() < 0.3 else "-1"
        lines.append(label + " " + " ".join(f"{c}:{v:.4f}" for c, v in zip(cols, vals)))
    block = ("\n".join(lines) + "\n").encode()
    peaks = {}
    for n in (60_000, 600_000):
        path = tmp_path / f"rows{n}.svm"
        _write_rows(path, n, block)
        out = subprocess.run([sys.executable, "-c", _STREAM_SCRIPT, str(path)], check=True,
                             capture_output=True, text=True, env=child_env(),
                             timeout=600).stdout.split()
        assert int(out[0]) == n
        peaks[n] = int(out[1]) / 1024  # MB (Linux reports KB)
        path.unlink()
    growth = peaks[600_000] - peaks[60_000]
    print(json.dumps({"peak_mb": peaks, "growth_mb": growth}))
    assert growth < 25, peaks


def test_cli_stream_takes_registered_names_and_flags_constant_scores(tmp_path):
    """A registered dataset by name; sparse one-hot rows: the default scaling learns, River's
    StandardScaler makes every score the same, which is reported (exit 1), not AUC 0.5."""
    from sklearn.datasets import dump_svmlight_file
    from typer.testing import CliRunner

    from aucopt.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["stream", "german.numer", "--limit", "300", "--baselines", "",
                                 "--out", str(tmp_path / "g"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "300 samples of german.numer" in result.output
    rng = np.random.default_rng(0)
    X = (rng.random((400, 30)) < 0.2).astype(float)  # one-hot-like: every value 0 or 1
    y = np.where(X[:, :3].sum(axis=1) + 0.3 * rng.normal(size=400) > 0.6, 1, -1)
    dump_svmlight_file(X, y, str(tmp_path / "onehot.svm"))
    args = ["stream", str(tmp_path / "onehot.svm"), "-a", "spam-l2", "--baselines", "",
            "--no-progress", "--out", str(tmp_path / "o")]
    good = runner.invoke(app, args)
    assert good.exit_code == 0 and "constant" not in good.output, good.output
    bad = runner.invoke(app, [*args, "--scale", "standard"])
    assert bad.exit_code == 1 and "constant scores" in bad.output, bad.output


def test_cli_stream_refuses_a_stream_of_one_class(tmp_path):
    """No AUC without both classes: a clear error (exit 1), not NaN and a scaling warning."""
    from typer.testing import CliRunner

    from aucopt.cli import app

    path = tmp_path / "positives.svm"
    path.write_text("".join(f"1 1:{i / 10} 2:1\n" for i in range(30)))
    result = CliRunner().invoke(app, ["stream", str(path), "--no-progress",
                                      "--out", str(tmp_path / "p")])
    assert result.exit_code == 1, result.output
    assert "one class only in its 30 samples" in result.output
    assert "nan" not in result.output and "scaling" not in result.output
    assert not (tmp_path / "p.csv").exists()
