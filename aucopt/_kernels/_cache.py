"""Cache entries of the kernels that go stale with the files they import.

numba stamps a cached function with its own source file only. A kernel that calls or inlines
a function of another file keeps that function's old machine code after the other file
changes, as long as its own file does not: after a ``git checkout`` or in an editable
install, the fused row kernels of ``fused_rows.py`` went on running the univariate kernel of
before the logistic loss, and an online Uni-Log model learnt row by row with another loss,
silently. Here every kernel file's cache entries are stamped with a digest of the file and of
every file of this package it imports, directly or through others (``from .x import``,
``from . import x``): a change to any of them compiles the kernel again.

:func:`install` puts the locators first in numba's list, for the files of one directory
(this package's); each is numba's own locator for that place (``NUMBA_CACHE_DIR``, the
``__pycache__`` beside the sources, the user-wide cache of a read-only install) with this
stamp. ``NUMBA_CACHE_LOCATOR_CLASSES`` set by the user takes precedence, as numba's rule.
Where none of those places is writable (a read-only install and home directory, no
``NUMBA_CACHE_DIR``), numba would refuse to declare the kernels; the last locator then keeps
them in a private directory of this process (:func:`private_cache_dir`, removed at exit):
they are compiled in every process, and a warning names ``NUMBA_CACHE_DIR``.
"""

import atexit
import functools
import hashlib
import logging
import os
import re
import shutil
import tempfile
import warnings

from numba.core import caching

__all__ = ["dependency_stamp", "install", "locators", "private_cache_dir"]

logger = logging.getLogger(__name__)

_IMPORTS = re.compile(r"^\s*from \.(\w+) import|^\s*from \. import ([\w ,]+)", re.M)
_HERE = os.path.dirname(os.path.abspath(__file__))


def _key(path: str) -> tuple:
    """What identifies a file's version in this process: its path, mtime and size."""
    st = os.stat(path)
    return path, st.st_mtime_ns, st.st_size


@functools.cache
def _read(key: tuple) -> tuple[bytes, frozenset]:
    """Return the contents of the file of ``key`` and the files of its directory that it
    imports relatively."""
    path = key[0]
    with open(path, "rb") as handle:
        data = handle.read()
    folder, names = os.path.dirname(path), set()
    for module, listed in _IMPORTS.findall(data.decode("utf-8")):
        names.update([module] if module else (n.strip() for n in listed.split(",")))
    found = (os.path.join(folder, f"{name}.py") for name in names if name)
    return data, frozenset(f for f in found if os.path.isfile(f))


@functools.cache
def _digest(keys: tuple) -> bytes:
    digest = hashlib.sha256()
    for key in keys:
        digest.update(os.path.basename(key[0]).encode() + b"\0" + _read(key)[0] + b"\0")
    return digest.digest()


def dependency_stamp(path: str) -> bytes:
    """Return the SHA-256 of ``path`` and of every file it imports from its directory,
    directly or through others (in a fixed order: any change to any of them changes it)."""
    seen, todo = {}, [os.path.abspath(path)]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen[current] = key = _key(current)
            todo.extend(f for f in _read(key)[1] if f not in seen)
    return _digest(tuple(seen[name] for name in sorted(seen)))


def locators(folder: str) -> tuple[type, ...]:
    """Return numba's source-file locators (``NUMBA_CACHE_DIR``, in-tree, user-wide), each
    limited to the files of ``folder`` and stamping with :func:`dependency_stamp`."""
    folder = os.path.abspath(folder)

    class _Stamped:
        def get_source_stamp(self):
            return dependency_stamp(self._py_file)

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != folder:
                return None
            return super().from_function(py_func, py_file)

    bases = [_numba(name) for name in ("UserProvidedCacheLocator", "InTreeCacheLocator",
                                       "UserWideCacheLocator")]
    made = [type(f"Stamped{base.__name__.lstrip('_')}", (_Stamped, base), {"folder": folder})
            for base in bases]
    # the last resort, tried after the others: the user-wide rule in a private directory
    made.append(type("StampedPrivateCacheLocator", (made[-1],), {"__init__": _private_init}))
    return tuple(made)


@functools.cache
def private_cache_dir() -> str:
    """Return this process's private directory for compiled kernels (made on first use,
    readable by this user only, removed at exit): the cache of last resort."""
    path = tempfile.mkdtemp(prefix="aucopt-kernels-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    warnings.warn(
        "No writable cache for aucopt's compiled kernels (NUMBA_CACHE_DIR, the package's "
        "__pycache__, numba's user cache directory): they are compiled again in every "
        f"process and kept in {path} until this one exits. Set NUMBA_CACHE_DIR to a "
        "writable directory to keep them.", RuntimeWarning, stacklevel=2)
    return path


def _private_init(self, py_func, py_file):
    """The user-wide locator's attributes, with the cache in :func:`private_cache_dir`."""
    self._py_file = py_file
    self._lineno = py_func.__code__.co_firstlineno
    self._cache_path = os.path.join(private_cache_dir(),
                                    self.get_suitable_cache_subpath(py_file))


def _numba(name: str):
    """numba's caching class ``name`` (public since numba 0.60; ``_name`` before)."""
    found = getattr(caching, name, None) or getattr(caching, "_" + name, None)
    if found is None:
        raise AttributeError(f"numba.core.caching has no {name}")
    return found


def install(folder: str = _HERE) -> tuple[type, ...]:
    """Put :func:`locators` of ``folder`` first in numba's locator list (once per folder);
    return them."""
    try:
        classes = _numba("CacheImpl")._locator_classes
        made = locators(folder)
    except AttributeError as exc:  # another numba: its own stamps (only the function's file)
        logger.warning("aucopt's kernel cache stamps are not installed: %s", exc)
        return ()
    mine = [c for c in classes if getattr(c, "folder", None) == os.path.abspath(folder)]
    if mine:
        return tuple(mine)
    for cls in reversed(made):
        classes.insert(0, cls)
    return made
