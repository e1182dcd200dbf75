"""Run directories of the experiment runner: what a rerun may resume, files that stay whole,
and the git stamp of the manifest."""

import contextlib
import csv
import io
import json
import shutil
import signal

import pytest
from typer.testing import CliRunner

import aucopt.experiments._manifest as manifest_module
import aucopt.experiments._runner as runner_module
from aucopt.cli import app
from aucopt.experiments import build_report, run_experiment, write_report

from .test_experiments import GOOD, _write

cli = CliRunner()
T42 = dict(datasets=["german"], algorithms=["spam-l2"], folds=2, download=False,
           progress=False)
QUIET = dict(download=False, progress=False)
HEAD = "1234567890abcdef1234567890abcdef12345678"


@pytest.fixture
def fake_cells(monkeypatch):
    """Cells that finish at once with AUC 0.6 + 0.2 * repeat (no fitting)."""
    monkeypatch.setattr(runner_module, "run_cell", lambda task: {
        **task["row"], "status": "ok", "auc": 0.6 + 0.2 * task["row"]["repeat"],
        "fit_seconds": 0.0})


def _files(out):
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def _report_rows(out):
    return list(csv.DictReader(io.StringIO(build_report(out, "csv"))))


# --------------------------------------------------------------------------- repeats


def test_fewer_repeats_than_the_directory_holds_are_refused(tmp_path, fake_cells):
    out = tmp_path / "run"
    run_experiment("natole2020-t4.2", out, repeats=2, **T42)
    before = _files(out)
    with pytest.raises(ValueError, match="already holds 2 repeats of this run, more than the 1 "
                       "asked for: ask for --repeats 2 or more to resume it, or use a new --out"):
        run_experiment("natole2020-t4.2", out, repeats=1, **T42)
    assert _files(out) == before  # nothing was rewritten
    again = run_experiment("natole2020-t4.2", out, repeats=2, **T42)
    assert (again["run"], again["skipped"]) == (0, 4)
    more = run_experiment("natole2020-t4.2", out, repeats=3, **T42)  # more repeats extend it
    assert (more["run"], more["skipped"]) == (2, 4)


def test_the_report_averages_only_the_runs_of_the_protocol_it_states(tmp_path, fake_cells):
    out = tmp_path / "run"
    run_experiment("natole2020-t4.2", out, repeats=2, **T42)  # repeat 0: .6, repeat 1: .8
    # a directory whose rows go beyond the protocol its manifest states
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["protocol"]["repeats"] = 1
    path.write_text(json.dumps(manifest))
    (spam,) = [r for r in _report_rows(out) if r["algorithm"] == "spam-l2"]
    assert int(spam["runs"]) == 2 and float(spam["auc_mean"]) == pytest.approx(0.6)
    assert "1 repeat(s) x 2 folds = 2 runs per cell" in build_report(out)


def test_the_report_names_cells_with_fewer_runs_than_its_protocol(tmp_path, fake_cells):
    out = tmp_path / "run"
    run_experiment("natole2020-t4.2", out, repeats=1, **T42)
    run_experiment("natole2020-t4.2", out, repeats=2, **{**T42, "algorithms": ["spam-net"]})
    report = (out / "report.md").read_text()
    assert "2 repeat(s) x 2 folds = 4 runs per cell" in report
    assert "- german.numer / spam-l2: 2 of the protocol's 4 runs" in report
    assert "spam-net: 2 of" not in report
    (row,) = [r for r in _report_rows(out) if r["algorithm"] == "spam-l2"]
    assert row["runs"] == "2" and "2 of the protocol's 4 runs" in row["message"]


# --------------------------------------------------------------------------- the config


