"""Experiment configs, the runner (resume, availability) and the report, also via the CLI."""

import csv
import json
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import aucopt
import aucopt.experiments._runner as runner_module
from aucopt.cli import app
from aucopt.datasets import CONFIG_IDS, dataset_info
from aucopt.experiments import (
    ConfigError,
    build_report,
    list_configs,
    load_config,
    parse_published,
    parse_values,
    run_experiment,
)
from aucopt.experiments._runner import smoke_grid, thin_grid

cli = CliRunner()

# ARCHITECTURE.md section 3, "Registry ids (fixed)"
FIXED_IDS = {
    "opauc", "opauc-r", "opauc-f", "opauc-rp", "opauc-pca", "oam-seq", "oam-gra", "adaoam",
    "uni-exp", "uni-squ", "uni-log-batch", "uni-squ-batch", "solam", "solam-l1", "reg-solam",
    "fsauc", "spam-l2", "spam-net", "vrspam-l2", "vrspam-net", "spdam", "mba", "b-ls-svm",
    "b-svm-or", "svm-perf", "aogd", "ogd-fifo", "kar", "projection-pp", "sparse-kernel",
}
# published cells with a number per table (datasets x columns minus "-" / "N/A")
PUBLISHED_CELLS = {
    "gao2013-t2": 80, "gao2013-t3": 96, "gao2013-t5": 45, "liu2018-t2": 32, "dan-t1": 54,
    "alquabeh2024-t2": 42, "natole2020-t3.2": 68, "natole2020-t4.2": 82, "natole2020-t5.2": 75,
    "natole2020-t6.3": 48, "natole2020-t6.4": 24,
}


# --------------------------------------------------------------------------- configs

def test_one_config_per_fixed_id():
    assert list_configs() == sorted(CONFIG_IDS) == sorted(PUBLISHED_CELLS)


@pytest.mark.parametrize("cid", sorted(PUBLISHED_CELLS))
def test_every_config_parses_and_lists_its_published_cells(cid):
    cfg = load_config(cid)
    assert cfg.id == cid and cfg.title and cfg.source
    cells = cfg.published_cells()
    assert len(cells) == PUBLISHED_CELLS[cid]
    keys = {a.key for a in cfg.algorithms}
    names = {d.name for d in cfg.datasets}
    for dataset, key, value in cells:
        assert dataset in names and key in keys
        assert 0.4 < value.mean <= 1 and 0 <= value.error < 0.2, (dataset, key, value)
    for a in cfg.algorithms:
        assert {a.id, *a.id_by_dataset.values()} <= FIXED_IDS
        assert all(values for values in a.grid.values())
    for d in cfg.datasets:  # the dataset registry agrees about which tables use it
        assert cid in dataset_info(d.name).papers
    assert cfg.reference in keys


def test_published_values_are_verbatim_and_parsed():
    t2 = load_config("gao2013-t2")
    v = t2.published["diabetes"]["opauc"]
    assert (v.raw, v.mean, v.error) == (".8309±.0350", 0.8309, 0.035)
    oam = t2.published["german.numer"]["oam-seq"]
    assert oam.raw == ".7747±.0411 ●" and oam.mark == "●"
    assert t2.published_wtl["uni-exp"] == "10/6/0"
    dan = load_config("dan-t1").published
    assert dan["german.numer"]["vrspam-l2"].error == pytest.approx(0.0386)
    assert dan["german.numer"]["vrspam-l2"].repaired
    assert dan["acoustic"]["reg-solam"].mean == pytest.approx(0.8099)
    aogd = load_config("alquabeh2024-t2")
    assert aogd.error == "stderr"
    assert (aogd.published["diabetes"]["aogd"].mean, aogd.published["diabetes"]["aogd"].error) \
        == pytest.approx((0.8191, 0.0048))
    t5 = load_config("gao2013-t5").published
    assert t5["ecml2012"]["oam-seq"] is None and t5["sector.lvr"]["opauc-r"].mean == 0.9962
    liu = load_config("liu2018-t2")
    assert liu.algorithm("opauc").id_for("rcv1") == "opauc-r"
    assert liu.dataset("a9a").test_set == "a9a.t"
    t3 = load_config("gao2013-t3")
    assert t3.algorithm("svm-perf").max_train_for("epsilon") == 2000
    assert t3.algorithm("svm-perf").max_train_for("a9a") == 8000


