"""The documentation site builds (``make docs``) without a warning, gallery included.

One Sphinx build into a temporary directory, warnings as errors: it executes every gallery
script (``docs/gallery_src/plot_*.py``), generates one page per registry id and the API
reference from the docstrings, and renders the Markdown pages and reports with MyST.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import aucopt

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GALLERY = sorted(p.stem for p in (DOCS / "gallery_src").glob("plot_*.py"))
PAGES = ("index", "getting_started", "user_guide/choosing", "user_guide/preprocessing",
         "user_guide/streaming", "user_guide/cli", "user_guide/reproducing",
         "algorithms/index", "algorithms/notes", "api", "reports", "accuracy", "performance",
         "streaming", "convergence", "nonlinear", "reproduction/README",
         "auto_examples/index")

pytest.importorskip("sphinx")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("pydata_sphinx_theme")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         "-d", str(out / ".doctrees"), str(DOCS), str(out)],
        capture_output=True, text=True, cwd=ROOT, env=env)  # no timeout: a loaded laptop is slow
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-5000:]
    return out


def test_site_has_every_page(site):
    missing = [p for p in PAGES if not (site / f"{p}.html").exists()]
    assert not missing


def test_one_page_per_registry_id(site):
    for algorithm in aucopt.list_algorithms():
        page = (site / "algorithms" / "generated" / f"{algorithm}.html").read_text()
        info = aucopt.algorithm_info(algorithm)
        assert "Hyperparameters" in page and info["class"].__name__ in page


def test_gallery_ran_and_made_figures(site):
    assert len(GALLERY) >= 8
    images = {p.name for p in (site / "_images").glob("sphx_glr_plot_*.png")}
    for name in GALLERY:
        assert any(image.startswith(f"sphx_glr_{name}_") for image in images), name


def test_api_reference_lists_every_public_name():
    text = (DOCS / "api.rst").read_text()
    listed = set(re.findall(r"^   (\w+)$", text, flags=re.M))
    for module in ("linear_model", "kernel_model", "datasets", "io", "metrics",
                   "model_selection", "plotting", "experiments", "exceptions", "river",
                   "distributed"):
        names = importlib.import_module(f"aucopt.{module}").__all__
        missing = {n for n in names if not n.isupper()} - listed
        assert not missing, f"aucopt.{module}: {sorted(missing)} missing from docs/api.rst"


def test_formulas_render_offline_in_chromium(site):
    """MathJax is part of the site: with the network cut, the formulas are typeset."""
    from ._chromium import evaluate

    page = site / "algorithms" / "generated" / "spam-l2.html"
    assert "cdn." not in page.read_text() and (site / "_static" / "mathjax" / "tex-chtml.js"
                                               ).exists()
    seen = evaluate(page, r"""
        if (!window.MathJax || !MathJax.startup) { return {mathjax: false}; }
        await MathJax.startup.promise;
        const boxes = Array.from(document.querySelectorAll("mjx-container"));
        const text = document.querySelector("main, article, body").innerText;
        return {
          mathjax: true,
          typeset: boxes.length,
          drawn: boxes.filter(b => b.children.length > 0 && b.getBoundingClientRect().width > 0)
                      .length,
          math: document.querySelectorAll(".math").length,
          raw: (text.match(/\\\(|\\\[|\$\$/g) || []).length,
        };""", budget_ms=60000)
    assert seen["mathjax"], seen
    assert seen["math"] > 0 and seen["typeset"] >= seen["math"], seen
    assert seen["drawn"] == seen["typeset"] and seen["raw"] == 0, seen


def test_notes_mentions_are_links(site):
    text = (site / "accuracy.html").read_text()
    assert 'href="algorithms/notes.html#closed-forms"' in text
    linked = re.findall(r'href="[^"]*notes\.html#([\w-]+)"', "".join(
        p.read_text() for p in site.rglob("*.html")))
    assert len(linked) > 150


def test_wide_tables_scroll(site):
    css = (site / "_static" / "aucopt.css").read_text()
    assert "overflow-x: auto" in css
    assert "aucopt.css" in (site / "performance.html").read_text()


def test_the_meaning_cells_do_not_stop_at_an_abbreviation():
    """The first sentence of a parameter's description (its cell in the algorithm pages)
    ended at "i.e." or "et al.": "... Kotlowski et al." instead of the whole sentence."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        pages = importlib.import_module("algorithm_pages")
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    for algorithm, name in (("svm-perf", "tol"), ("uni-log-batch", "class_weight"),
                            ("spam-l2", "precondition")):
        doc = next(p["doc"] for p in aucopt.algorithm_info(algorithm)["params"]
                   if p["name"] == name)
        cell = pages._first_sentence([doc])
        assert not cell.endswith(("i.e.", "e.g.", "et al.")), (algorithm, name, cell)
        assert cell.endswith(".") and doc.startswith(cell.rstrip(".")), (algorithm, name, cell)
    assert pages._first_sentence(["One, i.e. two. Three."]) == "One, i.e. two."
