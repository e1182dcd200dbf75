"""aucopt: AUC maximisation for large, imbalanced and streaming data."""

from ._version import __version__

__all__ = ["__version__"]
