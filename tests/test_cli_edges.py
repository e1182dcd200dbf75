"""The command line at its edges: data with one class or three, options out of range, a
partial-AUC report, files and directories that are not what they should be, values that are
not numbers in a stream, and result files that appear whole or not at all."""

import errno
import html
import os
import re
import shlex

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from typer.testing import CliRunner

from aucopt.cli import app
from aucopt.datasets import make_auc_problem

runner = CliRunner()


@pytest.fixture
def toy(tmp_path):
    X, y = make_auc_problem(160, 5, random_state=0)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


def _compare(path, out, *more):
    return runner.invoke(app, ["compare", str(path), "--algorithms", "spam-l2", "--folds", "2",
                               "--grid", "none", "--n-jobs", "1", "--no-progress",
                               "--out", str(out), *more])


@pytest.mark.parametrize("labels, says", [
    ([1], "1 (1.0). Every row has the same label"),
    ([0, 1, 2], "3 (0.0, 1.0, 2.0). Binarise it first"),
])
def test_compare_refuses_data_without_exactly_two_classes(tmp_path, toy, labels, says):
    _, X, _ = toy
    path = tmp_path / "odd.svm"
    dump_svmlight_file(X, np.resize(labels, X.shape[0]), str(path), zero_based=False)
    result = _compare(path, tmp_path / "c")
    assert result.exit_code == 1, result.output
    assert f"AUC needs labels of exactly two classes; y holds {says}" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "c").exists()


@pytest.mark.parametrize("option, value, says", [
    ("--grid", "bogus", "grid must be one of quick | paper | none or a dict, got 'bogus'"),
    ("--algorithms", "", "No algorithm to compare"),
    ("--algorithms", "spam-l2,spam-l2", "An algorithm is named twice"),
    ("--algorithms", "logre", "Did you mean 'logreg'?"),
])
def test_compare_refuses_bad_choices_before_any_work(tmp_path, toy, option, value, says):
    args = ["compare", str(toy[0]), "--algorithms", "spam-l2", "--n-jobs", "1",
            "--out", str(tmp_path / "c"), option, value]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and says in result.output, result.output
    assert not (tmp_path / "c").exists()


def test_compare_out_that_is_a_file_is_refused_before_any_work(tmp_path, toy):
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    result = _compare(toy[0], taken)
    assert result.exit_code == 1 and "--out" in result.output and "is a file" in result.output
    assert taken.read_text() == "keep me"


def test_the_html_report_of_a_partial_auc_comparison_says_so(tmp_path, toy):
    result = _compare(toy[0], tmp_path / "p", "--metric", "pauc", "--max-fpr", "0.2")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "p" / "report.html").read_text()
    assert "<title>Partial AUC (FPR &lt;= 0.2, McClish) on toy.svm</title>" in page
    assert "Results, best pAUC@0.2 first" in page and "<th>pAUC@0.2 mean</th>" in page
    assert "(selected by pAUC@0.2)" not in page  # --grid none: nothing was selected
    assert "AUC and partial AUC over FPR &lt;= 0.2 on the test part" in page
    plain = _compare(toy[0], tmp_path / "a")
    page = (tmp_path / "a" / "report.html").read_text()
    assert "<title>AUC on toy.svm</title>" in page and "pAUC" not in page, plain.output


@pytest.mark.parametrize("more, says", [
    (["--metric", "pauc", "--max-fpr", "0"], "--max-fpr must be in (0, 1]"),
    (["--metric", "pauc", "--max-fpr", "1.5"], "--max-fpr must be in (0, 1]"),
    (["--max-fpr", "0.2"], "give --metric pauc too"),
])
def test_compare_max_fpr_is_checked_as_a_usage_error(tmp_path, toy, more, says):
    result = _compare(toy[0], tmp_path / "c", *more)
    assert result.exit_code == 2 and says in result.output, result.output


