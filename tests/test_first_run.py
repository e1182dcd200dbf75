"""The first hour of a newcomer: --version, the demo, the unscaled warning, CSV files.

Each test is one friction met on a fresh install: it fails on the code before its fix.
Real parts: typer's CliRunner over the real application, real files, a real subprocess.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import aucopt
from aucopt.cli import app
from aucopt.cli._commands import DEMO_ALGORITHMS
from aucopt.cli._compare import BASELINES

runner = CliRunner()


def test_version_option_prints_the_package_version():
    proc = subprocess.run([sys.executable, "-m", "aucopt", "--version"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"aucopt {aucopt.__version__}"


def test_demo_selection_is_one_per_family_with_the_reference_and_a_baseline():
    ids = [a for a in DEMO_ALGORITHMS if a not in BASELINES]
    families = [aucopt.algorithm_info(a)["family"] for a in ids]
    assert len(families) == len(set(families))  # one representative each
    assert "b-ls-svm" in ids and "logreg" in DEMO_ALGORITHMS
    assert len(DEMO_ALGORITHMS) <= 12  # the default stays a quick first run


def test_demo_table_is_sorted_by_auc_with_fit_times_and_a_progress_bar(tmp_path):
    result = runner.invoke(app, ["demo", "--out", str(tmp_path), "--algorithms",
                                 "uni-squ,logreg,b-ls-svm", "--folds", "2", "--n-jobs", "1",
                                 "--progress"])
    assert result.exit_code == 0, result.output
    rows = re.findall(r"^(\S+)\s+(0\.\d{4}) \+- 0\.\d{4}\s+(\d+\.\d{4})", result.stdout, re.M)
    assert [r[0] for r in rows] and sorted(r[0] for r in rows) == ["b-ls-svm", "logreg",
                                                                  "uni-squ"]
    aucs = [float(r[1]) for r in rows]
    assert aucs == sorted(aucs, reverse=True)
    assert all(float(r[2]) > 0 for r in rows)  # the time of each fit
    assert "fit/s" in result.stderr or "fit]" in result.stderr or "s/fit" in result.stderr
    assert f"report: {tmp_path / 'report.html'}" in result.stdout
    html = (tmp_path / "report.html").read_text()
    assert "aucopt demo" in html and 'src="roc.png"' in html and "logreg" in html


def test_demo_without_matplotlib_claims_no_figure(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = runner.invoke(app, ["demo", "--out", str(tmp_path), "--algorithms", "uni-squ",
                                 "--folds", "2", "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    assert ".png" not in result.stdout
    assert not list(tmp_path.glob("*.png"))
    listed = re.search(r"wrote (.*) in ", result.stdout).group(1).split(", ")
    assert all((tmp_path / name).exists() for name in listed)
    assert "matplotlib is not installed" in (tmp_path / "report.html").read_text()


# --------------------------------------------------------------------------- fit: scaling


def test_fit_warns_about_unscaled_features_and_names_the_fix(tmp_path):
    plain = ["fit", "spam-l2", "german.numer", "-p", "beta=1e-3", "-p", "precondition=none"]
    raw = runner.invoke(app, [*plain, "--out", str(tmp_path / "raw")])
    assert raw.exit_code == 0, raw.output
    assert "warning: the features are not scaled" in raw.stderr
    assert "--preprocess minmax" in raw.stderr
    scaled = runner.invoke(app, [*plain, "--preprocess", "minmax", "--out", str(tmp_path / "s")])
    assert scaled.exit_code == 0, scaled.output
    assert "warning" not in scaled.stderr
    # the default precondition='auto' rescales the columns itself: nothing to warn about
    auto = runner.invoke(app, [*plain[:-2], "--out", str(tmp_path / "auto")])
    assert auto.exit_code == 0, auto.output
    assert "warning" not in auto.stderr

    def auc(out):
        return float(re.search(r"training AUC (0\.\d+)", out).group(1))

    assert auc(scaled.stdout) > auc(raw.stdout) + 0.05  # the fix the warning names matters
    assert auc(auto.stdout) > auc(raw.stdout) + 0.05


def test_no_warning_on_scaled_features(tmp_path):
    path = tmp_path / "scaled.csv"
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    np.savetxt(path, np.c_[X, y], delimiter=",", fmt="%.5f")
    result = runner.invoke(app, ["fit", "uni-squ", str(path), "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr


# --------------------------------------------------------------------------- CSV input


def _table(rng, n=240):
    X = rng.normal(size=(n, 3))
    positive = X[:, 0] + 0.5 * rng.normal(size=n) > 0
    return X, positive


@pytest.mark.parametrize("labels, positive_value", [
    (("no", "yes"), "yes"), (("false", "true"), True), (("FALSE", "TRUE"), True),
    (("-1", "1"), 1.0), (("benign", "malignant"), "malignant"),
])
def test_csv_labels_are_mapped_as_the_python_api_maps_them(tmp_path, labels, positive_value):
    from aucopt.cli._data import read_csv

    rng = np.random.default_rng(1)
    X, positive = _table(rng)
    path = tmp_path / "data.csv"
    lines = ["f1,label,f2,f3"] + [f"{a:.4f},{labels[int(p)]},{b:.4f},{c:.4f}"
                                  for (a, b, c), p in zip(X, positive)]
    path.write_text("\n".join(lines) + "\n")
    for column in ("label", "1", "-3"):  # the label is the second column, not the last
        X_read, y_read = read_csv(path, column)
        np.testing.assert_allclose(X_read, X, atol=1e-4)
        est = aucopt.make("uni-squ", random_state=0).fit(X_read, y_read)
        assert est.classes_[1] == positive_value  # the second sorted value is positive
        assert est.score(X_read, y_read) > 0.8
    result = runner.invoke(app, ["fit", "uni-squ", str(path), "--label-column", "label",
                                 "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert float(re.search(r"training AUC (0\.\d+)", result.stdout).group(1)) > 0.8
    evaluated = runner.invoke(app, ["evaluate", str(tmp_path / "m"), str(path),
                                    "--label-column", "1"])
    assert evaluated.exit_code == 0, evaluated.output


def test_compare_reads_a_csv_with_a_string_label_column(tmp_path):
    rng = np.random.default_rng(2)
    X, positive = _table(rng)
    path = tmp_path / "data.csv"
    path.write_text("outcome,a,b,c\n" + "".join(
        f"{'yes' if p else 'no'},{a:.4f},{b:.4f},{c:.4f}\n" for (a, b, c), p in zip(X, positive)))
    result = runner.invoke(app, ["compare", str(path), "--algorithms", "uni-squ,logreg",
                                 "--label-column", "outcome", "--folds", "2", "--grid", "none",
                                 "--n-jobs", "1", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert re.search(r"uni-squ\s+0\.(8|9)\d{3}", result.stdout)
    assert (tmp_path / "out" / "report.html").exists()


def test_label_column_is_documented_in_help_and_user_guide():
    from pathlib import Path

    result = runner.invoke(app, ["fit", "--help"], env={"COLUMNS": "200"})
    assert "--label-column" in result.stdout
    guide = (Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "cli.md").read_text()
    assert "--label-column" in guide and "positive" in guide


@pytest.mark.parametrize("text, message", [
    ("", "is empty"),
    ("a,b,label\n", "header line but no data rows"),
    ("1.0\n2.0\n3.0\n", "has one column"),
    ("a;b;label\n1;2;0\n3;4;1\n", "The first line contains ';'"),
    ("a,b,label\n1,2,0\n3,4\n", "line 3 has 2 fields"),
    ("a,b,label\n1,x,0\n3,4,1\n", "line 2, column 'b' is not a number"),
    ("a,b,label\n1,2,0\n3,4,0\n", "has 1 distinct value"),
    ("a,b,label\n1,2,0.5\n3,4,0.7\n5,6,0.1\n", "has 3 distinct value"),
])
def test_malformed_csv_gives_one_error_line(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    result = runner.invoke(app, ["fit", "uni-squ", str(path), "--out", str(tmp_path / "m")])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


@pytest.mark.parametrize("column, message", [("nope", "has no column 'nope'"),
                                             ("7", "outside the 3 columns")])
def test_unknown_label_column_is_named(tmp_path, column, message):
    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n1,2,0\n3,4,1\n")
    result = runner.invoke(app, ["fit", "uni-squ", str(path), "--label-column", column])
    assert result.exit_code == 1 and message in result.stderr


def test_demo_all_and_algorithms_exclude_each_other(tmp_path):
    result = runner.invoke(app, ["demo", "--all", "--algorithms", "spam-l2",
                                 "--out", str(tmp_path)])
    assert result.exit_code != 0 and "not both" in result.output
    assert not (tmp_path / "results.csv").exists()


def test_two_workers_after_compiling_once_give_the_one_worker_results(tmp_path):
    """``compile_once`` (kernels compiled in the parent, loaded by the workers) changes no
    number: the two-worker run writes the one-worker run's results."""
    import csv

    def run(n_jobs):
        out = tmp_path / f"jobs{n_jobs}"
        result = runner.invoke(app, ["compare", "german.numer", "--algorithms",
                                     "uni-squ,spam-l2,logreg", "--folds", "2", "--grid", "none",
                                     "--n-jobs", str(n_jobs), "--out", str(out)])
        assert result.exit_code == 0, result.output
        with open(out / "results.csv", newline="") as fh:
            return [(r["algorithm"], r["fold"], r["auc"]) for r in csv.DictReader(fh)]

    assert run(2) == run(1)
