"""The command line, run for real (typer's CliRunner and a subprocess)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aucopt.cli import app
from aucopt.cli._tables import algorithms_markdown

from ._child_env import child_env

runner = CliRunner()
README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_algorithm_table_is_generated_from_the_registry():
    text = README.read_text()
    table = re.search(r"<!-- algorithms:start -->\n(.*?)\n<!-- algorithms:end -->", text, re.S)
    assert table and table.group(1) == algorithms_markdown(), (
        "README table is stale: paste the output of `aucopt algorithms --markdown`"
    )
    assert "make test" in text and "make run" in text


def test_algorithms_command():
    result = runner.invoke(app, ["algorithms"])
    assert result.exit_code == 0 and "spam-l2" in result.output


def test_demo_subset_writes_every_output(tmp_path):
    result = runner.invoke(app, ["demo", "--out", str(tmp_path), "--algorithms", "spam-l2",
                                 "--folds", "3", "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    assert re.search(r"spam-l2\s+0\.\d{4} \+- 0\.\d{4}", result.output)
    for name in ("results.csv", "results.md", "roc.png", "convergence.png", "report.html"):
        assert (tmp_path / name).stat().st_size > 0, name
    header, *rows = (tmp_path / "results.csv").read_text().splitlines()
    assert header.startswith("dataset,algorithm,repeat,fold,auc,fit_seconds,param_")
    assert len(rows) == 3


def test_fit_then_evaluate(tmp_path):
    model = tmp_path / "m"
    result = runner.invoke(app, ["fit", "spam-net", "german.numer", "-p", "beta1=0.001",
                                 "-p", "stats=online", "--out", str(model)])
    assert result.exit_code == 0, result.output
    saved = json.loads((tmp_path / "m.json").read_text())
    assert saved["params"]["beta1"] == 0.001 and saved["params"]["stats"] == "online"
    result = runner.invoke(app, ["evaluate", str(model), "german.numer", "--plot",
                                 str(tmp_path / "roc.png")])
    assert result.exit_code == 0, result.output
    assert re.search(r"AUC on german.numer: 0\.\d{4}", result.output)
    assert (tmp_path / "roc.png").stat().st_size > 0


def test_compare_on_a_libsvm_file(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(200, 5, random_state=0)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path))
    result = runner.invoke(app, ["compare", str(path), "--algorithms", "spam-l2,spam-net",
                                 "--folds", "3", "--n-jobs", "1", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "spam-net" in (tmp_path / "o" / "results.md").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["fit", "spam-l3", "german.numer"], "Unknown algorithm id 'spam-l3'"),
        (["fit", "spam-l2", "no-such-data"], "no-such-data"),
        (["fit", "spam-l2", "german.numer", "-p", "beta=-1"], "The 'beta' parameter"),
        (["demo", "--algorithms", "nope", "--folds", "2"], "Unknown algorithm id"),
    ],
)
def test_errors_exit_1_with_a_message(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert message in result.output


def test_usage_error_exits_2():
    assert runner.invoke(app, ["fit"]).exit_code == 2


def test_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "aucopt", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "demo" in done.stdout


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "aucopt", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=child_env())


def test_verbose_logs_aucopt_progress_and_silences_matplotlib(tmp_path):
    done = _cli("-v", "fit", "spam-l2", "german.numer", "--out", "m", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "INFO aucopt" in done.stderr and "pass 1/10 done" in done.stderr
    quiet = _cli("fit", "spam-l2", "german.numer", "--out", "m", cwd=tmp_path)
    assert "INFO" not in quiet.stderr
    done = _cli("-vv", "evaluate", "m", "german.numer", "--plot", "roc.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "matplotlib" not in done.stderr and (tmp_path / "roc.png").exists()


def test_fit_seed_sets_random_state_unless_given(tmp_path):
    result = runner.invoke(app, ["fit", "spam-l2", "german.numer", "--seed", "7", "--out",
                                 str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "a.json").read_text())["params"]["random_state"] == 7
    result = runner.invoke(app, ["fit", "spam-l2", "german.numer", "--seed", "7", "-p",
                                 "random_state=3", "--out", str(tmp_path / "b")])
    assert json.loads((tmp_path / "b.json").read_text())["params"]["random_state"] == 3


def test_compare_report_says_what_was_run(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    from aucopt.datasets import make_auc_problem

    X, y = make_auc_problem(200, 5, random_state=0)
    dump_svmlight_file(X, y, str(tmp_path / "toy.svm"))
    result = runner.invoke(app, ["compare", str(tmp_path / "toy.svm"), "--algorithms",
                                 "spam-l2", "--folds", "3", "--seed", "4", "--grid", "none",
                                 "--n-jobs", "1", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "o" / "results.md").read_text()
    for fact in ("200 samples x 5 features", "60 positives", "1 x 3-fold stratified CV (seed 4)",
                 "'minmax'", "default hyperparameters, no tuning", "warm-up", "aucopt "):
        assert fact in text and fact in result.output, fact


@pytest.mark.parametrize("missing", ["no/such/dir/data.svm", "absent.csv"])
def test_a_missing_file_is_named(missing):
    result = runner.invoke(app, ["fit", "spam-l2", missing])
    assert result.exit_code == 1
    assert f"no such file: {missing}" in result.output


def test_algorithms_command_describes_one_algorithm_from_its_declarations():
    import aucopt

    result = runner.invoke(app, ["algorithms", "spam-net"])
    assert result.exit_code == 0, result.output
    for p in aucopt.algorithms.get_algorithm("spam-net").params:
        assert re.search(rf"^{p.name} = ", result.output, flags=re.M), p.name
    assert "quick grid: 1e-05, 0.0001, 0.001, 0.01" in result.output


def test_fit_names_the_declared_hyperparameters_for_a_typo(tmp_path):
    result = runner.invoke(app, ["fit", "spam-l2", "german.numer", "-p", "beat=1",
                                 "--out", str(tmp_path / "m")])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "no hyperparameter 'beat'" in text and "beta, eta0" in text