@pytest.mark.parametrize("command", [["stream"], ["fit", "spam-l2"]])
def test_a_missing_file_or_a_directory_is_named(tmp_path, command):
    missing = runner.invoke(app, [*command, str(tmp_path / "none.svm"), "--out",
                                  str(tmp_path / "o")])
    assert missing.exit_code == 1 and f"no such file: {tmp_path / 'none.svm'}" in missing.output
    folder = runner.invoke(app, [*command, str(tmp_path), "--out", str(tmp_path / "o")])
    assert folder.exit_code == 1 and f"{tmp_path} is a directory" in folder.output


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_stream_refuses_a_value_that_is_not_finite_whatever_the_scaling(tmp_path, toy, value):
    lines = toy[0].read_text().splitlines()
    lines[5] += f" 9:{value}"
    path = tmp_path / "bad.svm"
    path.write_text("\n".join(lines) + "\n")
    for scaling in ([], ["--no-scale"]):  # (the default scaler in front hid them)
        result = runner.invoke(app, ["stream", str(path), "--algorithms", "spam-l2",
                                     "--baselines", "", "--no-progress", *scaling,
                                     "--out", str(tmp_path / "s")])
        assert result.exit_code == 1, result.output
        assert f"bad.svm: data row 6 (counted from 1) holds {value}" in result.output
        assert not list(tmp_path.glob("s.*"))


def test_a_kernel_learner_is_not_told_to_use_an_option_it_refuses(tmp_path):
    X, y = make_auc_problem(120, 4, random_state=1)
    path = tmp_path / "wide.svm"
    dump_svmlight_file(X * [1, 1, 1, 500.0], y, str(path), zero_based=False)
    warned = runner.invoke(app, ["fit", "projection-pp", str(path), "--out", str(tmp_path / "m")])
    assert warned.exit_code == 0, warned.output
    assert "Scale the data file first" in warned.output and "--preprocess minmax" not in (
        warned.output)
    refused = runner.invoke(app, ["fit", "projection-pp", str(path), "--preprocess", "minmax",
                                  "--out", str(tmp_path / "m")])
    assert refused.exit_code == 1 and "it is not a linear model" in refused.output
    linear = runner.invoke(app, ["fit", "spam-l2", str(path), "-p", "precondition=null",
                                 "--out", str(tmp_path / "m")])
    assert "Add --preprocess minmax" in linear.output


class _Unprintable:
    def __str__(self):
        raise RuntimeError("this value cannot be written")


def test_a_result_file_is_whole_or_not_there(tmp_path):
    from aucopt.cli._stream import write_csv
    from aucopt.utils._atomic import write_atomic

    path = tmp_path / "prequential.csv"
    path.write_text("the previous results\n")
    rows = [{"n": k, "learner": "a", "cumulative_auc": 0.5, "window_auc": 0.5}
            for k in range(2000)] + [{"n": _Unprintable(), "learner": "b"}]
    with pytest.raises(RuntimeError, match="cannot be written"):
        write_csv(rows, path)
    assert path.read_text() == "the previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prequential.csv"]
    write_csv(rows[:3], path)
    assert path.read_text().splitlines()[0] == "n,learner,cumulative_auc,window_auc"
    assert write_atomic(tmp_path / "r.md", "# r\n").read_text() == "# r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prequential.csv", "r.md"]


def test_a_save_on_a_read_only_file_system_names_only_the_real_error(tmp_path, monkeypatch,
                                                                      caplog):
    """On a read-only file system the temporary files are never made, and removing a file
    that does not exist fails with EROFS, not ENOENT: that is no reason to warn."""
    import aucopt
    from aucopt.io import _files

    real = os.unlink

    def read_only(path, *args, **kwargs):
        if not os.path.lexists(path):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, *args, **kwargs)

    model = aucopt.make("spam-l2").fit(*make_auc_problem(60, 3, random_state=0))
    monkeypatch.setattr(_files.os, "unlink", read_only)
    original = _files.Transaction.write

    def refused(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self.folder))

    monkeypatch.setattr(_files.Transaction, "write", refused)
    with caplog.at_level("WARNING", logger="aucopt"), pytest.raises(OSError, match="Read-only"):
        aucopt.io.save(model, tmp_path / "m")
    assert not [r for r in caplog.records if "Could not remove" in r.getMessage()]
    monkeypatch.setattr(_files.Transaction, "write", original)
    aucopt.io.save(model, tmp_path / "m")  # a real file is still removed when it must be
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "m.npz"]