def test_a_rerun_with_an_edited_config_is_refused(tmp_path, fake_cells):
    path = _write(tmp_path, GOOD)
    out = tmp_path / "run"
    assert run_experiment(path, out, **QUIET)["run"] == 1
    before = _files(out)
    path.write_text(GOOD.replace('"10^[-4:-3]"', '"10^[1:2]"'))
    with pytest.raises(ValueError, match=r"earlier version of the config .*tiny\.toml .*use a "
                       "new --out directory, or delete .* to start over"):
        run_experiment(path, out, **QUIET)
    result = cli.invoke(app, ["experiment", "run", str(path), "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert _files(out) == before  # the old cells and manifest are untouched
    path.write_text(GOOD)  # the config as it was resumes the run
    assert run_experiment(path, out, **QUIET)["skipped"] == 1


# --------------------------------------------------------------------------- whole files


@contextlib.contextmanager
def _file_size_limit(nbytes):
    """Writes past ``nbytes`` fail with EFBIG, as on a full disk (``ulimit -f``)."""
    resource = pytest.importorskip("resource")
    if signal.getsignal(signal.SIGXFSZ) != signal.SIG_IGN:
        pytest.skip("SIGXFSZ is not ignored: a write past the limit would kill the process")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_a_failed_write_leaves_manifest_and_report_whole(tmp_path, fake_cells):
    path = _write(tmp_path, GOOD)
    out = tmp_path / "run"
    run_experiment(path, out, **QUIET)
    before = _files(out)
    manifest_size = len(before["manifest.json"])
    assert len(before["cells.jsonl"]) < manifest_size // 2
    with _file_size_limit(manifest_size // 2), pytest.raises(OSError):
        run_experiment(path, out, **QUIET)
    with _file_size_limit(len(before["report.md"]) // 2), pytest.raises(OSError):
        write_report(out)
    assert _files(out) == before  # whole, and no temporary files left behind
    assert run_experiment(path, out, **QUIET)["skipped"] == 1


def test_a_damaged_manifest_names_the_file_and_the_fix(tmp_path, fake_cells):
    path = _write(tmp_path, GOOD)
    out = tmp_path / "run"
    run_experiment(path, out, **QUIET)
    text = (out / "manifest.json").read_text()
    (out / "manifest.json").write_text(text[: len(text) // 2])
    message = r"run/manifest\.json is not a readable run manifest .*use a new --out directory, " \
              r"or delete .*run to start over"
    with pytest.raises(ValueError, match=message):
        run_experiment(path, out, **QUIET)
    with pytest.raises(ValueError, match=message):
        build_report(out)
    result = cli.invoke(app, ["experiment", "report", str(out)])
    assert result.exit_code == 1 and "manifest.json is not a readable run manifest" in \
        result.output and "JSONDecodeError" not in result.output


@pytest.mark.parametrize("field", ["config_toml", "protocol", "protocol.repeats"])
def test_a_manifest_without_a_field_every_run_writes_is_named_as_damaged(tmp_path, fake_cells,
                                                                         field):
    """The report printed a bare KeyError ("error: 'config_toml'")."""
    out = tmp_path / "run"
    run_experiment(_write(tmp_path, GOOD), out, **QUIET)
    manifest = json.loads((out / "manifest.json").read_text())
    if "." in field:
        del manifest["protocol"][field.split(".")[1]]
    else:
        del manifest[field]
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = cli.invoke(app, ["experiment", "report", str(out)])
    assert result.exit_code == 1, result.output
    assert f"lacks the field(s) {field} that every run writes" in result.output, result.output


def test_the_report_of_a_run_that_did_not_finish_says_how_to_finish_it(tmp_path, fake_cells):
    out = tmp_path / "run"
    run_experiment("natole2020-t4.2", out, **T42)
    (out / "results.csv").unlink()  # as a run killed before its end leaves it
    result = cli.invoke(app, ["experiment", "report", str(out)])
    assert result.exit_code == 1, result.output
    assert "has no results.csv: its run did not finish" in result.output
    assert "No such file" not in result.output
    again = run_experiment("natole2020-t4.2", out, **T42)  # what the message says to do
    assert again["run"] == 0 and again["skipped"] > 0 and (out / "results.csv").exists()


# --------------------------------------------------------------------------- git stamp


def _fake_repository(root):
    (root / ".git" / "refs" / "heads").mkdir(parents=True)
    (root / ".git" / "objects").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "refs" / "heads" / "main").write_text(HEAD + "\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("package_parent, stamp", [
    ("checkout", HEAD),  # a source checkout: the repository is aucopt's
    ("checkout/.venv/lib/python3/site-packages", None),  # installed in some project's .venv
])
def test_git_stamp_only_for_aucopts_own_checkout(tmp_path, monkeypatch, package_parent, stamp):
    _fake_repository(tmp_path / "checkout")
    package = tmp_path / package_parent / "aucopt" / "experiments"
    package.mkdir(parents=True)
    for name in ("GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(manifest_module, "__file__", str(package / "_manifest.py"))
    assert manifest_module._git_hash() == stamp


def test_the_figures_help_shows_the_table_name():
    """Rich took ``[[figures]]`` for markup and showed "every config with [])"."""
    result = cli.invoke(app, ["experiment", "figures", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "with a [[figures]] table" in result.output, result.output


@pytest.mark.parametrize("command", [["run", "tiny.toml"], ["figures", "liu2018-t2", "--smoke"]])
def test_an_out_that_is_a_file_is_a_usage_error(tmp_path, command):
    """It failed with the operating system's "[Errno 17] File exists"."""
    (tmp_path / "afile").write_text("")
    result = cli.invoke(app, ["experiment", *command, "--out", str(tmp_path / "afile")],
                        env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "is a file" in result.output, result.output
