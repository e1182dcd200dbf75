"""numba's cache and the kernels' imports (:mod:`aucopt._kernels._cache`).

numba stamps a cached function with its own source file: a kernel calling a function of
another file kept the old machine code of that function once the other file changed (after a
``git checkout``, the fused row kernels ran the univariate kernel of before the logistic loss:
an online Uni-Log model learnt row by row with another loss). Each test process starts in a
new directory, so that numba's cache is the test's own.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aucopt._kernels import _cache, fused_rows, univariate

from ._child_env import child_env

HELPER = "from numba import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + {}\n"
USER = ("from numba import njit\n\nfrom .helper import f\n\n\n@njit(cache=True)\n"
        "def g(x):\n    return f(x)\n")


def _call(package: Path, stamped: bool) -> int:
    """``g(1)`` in a new process (numba's cache on disk), with or without the stamps."""
    install = f"install({str(package)!r})" if stamped else "pass"
    code = (f"import sys\nsys.path.insert(0, {str(package.parent)!r})\n"
            f"from aucopt._kernels._cache import install\n{install}\n"
            f"from {package.name}.user import g\nprint(g(1))\n")
    env = child_env()
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)  # the cache beside the package's sources
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


@pytest.mark.parametrize("stamped", [False, True])
def test_a_cached_caller_follows_a_changed_helper_only_with_the_stamps(tmp_path, stamped):
    package = tmp_path / f"kernels_{int(stamped)}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text(HELPER.format(1))
    (package / "user.py").write_text(USER)
    assert _call(package, stamped) == 2  # compiled and cached
    (package / "helper.py").write_text(HELPER.format(2))  # the caller's file unchanged
    # numba's own stamp keeps the caller's stale machine code; the stamps compile it again
    assert _call(package, stamped) == (3 if stamped else 2)
    assert (package / "__pycache__").is_dir()


def test_the_kernels_are_cached_with_the_stamps():
    for kernel in (fused_rows.univariate_row, univariate.univariate_epoch):
        locator = kernel._cache._impl._locator
        assert type(locator) in _cache.install()
        assert locator.get_source_stamp() == _cache.dependency_stamp(kernel.py_func.__code__
                                                                     .co_filename)


def test_a_stamp_changes_with_the_files_imported_and_only_with_them(tmp_path):
    """The stamp of ``fused_rows.py`` covers ``univariate.py`` (imported) and
    ``_checks.py`` (imported through it), not a file it does not import."""
    source = Path(_cache.__file__).parent
    copy = tmp_path / "kernels"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    fused = str(copy / "fused_rows.py")
    before = _cache.dependency_stamp(fused)
    assert before == _cache.dependency_stamp(str(source / "fused_rows.py"))  # contents only
    (copy / "mba.py").write_text((copy / "mba.py").read_text() + "\n# x\n")
    assert _cache.dependency_stamp(fused) == before  # not imported by fused_rows
    for name in ("univariate.py", "_checks.py"):
        path = copy / name
        path.write_text(path.read_text() + "\n# changed\n")
        assert _cache.dependency_stamp(fused) != before, name
        before = _cache.dependency_stamp(fused)


def test_without_a_writable_cache_the_kernels_compile_in_a_private_directory(tmp_path):
    """No place numba may write (NUMBA_CACHE_DIR, the sources' __pycache__ and the user
    cache directory each under a regular file): numba refused to declare a cached kernel
    (RuntimeError "no locator available"), so every fit failed. Now the kernel compiles,
    in a private directory of the process (gone at exit), and a warning names the fix."""
    package = tmp_path / "kernels_ro"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text(HELPER.format(1))
    (package / "user.py").write_text(USER)
    (package / "__pycache__").write_text("a file where numba would make its directory")
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    code = (f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
            f"from aucopt._kernels._cache import install, private_cache_dir\n"
            f"install({str(package)!r})\n"
            "from kernels_ro.user import g\nprint(g(1), private_cache_dir())\n")
    env = child_env()
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update(NUMBA_CACHE_DIR=str(blocker / "numba"), XDG_CACHE_HOME=str(blocker / "cache"),
               HOME=str(blocker / "home"), TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    value, private = done.stdout.split()
    assert value == "2" and Path(private).parent == tmp_path
    assert not Path(private).exists()  # removed at exit
    assert "Set NUMBA_CACHE_DIR to a writable directory" in done.stderr


def test_the_cache_named_is_one_numba_can_write(tmp_path, monkeypatch):
    """A NUMBA_CACHE_DIR that is a file (or under one) was named as the cache although
    numba passed over it; the directory numba writes to is named instead."""
    from aucopt._warmup import kernel_cache_dir

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker))
    assert kernel_cache_dir() != str(blocker)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "fresh"))
    assert kernel_cache_dir() == str(tmp_path / "fresh")
