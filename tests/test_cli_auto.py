"""``aucopt fit auto``, saving ``make("auto")``, and files too small for a command (empty, or
with too few rows of a class for the inner folds that tune the grid).

``aucopt.make("auto")`` (an :class:`aucopt.AUCClassifier`) is the library's recommended
start; the command line takes it as ``auto`` and the saved model is the estimator it picked,
scoring the same rows the same way.
"""

import json

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from typer.testing import CliRunner

import aucopt
import aucopt.io
from aucopt.cli import app
from aucopt.datasets import make_auc_problem

runner = CliRunner()


@pytest.fixture
def toy(tmp_path):
    X, y = make_auc_problem(300, 6, random_state=0)
    X[:, 0] *= 1000.0  # unscaled: --preprocess has something to fold
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path))
    return path, X, y


def test_save_of_auto_saves_the_estimator_it_picked(tmp_path, toy):
    _, X, y = toy
    model = aucopt.make("auto", random_state=0).fit(X, y)
    aucopt.io.save(model, tmp_path / "m")
    loaded = aucopt.io.load(tmp_path / "m")
    assert type(loaded) is type(model.estimator_)
    assert json.loads((tmp_path / "m.json").read_text())["algorithm"] == model.algorithm_
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="not fitted"):
        aucopt.io.save(aucopt.make("auto"), tmp_path / "n")


@pytest.mark.parametrize("extra", [[], ["--preprocess", "standard"],
                                   ["--stream", "--n-features", "6"]],
                         ids=["fit", "preprocess", "stream"])
def test_fit_auto_saves_what_it_picked_and_it_scores_the_raw_rows(tmp_path, toy, extra):
    path, X, y = toy
    out = tmp_path / "m"
    result = runner.invoke(app, ["fit", "auto", str(path), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    picked = json.loads(out.with_suffix(".json").read_text())["algorithm"]
    assert f"auto ({picked}) on toy.svm" in result.output
    reference = aucopt.make("auto", random_state=None)
    if extra[:1] == ["--stream"]:
        assert picked in {"spam-l2", "uni-log"}  # a stream's choices
        return
    scaled = X
    if extra:  # the saved model takes the raw rows: its scores rank as the scaled fit's
        from aucopt.datasets import make_preprocessor

        scaled = make_preprocessor("standard").fit_transform(X)
    reference.fit(scaled, y)
    loaded = aucopt.io.load(out)
    assert reference.algorithm_ == picked
    np.testing.assert_allclose(loaded.decision_function(X), reference.decision_function(scaled),
                               rtol=1e-9, atol=1e-9)


def test_fit_auto_refuses_distributed_and_foreign_parameters(tmp_path, toy):
    path = str(toy[0])
    result = runner.invoke(app, ["fit", "auto", path, "--distributed", "--n-features", "6"])
    assert result.exit_code == 2 and "name a registry id" in result.output
    result = runner.invoke(app, ["fit", "auto", path, "-p", "beta=1"])
    assert result.exit_code == 1 and "has no parameter(s) ['beta']" in result.output


@pytest.mark.parametrize("command", [["fit", "spam-l2"], ["evaluate", "MODEL"],
                                     ["compare", "--algorithms", "spam-l2"]])
def test_an_empty_libsvm_file_is_named(tmp_path, toy, command):
    empty = tmp_path / "empty.svm"
    empty.write_text("")
    runner.invoke(app, ["fit", "spam-l2", str(toy[0]), "--out", str(tmp_path / "m")])
    args = [str(tmp_path / "m") if a == "MODEL" else a for a in command]
    at = 2 if command[0] != "compare" else 1
    result = runner.invoke(app, [*args[:at], str(empty), *args[at:]])
    assert result.exit_code == 1 and "empty.svm holds no data rows" in result.output, (
        result.output)


def test_compare_names_a_class_too_small_for_the_inner_folds(tmp_path):
    path = tmp_path / "six.svm"
    path.write_text("1 1:0.5 2:1\n-1 1:0.2\n1 1:0.9\n-1 2:0.1\n1 1:0.7 2:0.3\n-1 1:0.1 2:0.2\n")
    args = ["compare", str(path), "--algorithms", "spam-l2", "--folds", "2", "--n-jobs", "1",
            "--out", str(tmp_path / "c")]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "holds 1 sample(s) of its smaller class, fewer than the 3 inner folds" in (
        result.output)
    result = runner.invoke(app, [*args, "--grid", "none"])  # fixed hyperparameters: runs
    assert result.exit_code == 0, result.output
