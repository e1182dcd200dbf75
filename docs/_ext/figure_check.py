"""Sphinx-Gallery image scraper: every gallery figure keeps the figure rules, or the build fails.

The rules are those of :func:`aucopt.plotting.figure_problems` (legends inside the figure
and off the data, at most eight coloured series per axes, titles and labelled axes). The
scraper checks each open figure, then hands over to Sphinx-Gallery's matplotlib scraper,
which saves and closes them: the figures are checked in the state the reader sees.
"""

from __future__ import annotations


def gallery_figure_problems(source: str = "") -> list[str]:
    """The problems of every open pyplot figure, prefixed with the script's name."""
    import matplotlib.pyplot as plt

    from aucopt.plotting import figure_problems

    problems = []
    for number in plt.get_fignums():
        problems += [f"{source}: figure {number}: {p}"
                     for p in figure_problems(plt.figure(number))]
    return problems


def checked_matplotlib_scraper(block, block_vars, gallery_conf, **kwargs):
    """Sphinx-Gallery's matplotlib scraper, after :func:`gallery_figure_problems` is empty."""
    from sphinx_gallery.scrapers import matplotlib_scraper

    problems = gallery_figure_problems(str(block_vars.get("src_file", "")))
    if problems:
        raise RuntimeError("gallery figures that are hard to read:\n" + "\n".join(problems))
    return matplotlib_scraper(block, block_vars, gallery_conf, **kwargs)
