"""Sphinx configuration of the aucopt documentation (``make docs``).

Offline: no intersphinx, no remote images, MathJax copied into the site (the
``sphinx-mathjax-offline`` package), so that formulas render from disk without a network.
Warnings are errors (``-W --keep-going``).
``AUCOPT_DOCS_GALLERY`` (a regular expression) limits which gallery scripts run, e.g.
``AUCOPT_DOCS_GALLERY=plot_roc`` for a quick local build; unset (as in ``make docs`` and the
build test), every ``plot_*.py`` runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

import aucopt  # noqa: E402

project = "aucopt"
author = "aucopt developers"
copyright = "aucopt developers"  # noqa: A001
release = version = aucopt.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # sets mathjax_path to the copy in _static/mathjax
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "algorithm_pages",
    "notes_links",  # notes.md#anchor in text and docstrings -> links to the notes
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build", "gallery_src", "reproduction/runs", "reproduction/tools", "**/.ipynb_checkpoints",
    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
    "auto_examples/*.md5", "auto_examples/*.codeobj.json", "sg_execution_times.rst",
]
templates_path = ["_templates"]

# --- MyST: the Markdown pages and the committed reports -----------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# links from the reports to data files of the repository (CSV, run directories) are not
# pages of the site; they stay plain links to the repository's files
myst_url_schemes = ["http", "https", "mailto"]

# --- API reference --------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# --- gallery ---------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "gallery_src",
    "gallery_dirs": "auto_examples",
    "filename_pattern": os.environ.get("AUCOPT_DOCS_GALLERY", r"/plot_"),
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "plot_gallery": "True",
    "write_computation_times": False,
    # checks every figure against aucopt.plotting.figure_problems before saving it
    "image_scrapers": ("figure_check.checked_matplotlib_scraper",),
}

# --- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"aucopt {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = ["_static"]
html_css_files = ["aucopt.css"]  # wide tables scroll
html_show_sourcelink = False
