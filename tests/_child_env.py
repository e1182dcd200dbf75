"""The environment of the Python processes a test starts: this checkout first on the path,
and one BLAS thread.

With BLAS's default of one thread per core, a test process and its children on a shared
2-core machine (``pytest -n 2``) run more BLAS threads than cores, and every small BLAS call
(L-BFGS steps of scikit-learn's peers, dot products of a few hundred numbers) waits for
threads that are not scheduled: measured on such a machine, a ``LogisticRegression`` on
1500 hashed rows took 3.4 s with the default threads and 0.18 s with one. No test checks
a number that depends on the thread count.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def child_env(**extra: str) -> dict[str, str]:
    """``os.environ`` with this checkout first on ``PYTHONPATH``, one BLAS thread, and
    ``extra``."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, **ONE_THREAD, "PYTHONPATH": path, **extra}


@contextlib.contextmanager
def one_blas_thread():
    """One BLAS thread in this process for the ``with`` block."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield
