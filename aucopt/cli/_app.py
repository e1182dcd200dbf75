"""The typer application object, global options and error handling."""

from __future__ import annotations

import functools
import logging
import sys

import typer

app = typer.Typer(
    name="aucopt",
    help="AUC maximisation for large, imbalanced and streaming data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
datasets_app = typer.Typer(help="List, describe and fetch datasets.", no_args_is_help=True)
app.add_typer(datasets_app, name="datasets")


@app.callback()
def _main(
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, help="More log output."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
):
    """AUC maximisation for large, imbalanced and streaming data."""
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr, force=True)
    if verbose == 0 and not quiet:
        logging.getLogger("aucopt").setLevel(logging.WARNING)


def friendly_errors(func):
    """Turn library errors into a one-line message and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (ValueError, TypeError, OSError, KeyError, ImportError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc

    return wrapper


def split_list(value: str | None) -> list[str] | None:
    """Split a comma-separated option value."""
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]
