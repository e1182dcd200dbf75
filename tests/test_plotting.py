"""aucopt.plotting: artists and labels (not pixels), Agg backend, figures closed."""

import importlib
import sys

import numpy as np
import pytest

import aucopt

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from aucopt.metrics import roc_auc_score, roc_curve  # noqa: E402
from aucopt.plotting import plot_auc_vs_param, plot_convergence, plot_roc  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("plotting functions must not show or save figures")

    monkeypatch.setattr(plt, "show", refuse)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", refuse)
    yield
    plt.close("all")


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    y = np.r_[0, 1, rng.integers(0, 2, 80)]
    return y, rng.normal(size=y.shape[0]) + y, rng.normal(size=y.shape[0])


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_plot_roc_from_curves_draws_each_curve_and_the_chance_line():
    fig, ax = plt.subplots()
    curves = {"good": ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0]), "half": ([0.0, 1.0], [0.0, 1.0])}
    out = plot_roc(curves, ax=ax, title="ROC")
    assert out is ax
    assert len(ax.get_lines()) == 3
    legend = _legend(ax)
    assert legend[0] == "good (AUC = 1.00)"
    assert legend[1] == "half (AUC = 0.50)"
    assert legend[2].startswith("Chance level")
    np.testing.assert_array_equal(ax.get_lines()[2].get_xdata(), [0, 1])
    assert ax.get_title() == "ROC"


def test_plot_roc_from_scores_uses_aucopt_metrics(scores):
    y, s1, s2 = scores
    ax = plot_roc({"A": (y, s1), "B": (y, s2)}, from_scores=True)
    assert isinstance(ax, matplotlib.axes.Axes)
    lines = ax.get_lines()
    assert len(lines) == 3
    fpr, tpr, _ = roc_curve(y, s1)
    (line,) = [li for li in lines if li.get_label().startswith("A ")]
    np.testing.assert_array_equal(line.get_xdata(), fpr)
    np.testing.assert_array_equal(line.get_ydata(), tpr)
    assert _legend(ax)[:2] == [
        f"A (AUC = {roc_auc_score(y, s1):.2f})",
        f"B (AUC = {roc_auc_score(y, s2):.2f})",
    ]


def test_plot_roc_errors():
    with pytest.raises(TypeError, match="must be a mapping"):
        plot_roc([([0, 1], [0, 1])])
    with pytest.raises(ValueError, match="curves is empty"):
        plot_roc({})
    with pytest.raises(ValueError, match=r"must be a pair \(fpr, tpr\)"):
        plot_roc({"a": ([0, 1], [0, 1], [0, 1])})
    with pytest.raises(ValueError, match="AUC is undefined"):
        plot_roc({"a": ([1, 1], [0.2, 0.3])}, from_scores=True)


def test_plot_convergence_lines_bands_and_labels():
    x = np.arange(1, 6) * 100
    curves = {
        "spam-l2": (x, np.linspace(0.6, 0.8, 5), np.full(5, 0.02)),
        "opauc": (x, np.linspace(0.55, 0.82, 5)),
    }
    ax = plot_convergence(curves, title="a9a")
    assert len(ax.get_lines()) == 2
    assert len(ax.collections) == 1  # one band: only spam-l2 has a std
    assert _legend(ax) == ["opauc", "spam-l2"]  # ranked by the last AUC
    assert ax.get_xlabel() == "samples seen"
    assert ax.get_ylabel() == "test AUC"
    assert ax.get_title() == "a9a"
    fig, ax2 = plt.subplots()
    assert plot_convergence(curves, ax=ax2, xlabel="epoch", ylabel="AUC") is ax2
    assert ax2.get_xlabel() == "epoch"


def test_plot_convergence_errors():
    with pytest.raises(ValueError, match="differ in length"):
        plot_convergence({"a": ([1, 2, 3], [0.5, 0.6])})
    with pytest.raises(ValueError, match=r"must be \(x, auc_values\)"):
        plot_convergence({"a": ([1, 2],)})


def test_plot_auc_vs_param():
    ax = plot_auc_vs_param([1e-1, 1e-3, 1e-2], [0.8, 0.7, 0.75], param="beta", stds=[0.01] * 3)
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [1e-3, 1e-2, 1e-1])  # sorted by value
    np.testing.assert_array_equal(line.get_ydata(), [0.7, 0.75, 0.8])
    assert len(ax.collections) == 1
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "beta"
    assert ax.get_ylabel() == "AUC"
    ax = plot_auc_vs_param([0, 1, 2], [0.5, 0.6, 0.7], param="k", log=False, label="german")
    assert ax.get_xscale() == "linear"
    assert len(ax.collections) == 0
    assert _legend(ax) == ["german"]


def test_plot_auc_vs_param_errors():
    with pytest.raises(ValueError, match="log=True needs positive values"):
        plot_auc_vs_param([0, 1], [0.5, 0.6], param="k")
    with pytest.raises(ValueError, match="differ in length"):
        plot_auc_vs_param([1, 2], [0.5], param="k")
    with pytest.raises(TypeError, match="param must be"):
        plot_auc_vs_param([1, 2], [0.5, 0.6], param=None)


def test_missing_matplotlib_raises_import_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install aucopt\[plot\]"):
        plot_convergence({"a": ([1, 2], [0.5, 0.6])})


