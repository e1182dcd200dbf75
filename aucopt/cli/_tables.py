"""Algorithm tables generated from the registry (CLI and README).

Building them imports the registry and the estimators (scikit-learn, scipy, numba: about
2 s in a fresh process), so ``aucopt algorithms`` reads them from a small cache stamped
with the package's sources (:func:`cached_tables`): the command then loads nothing of the
algorithms, until a source file changes. The cache is kept beside the command line's
bytecode (``aucopt/cli/__pycache__``) when that is writable, else in aucopt's cache
directory (``$AUCOPT_DATA`` or ``~/.cache/aucopt``, folder ``tables``); ``aucopt warmup``
fills it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from .._config import cache_home

logger = logging.getLogger(__name__)

PACKAGE = Path(__file__).resolve().parents[1]
KEEP = 4  # stamped tables kept per folder (other installs' or older sources')


def source_stamp(root: Path = PACKAGE) -> str:
    """Return a stamp of the sources under ``root``: a SHA-256 of its path and of the
    relative path, size and modification time of every ``.py`` file (``__pycache__``
    skipped), as Python stamps its bytecode."""
    digest = hashlib.sha256(str(root).encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            stat = os.stat(path)
            digest.update(f"{os.path.relpath(path, root)}\0{stat.st_size}\0"
                          f"{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:32]


def cache_folders() -> list[Path]:
    """Return the folders where the tables are looked for, and stored in the first writable."""
    return [PACKAGE / "cli" / "__pycache__", cache_home() / "tables"]


def cached_tables(folders: list[Path] | None = None, stamp: str | None = None) -> dict:
    """Return the tables of ``aucopt algorithms`` (``text``, ``markdown``, and ``params``:
    each id's hyperparameter text), read from the cache when it holds those of the current
    sources, else built from the registry and stored (a failed store is logged, not raised).
    """
    folders = cache_folders() if folders is None else folders
    stamp = source_stamp() if stamp is None else stamp
    name = f"algorithms-{stamp}.json"
    for folder in folders:
        try:
            tables = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if _complete(tables, stamp):
            return tables
    tables = build_tables()
    tables["stamp"] = stamp
    for folder in folders:
        if _store(folder, name, tables):
            break
    return tables


def _complete(tables, stamp: str) -> bool:
    """Whether ``tables`` (a file's JSON) are whole tables of the sources of ``stamp``."""
    return (isinstance(tables, dict) and tables.get("stamp") == stamp
            and isinstance(tables.get("text"), str) and isinstance(tables.get("markdown"), str)
            and isinstance(tables.get("params"), dict))


def build_tables() -> dict:
    """Return the tables of ``aucopt algorithms`` built from the registry."""
    from .._api import list_algorithms

    return {"text": algorithms_text(), "markdown": algorithms_markdown(),
            "params": {a: hyperparameters_text(a) for a in list_algorithms()}}


def _store(folder: Path, name: str, tables: dict) -> bool:
    """Write ``tables`` to ``folder / name`` atomically and drop the folder's older tables
    beyond ``KEEP``; return whether it was written."""
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=".algorithms-", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(tables, out)
        os.replace(tmp, folder / name)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        logger.debug("the algorithm tables were not cached in %s (%s)", folder, exc)
        return False
    old = sorted(folder.glob("algorithms-*.json"), key=_mtime, reverse=True)[KEEP:]
    for path in old:
        with contextlib.suppress(OSError):
            path.unlink()
    return True


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _rows():
    from .._api import algorithm_info, list_algorithms

    for algorithm_id in list_algorithms():
        info = algorithm_info(algorithm_id)
        yield info


def algorithms_markdown() -> str:
    """Return the Markdown table of registered algorithms (as in the README)."""
    lines = ["| id | estimator | streaming | sparse input | memory | source |",
             "| --- | --- | --- | --- | --- | --- |"]
    for info in _rows():
        lines.append(
            f"| `{info['id']}` | `{info['class'].__name__}` | "
            f"{'yes' if info['streaming'] else 'no'} | {'yes' if info['sparse'] else 'no'} | "
            f"{info['memory']} | {info['source']} |"
        )
    return "\n".join(lines)


def algorithms_text() -> str:
    """Return a plain-text table of registered algorithms."""
    lines = [f"{'id':<14} {'estimator':<22} {'streaming':<9} {'sparse':<6} memory"]
    for info in _rows():
        lines.append(f"{info['id']:<14} {info['class'].__name__:<22} "
                     f"{'yes' if info['streaming'] else 'no':<9} "
                     f"{'yes' if info['sparse'] else 'no':<6} {info['memory']}")
    return "\n".join(lines)


def hyperparameters_text(algorithm_id: str) -> str:
    """Return the declared hyperparameters of one algorithm: name, default, type, grids, doc."""
    import textwrap

    from .._api import algorithm_info

    info = algorithm_info(algorithm_id)
    lines = [f"{info['id']}: {info['name']} ({info['class'].__name__}), {info['source']}", ""]
    for p in info["params"]:
        lines.append(f"{p['name']} = {p['default']!r}    ({p['type']})")
        for key in ("grid", "quick_grid"):
            if p["name"] in info[key]:
                values = ", ".join(f"{v:g}" if isinstance(v, float) else str(v)
                                   for v in info[key][p["name"]])
                lines.append(f"    {key.replace('_', ' ')}: {values}")
        lines.extend(textwrap.wrap(p["doc"], 96, initial_indent="    ",
                                   subsequent_indent="    "))
    return "\n".join(lines)
