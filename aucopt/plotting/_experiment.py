"""Experiment figures: convergence curves and AUC-versus-hyperparameter panels as PNG files.

The experiments layer computes the rows (:func:`aucopt.experiments.make_figures`);
this module draws them, with :func:`plot_convergence` and :func:`plot_auc_vs_param`.
matplotlib is imported inside the function only.
"""

from __future__ import annotations

import logging
import textwrap

import numpy as np

from ._curves import plot_auc_vs_param, plot_convergence
from ._style import legend_outside, new_figure, save_figure, series_styles

__all__ = ["draw_experiment_figure"]

logger = logging.getLogger(__name__)

_OK, _ERROR = "ok", "error"  # the row statuses of aucopt.experiments
_PANEL = (4.6, 3.4)


def _mean_std(rows, group, field):
    """``{group value: (mean, std)}`` of ``field`` over the ok rows (std 0 for one run)."""
    out = {}
    for g in dict.fromkeys(r[group] for r in rows):
        vals = np.array([r[field] for r in rows if r[group] == g], dtype=float)
        out[g] = (float(vals.mean()), float(vals.std(ddof=1)) if vals.size > 1 else 0.0)
    return out


def draw_experiment_figure(kind, rows, *, labels, param=None, title="", footer="",
                           path) -> bool:
    """Render the rows of one experiment figure as a PNG file.

    This is the ``draw`` callback of :func:`aucopt.experiments.make_figures`
    (``aucopt experiment figures`` passes it): one panel per dataset, or two per
    dataset (AUC against samples seen and against seconds) for convergence curves.

    Parameters
    ----------
    kind : {"convergence", "auc-vs-param"}
        The figure kind.
    rows : list of dict
        Tidy rows of :func:`aucopt.experiments.make_figures`; rows whose
        ``status`` is not ``"ok"`` are left out (failed ones are marked on
        AUC-vs-parameter panels).
    labels : dict
        Display names of the algorithm keys and datasets.
    param : str, optional
        The varied hyperparameter (``kind="auc-vs-param"``).
    title, footer : str
        Text above the panels (the footer says how the numbers were made).
    path : str or Path
        PNG file to write (80 dpi, 128-colour palette when Pillow is present).

    Returns
    -------
    bool
        False when no row succeeded (nothing is written).
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError("Drawing experiment figures needs matplotlib, which is not "
                          "installed. Install it with `pip install aucopt[plot]`.") from exc

    ok = [r for r in rows if r.get("status") == _OK]
    names = list(dict.fromkeys(r["dataset"] for r in ok))
    if not names:
        logger.warning("%s: no successful run; no PNG written.", title)
        return False
    convergence = kind == "convergence"
    nrows, ncols = (len(names), 2) if convergence else (1, len(names))
    fig, axes = new_figure(nrows, ncols, panel=_PANEL, legend_width=2.2 if convergence else 0)
    for i, name in enumerate(names):
        here = [r for r in ok if r["dataset"] == name]
        if convergence:
            _draw_curves(axes[i], here, labels, labels[name])
        else:
            _draw_param(axes[0, i], here, rows, param, name)
            axes[0, i].set_title(labels[name])
    width = int(60 * ncols)
    fig.suptitle("\n".join(textwrap.wrap(title, width)
                           + textwrap.wrap(footer, width)), fontsize=9)
    # 80 dpi, 128-colour palette: a quarter of the RGBA size, so that the docs stay small
    save_figure(fig, path, dpi=80, palette_colours=128)
    return True


def _draw_curves(row, here, labels, title) -> None:
    """AUC against samples seen (``row[0]``) and seconds (``row[1]``), one line per column.

    The y axis starts at the lowest mean - std after the first quarter of every curve
    (less a margin), so that the differences at convergence stay visible; the early points
    below it (e.g. AUC 0.5 of FSAUC's zero model before its first stage ends) are cut
    and named in the panel.
    """
    curves, cut, floor, last = {"samples": {}, "seconds": {}}, [], [], {}
    for key in dict.fromkeys(r["algorithm"] for r in here):
        mine = [r for r in here if r["algorithm"] == key]
        auc = _mean_std(mine, "point", "auc")
        means, stds = (np.array(v) for v in zip(*auc.values()))
        floor.append((means - stds)[len(means) // 4:].min())
        label = labels.get(key, key)
        last[label] = means[-1]
        for axis in curves:
            x = _mean_std(mine, "point", axis)
            curves[axis][label] = ([x[p][0] for p in auc], means, stds)
    top = max((c[1] + c[2]).max() for c in curves["samples"].values())
    low = min(floor) - 0.25 * max(top - min(floor), 0.004)
    for label, (_, means, _) in curves["samples"].items():
        if np.any(means < low):
            cut.append(f"{label} {int(np.sum(means < low))} (min {means.min():.3f})")
    styles = series_styles(sorted(last, key=lambda k: -last[k]))  # same colours both panels
    for ax, axis in zip(row, curves):
        plot_convergence(curves[axis], ax=ax, title=title, styles=styles,
                         legend=axis == "seconds",
                         xlabel="training samples seen" if axis == "samples"
                         else "training time (s, partial_fit, cumulative)")
        if cut:
            ax.set_ylim(low, top + 0.1 * (top - low))
            ax.text(0.02, 0.02, "\n".join(textwrap.wrap("points below the axis: " +
                                                        ", ".join(cut), 45)),
                    transform=ax.transAxes, fontsize=7, va="bottom")


def _draw_param(ax, here, rows, param, dataset) -> None:
    """Mean test AUC (+-1 std) against the values of ``param``; failures marked."""
    summary = _mean_std(here, "value", "auc")
    values = np.array(list(summary), dtype=float)
    log = bool(values.min() > 0 and values.max() / values.min() >= 16)
    plot_auc_vs_param(values, [m for m, _ in summary.values()], param=param, ax=ax,
                      stds=[s for _, s in summary.values()], log=log)
    if log and np.allclose(np.log2(values), np.round(np.log2(values))):
        ax.set_xscale("log", base=2)
    ax.set_ylabel("test AUC")
    _mark_failures(ax, rows, dataset, summary)


def _mark_failures(ax, rows, dataset, summary) -> None:
    """Mark failed runs (e.g. divergence): an x at the bottom where every run failed, a
    red ring around a point that averages only the runs that did not fail."""
    failed = {float(r["value"]) for r in rows if r["dataset"] == dataset
              and r.get("status") == _ERROR}
    drawn = {float(v): m for v, (m, _) in summary.items()}
    every = sorted(failed - set(drawn))
    some = sorted(failed & set(drawn))
    if every:
        ax.plot(every, [ax.get_ylim()[0]] * len(every), "x", color="red", clip_on=False,
                label="every run failed (diverged)")
    if some:
        ax.plot(some, [drawn[v] for v in some], "o", mfc="none", mec="red", ms=10,
                label="some runs failed: mean of the others")
    if every or some:
        legend_outside(ax)
