"""ROC curves, convergence curves and AUC-versus-hyperparameter plots.

Styled by :mod:`aucopt.plotting._style`: the best few series in colour, the rest grey,
legends outside the axes.

matplotlib (the ``plot`` extra) is imported inside the functions only, so importing this
module never needs it. Every function draws on ``ax`` (a new figure's Axes when ``None``)
and returns that Axes; none calls ``plt.show``, saves a file or changes global styles.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real

import numpy as np

from ..metrics import auc_from_curve, roc_auc_score, roc_curve
from ._style import GREY, MAX_COLOURED, _is_grey, _present, legend_outside, series_styles

__all__ = ["plot_auc_vs_param", "plot_convergence", "plot_roc"]

_BAND_ALPHA = 0.2


def _axes(ax):
    """Return ``ax``, or the Axes of a new figure; fail clearly without matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "aucopt.plotting needs matplotlib, which is not installed. "
            "Install it with `pip install aucopt[plot]`."
        ) from exc
    if ax is None:
        # constrained layout and room on the right for the legend outside the axes
        _, ax = plt.subplots(figsize=(8.0, 4.8), layout="constrained")
    return ax


def _check_mapping(curves, what):
    if not isinstance(curves, Mapping):
        raise TypeError(
            f"curves must be a mapping label -> {what}, got {type(curves).__name__}. "
            "Pass e.g. a dict."
        )
    if len(curves) == 0:
        raise ValueError("curves is empty; pass at least one label -> data entry.")


def _vector(values, name, label=None):
    arr = np.asarray(values, dtype=np.float64)
    where = f" of {label!r}" if label is not None else ""
    if arr.ndim != 1:
        raise ValueError(f"{name}{where} must be 1-D, got shape {arr.shape}.")
    return arr


def _same_length(arrays, names, label=None):
    lengths = [a.shape[0] for a in arrays]
    if len(set(lengths)) > 1:
        where = f" of {label!r}" if label is not None else ""
        pairs = ", ".join(f"{n}: {k}" for n, k in zip(names, lengths))
        raise ValueError(f"The arrays{where} differ in length ({pairs}); they must match.")