@pytest.mark.parametrize("bad, says", [
    ("label features", "could not convert string to float: b'label'"),
    ("3:1 1:2", "could not convert string to float"),
    ("1 2:1 1:2", "should be sorted and unique"),
])
def test_a_libsvm_line_that_does_not_parse_is_named(tmp_path, toy, bad, says):
    lines = toy[0].read_text().splitlines()
    path = tmp_path / "broken.svm"
    path.write_text("\n".join(lines[:3] + ["# a comment", "", bad] + lines[3:]) + "\n")
    for more in ([], ["--stream", "--n-features", "5", "--shuffle-buffer", "0"]):
        result = runner.invoke(app, ["fit", "spam-l2", str(path), *more,
                                     "--out", str(tmp_path / "m")])
        assert result.exit_code == 1, result.output
        assert "broken.svm: data line 4 is not LIBSVM (" in result.output and says in (
            result.output)
    shuffled = runner.invoke(app, ["fit", "spam-l2", str(path), "--stream", "--n-features", "5",
                                   "--out", str(tmp_path / "m")])
    assert "broken.svm: a data line is not LIBSVM" in shuffled.output  # (no line number)


def test_a_stream_read_as_one_based_that_meets_index_0_says_why(tmp_path):
    from aucopt.datasets import iter_svmlight

    path = tmp_path / "late.svm"
    path.write_text("1 1:0.5\n-1 2:0.1\n" * 5 + "1 0:0.3 1:0.2\n")
    with pytest.raises(ValueError, match=r"late.svm: data line 11 is not LIBSVM \(Invalid index "
                                         r"0.*Its first lines hold no index 0.*zero_based=True"):
        list(iter_svmlight(path, chunk_size=4))
    assert sum(X.shape[0] for X, _ in iter_svmlight(path, chunk_size=4, zero_based=True)) == 11


def test_the_rerun_command_of_a_report_can_be_pasted_into_a_shell(tmp_path, toy):
    odd = tmp_path / "my data&.svm"
    odd.write_bytes(toy[0].read_bytes())
    out = tmp_path / "cmp 2"
    result = _compare(odd, out)
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    command = html.unescape(page.split("<pre>")[1].split("</pre>")[0])
    words = shlex.split(command)
    assert words[:3] == ["aucopt", "compare", str(odd)] and words[words.index("--out") + 1] == (
        str(out))


def test_the_rerun_command_keeps_every_digit_of_max_fpr(tmp_path, toy):
    """0.1234567 was written as 0.123457 (:g): the rerun bounded another partial AUC."""
    out = tmp_path / "p"
    result = _compare(toy[0], out, "--metric", "pauc", "--max-fpr", "0.1234567")
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    words = shlex.split(html.unescape(page.split("<pre>")[1].split("</pre>")[0]))
    assert words[words.index("--max-fpr") + 1] == "0.1234567"


@pytest.mark.parametrize("value, expected", [("True", True), ("None", None), ("true", True),
                                             ("null", None)])
def test_param_takes_python_and_json_spellings(value, expected):
    from aucopt.cli._commands import _parse_params

    assert _parse_params([f"shuffle={value}"], "spam-l2") == {"shuffle": expected}


@pytest.mark.parametrize("value, expected", [(".5", 0.5), ("5.", 5.0), ("+0.5", 0.5),
                                             ("05", 5), ("inf", float("inf")),
                                             ("auto", "auto"), ("1e-3", 1e-3)])
def test_param_takes_the_numbers_python_reads(value, expected):
    """.5, 5., +0.5 and 05 are not JSON: they stayed strings, refused as "not a float"."""
    from aucopt.cli._commands import _parse_params

    assert _parse_params([f"beta={value}"], "spam-l2") == {"beta": expected}


@pytest.mark.parametrize("out, says", [("", "has no file name"),
                                       ("toy.svm/model", "toy.svm is a file, not a folder"),
                                       ("models/", "'models/' names a folder")])
