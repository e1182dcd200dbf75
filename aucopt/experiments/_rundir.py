"""The files of a run directory, and when a rerun into it may resume it.

A run directory (``--out``) holds one run: ``manifest.json`` (its fingerprint,
the config's text and SHA-256, versions, ...) and ``cells.jsonl`` (the
finished cells). A rerun into the same directory resumes it, keeping the
finished cells, and may add to it: datasets and algorithms not run yet, and
more repeats. :func:`check_resume` refuses a rerun whose finished cells would
mean something else than it asks for: another protocol or reduced-protocol
option (the :func:`fingerprint`), another text of the config, or fewer repeats
than the directory already holds (the report would average them in).

JSON files are written atomically (:func:`write_json`): a write that fails (a
full disk) leaves the previous file whole, and :func:`read_manifest` names the
file and the fix when a manifest cannot be read.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..utils._atomic import write_atomic

__all__ = ["check_resume", "fingerprint", "read_cells", "read_manifest", "write_json"]

MANIFEST = "manifest.json"


def _start_over(out) -> str:
    return f"use a new --out directory, or delete {out} to start over"


def read_manifest(path) -> dict:
    """Read a run directory's ``manifest.json``.

    Parameters
    ----------
    path : str or Path
        The manifest file.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If the file is not a JSON object (cut short by a failed write, or edited);
        the message names the file and the fix.
    """
    path = Path(path)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        manifest = exc
    if not isinstance(manifest, dict):
        raise ValueError(f"{path} is not a readable run manifest ({manifest}): the run "
                         f"directory is damaged, so {_start_over(path.parent)}.")
    protocol = manifest.get("protocol")
    missing = [k for k in ("config_toml", "fingerprint") if k not in manifest] + (
        [f"protocol.{k}" for k in ("kind", "folds", "repeats") if k not in protocol]
        if isinstance(protocol, dict) else ["protocol"])
    if missing:
        raise ValueError(f"{path} lacks the field(s) {', '.join(missing)} that every run "
                         f"writes: the run directory is damaged, so "
                         f"{_start_over(path.parent)}.")
    return manifest


def write_json(path, data) -> Path:
    """Write ``data`` as indented JSON to ``path`` atomically (whole or not at all).

    Parameters
    ----------
    path : str or Path
    data : object
        JSON-serialisable; other values are written as ``str(value)``.

    Returns
    -------
    Path
    """
    return write_atomic(path, json.dumps(data, indent=2, default=str))


def read_cells(path: Path) -> list[dict]:
    """The rows of ``cells.jsonl`` (none if it does not exist); a line cut short is skipped."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by an interrupted run
                continue
    return rows


def fingerprint(config, protocol, options) -> dict:
    """What the finished cells of a run depend on, besides the config's text.

    The protocol (kind, folds, inner folds, split sizes and seeds), smoke mode, the
    partial-AUC bound and the reduced grid (``max_grid_points``). The repeats are not
    part of it: a run with more repeats extends a run with fewer (see :func:`check_resume`).

    Returns
    -------
    dict
    """
    out = {"config": config.id, "smoke": bool(options.smoke), "kind": protocol.kind,
           "folds": protocol.folds, "inner_folds": protocol.inner_folds,
           "test_size": protocol.test_size, "ratios": list(protocol.ratios),
           "seed": protocol.seed, "binarize_seed": protocol.binarize_seed}
    if protocol.max_fpr is not None:  # runs by partial AUC do not resume runs by AUC
        out["max_fpr"] = protocol.max_fpr
    if options.max_grid_points is not None and not options.smoke:
        out["max_grid_points"] = int(options.max_grid_points)
    return out


def check_resume(out, previous: dict, finished: list, *, fingerprint: dict,
                 config_sha256: str | None, repeats: int) -> None:
    """Refuse a rerun into ``out`` that would mix its finished cells into another run.

    Parameters
    ----------
    out : Path
        The run directory.
    previous : dict
        Its manifest (``{}``: none yet).
    finished : list of dict
        Its finished cells (rows with ``repeat``).
    fingerprint : dict
        The rerun's :func:`fingerprint`.
    config_sha256 : str or None
        SHA-256 of the rerun's config text (None: a config built in memory).
    repeats : int
        The rerun's repeats.

    Raises
    ------
    ValueError
        With what differs and the fix (a new ``--out``, or delete the old one).
    """
    if not previous:
        if finished:
            raise ValueError(f"{out} holds finished cells but no {MANIFEST}, so they cannot be "
                             f"matched to this run: {_start_over(out)}.")
        return
    old = previous.get("fingerprint")
    if old != fingerprint:
        raise ValueError(f"{out} holds results of a different run ({old}); this run is "
                         f"{fingerprint}: {_start_over(out)}.")
    old_sha = previous.get("config_sha256")
    if old_sha and config_sha256 and old_sha != config_sha256:
        where = previous.get("config_path") or previous.get("config")
        raise ValueError(f"{out} holds results of an earlier version of the config {where} "
                         f"(its text has changed since those cells ran): {_start_over(out)}.")
    held = max((int(r["repeat"]) for r in finished), default=-1) + 1
    if held > repeats:
        raise ValueError(f"{out} already holds {held} repeats of this run, more than the "
                         f"{repeats} asked for: ask for --repeats {held} or more to resume it, "
                         f"or {_start_over(out)}.")
