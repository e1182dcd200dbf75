"""``report.html``: the page a person opens after ``aucopt demo`` or ``aucopt compare``.

One self-contained HTML file beside the CSV, the Markdown table and the figures: what was
run, the results table (best AUC first, with the fit time), the figures (relative links, so
the directory can be moved or zipped), and the command that reruns it. No script, no
network: any browser opens it from disk.
"""

from __future__ import annotations

import html
from pathlib import Path

from ..utils._atomic import write_atomic


def ranked_by(max_fpr) -> str:
    """The name of what a comparison ranks by: ``AUC``, or ``pAUC@<max_fpr>`` (every digit)."""
    return "AUC" if max_fpr is None else f"pAUC@{max_fpr:.15g}"

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 70em; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.8em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:first-child td { font-weight: 600; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
pre { background: #f4f4f4; padding: 0.6em 1em; overflow-x: auto; }
"""

_CAPTIONS = {
    "roc.png": "ROC curves on the test part of the first fold: the whole curve (left) and "
               "the low false-positive region (right). The best algorithms by {ranked} are "
               "in colour, the others grey.",
    "convergence.png": "Test AUC against the training rows seen, for the algorithms that "
                       "learn incrementally (first fold).",
}


def _params(params: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items())


def write_html_report(path, *, title, description, summary, figures, command=None,
                      files=(), max_fpr=None) -> Path:
    """Write the HTML report of a comparison and return its path.

    Parameters
    ----------
    path : str or Path
        The file to write (``report.html``).
    title : str
        Page title and heading.
    description : str
        What was run (data, protocol, tuning, versions).
    summary : list of dict
        Rows with ``algorithm``, ``auc_mean``, ``auc_std``, ``fit_seconds`` and
        ``params``, in the order to show (best first).
    figures : list of Path
        PNG files in the same directory, shown in order.
    command : str, optional
        The command line that reruns the comparison.
    files : sequence of Path
        The other files written beside the report, listed with links.
    max_fpr : float, optional
        The rows are ranked by the partial AUC over FPR in [0, max_fpr] (their
        ``pauc_mean`` and ``pauc_std``, shown before the AUC).

    Returns
    -------
    Path
    """
    path = Path(path)
    esc = html.escape
    partial = max_fpr is not None
    rows = "\n".join(
        f"<tr><td class=num>{k}</td><td>{esc(r['algorithm'])}</td>"
        + (f"<td class=num>{r['pauc_mean']:.4f}</td><td class=num>{r['pauc_std']:.4f}</td>"
           if partial else "")
        + f"<td class=num>{r['auc_mean']:.4f}</td><td class=num>{r['auc_std']:.4f}</td>"
        f"<td class=num>{r['fit_seconds']:.4f}</td><td>{esc(_params(r['params']))}</td></tr>"
        for k, r in enumerate(summary, 1))
    ranked = ranked_by(max_fpr)
    images = "\n".join(
        f'<figure><img src="{esc(Path(f).name)}" alt="{esc(Path(f).stem)} figure">'
        f"<figcaption>{esc(_CAPTIONS.get(Path(f).name, '').format(ranked=ranked))}"
        "</figcaption></figure>"
        for f in figures)
    if not figures:
        images = ("<p>No figures: matplotlib is not installed "
                  "(<code>pip install 'aucopt[plot]'</code>).</p>")
    listed = "\n".join(f'<li><a href="{esc(Path(f).name)}">{esc(Path(f).name)}</a></li>'
                       for f in files)
    rerun = (f"<pre>{esc(command)}</pre>" if command else
             "<p>Rerun with the same command and options (the seed fixes the splits).</p>")
    partial_head = (f"<th>{ranked} mean</th><th>{ranked} std</th>"
                    if partial else "")
    partial_note = (f" {ranked}: the partial AUC over false-positive rates in "
                    f"[0, {max_fpr:.15g}], standardised (McClish) as scikit-learn's "
                    f"<code>roc_auc_score(max_fpr={max_fpr:.15g})</code>." if partial else "")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<h1>{esc(title)}</h1>
<p>{esc(description)}</p>
<h2>Results, best {ranked} first</h2>
<div class="scroll"><table>
<thead><tr><th>rank</th><th>algorithm</th>{partial_head}<th>AUC mean</th><th>AUC std</th>
<th>fit seconds</th><th>most chosen parameters</th></tr></thead>
<tbody>
{rows}
</tbody></table></div>
<p>AUC: area under the ROC curve on the held-out fold (mean and standard deviation over the
folds).{partial_note} Fit seconds: one refit on the training part, after the kernels were
compiled.</p>
<h2>Figures</h2>
{images}
<h2>How to rerun</h2>
{rerun}
<h2>Files</h2>
<ul>
{listed}
</ul>
</body>
</html>
"""
    return write_atomic(path, page)
