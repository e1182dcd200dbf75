"""Command-line interface (typer): ``aucopt`` and ``python -m aucopt``."""

from . import _commands, _experiment, _stream  # noqa: F401  (register the commands on the app)
from ._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Run the ``aucopt`` command."""
    app()
