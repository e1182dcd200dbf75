"""Imports go one way only (ARCHITECTURE.md section 2); this test walks them."""

import ast
from pathlib import Path

import aucopt

ROOT = Path(aucopt.__file__).parent

# layer -> the aucopt layers it may import (besides itself)
ALLOWED = {
    "_kernels": set(),
    "_version": set(),
    "_config": set(),
    "utils": {"_config"},
    "exceptions": {"utils"},
    "algorithms": {"_kernels", "utils", "exceptions", "_config"},
    "metrics": {"utils"},
    "datasets": {"utils", "_config"},
    "linear_model": {"algorithms", "_kernels", "utils", "metrics", "exceptions"},
    "kernel_model": {"algorithms", "_kernels", "utils", "metrics", "exceptions", "linear_model"},
    "_api": {"algorithms", "linear_model", "kernel_model"},
    "_warmup": {"_api", "algorithms", "_kernels", "utils"},  # (_kernels: where their cache is)
    "io": {"_api", "algorithms", "utils", "_version", "exceptions"},
    "model_selection": {"metrics", "datasets", "utils", "_api", "exceptions"},
    "experiments": {"linear_model", "metrics", "datasets", "model_selection", "io", "_api",
                    "utils"},
    "plotting": {"metrics", "utils"},
    "river": {"_api", "algorithms", "metrics", "utils"},
    "distributed": {"_api", "_warmup", "algorithms", "_kernels", "utils", "exceptions"},
    "cli": None,  # may import anything
    "__init__": {"_api", "_warmup", "_version", "algorithms", "linear_model", "kernel_model",
                 "metrics",
                 "datasets", "io", "model_selection",
                 "utils", "exceptions", "_config"},
    "__main__": {"cli"},
}
NOBODY_IMPORTS = {"cli", "plotting", "river"}


def _layer(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0].removesuffix(".py")


def _package(path: Path) -> str:
    return ".".join(("aucopt",) + path.relative_to(ROOT).parent.parts)


def _imported_layers(source: str, package: str):
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "aucopt" and len(parts) > 1:
                yield parts[1], node.lineno


def test_layers_import_one_way():
    errors = []
    for path in sorted(ROOT.rglob("*.py")):
        layer = _layer(path)
        allowed = ALLOWED.get(layer, "unknown")
        for target, line in _imported_layers(path.read_text(), _package(path)):
            if target == layer:
                continue
            if allowed == "unknown":
                errors.append(f"{path}: layer {layer!r} is not in the layer map")
                break
            if target in NOBODY_IMPORTS and layer != "__main__" and layer != "cli":
                errors.append(f"{path}:{line} imports {target!r}, which nothing may import")
            elif allowed is not None and target not in allowed:
                errors.append(f"{path}:{line}: {layer!r} may not import {target!r}")
    assert not errors, "\n".join(errors)


# the kernel modules allowed more:
# the BLAS bridge; the clock that compiled loops read for max_time (in object mode); the
# stamps of numba's cache entries (the kernel files read and hashed) and the cache of last
# resort (a private temporary directory, removed at exit, with a warning)
KERNEL_EXTRAS = {"_blas.py": {"ctypes", "llvmlite", "scipy"}, "_clock.py": {"math", "time"},
                 "_cache.py": {"atexit", "functools", "hashlib", "logging", "os", "re",
                               "shutil", "tempfile", "warnings"}}


def test_kernels_import_only_numpy_and_numba():
    for path in (ROOT / "_kernels").rglob("*.py"):
        extra = KERNEL_EXTRAS.get(path.name, set())
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module.split(".")[0]]
            else:
                continue
            allowed = {"numpy", "numba", "inspect", "types", "typing"} | extra  # typing: states
            assert set(mods) <= allowed, f"{path}: imports {mods}"


def test_the_layer_test_catches_a_wrong_way_import():
    """The walker must see a kernel importing the estimators (guards against a vacuous test)."""
    source = "import numpy\nfrom ..linear_model import SPAML2Classifier\nimport aucopt.cli\n"
    found = list(_imported_layers(source, "aucopt._kernels"))
    assert found == [("linear_model", 2), ("cli", 3)]
