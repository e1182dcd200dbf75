"""The papers' figures from configs: ``[[figures]]`` parsing, ``make_figures`` and the CLI.

Offline and small: the bundled german.numer on 2 outer folds, or smoke stand-ins.
"""

import csv
import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

import aucopt.experiments._figures as figures_module
from aucopt.cli import app
from aucopt.experiments import ConfigError, list_configs, load_config, make_figures
from aucopt.experiments._figures import _TimedStream
from aucopt.plotting import draw_experiment_figure

pytest.importorskip("matplotlib")

cli = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def readable(monkeypatch):
    """Check every figure saved in this module against the style rules before it is saved.

    Every PNG the project writes goes through ``Figure.savefig``: the demo's and compare's
    figures, ``aucopt evaluate --plot``, ``aucopt stream``, the experiment figures (the
    gallery is checked by its scraper in the docs build, docs/_ext/figure_check.py).
    """
    from matplotlib.figure import Figure

    from aucopt.plotting import figure_problems

    saved, real = [], Figure.savefig

    def checked(fig, fname, *args, **kwargs):
        problems = figure_problems(fig)
        assert not problems, f"{fig.get_suptitle() or fname}: {problems}"
        saved.append(fig)
        return real(fig, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked)
    return saved

TINY = """
id = "tiny"
title = "tiny table"
source = "tests"
reference = "spam-l2"

[protocol]
kind = "kfold"
folds = 2
repeats = 3
inner_folds = 2
seed = 0

[[datasets]]
name = "german.numer"
label = "german"

[[algorithms]]
id = "spam-l2"
label = "SPAM-L2"
grid = { "beta" = "10^[-5:1]" }
params = { "max_iter" = 1 }

[[algorithms]]
id = "fsauc"
label = "FSAUC"
grid = { "R" = [1.0, 10.0] }
params = { "max_iter" = 1 }

[[algorithms]]
id = "b-ls-svm"
grid = { "lam" = [0.01, 1.0] }
"""

FIGURES = """
[[figures]]
name = "curves"
kind = "convergence"
caption = "like Liu et al. 2018, Fig. 1"
points = 5

[[figures]]
name = "spam-beta"
kind = "auc-vs-param"
algorithm = "spam-l2"
param = "beta"

[[figures]]
name = "uni-squ-eta"
kind = "auc-vs-param"
algorithm = "uni-squ"
param = "eta"
values = [0.01, 0.1, 1000.0]
grid = { "lam" = [1e-6, 1e-3] }
params = { "max_iter" = 1 }
"""


def _config(tmp_path, text=TINY + FIGURES):
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    return path


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


# --------------------------------------------------------------------------- config


def test_figures_are_parsed_with_the_columns_grids_and_params(tmp_path):
    cfg = load_config(_config(tmp_path))
    curves, beta, eta = cfg.figures
    assert (curves.kind, curves.points, curves.algorithms, curves.datasets) == (
        "convergence", 5, (), ())
    assert beta.values == tuple(10.0 ** k for k in range(-5, 2)) and beta.grid == {}
    assert beta.params == {"max_iter": 1}  # the column's fixed parameters
    assert (eta.algorithm, eta.values, eta.grid) == ("uni-squ", (0.01, 0.1, 1000.0),
                                                     {"lam": [1e-6, 1e-3]})
    bundled = {cid: [f.name for f in load_config(cid).figures] for cid in list_configs()}
    assert bundled["gao2013-t2"] == ["convergence", "opauc-eta", "opauc-lam", "opauc-r-rank"]
    assert bundled["liu2018-t2"] == ["convergence"]


def test_a_figure_names_its_datasets_by_label_name_or_alias(tmp_path):
    """As the published rows do: the config's label, the registry name, or an alias of it."""
    text = TINY.replace('label = "german"', 'label = "G"')
    for given in ("G", "german.numer", "german"):
        figure = f'\n[[figures]]\nkind = "convergence"\ndatasets = ["{given}"]\n'
        assert load_config(_config(tmp_path, text + figure)).figures[0].datasets == (
            "german.numer",)