def test_a_model_path_that_cannot_be_one_is_named(tmp_path, toy, out, says, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    result = runner.invoke(app, ["fit", "spam-l2", "toy.svm", "--out", out])
    assert result.exit_code == 1 and says in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models", "toy.svm"]
    assert not any((tmp_path / "models").iterdir())


def _zero_based_files(tmp_path):
    """A zero-based training file (index 0 used) and a test file whose column 0 is empty."""
    X, y = make_auc_problem(400, 5, random_state=1)
    X[200:, 0] = 0.0
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:200], y[:200], str(train), zero_based=True)
    dump_svmlight_file(X[200:], y[200:], str(test), zero_based=True)
    return train, test, X[200:], y[200:]


@pytest.mark.parametrize("stream", [False, True])
def test_evaluate_reads_a_test_file_with_the_training_files_index_base(tmp_path, stream):
    from aucopt.io import load
    from aucopt.metrics import roc_auc_score

    train, test, X_test, y_test = _zero_based_files(tmp_path)
    more = ["--stream", "--n-features", "5", "--shuffle-buffer", "0"] if stream else []
    fitted = runner.invoke(app, ["fit", "spam-l2", str(train), "--seed", "0",
                                 "--out", str(tmp_path / "m"), *more])
    assert fitted.exit_code == 0, fitted.output
    model = load(tmp_path / "m")
    assert model.libsvm_zero_based_ is True
    expected = roc_auc_score(y_test > 0, model.decision_function(X_test))
    result = runner.invoke(app, ["evaluate", str(tmp_path / "m"), str(test)])
    assert result.exit_code == 0, result.output
    # (read on its own, the test file holds no index 0 and would be read one-based)
    assert f"AUC on test.svm: {expected:.4f}" in result.output


def test_a_one_based_model_refuses_a_test_file_with_index_0(tmp_path, toy):
    path, _, _ = toy
    train, test, _, _ = _zero_based_files(tmp_path)
    assert runner.invoke(app, ["fit", "spam-l2", str(path), "--out",
                               str(tmp_path / "m")]).exit_code == 0
    result = runner.invoke(app, ["evaluate", str(tmp_path / "m"), str(train)])
    assert result.exit_code == 1
    assert "train.svm uses feature index 0 (data line 1) but is read one-based" in result.output
    forced = runner.invoke(app, ["evaluate", str(tmp_path / "m"), str(test), "--zero-based"])
    assert forced.exit_code == 0 and "AUC on test.svm" in forced.output


@pytest.mark.parametrize("value", [1, "yes", None])
def test_a_model_whose_index_base_is_not_a_bool_is_refused(tmp_path, toy, value):
    import json

    from aucopt.exceptions import ModelFileError
    from aucopt.io import load

    from ._model_files import resign

    assert runner.invoke(app, ["fit", "spam-l2", str(toy[0]), "--out",
                               str(tmp_path / "m")]).exit_code == 0
    meta = json.loads((tmp_path / "m.json").read_text())
    assert meta["attributes"]["libsvm_zero_based_"] is False
    meta["attributes"]["libsvm_zero_based_"] = value
    resign(tmp_path / "m", meta)
    with pytest.raises(ModelFileError, match="libsvm_zero_based_ must be true or false"):
        load(tmp_path / "m")


