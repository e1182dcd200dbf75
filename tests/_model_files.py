"""Helpers of the tests that edit saved model files on purpose.

A file written by :func:`aucopt.io.save` carries SHA-256 hashes binding its
``.json`` and ``.npz``; a test that edits one part to exercise a later check
re-signs the pair with :func:`resign` (what a deliberate forger would do), or
turns it into a format-version-1 file (written before the hashes) with
:func:`as_version_1`, to stand for a file of an earlier aucopt.
"""

import hashlib
import json
from pathlib import Path

import numpy as np

HASH_FIELDS = ("npz_sha256", "meta_sha256")


def meta_digest(meta: dict) -> str:
    """The documented ``meta_sha256``: SHA-256 of the compact, key-sorted JSON of the other
    fields (written out here rather than imported, so the tests pin the format)."""
    body = {k: v for k, v in meta.items() if k not in HASH_FIELDS}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
                          ).hexdigest()


__all__ = ["resign", "as_version_1", "read_pair", "write_pair", "holds_json_object",
           "changed"]


def _paths(base):
    base = Path(base)
    if base.suffix in (".json", ".npz"):
        base = base.with_suffix("")
    return base.with_name(base.name + ".json"), base.with_name(base.name + ".npz")


def resign(base, meta=None) -> None:
    """Recompute the hashes of the pair at ``base`` (after its files were edited)."""
    json_path, npz_path = _paths(base)
    meta = json.loads(json_path.read_text()) if meta is None else meta
    meta["npz_sha256"] = hashlib.sha256(npz_path.read_bytes()).hexdigest()
    meta["meta_sha256"] = meta_digest(meta)
    json_path.write_text(json.dumps(meta))


def as_version_1(base) -> None:
    """Make the pair at ``base`` a format-version-1 file: no hashes, no id in the ``.npz``."""
    json_path, npz_path = _paths(base)
    meta = json.loads(json_path.read_text())
    meta["format_version"] = 1
    for key in HASH_FIELDS:
        meta.pop(key, None)
    json_path.write_text(json.dumps(meta))
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files if not k.startswith("meta__")}
    np.savez(npz_path, **arrays)


def read_pair(base):
    """Return ``(meta, arrays)`` of the pair at ``base``."""
    json_path, npz_path = _paths(base)
    with np.load(npz_path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return json.loads(json_path.read_text()), arrays


def write_pair(base, meta, arrays, sign=True) -> None:
    """Write ``(meta, arrays)`` at ``base`` in place, re-signed unless ``sign`` is false."""
    json_path, npz_path = _paths(base)
    np.savez(npz_path, **arrays)
    json_path.write_text(json.dumps(meta))
    if sign:
        resign(base, meta)


def holds_json_object(base) -> bool:
    """Whether the ``.json`` at ``base`` parses to a JSON object."""
    try:
        return isinstance(json.loads(_paths(base)[0].read_bytes()), dict)
    except ValueError:
        return False


def changed(base, original) -> bool:
    """Whether the pair at ``base`` differs from ``original`` (``.npz`` bytes, JSON content)."""
    if _paths(base)[1].read_bytes() != _paths(original)[1].read_bytes():
        return True
    return not holds_json_object(base) or read_pair(base)[0] != read_pair(original)[0]