@pytest.mark.parametrize("figure, match", [
    ('kind = "heatmap"', "kind must be one of"),
    ('kind = "convergence"\ndatasets = ["a9a"]', r"datasets\[0\]: dataset 'a9a' is not in"),
    ('kind = "convergence"\ndatasets = ["a9b"]', r"datasets\[0\]: Unknown dataset 'a9b'"),
    ('kind = "convergence"\nalgorithms = ["opauc"]', r"algorithms \['opauc'\] are not algorithm"),
    ('kind = "auc-vs-param"\nalgorithm = "spam-l2"\nparam = "eta0"', "give the values of 'eta0'"),
    ('kind = "auc-vs-param"\nalgorithm = "spam-l2"',
     r"missing required field figures\[0\]\.'param'"),
    ('kind = "convergence"\ncolour = "red"', r"unknown field\(s\) \['colour'\]"),
])
def test_figure_config_errors_are_clear(tmp_path, figure, match):
    with pytest.raises(ConfigError, match=match):
        load_config(_config(tmp_path, TINY + "\n[[figures]]\n" + figure + "\n"))
    twice = TINY + '\n[[figures]]\nkind = "convergence"\n' * 2
    with pytest.raises(ConfigError, match="figure names are listed twice"):
        load_config(_config(tmp_path, twice))


# --------------------------------------------------------------------------- drawing


def test_timed_stream_accumulates_partial_fit_seconds():
    class Slow:
        def partial_fit(self, X, y, classes=None):
            time.sleep(0.01)

        def get_params(self, deep=True):
            return {"max_iter": 1}

        def decision_function(self, X):
            return np.zeros(len(X))

    timed = _TimedStream(Slow())
    for _ in range(3):
        timed.partial_fit(None, None)
    assert timed.get_params() == {"max_iter": 1} and len(timed.decision_function([1, 2])) == 2
    assert len(timed.seconds) == 3 and np.all(np.diff(timed.seconds) >= 0.009)