@pytest.mark.parametrize("text, expected", [
    (".8309±.0350", (0.8309, 0.035, "", False)),
    (".9245±.0092 ○", (0.9245, 0.0092, "○", False)),
    (".9931 ±.0001", (0.9931, 0.0001, "", False)),
    (".8379±0.0078", (0.8379, 0.0078, "", False)),
    (".7902±0386", (0.7902, 0.0386, "", True)),
    ("8099±.0036", (0.8099, 0.0036, "", True)),
    # an AUC of 1 and an error of 0 as written (the repair made the first 0.1)
    ("1±.0300", (1.0, 0.03, "", False)),
    ("1.0±0", (1.0, 0.0, "", False)),
])
def test_parse_published(text, expected):
    v = parse_published(text)
    assert (v.mean, v.error, v.mark, v.repaired) == pytest.approx(expected)


def test_parse_published_scale_missing_and_errors():
    assert parse_published("81.91±0.48", scale=100).mean == pytest.approx(0.8191)
    assert parse_published("N/A") is None and parse_published("-") is None
    with pytest.raises(ConfigError, match="expected 'mean±std'"):
        parse_published(".83")
    with pytest.raises(ConfigError, match="not a number"):
        parse_published(".8±abc")
    with pytest.raises(ConfigError, match="check the config's 'scale'"):
        parse_published("81.91±0.48")


def test_parse_values_range_notation():
    assert parse_values("2^[-2:1]") == [0.25, 0.5, 1.0, 2.0]
    assert parse_values("10^[-1:1:2]") == pytest.approx([0.1, 1.0, 10.0, 100.0])
    assert parse_values("[1:9:100]") == [1, 10, 19, 28, 37, 46, 55, 64, 73, 82, 91, 100]
    assert parse_values([1, 2]) == [1, 2] and parse_values(0.5) == [0.5]
    assert len(parse_values("2^[-12:10]")) == 23
    with pytest.raises(ConfigError, match="bad range"):
        parse_values("[5:1]")


GOOD = """
id = "tiny"
title = "A tiny table"
source = "nobody"
reference = "spam-l2"
[protocol]
kind = "holdout"
repeats = 1
inner_folds = 2
[[datasets]]
name = "german.numer"
label = "german"
[[algorithms]]
id = "spam-l2"
grid = { beta = "10^[-4:-3]" }
[published]
columns = ["spam-l2"]
rows = [["german", ".7942±.0388"]]
"""


