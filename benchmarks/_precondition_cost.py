"""The preconditioner's cost for docs/performance.md: ``fit`` with ``precondition="auto"``
against the same ``fit`` with ``precondition=None``, interleaved (issue #26: the per-row
cost inside ``fit`` should move by at most 15% on the dense d=100 and the CSR d=10^6
workloads).

Two kinds of fit per algorithm: the default one (ten shuffled passes: the preconditioner's
estimates and its transformed copy of X are paid once, the passes ten times) and one pass
in the order given (the cells of the rest of the report, where the same fixed costs meet a
single pass).

Each fit is also split into its passes over the rows (the time inside ``_run_epochs``:
the algorithm's steps, whose per-row cost is what the preconditioner must not change; it
transforms the rows once and the kernels run unchanged on them) and the rest (validation,
the class statistics, the step calibration, and with ``"auto"`` the preconditioner's
estimates and its transformed copy of X: its fixed cost per fit).
"""

from __future__ import annotations

import time

import numpy as np

import aucopt
from aucopt.linear_model._base import BaseAUCClassifier

__all__ = ["ALGORITHMS", "BOUND", "WORKLOADS", "TimeInside", "measure", "table",
           "target_rows"]

# the first-order ids of the report's targets (issue #26 lists them among the preconditioned)
ALGORITHMS = ("spam-l2", "solam", "uni-exp", "uni-squ", "ogd-fifo", "ftrl-auc")
WORKLOADS = ("dense100", "csr1e6")  # run.WORKLOADS keys
MODES = {"default fit": {}, "one pass": {"max_iter": 1, "shuffle": False}}
BOUND = 1.15  # auto / None


class TimeInside:
    """While active: the CPU seconds spent inside ``BaseAUCClassifier.<method>`` by every fit
    (``_run_epochs``: the passes over the rows; ``_auto_step``: the step calibration)."""

    def __init__(self, method: str = "_run_epochs"):
        self.method, self.seconds = method, 0.0

    def __enter__(self):
        self._original = original = getattr(BaseAUCClassifier, self.method)

        def inside(est, *args, **kwargs):
            start = time.process_time()
            try:
                return original(est, *args, **kwargs)
            finally:
                self.seconds += time.process_time() - start

        setattr(BaseAUCClassifier, self.method, inside)
        return self

    def __exit__(self, *exc):
        setattr(BaseAUCClassifier, self.method, self._original)


def _split(timed, est, X, y) -> tuple[float, float]:
    """Return the seconds of ``est.fit(X, y)`` and of its passes."""
    with TimeInside() as passes:
        total = timed(est.fit, X, y)
    return total, passes.seconds


def measure(X, y, timed, repeats: int) -> dict:
    """Return ``{mode: {algorithm: (auto s, None s, ratio, passes ratio, fixed ms)}}`` on
    ``(X, y)``: the median times; the median over ``repeats`` runs of the ratio of the two
    fits timed back to back (``timed(fn)``: seconds of one call); the median ratio of the
    time of their passes; the median difference of the time outside the passes (auto -
    None: the preconditioner's cost per fit). Each estimator fits the rows once before
    (compiled kernels, warm pages)."""
    out = {}
    for mode, params in MODES.items():
        out[mode] = {}
        for algorithm in ALGORITHMS:
            ests = [aucopt.make(algorithm, random_state=0, precondition=p, **params)
                    for p in ("auto", None)]
            for est in ests:
                est.fit(X, y)
            runs = np.array([[_split(timed, est, X, y) for est in ests]
                             for _ in range(repeats)])
            total, passes = runs[:, :, 0], runs[:, :, 1]
            outside = total - passes
            out[mode][algorithm] = (
                float(np.median(total[:, 0])), float(np.median(total[:, 1])),
                float(np.median(total[:, 0] / total[:, 1])),
                float(np.median(passes[:, 0] / passes[:, 1])),
                1e3 * float(np.median(outside[:, 0] - outside[:, 1])))
    return out


def target_rows(results: dict) -> list[str]:
    """The report's target lines: per workload and kind of fit, the largest ratio; per
    workload, the largest ratio of the default fit's passes (the per-row cost of the
    steps, without the preconditioner's fixed cost per fit)."""
    rows = []
    for label, modes in results.items():
        for mode, cells in modes.items():
            worst = max(cells, key=lambda a: cells[a][2])
            ratio = cells[worst][2]
            rows.append(f"| preconditioner, {label}, {mode}: time with `precondition='auto'` "
                        f"<= {BOUND:g}x `precondition=None` (largest of {len(cells)} ids) | "
                        f"{ratio:.2f}x ({worst}) | {'met' if ratio <= BOUND else 'NOT MET'} |")
        cells = modes["default fit"]
        worst = max(cells, key=lambda a: cells[a][3])
        ratio, fixed = cells[worst][3], max(c[4] for c in cells.values())
        rows.append(f"| preconditioner, {label}, default fit, per row of its passes: "
                    f"`precondition='auto'` <= {BOUND:g}x `precondition=None` (largest of "
                    f"{len(cells)} ids; the fixed cost per fit apart: at most {fixed:.0f} ms "
                    f"here) | {ratio:.2f}x ({worst}) | {'met' if ratio <= BOUND else 'NOT MET'} |")
    return rows


def table(results: dict) -> list[str]:
    """The report's section: every measured ratio."""
    if not results:
        return []
    lines = ["## The preconditioner's cost", "",
             "`fit` with `precondition='auto'` (the default of these ids) against the same fit "
             "with `precondition=None` (the rows as given), timed back to back: the median of "
             "the ratios over the runs. *default fit*: the estimator's defaults (ten shuffled "
             "passes); *one pass*: `max_iter=1`, `shuffle=False`, as in the cells above. The "
             "preconditioner's fixed costs (its estimates on at most 10^4 rows, its "
             "transformed copy of X) are paid once per `fit`. *passes*: the ratio of the "
             "time spent in the passes over the rows (the algorithm's steps, run unchanged "
             "on the transformed rows); *fixed*: the difference of the time outside them "
             "(auto - None, ms).", "",
             "| workload | algorithm | default fit auto (ms) | None (ms) | auto / None | "
             "passes | fixed (ms) | one pass auto (ms) | None (ms) | auto / None | passes | "
             "fixed (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, modes in results.items():
        for algorithm in modes["default fit"]:
            cells = [modes[mode][algorithm] for mode in MODES]
            lines.append(f"| {label} | {algorithm} | " + " | ".join(
                f"{1e3 * a:.1f} | {1e3 * b:.1f} | {r:.2f} | {p:.2f} | {f:.1f}"
                for a, b, r, p, f in cells) + " |")
    return lines + [""]