def test_make_figures_writes_png_csv_and_manifest(tmp_path, monkeypatch):
    made, real = [], figures_module.make

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(figures_module, "make", spy)
    out = tmp_path / "figs"
    summaries = make_figures(_config(tmp_path), out, max_grid_points=2,
                             draw=draw_experiment_figure)
    assert [s["name"] for s in summaries] == ["curves", "spam-beta", "uni-squ-eta"]
    for s in summaries:  # one repeat of the 2-fold protocol: 2 runs
        assert s["runs"] == 2 and s["png"].endswith(".png")
        assert (out / f"tiny-{s['name']}.png").read_bytes()[:8] == PNG

    curves = _rows(out / "tiny-curves.csv")
    # the streaming columns only (b-ls-svm is a batch solver); 5 points x 2 runs each
    assert {r["algorithm"] for r in curves} == {"spam-l2", "fsauc"}
    assert all(r["status"] == "ok" for r in curves) and len(curves) == 20
    for key in ("spam-l2", "fsauc"):
        run = [r for r in curves if r["algorithm"] == key and r["fold"] == "0"]
        run.sort(key=lambda r: int(r["point"]))
        samples = [int(r["samples"]) for r in run]
        seconds = [float(r["seconds"]) for r in run]
        assert samples == sorted(samples) and samples[-1] == 500  # one pass over 500 rows
        assert np.all(np.diff(seconds) >= 0) and seconds[0] > 0
        assert all(0.5 <= float(r["auc"]) <= 1 for r in run) and float(run[-1]["auc"]) > 0.55
        assert 0.5 < float(run[-1]["fit_auc"]) <= 1  # the one-call fit of the same split
    # FSAUC sizes its stages from the stream length: the whole training part, not a chunk
    assert [e.n_samples_hint for e in made if type(e).__name__ == "FSAUCClassifier"] == [500] * 2
    assert {r["param_beta"] for r in curves if r["algorithm"] == "spam-l2"} <= {"1e-05", "10.0"}

    beta = _rows(out / "tiny-spam-beta.csv")  # every value of the column's grid, 2 runs each
    assert len(beta) == 14 and {r["param"] for r in beta} == {"beta"}
    assert len({r["value"] for r in beta}) == 7 and all(r["status"] == "ok" for r in beta)

    eta = _rows(out / "tiny-uni-squ-eta.csv")  # lam tuned; eta = 1000 diverges: error rows
    failed = [r for r in eta if r["status"] == "error"]
    assert {r["value"] for r in failed} == {"1000.0"} and len(failed) == 2
    assert all("Divergence" in r["message"] for r in failed)
    assert all(r["param_lam"] in ("1e-06", "0.001") for r in eta if r["status"] == "ok")

    manifests = [json.loads((out / f"tiny-{s['name']}.json").read_text()) for s in summaries]
    for manifest in manifests:  # one manifest per figure
        assert manifest["protocol"]["repeats"] == 1
        assert manifest["options"]["max_grid_points"] == 2 and "versions" in manifest
        assert manifest["datasets"]["german.numer"]["source"] == "bundled german.numer"
    assert [m["figure"]["errors"] for m in manifests] == [0, 0, 2]

    # the footer names where the data came from (it said "mirror data" for every run)
    footers = []
    make_figures(_config(tmp_path), tmp_path / "foot", names=["spam-beta"], max_grid_points=2,
                 draw=lambda *a, footer, **k: footers.append(footer))
    assert footers and footers[0].startswith("bundled data; 2 runs per point")

    # without a draw callback (the experiments layer never imports plotting): data only
    data_only = make_figures(_config(tmp_path), tmp_path / "data", names=["spam-beta"],
                             max_grid_points=2)
    assert data_only[0]["png"] is None and (tmp_path / "data" / "tiny-spam-beta.csv").exists()
    assert not (tmp_path / "data" / "tiny-spam-beta.png").exists()

    with pytest.raises(ValueError, match=r"has figures \['curves'"):
        make_figures(_config(tmp_path), out, names=["nope"])
    with pytest.raises(ValueError, match="has no dataset 'a9a'"):
        make_figures(_config(tmp_path), out, datasets=["a9a"])


def test_cli_figures_smoke_and_errors(tmp_path):
    config = _config(tmp_path)
    result = cli.invoke(app, ["experiment", "figures", str(config), "--out", str(tmp_path / "o"),
                              "--figures", "curves,uni-squ-eta", "--smoke"])
    assert result.exit_code == 0, result.output
    assert "tiny curves: 2 runs" in result.output and "tiny uni-squ-eta: 2 runs" in result.output
    assert "spam-beta" not in result.output
    assert (tmp_path / "o" / "tiny-curves.png").exists()
    assert not (tmp_path / "o" / "tiny-spam-beta.png").exists()
    manifest = json.loads((tmp_path / "o" / "tiny-curves.json").read_text())
    assert manifest["mode"] == "smoke" and manifest["substitutions"] == []
    bad = cli.invoke(app, ["experiment", "figures", str(config), "--out", str(tmp_path / "o"),
                           "--figures", "nope"])
    assert bad.exit_code == 1 and "has figures" in bad.output
    none = cli.invoke(app, ["experiment", "figures", "dan-t1", "--out", str(tmp_path / "o")])
    assert none.exit_code == 1 and "dan-t1 has figures []" in none.output