def _write(tmp_path, text, name="tiny.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("change, match", [
    (lambda t: t.replace('id = "tiny"\n', ""), "missing required field 'id'"),
    (lambda t: t + "colour = 1\n", r"unknown field\(s\) \['colour'\]"),
    (lambda t: t.replace('name = "german.numer"', 'name = "germen"'),
     "Unknown dataset 'germen'.*Did you mean"),
    (lambda t: t.replace('kind = "holdout"', 'kind = "bootstrap"'),
     "kind must be one of"),
    (lambda t: t.replace('columns = ["spam-l2"]', 'columns = ["opauc"]'),
     r"published.columns \['opauc'\] are not algorithm keys"),
    (lambda t: t.replace('["german", ".7942±.0388"]', '["german"]'),
     r"published.rows\[0\] must be \[dataset name, 1 values\]"),
    # found by a tester: each accepted, then compared or run wrongly with exit code 0
    (lambda t: t.replace('["german", ".7942±.0388"]',
                         '["german", ".5±.1"], ["german.numer", ".6±.1"]'),
     r"published.rows\[1\]: dataset 'german.numer' has a row already"),
    (lambda t: t.replace('columns = ["spam-l2"]', 'columns = ["spam-l2", "spam-l2"]').replace(
        '".7942±.0388"]', '".7942±.0388", ".5±.1"]'),
     "published.columns lists a key twice"),
    (lambda t: t.replace('["german", ".7942±.0388"]', '[5, ".7942±.0388"]'),
     r"published.rows\[0\] must be \[dataset name"),
    (lambda t: t.replace('id = "spam-l2"',
                         'id = "spam-l2"\nid_by_dataset = { diabetis = "opauc" }'),
     r"algorithms\[0\]\.id_by_dataset: Unknown dataset 'diabetis'"),
    (lambda t: t.replace('id = "spam-l2"', 'id = "spam-l2"\nmax_train = 0'),
     r"max_train must be a positive number of rows, got \{'max_train': 0\}"),
    (lambda t: t.replace('label = "german"', 'label = "german"\ntest_set = "german.tt"'),
     r"datasets\[0\]\.test_set: Unknown dataset 'german.tt'"),
    (lambda t: t.replace('id = "spam-l2"', 'id = "spam-l3"').replace('reference = "spam-l2"\n', '')
     .replace('columns = ["spam-l2"]', 'columns = ["spam-l3"]'),
     r"'spam-l3' is not a registered algorithm; did you mean 'spam-l2'"),
    (lambda t: t.replace('grid = { beta = "10^[-4:-3]" }',
                         'grid = { beta = "10^[-4:-3]" }\nparams = { beta = 0.5 }'),
     r"params and algorithms\[0\]\.grid both set \['beta'\]"),
    (lambda t: t.replace('".7942±.0388"', '"about .79"'), r"published.rows\[0\] \(german\)"),
    (lambda t: t.replace('reference = "spam-l2"', 'reference = "spam"'),
     "reference 'spam' is not an algorithm key"),
    (lambda t: t.replace('[protocol]', '[protocol\n'), "not valid TOML"),
    (lambda t: t.replace('label = "german"', 'label = "german"\npreprocessing = "zscore"'),
     "preprocessing must be one of"),
    (lambda t: t + '[[datasets]]\nname = "german.numer"\n', "datasets are listed twice"),
    (lambda t: t.replace('kind = "holdout"', 'kind = "given-test"'),
     "test_set is required by protocol 'given-test'"),
    (lambda t: t.replace('grid = { beta = "10^[-4:-3]" }', 'grid = { beta = [] }'),
     "grid.beta is empty"),
    # out of range: refused at load, not by the runner (which left an empty cells file)
    (lambda t: t.replace('kind = "holdout"', 'kind = "holdout"\ntest_size = 1.5'),
     r"test_size must lie in \(0, 1\), got 1.5"),
    (lambda t: t.replace('kind = "holdout"', 'kind = "train-val-test"\nratios = [4, -1, 1]'),
     r"ratios must be three positive numbers \(train:validation:test\), got \[4, -1, 1\]"),
    (lambda t: t.replace('kind = "holdout"', 'kind = "holdout"\nmax_fpr = 0'),
     r"max_fpr must lie in \(0, 1\], got 0"),
    # a field of another TOML type is refused at load, not later by the runner or the report
    (lambda t: t.replace('grid = { beta = "10^[-4:-3]" }', 'grid = 5'),
     r"field algorithms\[0\]\.'grid' must be a table, got 5"),
    (lambda t: t.replace('grid = { beta = "10^[-4:-3]" }', 'params = 5'),
     r"field algorithms\[0\]\.'params' must be a table, got 5"),
    (lambda t: t.replace('grid = { beta = "10^[-4:-3]" }', 'key = 5'),
     r"field algorithms\[0\]\.'key' must be a string, got 5"),
    (lambda t: t.replace('id = "spam-l2"', 'id = "spam-l2"\nlabel = ["SPAM"]'),
     r"field algorithms\[0\]\.'label' must be a string"),
    (lambda t: t.replace('id = "spam-l2"', 'id = "spam-l2"\nid_by_dataset = { a9a = 1 }'),
     r"every value of field algorithms\[0\]\.'id_by_dataset' must be a string, got 1"),
    (lambda t: t.replace('repeats = 1', 'repeats = "one"'),
     r"field protocol\.'repeats' must be an integer, got 'one'"),
    (lambda t: t.replace('source = "nobody"', 'source = "nobody"\nnotes = "n"'),
     r"field 'notes' must be an array, got 'n'"),
    (lambda t: t + '[[figures]]\nkind = "convergence"\nparams = 5\n',
     r"field figures\[0\]\.'params' must be a table, got 5"),
])
def test_config_validation_errors_are_clear(tmp_path, change, match):
    assert load_config(_write(tmp_path, GOOD)).id == "tiny"
    path = _write(tmp_path, change(GOOD), "bad.toml")
    with pytest.raises(ConfigError, match=match) as info:
        load_config(path)
    assert str(path) in str(info.value)  # the message names the file


def test_unknown_config_id_suggests_close_ones():
    with pytest.raises(ConfigError, match="Did you mean 'gao2013-t2'"):
        load_config("gao2013-t22")


