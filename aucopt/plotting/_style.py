"""The one look of every aucopt figure: colours, highlighting, legends, sizes and saving.

Every figure the project draws (``aucopt demo`` and ``compare``, ``aucopt stream``, the
experiment figures, the gallery) goes through these helpers, so that each can be read:

* at most :data:`MAX_COLOURED` series per axes get a colour, from a palette of as many
  distinct colours (Okabe and Ito's colour-blind safe set, plus two); the others are drawn
  thin and grey behind them, under one legend entry;
* legends sit outside the axes (right of them), never on the data;
* figures use constrained layout and are saved with ``bbox_inches="tight"``, so that a
  legend or a title is never cut.

:func:`figure_problems` checks a drawn figure against these rules (the tests call it on
every figure the project makes). matplotlib is imported inside the functions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..utils._atomic import write_atomic

__all__ = ["GREY", "MAX_COLOURED", "PALETTE", "figure_problems", "legend_outside",
           "new_figure", "save_figure", "series_styles"]

#: Distinct colours of the highlighted series, in order of rank.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#8C564B")
#: Colour of the series that are not highlighted, and of reference lines.
GREY = "#b3b3b3"
#: Most series drawn in colour on one axes.
MAX_COLOURED = len(PALETTE)


def series_styles(ranked: Sequence, highlight: int = MAX_COLOURED) -> dict:
    """Line properties of each label: the first ``highlight`` in colour, the rest grey.

    Parameters
    ----------
    ranked : sequence of str
        Labels, best (or most important) first.
    highlight : int, default=MAX_COLOURED
        How many get a colour (at most :data:`MAX_COLOURED`).

    Returns
    -------
    dict
        ``label -> {"color", "linewidth", "zorder", "label"}``; the grey ones carry no
        legend label except the first, which says how many there are.
    """
    highlight = max(0, min(int(highlight), MAX_COLOURED))
    styles, rest = {}, len(ranked) - highlight
    for k, label in enumerate(ranked):
        if k < highlight:
            styles[label] = {"color": PALETTE[k], "linewidth": 1.8, "zorder": 3,
                             "label": str(label)}
        else:
            styles[label] = {"color": GREY, "linewidth": 0.9, "zorder": 2,
                             "label": (f"{rest} other{'s' * (rest > 1)}" if k == highlight
                                       else "_nolegend_")}
    return styles


def _present(styles: dict, labels) -> dict:
    """``styles`` restricted to ``labels``, the grey legend entry counting those present; a
    label without a style takes a colour that no other has (grey once none is left)."""
    kept = {k: dict(v) for k, v in styles.items() if k in set(labels)}
    missing = [k for k in labels if k not in kept]
    free = [c for c in PALETTE if c not in {v.get("color") for v in kept.values()}]
    for n, k in enumerate(missing):
        kept[k] = ({"color": free[n], "linewidth": 1.8, "zorder": 3, "label": str(k)}
                   if n < len(free) else {"color": GREY, "linewidth": 0.9, "zorder": 2})
    grey = [k for k, v in kept.items() if v["color"] == GREY]
    for n, k in enumerate(grey):
        kept[k]["label"] = (f"{len(grey)} other{'s' * (len(grey) > 1)}" if n == 0
                            else "_nolegend_")
    return kept


def legend_outside(ax, *, handles=None, labels=None, **kwargs):
    """Put the legend of ``ax`` right of its data area (constrained layout makes room).

    ``handles`` and ``labels`` default to the labelled artists of ``ax``; other keywords
    go to :meth:`matplotlib.axes.Axes.legend`. Returns the legend, or None when there is
    nothing to label.
    """
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    options = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0,
               "frameon": False, "fontsize": "small"}
    options.update(kwargs)
    return ax.legend(handles, labels, **options)


def new_figure(nrows: int = 1, ncols: int = 1, *, panel=(4.6, 3.4), legend_width=0.0,
               **subplots_kw):
    """A pyplot-free Figure with constrained layout and a grid of Axes.

    Parameters
    ----------
    nrows, ncols : int
        The grid of panels.
    panel : (float, float)
        Width and height of one panel in inches.
    legend_width : float
        Extra inches of width for legends outside the axes.
    **subplots_kw
        Passed to :meth:`matplotlib.figure.Figure.subplots` (``sharey`` ...).

    Returns
    -------
    (Figure, ndarray of Axes)
        The Axes as a 2-D array (``squeeze=False``).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(panel[0] * ncols + legend_width, panel[1] * nrows),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **subplots_kw)
    return fig, axes


