"""The preconditioner's cost for docs/performance.md: ``fit`` with ``precondition="auto"``
against the same ``fit`` with ``precondition=None``, interleaved (issue #26: the per-row
cost inside ``fit`` should move by at most 15% on the dense d=100 and the CSR d=10^6
workloads).

Two kinds of fit per algorithm: the default one (ten shuffled passes: the preconditioner's
estimates and its transformed copy of X are paid once, the passes ten times) and one pass
in the order given (the cells of the rest of the report, where the same fixed costs meet a
single pass).
"""

from __future__ import annotations

import numpy as np

import aucopt

__all__ = ["ALGORITHMS", "BOUND", "WORKLOADS", "measure", "table", "target_rows"]

# the first-order ids of the report's targets (issue #26 lists them among the preconditioned)
ALGORITHMS = ("spam-l2", "solam", "uni-exp", "uni-squ", "ogd-fifo", "ftrl-auc")
WORKLOADS = ("dense100", "csr1e6")  # run.WORKLOADS keys
MODES = {"default fit": {}, "one pass": {"max_iter": 1, "shuffle": False}}
BOUND = 1.15  # auto / None


def measure(X, y, timed, repeats: int) -> dict:
    """Return ``{mode: {algorithm: (auto s, None s, ratio)}}`` on ``(X, y)``: median times
    and the median over ``repeats`` runs of the ratio of the two fits timed back to back
    (``timed(fn)``: seconds of one call). Each estimator fits the rows once before (compiled
    kernels, warm pages)."""
    out = {}
    for mode, params in MODES.items():
        out[mode] = {}
        for algorithm in ALGORITHMS:
            ests = [aucopt.make(algorithm, random_state=0, precondition=p, **params)
                    for p in ("auto", None)]
            for est in ests:
                est.fit(X, y)
            times = np.array([[timed(est.fit, X, y) for est in ests] for _ in range(repeats)])
            out[mode][algorithm] = (float(np.median(times[:, 0])), float(np.median(times[:, 1])),
                                    float(np.median(times[:, 0] / times[:, 1])))
    return out


def target_rows(results: dict) -> list[str]:
    """The report's target lines: per workload and kind of fit, the largest ratio."""
    rows = []
    for label, modes in results.items():
        for mode, cells in modes.items():
            worst = max(cells, key=lambda a: cells[a][2])
            ratio = cells[worst][2]
            rows.append(f"| preconditioner, {label}, {mode}: time with `precondition='auto'` "
                        f"<= {BOUND:g}x `precondition=None` (largest of {len(cells)} ids) | "
                        f"{ratio:.2f}x ({worst}) | {'met' if ratio <= BOUND else 'NOT MET'} |")
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
             "transformed copy of X) are paid once per `fit`.", "",
             "| workload | algorithm | default fit auto (ms) | None (ms) | auto / None | "
             "one pass auto (ms) | None (ms) | auto / None |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, modes in results.items():
        for algorithm in modes["default fit"]:
            cells = [modes[mode][algorithm] for mode in MODES]
            lines.append(f"| {label} | {algorithm} | " + " | ".join(
                f"{1e3 * a:.1f} | {1e3 * b:.1f} | {r:.2f}" for a, b, r in cells) + " |")
    return lines + [""]