def test_smoke_grid_stays_near_the_defaults():
    grid = {"eta": parse_values("2^[-12:10]"), "lam": parse_values("2^[-10:2]")}
    small = smoke_grid(grid, {"eta": "auto", "lam": 1e-4})
    assert small == {"eta": ["auto"], "lam": [2.0 ** -10, 2.0 ** -9]}
    assert smoke_grid({"C": [1, 2, 3]}, {}) == {"C": [2]}


def test_thin_grid_keeps_both_ends_evenly_spaced():
    grid = {"eta": parse_values("2^[-12:10]"), "lam": parse_values("2^[-10:2]"), "C": [1, 2]}
    small = thin_grid(grid, 5)
    assert small["eta"] == [2.0 ** e for e in (-12, -6, -1, 4, 10)]
    assert small["lam"] == [2.0 ** e for e in (-10, -7, -4, -1, 2)]
    assert small["C"] == [1, 2]
    assert thin_grid(grid, None) is grid
    assert thin_grid({"a": [1, 2, 3]}, 1) == {"a": [2]}
    with pytest.raises(ValueError, match="max_grid_points"):
        thin_grid(grid, 0)


# --------------------------------------------------------------------------- runner


def test_reduced_protocol_grid_and_inner_folds_are_used_and_recorded(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(runner_module, "run_cell", lambda task: seen.append(task) or {
        **task["row"], "status": "ok", "auc": 0.5, "fit_seconds": 0.0})
    out = tmp_path / "run"
    opts = dict(datasets=["german"], algorithms=["spam-l2"], repeats=1, folds=2,
                download=False, progress=False)
    summary = run_experiment("natole2020-t4.2", out, inner_folds=3, max_grid_points=2, **opts)
    assert summary["run"] == 2 and len(seen) == 2  # not smoke: the real (bundled) german
    assert all(t["grid"] == {"beta": [1e-5, 1e5]} and t["inner_folds"] == 3 for t in seen)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["mode"] == "full" and manifest["reduced_grid"] is True
    assert manifest["grids_used"] == {"spam-l2": {"beta": [1e-5, 1e5]}}
    assert manifest["protocol"]["inner_folds"] == 3
    assert manifest["fingerprint"]["max_grid_points"] == 2
    assert manifest["options"]["max_grid_points"] == 2
    with pytest.raises(ValueError, match="different run"):  # never mixed with another grid
        run_experiment("natole2020-t4.2", out, inner_folds=3, max_grid_points=3, **opts)
    # a second invocation into the same directory adds to the manifest (and the report)
    more = run_experiment("natole2020-t4.2", out, inner_folds=3, max_grid_points=2,
                          **{**opts, "algorithms": ["spam-net"]})
    assert more["run"] == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert list(manifest["algorithms"]) == ["spam-l2", "spam-net"]
    assert "spam-l2" not in manifest["not_selected"]["algorithms"]
    assert "SPAM-NET" in build_report(out) and "SPAM-L2" in build_report(out)
    # each invocation records its commit and cells; a report names them when they differ
    assert [i["cells"] for i in manifest["invocations"]] == [2, 2]
    assert len({i["git"] for i in manifest["invocations"]}) == 1
    assert "Resumed run" not in build_report(out)
    manifest["invocations"][0]["git"] = "0123abc"
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert re.search(r"Resumed run: .*0123abc \(2 cells", build_report(out))
    full = run_experiment("natole2020-t4.2", tmp_path / "full", **opts)
    assert full["run"] == 2 and len(seen[-1]["grid"]["beta"]) == 11
    assert seen[-1]["inner_folds"] == 5


def _rows(path):
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_runner_resumes_and_skips_finished_cells(tmp_path, monkeypatch):
    calls = []
    real = runner_module.run_cell

    def counting(task):
        calls.append(task["row"]["dataset"])
        return real(task)

    monkeypatch.setattr(runner_module, "run_cell", counting)
    out = tmp_path / "run"
    opts = dict(smoke=True, algorithms=["spam-l2"], n_jobs=1, progress=False)
    first = run_experiment("natole2020-t4.2", out, **opts)  # kfold: 2 datasets x 2 folds
    assert len(calls) == first["run"] == first["ok"] == 4 and first["skipped"] == 0
    ok = [r for r in _rows(out / "results.csv") if r["status"] == "ok"]
    assert len(ok) == 4
    second = run_experiment("natole2020-t4.2", out, **opts)
    assert len(calls) == 4 and second["skipped"] == 4 and second["run"] == 0
    assert _rows(out / "results.csv") == _rows(out / "results.csv")
    assert [r for r in _rows(out / "results.csv") if r["status"] == "ok"] == ok
    # a larger --repeats adds only the new repeat; an interrupted line is ignored
    with (out / "cells.jsonl").open("a") as fh:
        fh.write('{"dataset": "german.nu')
    third = run_experiment("natole2020-t4.2", out, repeats=2, **opts)
    assert third["skipped"] == 4 and third["run"] == 4 and len(calls) == 8
    # a different protocol may not write into the same directory
    for change in ({"folds": 3}, {"seed": 1}):
        with pytest.raises(ValueError, match="different run"):
            run_experiment("natole2020-t4.2", out, **change, **opts)


def test_failed_cells_are_recorded_and_retried(tmp_path, monkeypatch):
    real = runner_module.run_cell
    monkeypatch.setattr(runner_module, "run_cell", lambda task: {
        **task["row"], "status": "error", "message": "RuntimeError: boom"})
    out = tmp_path / "run"
    opts = dict(smoke=True, algorithms=["spam-l2"], datasets=["german"], progress=False)
    first = run_experiment("dan-t1", out, **opts)
    assert first["errors"] == 1
    assert "boom" in (out / "report.md").read_text()
    monkeypatch.setattr(runner_module, "run_cell", real)
    second = run_experiment("dan-t1", out, **opts)
    assert (second["run"], second["ok"], second["errors"]) == (1, 1, 0)


def test_unregistered_algorithms_and_missing_data_are_reported(tmp_path, monkeypatch):
    text = GOOD.replace('[published]', '[[algorithms]]\nid = "fsauc-from-the-future"\n'
                                       'label = "Future"\n[published]')
    text = text.replace('label = "german"\n', 'label = "german"\n[[datasets]]\nname = "w8a"\n')
    path = _write(tmp_path, text)
    monkeypatch.delenv("AUCOPT_DATA_MIRROR", raising=False)
    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "cache"))
    out = tmp_path / "run"
    summary = run_experiment(path, out, download=False, progress=False)
    assert summary["not_available"] == ["fsauc-from-the-future"]
    assert summary["unavailable"] == ["w8a"]
    rows = _rows(out / "results.csv")
    status = {(r["dataset"], r["algorithm"]): r["status"] for r in rows}
    assert status["w8a", "spam-l2"] == status["w8a", "fsauc-from-the-future"] == \
        "dataset-unavailable"
    assert status["german.numer", "fsauc-from-the-future"] == "algorithm-not-available"
    assert status["german.numer", "spam-l2"] == "ok"
    report = (out / "report.md").read_text()
    assert "dataset w8a could not be had" in report and "| n/a |" in report
    assert "fsauc-from-the-future" in report and "no data" in report


