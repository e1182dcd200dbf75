"""The step calibration's share of a default fit, for docs/performance.md (the target: at
most 15% of a default SPAM-L2 fit on the dense d=100 and on the CSR d=10^6 workloads).

The default ``fit`` of SPAM-L2 (``eta0="auto"``, ten shuffled passes) calibrates its step
with brief runs on a sample of the rows before its passes
(:func:`aucopt.algorithms._calibrate.calibrate_step`). The share is the CPU time spent
inside that calibration (``BaseAUCClassifier._auto_step``, on the rows as the fit sees
them, preconditioned) over the time of the whole fit, per run; the report gives the median
over the runs.
"""

from __future__ import annotations

import numpy as np
from _precondition_cost import TimeInside

import aucopt

__all__ = ["ALGORITHM", "BOUND", "WORKLOADS", "measure", "target_rows"]

ALGORITHM = "spam-l2"
WORKLOADS = ("dense100", "csr1e6")  # run.WORKLOADS keys
BOUND = 0.15  # calibration / default fit


def measure(X, y, timed, repeats: int) -> tuple[float, float, float]:
    """Return the median over ``repeats`` default fits of :data:`ALGORITHM` of (calibration /
    fit, fit seconds, calibration seconds); ``timed(fn, *args)``: seconds of one call. A
    first fit compiles the kernels and touches the pages."""
    est = aucopt.make(ALGORITHM, random_state=0)
    est.fit(X, y)
    runs = []
    for _ in range(repeats):
        with TimeInside("_auto_step") as calibration:
            total = timed(est.fit, X, y)
        runs.append((calibration.seconds / total, total, calibration.seconds))
    return tuple(float(v) for v in np.median(np.array(runs), axis=0))


def target_rows(results: dict) -> list[str]:
    """The report's target lines, one per workload label of ``results``."""
    return [f"| step calibration, {label}: its share of a default `{ALGORITHM}` fit (ten passes) "
            f"<= {BOUND:.0%} | {share:.1%} ({1e3 * calib:.0f} of {1e3 * fit:.0f} ms) | "
            f"{'met' if share <= BOUND else 'NOT MET'} |"
            for label, (share, fit, calib) in results.items()]