def plot_roc(curves, *, ax=None, title=None, from_scores=False, pos_label=None,
             highlight=MAX_COLOURED, fpr_max=None, styles=None, legend=True, **curve_kw):
    r"""Plot ROC curves, each labelled with its AUC, the best few in colour, and the chance line.

    Each curve is the polyline through :math:`(\mathrm{FPR}_k, \mathrm{TPR}_k)`; its
    legend entry shows :math:`\mathrm{AUC} = \sum_k (x_{k+1} - x_k)(y_k + y_{k+1})/2`
    (equal to :func:`aucopt.metrics.roc_auc_score` for curves from scores). The curves
    are ranked by AUC: the first ``highlight`` get distinct colours, the others are drawn
    thin and grey behind them (:mod:`aucopt.plotting` style). The legend sits right of
    the axes.

    Parameters
    ----------
    curves : mapping of str to tuple of two array-likes
        ``label -> (fpr, tpr)``, or ``label -> (y_true, y_score)`` when
        ``from_scores=True``.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; ``None`` creates a new figure.
    title : str, default=None
        Axes title.
    from_scores : bool, default=False
        Read the tuples as ``(y_true, y_score)`` and compute each curve with
        :func:`aucopt.metrics.roc_curve` and its AUC with
        :func:`aucopt.metrics.roc_auc_score`.
    pos_label : int, float, bool, str or None, default=None
        Positive class when ``from_scores=True`` (``None``: the larger label).
    highlight : int, default=8
        How many of the best curves are drawn in colour.
    fpr_max : float, optional
        Show only false positive rates up to this value (the low false-positive region);
        the true positive rate axis is scaled to the curves there.
    styles : dict, optional
        ``label -> line properties`` from :func:`aucopt.plotting.series_styles`, to give a
        label the same colour in several figures (a label it lacks gets a colour of its
        own); overrides the ranking by AUC.
    legend : bool, default=True
        Draw the legend (outside the axes, on the right).
    **curve_kw
        Line properties passed to matplotlib's ``plot`` for every curve.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The Axes drawn on: one line per curve plus the chance line, and a legend.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError
        If ``curves`` is not a mapping.
    ValueError
        If ``curves`` is empty or an entry is not a pair of equal-length 1-D arrays, or
        ``fpr_max`` is not in (0, 1].
    """
    _check_mapping(curves, "(fpr, tpr)" if not from_scores else "(y_true, y_score)")
    if fpr_max is not None and (isinstance(fpr_max, bool) or not isinstance(fpr_max, Real)
                                or not 0.0 < fpr_max <= 1.0):
        raise ValueError(f"fpr_max must be a false positive rate in (0, 1], got {fpr_max!r}.")
    parsed = {}
    for label, data in curves.items():
        if not isinstance(data, tuple | list) or len(data) != 2:
            expected = "(y_true, y_score)" if from_scores else "(fpr, tpr)"
            raise ValueError(f"curves[{label!r}] must be a pair {expected}.")
        if from_scores:
            fpr, tpr, _ = roc_curve(data[0], data[1], pos_label=pos_label)
            area = roc_auc_score(data[0], data[1], pos_label=pos_label)
        else:
            fpr, tpr = _vector(data[0], "fpr", label), _vector(data[1], "tpr", label)
            _same_length([fpr, tpr], ["fpr", "tpr"], label)
            area = auc_from_curve(fpr, tpr)
        parsed[label] = (np.asarray(fpr, dtype=float), np.asarray(tpr, dtype=float), area)
    ax = _axes(ax)
    if styles is None:
        styles = series_styles(sorted(parsed, key=lambda k: -parsed[k][2]), highlight)
    styles = _present(styles, parsed)
    ranked = list(styles)
    for label in reversed(ranked):  # the best drawn last, on top
        fpr, tpr, area = parsed[label]
        style = dict(styles[label])
        if style["label"] == str(label):
            style["label"] = f"{label} (AUC = {area:.2f})"
        style.update(curve_kw)
        ax.plot(fpr, tpr, **style)
    ax.plot([0, 1], [0, 1], linestyle="--", color=GREY, linewidth=1, zorder=1,
            label="Chance level (AUC = 0.5)")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    if fpr_max is not None:
        ax.set_xlim(0, fpr_max)
        seen = [tpr[fpr <= fpr_max] for fpr, tpr, _ in parsed.values()]
        top = max((float(t.max()) for t in seen if t.size), default=1.0)
        ax.set_ylim(0, min(1.0, top * 1.05 + 0.02))
    else:
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_aspect("equal", adjustable="box")
    if title is not None:
        ax.set_title(title)
    if legend:
        _legend_by_rank(ax)
    return ax


def _legend_by_rank(ax):
    """The legend outside ``ax``, in the order the series were ranked (best first)."""
    handles, labels = ax.get_legend_handles_labels()
    order = list(range(len(handles)))
    chance = [k for k in order if labels[k].startswith("Chance")]
    grey = [k for k in order if k not in chance and _is_grey(handles[k].get_color())]
    coloured = [k for k in order if k not in chance and k not in grey][::-1]
    keep = coloured + grey + chance
    legend_outside(ax, handles=[handles[k] for k in keep], labels=[labels[k] for k in keep])