def test_import_does_not_need_matplotlib(monkeypatch):
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    # restore the package attribute too, which the fresh import below rebinds
    monkeypatch.setattr(aucopt, "plotting", sys.modules["aucopt.plotting"])
    monkeypatch.delitem(sys.modules, "aucopt.plotting")
    monkeypatch.delitem(sys.modules, "aucopt.plotting._curves")
    monkeypatch.delitem(sys.modules, "aucopt.plotting._experiment", raising=False)
    module = importlib.import_module("aucopt.plotting")
    assert sorted(module.__all__) == [
        "GREY", "MAX_COLOURED", "PALETTE", "draw_experiment_figure", "figure_problems",
        "legend_outside", "new_figure", "plot_auc_vs_param", "plot_convergence", "plot_roc",
        "save_figure", "series_styles"]
    with pytest.raises(ImportError, match=r"pip install aucopt\[plot\]"):
        module.draw_experiment_figure("convergence", [{"status": "ok"}], labels={},
                                      path="unused.png")


def test_many_curves_colour_the_best_eight_and_grey_the_rest(scores):
    from aucopt.plotting import GREY, PALETTE, figure_problems

    y, _, _ = scores
    rng = np.random.default_rng(1)
    curves = {f"algo-{k}": (y, y * k / 10 + rng.normal(size=y.shape[0])) for k in range(12)}
    fig, ax = plt.subplots(figsize=(5, 4), layout="constrained")
    plot_roc(curves, from_scores=True, ax=ax, title="twelve")
    by_label = {li.get_label(): li for li in ax.get_lines()}
    legend = _legend(ax)
    assert len(legend) == 8 + 2 and legend[8] == "4 others" and legend[-1].startswith("Chance")
    aucs = [float(t.split("= ")[1].rstrip(")")) for t in legend[:8]]
    assert aucs == sorted(aucs, reverse=True)  # best first
    assert [by_label[t].get_color() for t in legend[:8]] == list(PALETTE)
    assert sum(li.get_color() == GREY for li in ax.get_lines()) == 4 + 1  # others + chance
    assert figure_problems(fig) == []  # legend outside the axes, inside the figure


def test_roc_zoom_shows_the_low_false_positive_region(scores):
    y, s1, s2 = scores
    ax = plot_roc({"A": (y, s1), "B": (y, s2)}, from_scores=True, fpr_max=0.1)
    assert ax.get_xlim() == (0, 0.1)
    fpr, tpr, _ = roc_curve(y, s1)
    assert ax.get_ylim()[1] >= tpr[fpr <= 0.1].max()


@pytest.mark.parametrize("fpr_max", [-1.0, 0.0, 1.5, True, "0.1"])
def test_roc_zoom_outside_the_false_positive_rates_is_refused(scores, fpr_max):
    y, s1, _ = scores  # (-1 drew the curves with the axis flipped)
    with pytest.raises(ValueError, match=r"fpr_max must be a false positive rate in \(0, 1\]"):
        plot_roc({"A": (y, s1)}, from_scores=True, fpr_max=fpr_max)


def test_figure_problems_finds_a_legend_on_the_data_and_too_many_colours():
    from aucopt.plotting import figure_problems

    fig, ax = plt.subplots(figsize=(4, 3))
    for k in range(12):
        ax.plot([0, 1], [0, k], label=f"s{k}")  # matplotlib's default cycle: 10 colours
    ax.legend(loc="center")
    problems = figure_problems(fig)
    assert any("covers the data area" in p for p in problems)
    assert any("coloured series" in p for p in problems)
    assert any("no title" in p for p in problems) and any("unlabelled" in p for p in problems)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="a very long label " * 4)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))  # wider than the figure
    assert any("cut by the figure" in p for p in figure_problems(fig))


def test_a_curve_without_a_style_is_drawn_in_a_colour_of_its_own(scores):
    """styles for some labels only: the curves of the others were dropped without a word."""
    from aucopt.plotting import PALETTE, figure_problems, plot_convergence, series_styles

    y, s1, s2 = scores
    styles = series_styles(["A"])
    fig, ax = plt.subplots(figsize=(5, 4), layout="constrained")
    plot_roc({"A": (y, s1), "B": (y, s2)}, from_scores=True, styles=styles, ax=ax,
             title="two")
    colours = {li.get_label().split(" (")[0]: li.get_color() for li in ax.get_lines()}
    assert colours["A"] == PALETTE[0] and colours["B"] == PALETTE[1]
    assert figure_problems(fig) == []
    ax = plot_convergence({"A": ([1, 2], [0.6, 0.7]), "B": ([1, 2], [0.5, 0.8])},
                          styles=styles)
    assert _legend(ax) == ["A", "B"]



def test_a_new_figure_has_room_for_the_legend_outside_its_axes(scores):
    from aucopt.plotting import figure_problems

    y, s1, s2 = scores  # (the legend of the default figure ran off its right edge)
    roc = plot_roc({"spam-l2": (y, s1), "solam with a long name": (y, s2)},
                   from_scores=True, title="ROC")
    conv = plot_convergence({"spam-l2 with a long label": ([1, 2, 3], [0.6, 0.7, 0.8])},
                            title="convergence")
    for ax in (roc, conv):
        assert figure_problems(ax.figure) == []