def save_figure(fig, path, *, dpi=110, palette_colours=None) -> Path:
    """Save ``fig`` as a PNG, tight around everything drawn (legends outside included).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or Path
    dpi : int, default=110
    palette_colours : int, optional
        Quantise to a palette of this many colours (smaller files for the docs); needs
        Pillow, which matplotlib depends on.

    Returns
    -------
    Path
        The file written.
    """
    import io

    path = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=0.1)
    data = buffer.getvalue()
    if palette_colours:
        try:
            from PIL import Image
        except ImportError:  # keep the plain PNG
            pass
        else:
            buffer.seek(0)
            image = Image.open(buffer).convert("RGB")
            out = io.BytesIO()
            image.quantize(colors=palette_colours,
                           method=Image.Quantize.FASTOCTREE).save(out, format="png",
                                                                  optimize=True)
            data = out.getvalue()
    return write_atomic(path, data)


def _is_grey(colour) -> bool:
    from matplotlib.colors import to_rgba

    r, g, b, a = to_rgba(colour)
    return a == 0 or (max(r, g, b) - min(r, g, b) < 0.02 and r > 0.45)


def _coloured_series(ax) -> int:
    """How many distinct non-grey colours the visible lines of ``ax`` have."""
    colours = set()
    for line in ax.get_lines():
        if line.get_visible() and not _is_grey(line.get_color()):
            colours.add(tuple(round(c, 3) for c in _rgb(line.get_color())))
    return len(colours)


def _rgb(colour):
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


def figure_problems(fig, *, max_coloured: int = MAX_COLOURED) -> list[str]:
    """What makes a drawn figure hard to read, by the rules of this module (empty: none).

    Checks, with the renderer's window extents: every legend lies inside the figure and
    overlaps no Axes' data area; every Axes has at most ``max_coloured`` distinct
    non-grey line colours, a title (its own or the figure's) and labelled axes.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    max_coloured : int, default=MAX_COLOURED

    Returns
    -------
    list of str
    """
    if not hasattr(fig.canvas, "get_renderer"):  # a pyplot-free Figure: draw it with Agg
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()  # constrained layout runs here
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    legends = [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    legends += list(fig.legends)
    problems = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        name = "legend " + repr([t.get_text() for t in legend.get_texts()][:3])
        if (box.x0 < frame.x0 - 1 or box.y0 < frame.y0 - 1 or box.x1 > frame.x1 + 1
                or box.y1 > frame.y1 + 1):
            problems.append(f"{name} is cut by the figure's edge")
        for k, ax in enumerate(axes):
            if box.overlaps(ax.get_window_extent(renderer)):
                problems.append(f"{name} covers the data area of axes {k}")
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    for k, ax in enumerate(axes):
        coloured = _coloured_series(ax)
        if coloured > max_coloured:
            problems.append(f"axes {k} draws {coloured} coloured series (> {max_coloured})")
        if not (ax.get_title() or suptitle):
            problems.append(f"axes {k} has no title")
        shared = ax.get_shared_y_axes().get_siblings(ax)
        if not ax.get_xlabel() or not any(a.get_ylabel() for a in shared):
            problems.append(f"axes {k} has an unlabelled axis")
    return problems