def test_a_grid_parameter_the_estimator_lacks_is_a_clear_error_at_load(tmp_path):
    """The config is checked against the declared hyperparameters before anything runs."""
    path = _write(tmp_path, GOOD.replace("grid = { beta", "grid = { gamma"))
    with pytest.raises(ConfigError, match="spam-l2 has no hyperparameter 'gamma'; its "
                       "hyperparameters are beta, eta0"):
        run_experiment(path, tmp_path / "run", smoke=True, progress=False)
    assert not (tmp_path / "run" / "results.csv").exists()


# --------------------------------------------------------------------------- CLI

REQUIRED = ["dataset", "algorithm", "repeat", "fold", "auc", "fit_seconds"]


def test_cli_smoke_run_report_and_list(tmp_path):
    out = tmp_path / "dan"
    result = cli.invoke(app, ["experiment", "run", "dan-t1", "--smoke", "--out", str(out),
                              "--algorithms", "spam-l2,spam-net", "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "smoke substitution: diabetes: SYNTHETIC stand-in" in result.output
    assert "not run (smoke mode runs at most two datasets): splice, usps" in result.output
    # the algorithms left out by --algorithms, not by smoke mode (both were blamed on it)
    assert "not run (--algorithms): vrspam-l2" in result.output
    assert "two datasets): splice, usps, a9a, w8a, mnist, acoustic, ijcnn1\n" in result.output
    assert "algorithms not run in this run (--algorithms): vrspam-l2" in \
        (out / "report.md").read_text()
    rows = _rows(out / "results.csv")
    assert list(rows[0])[:6] == REQUIRED
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 4 and all(0 <= float(r["auc"]) <= 1 for r in ok)
    assert {r["param_beta"] for r in ok if r["algorithm"] == "spam-l2"} <= {"0.0001", "0.001"}
    assert all(r["param_beta1"] for r in ok if r["algorithm"] == "spam-net")
    manifest = json.loads((out / "manifest.json").read_text())
    for key in ("versions", "git", "machine", "blas", "seeds", "protocol", "datasets",
                "substitutions", "config_sha256"):
        assert key in manifest, key
    assert manifest["mode"] == "smoke" and manifest["datasets"]["diabetes"]["substituted"]
    report = (out / "report.md").read_text()
    assert "SMOKE RUN" in report and ".8272±.0277" in report and "SYNTHETIC" in report
    assert "| GERMAN | SPAM-L2 |" in report

    result = cli.invoke(app, ["experiment", "report", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(result.output.splitlines()))
    spam = [r for r in table if r["algorithm"] == "spam-l2"]
    assert {r["dataset"] for r in spam} == {"german.numer", "diabetes"}
    assert all(r["published"] and r["status"] == "ok" for r in spam)
    assert {r["status"] for r in table if r["algorithm"] == "vrspam-l2"} <= {
        "ok", "algorithm-not-available"}

    result = cli.invoke(app, ["experiment", "report", str(tmp_path), "--format", "md"])
    assert result.exit_code == 0 and "# dan-t1" in result.output  # a directory of runs
    assert cli.invoke(app, ["experiment", "report", str(out), "--format", "tex"]).exit_code == 2
    listing = cli.invoke(app, ["experiment", "list"])
    assert listing.exit_code == 0 and all(cid in listing.output for cid in PUBLISHED_CELLS)
    missing = cli.invoke(app, ["experiment", "run", "gao2013", "--out", str(tmp_path / "x")])
    assert missing.exit_code == 1 and "Unknown experiment 'gao2013'" in missing.output


@pytest.mark.slow
def test_smoke_runs_every_config(tmp_path):
    start = time.perf_counter()
    result = cli.invoke(app, ["experiment", "run", "all", "--smoke", "--n-jobs", "2",
                              "--out", str(tmp_path)])
    seconds = time.perf_counter() - start
    assert result.exit_code == 0, result.output
    for cid in PUBLISHED_CELLS:
        rows = _rows(tmp_path / cid / "results.csv")
        errors = [(r["dataset"], r["algorithm"], r["message"]) for r in rows
                  if r["status"] == "error"]
        assert not errors, (cid, errors)
        assert any(r["status"] == "ok" for r in rows) or all(
            r["status"] == "algorithm-not-available" for r in rows), cid
        assert "SMOKE RUN" in (tmp_path / cid / "report.md").read_text()
    assert build_report(tmp_path).count("\n# ") == len(PUBLISHED_CELLS) - 1
    print(f"smoke run of all configs: {seconds:.1f} s")


def test_committed_reproduction_cells_come_from_the_committed_run_directories():
    """docs/reproduction: every paper-protocol cell of cells.csv is what the committed run
    directory (manifest.json + results.csv) gives when rendered by build_report."""
    import csv
    import io
    from pathlib import Path

    from aucopt.experiments import build_report

    docs = Path(__file__).resolve().parents[1] / "docs" / "reproduction"
    with (docs / "cells.csv").open(newline="") as fh:
        committed = {(r["config"], r["dataset"], r["algorithm"]): r for r in csv.DictReader(fh)}
    checked = 0
    for run in sorted(p.parent for p in (docs / "runs").glob("*/manifest.json")):
        for row in csv.DictReader(io.StringIO(build_report(run, "csv"))):
            cell = committed.get((row["config"], row["dataset"], row["algorithm"]))
            if cell is None or cell["protocol"] != "paper" or int(row["runs"] or 0) == 0:
                continue
            assert int(cell["runs"]) == int(row["runs"])
            assert float(cell["auc_mean"]) == pytest.approx(float(row["auc_mean"]), abs=1e-12)
            checked += 1
    assert checked >= 150  # 169 paper-protocol cells come from these directories



def test_a_value_the_declaration_rejects_is_a_clear_error_at_load(tmp_path):
    text = (Path(aucopt.__file__).parent / "experiments" / "configs" / "dan-t1.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('"lam" = "10^[-5:5]"', '"lam" = [-1.0]', 1))
    with pytest.raises(ConfigError, match="lam"):
        load_config(str(bad))
