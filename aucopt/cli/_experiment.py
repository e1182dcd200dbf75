"""``aucopt experiment list | run | report | figures``: the paper-table reproductions."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, friendly_errors, split_list

experiment_app = typer.Typer(help="Reproduce the papers' tables and figures: list, run, report, "
                                  "figures.",
                             no_args_is_help=True)
app.add_typer(experiment_app, name="experiment")


@experiment_app.command("list")
@friendly_errors
def list_command():
    """Config ids (one per reproduced paper table) with their size and what can run now."""
    from .._api import list_algorithms
    from ..experiments import list_configs, load_config

    registered = set(list_algorithms())
    typer.echo(f"{'id':<17} {'datasets':>8} {'algorithms':>10} {'registered':>10} "
               f"{'published':>9}  title")
    for cid in list_configs():
        cfg = load_config(cid)
        ids = {a.id_for(d.name) for a in cfg.algorithms for d in cfg.datasets}
        typer.echo(f"{cid:<17} {len(cfg.datasets):>8} {len(cfg.algorithms):>10} "
                   f"{len(ids & registered):>5}/{len(ids):<4} {len(cfg.published_cells()):>9}  "
                   f"{cfg.title}")


@experiment_app.command("run")
@friendly_errors
def run_command(
    config: str = typer.Argument(..., help="Config id (see 'aucopt experiment list'), a TOML "
                                            "path, or 'all'."),
    out: Path = typer.Option(..., "--out", file_okay=False,
                             help="Output directory (reuse it to resume)."),
    smoke: bool = typer.Option(False, "--smoke", help="Tiny offline run: bundled german.numer "
                                                      "and synthetic stand-ins, tiny grids."),
    datasets: str = typer.Option(None, help="Comma-separated dataset names (default: all)."),
    algorithms: str = typer.Option(None, help="Comma-separated algorithm keys (default: all)."),
    repeats: int = typer.Option(None, min=1, help="Override the protocol's repeats."),
    folds: int = typer.Option(None, min=2, help="Override the protocol's outer folds."),
    seed: int = typer.Option(None, help="Override the config's base seed."),
    inner_folds: int = typer.Option(None, "--inner-folds", min=2,
                                    help="Override the folds of the inner grid search "
                                         "(a reduced protocol)."),
    max_grid_points: int = typer.Option(None, "--max-grid-points", min=1,
                                        help="Reduced grid: keep at most N values of every "
                                             "grid parameter, evenly spaced over the paper's "
                                             "range (both ends kept); recorded in the "
                                             "manifest."),
    n_jobs: int = typer.Option(1, "--n-jobs", help="Parallel workers over cells (joblib)."),
    strict: bool = typer.Option(False, help="Exit with 1 if any cell failed."),
):
    """Run (or resume) one config, or every config with 'all'; writes CSV, manifest, report."""
    from ..experiments import list_configs, run_experiment

    ids = list_configs() if config == "all" else [config]
    failed = 0
    for cid in ids:
        target = out / cid if config == "all" else out
        summary = run_experiment(cid, target, smoke=smoke, datasets=split_list(datasets),
                                 algorithms=split_list(algorithms), repeats=repeats,
                                 folds=folds, seed=seed, inner_folds=inner_folds,
                                 max_grid_points=max_grid_points, n_jobs=n_jobs)
        failed += summary["errors"]
        _print_summary(cid, summary)
    if strict and failed:
        typer.echo(f"error: {failed} cell(s) failed (see results.csv / report.md).", err=True)
        raise typer.Exit(1)


def _print_summary(cid, s):
    from ..experiments._report import not_selected_why

    typer.echo(f"{cid}: {s['cells']} cells: {s['run']} run, {s['skipped']} already done; "
               f"{s['ok']} ok, {s['errors']} failed -> {s['out']}")
    for sub in s["substitutions"]:
        typer.echo(f"  smoke substitution: {sub}")
    skipped = s["not_selected"]
    for kind in ("datasets", "algorithms"):
        if skipped[kind]:
            typer.echo(f"  not run ({not_selected_why(skipped, kind)}): "
                       f"{', '.join(skipped[kind])}")
    if s["not_available"]:
        typer.echo(f"  not available (not registered yet): {', '.join(s['not_available'])}")
    if s["unavailable"]:
        typer.echo(f"  datasets that could not be had: {', '.join(s['unavailable'])} "
                   "(see report.md)")
    typer.echo(f"  report: {Path(s['out']) / 'report.md'}")


@experiment_app.command("report")
@friendly_errors
def report_command(
    directory: Path = typer.Argument(..., help="A run directory, or a directory of runs."),
    fmt: str = typer.Option("md", "--format", help="md or csv."),
    output: Path = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
):
    """Ours vs published: Markdown tables (t-test marks, win/tie/loss) or CSV."""
    from ..experiments import build_report
    from ..utils._atomic import write_atomic

    if fmt not in ("md", "csv"):
        raise typer.BadParameter(f"--format must be md or csv, got {fmt!r}.")
    text = build_report(directory, fmt)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomic(output, text)
        typer.echo(f"wrote {output}")


@experiment_app.command("figures")
@friendly_errors
def figures_command(
    config: str = typer.Argument(..., help="Config id, a TOML path, or 'all' (every config "
                                            r"with a [\[figures]] table)."),  # \[: no markup
    out: Path = typer.Option(..., "--out", file_okay=False,
                             help="Output directory: <config>-<figure>.png/.csv "
                                  "and <config>-<figure>.json."),
    figures: str = typer.Option(None, help="Comma-separated figure names (default: all)."),
    smoke: bool = typer.Option(False, "--smoke", help="Tiny offline run (stand-in data, tiny "
                                                      "grids, few points)."),
    datasets: str = typer.Option(None, help="Comma-separated datasets (replace every figure's "
                                            "datasets)."),
    repeats: int = typer.Option(None, min=1, help="Outer repeats (default: 1 for k-fold "
                                                  "protocols, else the protocol's)."),
    folds: int = typer.Option(None, min=2, help="Override the protocol's outer folds."),
    inner_folds: int = typer.Option(None, "--inner-folds", min=2,
                                    help="Folds of the inner grid search."),
    max_grid_points: int = typer.Option(None, "--max-grid-points", min=1,
                                        help="Thin the tuned grids to at most N values (the "
                                             "varied parameter keeps all its values)."),
    n_jobs: int = typer.Option(1, "--n-jobs", help="Parallel workers (joblib)."),
):
    """Draw the papers' figures a config declares: convergence curves, AUC vs a parameter."""
    from ..experiments import list_configs, load_config, make_figures
    from ..plotting import draw_experiment_figure

    ids = ([c for c in list_configs() if load_config(c).figures] if config == "all"
           else [config])
    for cid in ids:
        cfg = load_config(cid)
        summaries = make_figures(cfg, out, names=split_list(figures), smoke=smoke,
                                 datasets=split_list(datasets), repeats=repeats, folds=folds,
                                 inner_folds=inner_folds, max_grid_points=max_grid_points,
                                 n_jobs=n_jobs, draw=draw_experiment_figure)
        for s in summaries:
            where = s["png"] or "no PNG (nothing ran)"
            typer.echo(f"{cfg.id} {s['name']}: {s['runs']} runs, {s['rows']} rows, "
                       f"{s['errors']} failed -> {where}, {s['csv']}")
