"""``report.html`` of ``aucopt demo`` / ``compare`` opens in a real browser with its figures.

Headless Chromium, offline (tests/_chromium.py): every ``<img>`` has loaded (its
``naturalWidth`` is the PNG's width), the table is there, and a screenshot is not blank.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from aucopt.cli import app

from ._chromium import distinct_colours, evaluate, screenshot

pytest.importorskip("matplotlib")
runner = CliRunner()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    result = runner.invoke(app, ["demo", "--out", str(out), "--algorithms",
                                 "uni-squ,b-ls-svm,logreg", "--folds", "2", "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'report.html'}" in result.stdout
    return out / "report.html"


def test_report_renders_its_figures_in_chromium(report):
    from PIL import Image

    seen = evaluate(report, """
        return {
          images: Array.from(document.images).map(i => [i.getAttribute("src"), i.complete,
                                                         i.naturalWidth]),
          rows: document.querySelectorAll("tbody tr").length,
          title: document.title,
          rerun: document.querySelector("pre") && document.querySelector("pre").textContent,
        };""")
    assert seen["title"] == "AUC on german.numer"
    assert seen["rows"] == 3 and seen["rerun"].startswith("aucopt demo")
    assert [src for src, _, _ in seen["images"]] == ["roc.png", "convergence.png"]
    for src, complete, width in seen["images"]:
        assert complete and width == Image.open(report.parent / src).width, src


def test_report_screenshot_is_not_blank(report, tmp_path):
    png = screenshot(report, tmp_path / "report.png")
    assert distinct_colours(png) > 50  # text, table rules and the figures' colours