def test_a_comparison_by_partial_auc_trains_the_pauc_learners_for_its_bound(tmp_path, toy):
    """--max-fpr 0.05 ranked by pAUC@0.05 while pauc-1pmb trained for its default 0.1."""
    import csv

    result = runner.invoke(app, ["compare", str(toy[0]), "--algorithms", "pauc-1pmb,spam-l2",
                                 "--folds", "2", "--grid", "none", "--n-jobs", "1",
                                 "--no-progress", "--metric", "pauc", "--max-fpr", "0.05",
                                 "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "learners with a max_fpr trained for 0.05" in result.output
    with open(tmp_path / "c" / "results.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["param_max_fpr"] for r in rows if r["algorithm"] == "pauc-1pmb"} == {"0.05"}
    assert {r["param_max_fpr"] for r in rows if r["algorithm"] == "spam-l2"} == {""}


def _sorted_file(tmp_path, labels=(0, 1)):
    X, y = make_auc_problem(3000, 5, random_state=0)
    order = np.argsort(y, kind="stable")  # every negative first
    path = tmp_path / "sorted.svm"
    dump_svmlight_file(X[order], np.where(y[order] > 0, labels[1], labels[0]), str(path))
    return path


def test_a_streamed_fit_shows_the_ordered_stream_warning_once_as_a_log_line(tmp_path):
    path = _sorted_file(tmp_path)
    result = runner.invoke(app, ["fit", "spam-l2", str(path), "--stream", "--n-features", "5",
                                 "--classes", "0,1", "--shuffle-buffer", "1", "--chunk-size",
                                 "500", "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "sorted by label" in line]
    assert len(said) == 1, result.output  # was twice: a log record and Python's warning
    assert said[0].startswith("WARNING aucopt: OrderedStreamWarning: ")
    assert "all of class 0.0:" in said[0]  # a label as the user wrote it, not np.float64(0.0)


def test_a_streamed_file_whose_labels_are_not_the_classes_names_the_option(tmp_path):
    path = _sorted_file(tmp_path)
    result = runner.invoke(app, ["fit", "spam-l2", str(path), "--stream", "--n-features", "5",
                                 "--out", str(tmp_path / "m")])
    assert result.exit_code == 1
    assert "the label(s) 0.0 that --classes -1.0,1.0 does not list" in result.output
    assert "--classes 0,1" in result.output and "classes=" not in result.output
    assert not list(tmp_path.glob("m*"))


def test_compare_refuses_more_folds_than_the_smaller_class_before_any_work(tmp_path, toy):
    _, X, _ = toy
    path = tmp_path / "few.svm"
    y = np.where(np.arange(30) < 3, 1, -1)
    dump_svmlight_file(X[:30], y, str(path), zero_based=False)
    result = runner.invoke(app, ["compare", str(path), "--algorithms", "spam-l2", "--folds",
                                 "5", "--grid", "none", "--n-jobs", "1", "--no-progress",
                                 "--out", str(tmp_path / "c")])
    assert result.exit_code == 1, result.output
    assert "the smaller class has 3 sample(s), fewer than the 5 folds" in result.output
    assert "--folds" in result.output and not (tmp_path / "c").exists()


def test_compare_reports_the_sample_std_as_the_experiment_reports(tmp_path, toy):
    result = _compare(toy[0], tmp_path / "s", "--repeats", "2")
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "s" / "results.csv").read_text().splitlines()
    at = rows[0].split(",").index("auc")
    aucs = np.array([float(r.split(",")[at]) for r in rows[1:]])
    shown = float(re.search(r"spam-l2\s+0\.\d{4} \+- (0\.\d{4})", result.output).group(1))
    assert shown == round(float(aucs.std(ddof=1)), 4) != round(float(aucs.std()), 4)


def test_an_output_path_that_is_a_folder_is_named_not_a_temporary_file(tmp_path, toy):
    """evaluate --plot FOLDER (and stream's CSV, a report's -o) failed with "[Errno 21] Is a
    directory: '.FOLDER.c4c5.tmp' -> 'FOLDER'", naming a file the user never asked for."""
    data = str(toy[0])
    assert runner.invoke(app, ["fit", "spam-l2", data, "--out", str(tmp_path / "m")]).exit_code == 0
    (tmp_path / "roc").mkdir()
    (tmp_path / "s.csv").mkdir()
    for args in (["evaluate", str(tmp_path / "m"), data, "--plot", str(tmp_path / "roc")],
                 ["stream", data, "--baselines", "", "--no-progress", "--out",
                  str(tmp_path / "s")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and "it is a folder" in result.output, result.output
        assert ".tmp" not in result.output


def test_stream_refuses_a_learner_named_twice_as_compare_does(tmp_path, toy):
    """stream kept one of two equal learners (a dict of them) and said nothing."""
    result = runner.invoke(app, ["stream", str(toy[0]), "--algorithms", "spam-l2,spam-l2",
                                 "--baselines", "", "--no-progress", "--out",
                                 str(tmp_path / "s")])
    assert result.exit_code == 1 and "named twice" in result.output, result.output


def test_fit_stream_names_a_bad_row_where_it_is_in_the_file(tmp_path):
    """A NaN on the fourth data line was reported "first in row 141" (its place in a
    shuffled chunk): now the row of the file, or said to be counted in a shuffled chunk."""
    X, y = make_auc_problem(200, 5, random_state=0)
    dump_svmlight_file(X, y, str(tmp_path / "nan.svm"), zero_based=False)
    lines = (tmp_path / "nan.svm").read_text().splitlines()
    lines[3] = re.sub(r" 2:\S+", " 2:nan", lines[3])
    (tmp_path / "nan.svm").write_text("\n".join(lines) + "\n")
    base = ["fit", "spam-l2", str(tmp_path / "nan.svm"), "--stream", "--n-features", "5",
            "--out", str(tmp_path / "m")]
    result = runner.invoke(app, [*base, "--shuffle-buffer", "0", "--chunk-size", "2"])
    assert result.exit_code == 1 and "first in data row 3, counted from 0" in result.output
    result = runner.invoke(app, base)
    assert result.exit_code == 1 and "shuffled through a buffer" in result.output
    assert "--shuffle-buffer 0" in result.output


def test_evaluate_plot_makes_its_folder_as_fit_out_does(tmp_path, toy):
    """evaluate --plot missing/roc.png refused the missing folder, which fit --out and
    stream --out make."""
    data = str(toy[0])
    assert runner.invoke(app, ["fit", "spam-l2", data, "--out", str(tmp_path / "m")]).exit_code == 0
    plot = tmp_path / "new" / "roc.png"
    result = runner.invoke(app, ["evaluate", str(tmp_path / "m"), data, "--plot", str(plot)])
    assert result.exit_code == 0 and plot.read_bytes()[:4] == b"\x89PNG", result.output


def test_stream_refuses_a_scale_and_no_scale_together(tmp_path, toy):
    """--scale maxabs --no-scale ran without a word, --no-scale winning."""
    result = runner.invoke(app, ["stream", str(toy[0]), "--scale", "maxabs", "--no-scale",
                                 "--baselines", "", "--no-progress", "--out",
                                 str(tmp_path / "s")])
    assert result.exit_code == 2 and "contradict" in result.output, result.output
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("option, value, says", [
    ("--n-jobs", "0", "--n-jobs must be a number of processes"),
    ("--preprocess", "bogus", "--preprocess must be one of minmax"),
    ("--seed", "-1", "'--seed'"),
    ("--seed", str(2**32), "'--seed'"),
])
def test_compare_usage_errors_exit_2_and_make_no_folder(tmp_path, toy, option, value, says):
    """--n-jobs 0 and --seed -1 failed in joblib and NumPy (exit 1, the option not named),
    --preprocess bogus after an empty --out folder was made."""
    result = _compare(toy[0], tmp_path / "c", option, value)
    assert result.exit_code == 2 and says in " ".join(result.output.split()), result.output
    assert not (tmp_path / "c").exists()


def test_evaluate_parts_take_one_base_from_any_part_holding_index_0(tmp_path, toy):
    """Zero-based parts of a model without a recorded base were read one-based (a part with
    an index 0 failed, without the --zero-based hint the help promises)."""
    import aucopt
    from aucopt.cli._distributed import evaluate_parts

    _, X, y = toy
    est = aucopt.make("spam-l2", random_state=0).fit(X, y)
    (tmp_path / "parts").mkdir()
    first = X[:80].copy()
    first[:, 0] = 0.0  # no index 0 in the first part
    dump_svmlight_file(first, y[:80], str(tmp_path / "parts" / "a.svm"), zero_based=True)
    dump_svmlight_file(X[80:], y[80:], str(tmp_path / "parts" / "b.svm"), zero_based=True)
    labels, scores, parts = evaluate_parts(est, str(tmp_path / "parts" / "*.svm"), None)
    want = est.decision_function(np.vstack([first, X[80:]]))
    assert parts == 2 and np.array_equal(labels, y) and np.allclose(scores, want)


def test_a_rerun_into_the_same_folder_leaves_no_figure_of_the_earlier_run(tmp_path, toy):
    """convergence.png of an earlier run stayed beside the results of a run that draws none
    (logreg learns at once); a partial-AUC run's caption said the colours followed AUC."""
    out = tmp_path / "c"
    assert _compare(toy[0], out).exit_code == 0
    first = sorted(p.name for p in out.glob("*.png"))
    result = _compare(toy[0], out, "--algorithms", "logreg", "--metric", "pauc")
    assert result.exit_code == 0, result.output
    if "convergence.png" in first:  # (with matplotlib)
        assert not (out / "convergence.png").exists()
        assert "The best algorithms by pAUC@0.1 are in colour" in (out / "report.html").read_text()


def test_compare_prints_the_description_its_files_hold(tmp_path, toy, monkeypatch):
    """The description (with its timestamp) was made twice, once for the files and once for
    the terminal: a run across a minute printed 04:18 and wrote 04:17."""
    import aucopt.cli._compare as compare_module

    made = []
    monkeypatch.setattr(compare_module, "describe_run",
                        lambda *a, **k: made.append(1) or f"description {len(made)}")
    result = _compare(toy[0], tmp_path / "c")
    assert result.exit_code == 0, result.output
    assert "description 1" in result.output and "description 2" not in result.output
    assert "description 1" in (tmp_path / "c" / "results.md").read_text()


def test_a_csv_whose_first_row_misses_a_value_is_data_not_a_header(tmp_path):
    """"1,,1" (or "NA") on line 1 was taken for a header: the row was dropped in silence."""
    from aucopt.cli._data import read_csv

    for mark, says in (("", "is empty \\(a missing value\\); fill or drop"),
                       ("NA", "is not a number")):
        path = tmp_path / "first.csv"
        path.write_text(f"1,{mark},1\n0.5,0.2,0\n0.1,0.9,1\n0.3,0.3,0\n")
        with pytest.raises(ValueError, match=f"line 1, column 1 {says}"):
            read_csv(path)
    path.write_text(",b,label\n1,2,1\n0,1,0\n")  # (an unnamed first column: still a header)
    assert read_csv(path, with_names=True)[2] == ["", "b"]


def test_evaluate_matches_csv_columns_by_the_names_of_the_fit(tmp_path):
    """A CSV with its columns in another order was scored by position (AUC 0.16 instead of
    0.98, exit 0); columns of other names are refused."""
    X, y = make_auc_problem(200, 3, random_state=0)
    y = (y > 0).astype(int)
    header = "a,b,c,label\n"
    rows = [f"{r[0]},{r[1]},{r[2]},{t}\n" for r, t in zip(X, y)]
    (tmp_path / "train.csv").write_text(header + "".join(rows))
    (tmp_path / "swapped.csv").write_text(
        "c,b,a,label\n" + "".join(f"{r[2]},{r[1]},{r[0]},{t}\n" for r, t in zip(X, y)))
    (tmp_path / "other.csv").write_text("a,b,d,label\n" + "".join(rows))
    model = str(tmp_path / "m")
    assert runner.invoke(app, ["fit", "spam-l2", str(tmp_path / "train.csv"), "--out",
                               model]).exit_code == 0
    same = runner.invoke(app, ["evaluate", model, str(tmp_path / "train.csv")])
    swapped = runner.invoke(app, ["evaluate", model, str(tmp_path / "swapped.csv")])
    assert same.exit_code == swapped.exit_code == 0, swapped.output
    assert same.output.split(":")[-1] == swapped.output.split(":")[-1]
    other = runner.invoke(app, ["evaluate", model, str(tmp_path / "other.csv")])
    assert other.exit_code == 1 and "not the model's by name" in other.output


def test_libsvm_files_xz_and_upper_case_suffixes_and_bad_bytes_are_read_or_named(tmp_path):
    """.xz and .GZ files failed in fit (load_svmlight_file decompresses lower-case .gz and
    .bz2 only); an index beyond 2^31 and a Latin-1 CSV gave errors naming no file."""
    import gzip
    import lzma

    from aucopt.cli._data import read_csv, read_libsvm

    X, y = make_auc_problem(50, 3, random_state=0)
    dump_svmlight_file(X, y, str(tmp_path / "d.svm"), zero_based=False)
    raw = (tmp_path / "d.svm").read_bytes()
    (tmp_path / "d.svm.xz").write_bytes(lzma.compress(raw))
    (tmp_path / "d.svm.GZ").write_bytes(gzip.compress(raw))
    want = read_libsvm(tmp_path / "d.svm")[0].toarray()
    for name in ("d.svm.xz", "d.svm.GZ"):
        np.testing.assert_array_equal(read_libsvm(tmp_path / name)[0].toarray(), want)
    (tmp_path / "huge.svm").write_text("1 3000000000:1.0\n-1 1:2.0\n")
    with pytest.raises(ValueError, match="huge.svm is not a valid LIBSVM file .*2\\^31"):
        read_libsvm(tmp_path / "huge.svm")
    (tmp_path / "latin.csv").write_bytes("a,é,label\n1,2,1\n0,1,0\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin.csv is not UTF-8 text"):
        read_csv(tmp_path / "latin.csv")


def test_stream_reads_a_file_zero_based_when_told(tmp_path):
    """A zero-based file whose first index 0 comes after line 1,000 could not be streamed:
    the base is fixed on the first lines and stream had no --zero-based."""
    lines = ["1 1:0.5 2:0.1\n", "-1 1:0.1 2:0.7\n"] * 600 + ["1 0:0.3 1:0.2\n"]
    (tmp_path / "late.svm").write_text("".join(lines))
    args = ["stream", str(tmp_path / "late.svm"), "--baselines", "", "--no-progress",
            "--out", str(tmp_path / "p")]
    first = runner.invoke(app, args)
    assert first.exit_code == 1 and "--zero-based" in first.output
    told = runner.invoke(app, [*args, "--zero-based"])
    assert told.exit_code == 0, told.output


def test_a_csv_given_to_stream_is_named_as_such(tmp_path):
    """``aucopt stream file.csv`` said only that line 1 is not LIBSVM: neither that stream
    reads LIBSVM files nor what to do with a CSV."""
    path = tmp_path / "table.csv"
    path.write_text("a,b,label\n1,2,1\n0,1,0\n")
    result = runner.invoke(app, ["stream", str(path), "--no-progress"])
    assert result.exit_code != 0
    assert "looks like a CSV file: streams are read from LIBSVM files" in result.output


def test_compare_shows_each_kind_of_warning_of_its_fits_once(tmp_path):
    """The fits' warnings were printed by every fit (svm-pauc's zero-weight warning 26
    times on german.numer in 2 folds, each with other numbers; FitFailedWarning with whole
    tracebacks): each kind is shown once now, as a log line with its count."""
    result = runner.invoke(app, ["compare", "german.numer", "--algorithms", "svm-pauc",
                                 "--folds", "2", "--n-jobs", "1", "--no-progress",
                                 "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    zero = [line for line in result.output.splitlines() if "ended with all weights zero" in line]
    assert len(zero) == 1 and zero[0].startswith("WARNING aucopt: UserWarning: "), zero
    assert re.search(r"\(\d+ fits\)$", zero[0]), zero[0]


def test_a_warning_holding_a_traceback_is_shown_by_its_first_and_error_lines():
    from aucopt.cli._warned import _summary

    text = ("2 fits failed out of a total of 8.\nBelow are more details:\n"
            "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n"
            "aucopt.exceptions.DivergenceError: the iterates diverged at step 3\n")
    assert _summary(text) == ("2 fits failed out of a total of 8. ... "
                              "aucopt.exceptions.DivergenceError: the iterates diverged at step 3")
    assert _summary("one line") == "one line"