@pytest.mark.slow
def test_smoke_figures_of_every_config(tmp_path):
    start = time.perf_counter()
    result = cli.invoke(app, ["experiment", "figures", "all", "--smoke", "--out", str(tmp_path)])
    seconds = time.perf_counter() - start
    assert result.exit_code == 0, result.output
    with_figures = [cid for cid in list_configs() if load_config(cid).figures]
    assert with_figures == ["gao2013-t2", "liu2018-t2"]
    for cid in with_figures:
        for spec in load_config(cid).figures:
            assert (tmp_path / f"{cid}-{spec.name}.png").read_bytes()[:8] == PNG
            rows = _rows(tmp_path / f"{cid}-{spec.name}.csv")
            assert any(r["status"] == "ok" for r in rows), (cid, spec.name)
    print(f"smoke figures of all configs: {seconds:.1f} s")


# --------------------------------------------------------------------------- every figure

TEN = "uni-squ,uni-exp,spam-l2,spam-net,solam,reg-solam,ftrl-auc,ogd-fifo,b-ls-svm,logreg"


def test_compare_figures_of_ten_algorithms_are_readable(tmp_path, readable):
    """More series than colours: eight in colour, the rest grey, legends outside."""
    result = cli.invoke(app, ["compare", "german.numer", "--algorithms", TEN, "--folds", "2",
                              "--grid", "none", "--n-jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(readable) == 2  # roc.png, convergence.png, each checked before saving
    for fig in readable:
        for ax in fig.axes:
            assert ax.get_legend() is None or ax.get_legend().get_texts()
    roc = readable[0]
    zoom = roc.axes[1]
    assert zoom.get_xlim() == (0, 0.2)  # the low false-positive region
    assert {"roc.png", "convergence.png", "report.html"} <= {p.name for p in tmp_path.iterdir()}


def test_evaluate_plot_and_stream_figures_are_readable(tmp_path, readable):
    from aucopt.cli._stream import plot_records

    model = tmp_path / "m"
    assert cli.invoke(app, ["fit", "uni-squ", "german.numer", "--preprocess", "minmax",
                            "--out", str(model)]).exit_code == 0
    result = cli.invoke(app, ["evaluate", str(model), "german.numer", "--plot",
                              str(tmp_path / "roc.png")])
    assert result.exit_code == 0, result.output
    records = [{"n": n, "learner": name, "cumulative_auc": 0.5 + k / 40 + n / 1e5,
                "window_auc": 0.5 + k / 30}
               for k, name in enumerate(f"learner-{j}" for j in range(10))
               for n in (100, 200, 300)]
    plot_records(records, tmp_path / "stream.png", 100, "synthetic: prequential exact AUC")
    assert len(readable) == 2 and (tmp_path / "stream.png").read_bytes()[:8] == PNG


def test_a_dataset_that_cannot_be_had_is_a_row_of_the_figure_data(tmp_path, monkeypatch):
    """A figure's dataset that is not available (no mirror, no download) is recorded as such
    beside the runs of the others (its row has no algorithm: it once broke the CSV's sort)."""
    monkeypatch.delenv("AUCOPT_DATA_MIRROR", raising=False)
    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "cache"))
    text = TINY.replace('label = "german"\n', 'label = "german"\n[[datasets]]\nname = "w8a"\n')
    out = tmp_path / "figs"
    make_figures(_config(tmp_path, text + FIGURES), out, names=["spam-beta"],
                 max_grid_points=2, download=False)
    rows = _rows(out / "tiny-spam-beta.csv")
    assert [r["status"] for r in rows if r["dataset"] == "w8a"] == ["dataset-unavailable"]
    assert {r["status"] for r in rows if r["dataset"] == "german.numer"} == {"ok"}


def test_saving_into_a_missing_folder_names_the_folder(tmp_path):
    """The error named the hidden temporary file beside the figure, not the missing folder."""
    from aucopt.plotting import new_figure, save_figure

    fig, axes = new_figure(1, 1)
    axes[0, 0].set(title="t", xlabel="x", ylabel="y")
    target = tmp_path / "absent" / "roc.png"
    with pytest.raises(FileNotFoundError, match="absent is not a folder") as caught:
        save_figure(fig, target)
    assert ".tmp" not in str(caught.value)
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="file is not a folder"):
        save_figure(fig, tmp_path / "file" / "roc.png")
