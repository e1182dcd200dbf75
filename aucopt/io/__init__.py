"""Model persistence: ``save`` / ``load`` as .npz + .json, no pickle."""

from ._persist import FORMAT_VERSION, load, save

__all__ = ["FORMAT_VERSION", "load", "save"]
