"""The run manifest: versions, git hash, machine and BLAS settings of an experiment run."""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

__all__ = ["build_manifest", "config_text", "now", "resolved_params"]


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=5,
                          check=False)


def _git_hash() -> str | None:
    """The commit of aucopt's source checkout (``+dirty`` with local changes), else None.

    Only a git repository whose top level is the directory holding the ``aucopt``
    package is aucopt's own: an installed copy (in ``site-packages``, perhaps inside
    some project's repository) has no commit of its own and gets no stamp.
    """
    root = Path(__file__).resolve().parents[2]
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root:
            return None
        res = _git(root, "rev-parse", "HEAD")
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    return res.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("aucopt", "numpy", "scipy", "scikit-learn", "numba", "joblib", "threadpoolctl"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _blas() -> dict:
    env = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                          "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                                          "NUMBA_DISABLE_JIT")}
    try:
        from threadpoolctl import threadpool_info

        pools = [{k: p.get(k) for k in ("user_api", "internal_api", "version",
                                        "num_threads", "threading_layer")}
                 for p in threadpool_info()]
    except ImportError:
        pools = []
    return {"env": env, "threadpools": pools}


def _display_path(path) -> str:
    """Return a shipped config's path relative to the package's parent, other paths as given."""
    if not path:
        return path
    package = Path(__file__).resolve().parents[1]
    try:
        return str(Path(path).resolve().relative_to(package.parent))
    except ValueError:
        return str(path)


def config_text(config) -> tuple[str, str | None]:
    """The text of a config's file and its SHA-256 (``("", None)`` for a config built in memory).

    Returns
    -------
    (text, sha256) : tuple
    """
    text = Path(config.path).read_text(encoding="utf-8") if config.path else ""
    return text, hashlib.sha256(text.encode()).hexdigest() if text else None


def resolved_params(entry, registered) -> dict:
    """Return ``{registry id: {name: value}}``: the hyperparameters each estimator of a
    config's column starts from (the id's defaults under the config's ``params``), without
    the names its grid searches and the seed, as plain JSON values.

    The manifest keeps them so that a later version can be checked to resolve the same
    config to the same values (a changed default would silently change a rerun's table).
    """
    from .._api import make
    from ._values import plain

    out = {}
    for aid in sorted({entry.id, *entry.id_by_dataset.values()} & set(registered)):
        try:
            values = make(aid, **entry.params).get_params(deep=False)
        except (TypeError, ValueError):  # the run reports it in the column's cells
            continue
        out[aid] = {k: plain(v) for k, v in sorted(values.items())
                    if k not in entry.grid and k != "random_state"}
    return out


def invocations(previous: dict, manifest: dict, cells: int) -> list:
    """Return the invocations that wrote a run directory's cells, oldest first.

    Each is ``{"git", "started", "cells"}`` (``cells``: how many it ran). A resumed run
    keeps the cells of earlier invocations, which may come from other commits; a
    ``previous`` manifest without the list (an older run) counts as one invocation.
    """
    earlier = previous.get("invocations")
    if earlier is None:
        earlier = [{"git": previous.get("git"), "started": previous.get("started"),
                    "cells": previous.get("summary", {}).get("run")}] if previous else []
    return [*earlier, {"git": manifest["git"], "started": manifest["started"], "cells": cells}]


def commits_line(manifest: dict) -> str | None:
    """Return a report line naming the commits whose invocations ran cells, when there is
    more than one (None otherwise)."""
    ran = [i for i in manifest.get("invocations", []) if i.get("cells") != 0]
    commits = list(dict.fromkeys(str(i.get("git")) for i in ran))
    if len(commits) < 2:
        return None
    parts = [f"{i.get('git')} ({i.get('cells', '?')} cells, started {i.get('started')})"
             for i in ran]
    return ("Resumed run: its cells were computed by invocations at different commits: "
            + "; ".join(parts) + ".")


def build_manifest(config, options, protocol, fingerprint, data_records, algorithms, registered,
              substitutions, started) -> dict:
    text, sha256 = config_text(config)
    return {
        "config": config.id,
        "title": config.title,
        "config_path": _display_path(config.path),
        "config_sha256": sha256,
        "config_toml": text,
        "fingerprint": fingerprint,
        "mode": "smoke" if options.smoke else "full",
        "options": {k: v for k, v in asdict(options).items() if k != "progress"},
        "protocol": asdict(protocol),
        "seeds": {"splits_and_estimators": f"seed + repeat, seed = {protocol.seed}",
                  "binarize": protocol.binarize_seed},
        "datasets": data_records,
        "substitutions": substitutions,
        "algorithms": {a.key: {"id": a.id, "id_by_dataset": a.id_by_dataset,
                               "registered": a.id in registered, "params": a.params,
                               "grid_sizes": {k: len(v) for k, v in a.grid.items()},
                               "max_train": a.max_train,
                               "resolved": resolved_params(a, registered)}
                       for a in algorithms},
        "versions": _versions(),
        "git": _git_hash(),
        "machine": {"platform": platform.platform(), "machine": platform.machine(),
                    "processor": platform.processor(), "cpu_count": os.cpu_count(),
                    "hostname": platform.node()},
        "blas": _blas(),
        "started": started,
        "argv": sys.argv,
        "time": time.time(),
    }