def plot_convergence(
    curves,
    *,
    ax=None,
    xlabel="samples seen",
    ylabel="test AUC",
    title=None,
    highlight=MAX_COLOURED,
    styles=None,
    legend=True,
    **line_kw,
):
    r"""Plot AUC against training progress, with an optional :math:`\pm` 1 std band.

    For each label draws the line :math:`(x_k, \overline{\mathrm{AUC}}_k)` and, when a
    standard deviation is given, the band
    :math:`\overline{\mathrm{AUC}}_k \pm \mathrm{std}_k` in the line's colour. The lines
    are ranked by their last AUC: the first ``highlight`` are drawn in colour, the others
    thin and grey (without bands); the legend sits right of the axes.

    Parameters
    ----------
    curves : mapping of str to tuple
        ``label -> (x, auc_values)`` or ``label -> (x, auc_values, auc_std)``, three or
        two 1-D arrays of the same length.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; ``None`` creates a new figure.
    xlabel : str, default="samples seen"
        x-axis label.
    ylabel : str, default="test AUC"
        y-axis label.
    title : str, default=None
        Axes title.
    highlight : int, default=8
        How many of the best lines are drawn in colour.
    styles : dict, optional
        ``label -> line properties`` from :func:`aucopt.plotting.series_styles`, to give a
        label the same colour in several panels (a label it lacks gets a colour of its
        own); overrides ``highlight``.
    legend : bool, default=True
        Draw the legend (outside the axes, on the right).
    **line_kw
        Line properties passed to matplotlib's ``plot`` for every line.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The Axes drawn on: one line per label, one shaded band per coloured label with a
        std, and a legend.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError
        If ``curves`` is not a mapping.
    ValueError
        If ``curves`` is empty or an entry is not 2 or 3 equal-length 1-D arrays.
    """
    _check_mapping(curves, "(x, auc_values[, auc_std])")
    parsed = {}
    for label, data in curves.items():
        if not isinstance(data, tuple | list) or len(data) not in (2, 3):
            raise ValueError(
                f"curves[{label!r}] must be (x, auc_values) or (x, auc_values, auc_std)."
            )
        names = ("x", "auc_values", "auc_std")[: len(data)]
        arrays = [_vector(a, n, label) for a, n in zip(data, names)]
        _same_length(arrays, names, label)
        parsed[label] = arrays
    ax = _axes(ax)
    if styles is None:
        last = {k: (a[1][-1] if a[1].size and np.isfinite(a[1][-1]) else -np.inf)
                for k, a in parsed.items()}
        styles = series_styles(sorted(parsed, key=lambda k: -last[k]), highlight)
    styles = _present(styles, parsed)
    for label in reversed(list(styles)):
        arrays = parsed[label]
        x, mean = arrays[0], arrays[1]
        style = {**styles[label], **line_kw}
        (line,) = ax.plot(x, mean, **style)
        if len(arrays) == 3 and not _is_grey(line.get_color()):
            std = arrays[2]
            ax.fill_between(
                x, mean - std, mean + std, color=line.get_color(), alpha=_BAND_ALPHA, linewidth=0
            )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    if legend:
        _legend_by_rank(ax)
    return ax


def plot_auc_vs_param(values, aucs, *, param, ax=None, stds=None, log=True, **line_kw):
    r"""Plot AUC against one hyperparameter, e.g. the result of a grid search.

    Draws the points :math:`(v_k, \mathrm{AUC}_k)` joined by a line (sorted by
    :math:`v`), with the band :math:`\mathrm{AUC}_k \pm \mathrm{std}_k` when ``stds`` is
    given, on a logarithmic x axis by default.

    Parameters
    ----------
    values : array-like of shape (k,)
        Hyperparameter values.
    aucs : array-like of shape (k,)
        AUC (e.g. mean cross-validated AUC) at each value.
    param : str
        Hyperparameter name, used as the x-axis label.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; ``None`` creates a new figure.
    stds : array-like of shape (k,), default=None
        Standard deviations of the AUCs; drawn as a shaded band.
    log : bool, default=True
        Use a logarithmic x axis (needs positive ``values``).
    **line_kw
        Line properties passed to matplotlib's ``plot``; a ``label`` adds a legend.

    Returns
    -------
    ax : matplotlib.axes.Axes
        The Axes drawn on: one line (with markers) and, with ``stds``, one band.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError
        If ``param`` is not a string.
    ValueError
        If the arrays are not 1-D of equal length, are empty, or ``log=True`` with a
        non-positive value.
    """
    if not isinstance(param, str):
        raise TypeError(f"param must be the hyperparameter's name (a str), got {param!r}.")
    x, y = _vector(values, "values"), _vector(aucs, "aucs")
    arrays, names = [x, y], ["values", "aucs"]
    if stds is not None:
        arrays.append(_vector(stds, "stds"))
        names.append("stds")
    _same_length(arrays, names)
    if x.shape[0] == 0:
        raise ValueError("values is empty; pass at least one hyperparameter value.")
    if log and np.any(x <= 0):
        raise ValueError(
            f"log=True needs positive values of {param!r}, got min {x.min()}. "
            "Pass log=False for a linear axis."
        )
    order = np.argsort(x, kind="stable")
    arrays = [a[order] for a in arrays]
    ax = _axes(ax)
    line_kw.setdefault("marker", "o")
    (line,) = ax.plot(arrays[0], arrays[1], **line_kw)
    if stds is not None:
        ax.fill_between(
            arrays[0],
            arrays[1] - arrays[2],
            arrays[1] + arrays[2],
            color=line.get_color(),
            alpha=_BAND_ALPHA,
            linewidth=0,
        )
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(param)
    ax.set_ylabel("AUC")
    if "label" in line_kw:
        legend_outside(ax)
    return ax
