"""The typer application object, global options and error handling."""

from __future__ import annotations

import functools
import logging
import lzma
import sys
import warnings
import zlib

import click
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


def _print_version(value: bool) -> None:
    """``aucopt --version``: print the package version and stop."""
    if value:
        from .._version import __version__

        typer.echo(f"aucopt {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    verbose: int = typer.Option(
        0, "--verbose", "-v", count=True,
        help="Log aucopt's progress: -v at INFO (one line per pass of every fit), -vv at "
             "DEBUG. Give it before the command: aucopt -v fit ..."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only warnings and errors."),
    version: bool = typer.Option(False, "--version", help="Print aucopt's version and exit.",
                                 is_eager=True, callback=_print_version),
):
    """AUC maximisation for large, imbalanced and streaming data."""
    configure_logging(0 if quiet else verbose)


#: Estimator ``verbose`` level the commands pass on (set by ``-v``; 0 without it).
VERBOSITY = {"level": 0}


def configure_logging(verbose: int) -> None:
    """Send log records to stderr: aucopt's at the level ``-v`` asks for, others' warnings only.

    Other libraries (matplotlib, numba, joblib) stay at WARNING whatever ``-v`` says, so
    that ``-vv`` shows aucopt's debug lines and not matplotlib's font search.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr, force=True)
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    logging.getLogger("aucopt").setLevel(level)
    for name in ("matplotlib", "PIL", "numba", "fontTools"):
        logging.getLogger(name).setLevel(logging.WARNING)
    VERBOSITY["level"] = int(verbose)


# what a command may raise on bad input or a bad file: printed as one "error:" line
_EXPECTED = (ValueError, TypeError, OSError, KeyError, ImportError, EOFError, ArithmeticError,
             MemoryError, lzma.LZMAError, zlib.error)


# usage errors that click reports itself (exit code 2): click's own, and those of the copy of
# click that recent typer releases carry (typer.BadParameter derives from that one)
_CLICK_ERRORS = tuple({click.exceptions.ClickException,
                       *(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")})


def friendly_errors(func):
    """Turn every error into a one-line ``error: ...`` message on stderr and exit code 1.

    Never a traceback: the errors a command expects (bad input, files, parameters) print
    their message; any other exception prints its type too and logs the traceback at
    DEBUG level (``aucopt -vv ...`` shows it). Ctrl-C exits with 130.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            with warnings.catch_warnings():  # each warning once, as a log line
                warnings.showwarning = _log_warning
                return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, *_CLICK_ERRORS):
            raise
        except KeyboardInterrupt:
            typer.echo("error: interrupted", err=True)
            raise typer.Exit(130) from None
        except _EXPECTED as exc:
            typer.echo(f"error: {_one_line(exc)}", err=True)
            raise typer.Exit(1) from exc
        except Exception as exc:
            logging.getLogger("aucopt").debug("traceback of the error", exc_info=True)
            typer.echo(f"error: {type(exc).__name__}: {_one_line(exc)} (aucopt -vv ... logs the "
                       "traceback)", err=True)
            raise typer.Exit(1) from exc

    return wrapper


def _log_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Show a warning raised during a command as one log line on stderr (``WARNING aucopt:
    OrderedStreamWarning: ...``), without the source line Python's display adds."""
    logging.getLogger("aucopt").warning("%s: %s", category.__name__, message)


def _one_line(exc: BaseException) -> str:
    """Return the message of ``exc`` on one line (its type name if it has no message)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def split_list(value: str | None) -> list[str] | None:
    """Split a comma-separated option value."""
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]




def check_jobs_and_scheme(n_jobs: int, preprocess: str) -> None:
    """Refuse ``--n-jobs 0`` and an unknown ``--preprocess`` as usage errors, before any data
    is read or folder made."""
    from ..datasets import PREPROCESSING_SCHEMES

    if n_jobs == 0:
        raise typer.BadParameter("--n-jobs must be a number of processes (or -1: every core), "
                                 "not 0.")
    if preprocess not in PREPROCESSING_SCHEMES:
        raise typer.BadParameter(f"--preprocess must be one of {', '.join(PREPROCESSING_SCHEMES)}"
                                 f", got {preprocess!r}.")
