"""Run a test script compiled and with ``NUMBA_DISABLE_JIT=1``, to compare what both print.

The pure-Python run needs a fresh interpreter (numba reads ``NUMBA_DISABLE_JIT`` when it
is imported). The compiled run executes the same script in the test's own process, whose
kernels are already loaded (or compiled once per test worker) for the rest of the suite: a
second interpreter would only pay the imports and the kernel loads again.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

__all__ = ["compiled_output", "interpreted_output"]


def compiled_output(code: str, *args: str) -> str:
    """Return what ``code`` prints when run here with ``sys.argv[1:] = args`` (JIT on).

    ``sys.argv`` and ``sys.path`` are restored afterwards; the script runs in a namespace of
    its own, as ``python -c`` would run it.
    """
    argv, path = sys.argv[:], sys.path[:]
    out = io.StringIO()
    sys.argv = ["-c", *args]
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<compiled run>", "exec"), {"__name__": "__main__"})
    finally:
        sys.argv = argv
        sys.path[:] = path
    return out.getvalue()


def interpreted_output(code: str, *args: str, cwd: str | None = None,
                       timeout: float = 900) -> str:
    """Return what ``python -c code *args`` prints with ``NUMBA_DISABLE_JIT=1`` (a new
    interpreter; no wall-clock bound tighter than ``timeout`` seconds)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout
