"""One-pass speed of every registered algorithm, as ratios to floors measured in the same run.

For each workload (dense d=100 n=200k, dense d=1000 n=20k, CSR d=1e4 and d=1e6 with 50
non-zeros per row) and each algorithm, one ``fit`` pass (``max_iter=1``, no shuffle,
validation included) is timed against, in the same run and interleaved (median of
``--repeats``):

* the dot floor: a numba loop doing one dot product per row over the same rows (default
  compile flags, like the default kernels), and its fastmath twin (the streaming-read bound);
* one epoch of scikit-learn's SGDClassifier on the same rows;
* for the O(d^2)-per-sample methods (OPAUC family, AdaOAM), one symmetric d x d
  matrix-vector product per row (the faster of BLAS dsymv and a numba loop);
* on dense d=100, the kernel alone (the spec's ``run`` on prepared rows, exactly what
  ``fit`` calls), giving the ``fit`` overhead;
* on CSR, for the O(nnz)-per-step methods, a ``fit`` on the first tenth of the rows, which
  separates the marginal time per row from the per-fit O(d) cost (state, ``coef_``);
* on dense d=100 and CSR d=1e6, the first-order ids' default ``fit`` and one pass with the
  preconditioner against the same fits without it (``benchmarks/_precondition_cost.py``).

Slow cells run on the first rows only (sized so that one run takes about ``--budget``
seconds, at least ``--min-rows``) and are noted; a cell predicted (from warm-up fits on a few
rows) to need more than ``--max-seconds`` for ``--min-rows`` rows is skipped. BLAS is limited
to one thread; times are process CPU seconds. Results go to docs/performance.md
(``benchmarks/_report.py``).

Usage: python benchmarks/run.py [--algorithms a,b] [--workloads dense100,csr1e6]
       [--fastmath a,b] [--repeats 5] [--budget 1.0] [--min-rows 500] [--max-seconds 10]
       [--scale 1.0]
       [--no-memory-test] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from threadpoolctl import threadpool_info, threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _calibration_cost  # noqa: E402
import _precondition_cost  # noqa: E402
from _floors import dot_floor, symv_floors  # noqa: E402
from _report import boundary_share, memory_test, write_report  # noqa: E402

import aucopt  # noqa: E402
from aucopt.algorithms import get_algorithm  # noqa: E402
from aucopt.algorithms._data import as_rows, new_data_stats, observe_data  # noqa: E402
from aucopt.utils._random import make_generator  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# workload id -> (label, n, d, nnz per row or None for dense, active columns or None for all)
WORKLOADS = {
    "dense100": ("dense n=200k d=100", 200_000, 100, None, None),
    "dense1000": ("dense n=20k d=1000", 20_000, 1000, None, None),
    "csr1e4": ("CSR n=100k d=10^4 nnz/row=50", 100_000, 10_000, 50, None),
    "csr1e6": ("CSR n=100k d=10^6 nnz/row=50", 100_000, 1_000_000, 50, None),
    # d=10^6, but the non-zeros fall in 10^4 fixed random columns, as many as at d=10^4: the
    # memory touched per pass is about the same, so a ratio to csr1e4 far above 1 means work
    # that grows with d, not a cache effect
    "csr1e6a": ("CSR n=100k d=10^6 nnz/row=50 in 10^4 active columns", 100_000, 1_000_000, 50,
                10_000),
}
# algorithms with an O(nnz)-per-step CSR path (issue #7); the sparse ratio is reported for them
O_NNZ = ("spam-l2", "solam", "reg-solam", "ogd-fifo", "uni-exp", "uni-squ", "ftrl-auc", "aogd",
         "oam-seq", "oam-gra", "kar")
FASTMATH_DEFAULT = "spam-l2,solam,uni-squ,ogd-fifo,opauc"
# methods with an O(d) per-fit setup (AOGD draws its d x D/2 frequencies): on CSR, their setup
# and their kernel are also timed apart
SETUP_SEPARATED = ("aogd",)
SETUP_ROWS = 20_000


def quadratic(algorithm: str) -> bool:
    """Whether the algorithm costs O(d^2) (or O(k^2)) per sample (the symv floor applies)."""
    cost = get_algorithm(algorithm).cost
    return ("(d^2)" in cost or "(k^2" in cost) and "per sample" in cost


def needs_d_squared(algorithm: str) -> bool:
    """Whether the algorithm keeps d x d arrays (skipped on the CSR workloads, d >= 10^4)."""
    memory = get_algorithm(algorithm).memory
    return "d^2" in memory and "or O(d)" not in memory


def make_workload(key: str, scale: float):
    """Return ``(label, X, y)``: uniform[-1, 1] features, 30% positives, fixed seeds.

    CSR rows draw their columns uniformly from all ``d`` columns, or from ``active`` columns
    fixed at random.
    """
    label, n, d, nnz, active = WORKLOADS[key]
    n = max(int(n * scale), 4000)
    rng = np.random.default_rng(list(WORKLOADS).index(key))
    y = np.where(rng.random(n) < 0.3, 1, -1)
    y[:2] = (1, -1)  # the warm-up fits on the first rows need both classes
    if nnz is None:
        return label, rng.uniform(-1, 1, (n, d)), y
    columns = np.arange(d) if active is None else rng.choice(d, active, replace=False)
    indices = np.sort(columns[rng.integers(0, columns.size, (n, nnz))], axis=1)
    X = sp.csr_matrix((rng.uniform(-1, 1, n * nnz), indices.ravel().astype(np.int32),
                       np.arange(0, n * nnz + 1, nnz, dtype=np.int32)), shape=(n, d))
    X.sum_duplicates()
    return label, X, y


@dataclass
class Cell:
    """One (workload, algorithm, config) measurement: the times of every interleaved run."""

    workload: str
    algorithm: str
    fastmath: bool
    n_rows: int = 0
    times: dict = field(default_factory=dict)  # timer -> seconds per run, aligned by run
    note: str = ""
    info: dict = field(default_factory=dict)  # facts about the fitted model (e.g. FSAUC)
    estimator: object = field(default=None, repr=False)  # the one the fit timer fits

    @property
    def measured(self) -> bool:
        """Whether the fit pass was timed."""
        return bool(self.times.get("fit"))

    def seconds(self, key):
        """Median seconds of timer ``key`` (None if not timed)."""
        values = self.times.get(key)
        return float(np.median(values)) if values else None

    def ratio(self, key, base):
        """Median over runs of ``key / base`` (each run times both back to back)."""
        if base == "symv":  # the faster symv floor of each run
            floors = [min(pair) for pair in zip(*(self.times.get(k, []) for k in
                                                   ("symv_blas", "symv_loop")))]
        else:
            floors = self.times.get(base, [])
        values = self.times.get(key, [])
        if not values or len(floors) != len(values):
            return None
        return float(np.median(np.asarray(values) / np.asarray(floors)))

    def rate(self, key="fit"):
        """Rows per second of timer ``key`` (median time)."""
        seconds = self.seconds(key)
        return None if seconds is None else self.n_rows / seconds


def _rows_and_labels(X, y):
    """The rows and {-1, +1} labels ``fit`` hands to the algorithm (``classes_[1]`` positive)."""
    return as_rows(X), np.where(y == np.unique(y)[1], 1.0, -1.0)


def kernel_runner(algorithm, est, X, y):
    """Return ``(prepare, run)``: ``run(prepare())`` is the spec's ``run`` exactly as ``fit``
    calls it on a fresh state (``max_iter=1``, no shuffle); ``prepare`` is not timed."""
    spec = get_algorithm(algorithm)
    params = est.get_params(deep=False)
    rows, signed = _rows_and_labels(X, y)
    order = np.arange(rows.n_samples)

    def prepare():
        rng = make_generator(params["random_state"])
        state = spec.init_state(rows.n_features, rows.n_samples, params, rng)
        state.update(new_data_stats(rows.n_features))
        observe_data(state, rows, signed)
        return state, rng

    def run(prepared):
        state, rng = prepared
        spec.run(state, rows, signed, order, params, 0, True, rng)

    return prepare, run


def stats_runner(X, y):
    """Return ``(prepare, run)`` for the class-statistics pass ``fit`` makes before the
    algorithm (:func:`aucopt.algorithms._data.observe_data`: class sums, counts, largest
    squared row norm and the NaN/inf check, one read of ``X``)."""
    rows, signed = _rows_and_labels(X, y)

    def prepare():
        return new_data_stats(rows.n_features)

    def run(stats):
        observe_data(stats, rows, signed)

    return prepare, run


def _timed(fn, *args):
    """CPU seconds of the process for ``fn(*args)`` (see the report's definitions)."""
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


PROBE_ROWS = 50  # rows of the first (compiling) and second (timed) warm-up fit
HEAD_FRACTION = 10  # on CSR, O(nnz) methods are also fitted on the first n / HEAD_FRACTION rows


def _size(est, X, y, args):
    """Return ``(rows, note)`` for one fit of about ``--budget`` seconds, or ``(0, reason)``.

    A fit on the first ``PROBE_ROWS`` rows compiles, a second one is timed; if the whole
    workload would take longer than the budget, a third fit on more rows separates the
    per-row cost from fixed per-call costs (such as O(d) state at d = 10^6).
    """
    total = X.shape[0]
    p0 = min(PROBE_ROWS, total)
    est.fit(X[:p0], y[:p0])  # compile and load the caches
    t0 = _timed(est.fit, X[:p0], y[:p0])
    if t0 * total / p0 <= args.budget:
        return total, ""
    p1 = int(min(total, max(4 * p0, p0 * args.budget / max(t0, 1e-9))))
    if t0 * p1 / p0 > args.max_seconds:  # even the estimate would be too slow
        return 0, f"skipped: ~{t0 / p0 * 1e3:.0f} ms per row > --max-seconds budget"
    slope = max((_timed(est.fit, X[:p1], y[:p1]) - t0) / (p1 - p0), 1e-12)
    fixed = max(t0 - slope * p0, 0.0)
    if fixed + slope * args.min_rows > args.max_seconds:
        return 0, f"skipped: {fixed + slope * args.min_rows:.0f} s for {args.min_rows} rows"
    n = int(min(total, max(args.min_rows, (args.budget - fixed) / slope)))
    return n, ("" if n == total else f"first {n:,} rows (--budget)")


def _timers(cell: Cell, X, y, args, with_kernel: bool):
    """Warm up and size ``cell``; return its timers ({name: (function, prepare)}) or None."""
    est = aucopt.make(cell.algorithm, max_iter=1, shuffle=False, random_state=0)
    try:
        n, cell.note = _size(est, X, y, args)
    except (ValueError, MemoryError) as exc:
        cell.note = f"error: {exc}"[:90]
        return None
    if not n:
        return None
    cell.n_rows = n
    Xn, yn = (X, y) if n == X.shape[0] else (X[:n], y[:n])
    timers = {"floor": (dot_floor(Xn), None), "floor_fm": (dot_floor(Xn, fastmath=True), None),
              "sgd": (lambda: SGDClassifier(max_iter=1, tol=None, shuffle=False).fit(Xn, yn),
                      None),
              "fit": (lambda: est.fit(Xn, yn), None)}
    cell.estimator = est
    if quadratic(cell.algorithm) and not sp.issparse(Xn):
        timers.update({f"symv_{k}": (f, None) for k, f in symv_floors(Xn).items()})
    for fn, _ in timers.values():
        fn()  # compile the floors, touch the data
    head = n // HEAD_FRACTION
    if (sp.issparse(Xn) and cell.algorithm in O_NNZ and cell.algorithm not in SETUP_SEPARATED
            and head >= PROBE_ROWS):
        # a fit on the first rows too: separates the per-row cost from the per-fit O(d) cost
        cell.info["head_rows"] = head
        head_est, Xh, yh = clone(est), Xn[:head], yn[:head]
        timers["fit_head"] = (lambda: head_est.fit(Xh, yh), None)
        head_est.fit(Xh, yh)
    if with_kernel:
        prepare, run = kernel_runner(cell.algorithm, est, Xn, yn)
        timers["kernel"] = (run, prepare)
        prepare, run = stats_runner(Xn, yn)
        timers["stats"] = (run, prepare)
    return timers


def measure(cells: list[Cell], data: list, args, with_kernel: bool) -> None:
    """Time the cells (one algorithm and config on one or more workloads), interleaved.

    Each run times every timer of every cell back to back, so that the ratios of one run
    see the same machine load; ``data`` holds ``(X, y)`` per cell.
    """
    with aucopt.config_context(fastmath=cells[0].fastmath):
        timers = [_timers(cell, X, y, args, with_kernel) for cell, (X, y) in zip(cells, data)]
        for _ in range(args.repeats):
            for cell, cell_timers in zip(cells, timers):
                for key, (fn, prepare) in (cell_timers or {}).items():
                    arguments = () if prepare is None else (prepare(),)
                    cell.times.setdefault(key, []).append(_timed(fn, *arguments))
        for cell, cell_timers in zip(cells, timers):
            if cell_timers and cell.algorithm == "fsauc":  # share of steps with a root search
                est = cell.estimator
                cell.info["root_share"] = float(est._state["root_steps"][0]) / max(est.t_, 1)


def _progress(cell: Cell):
    if not cell.measured:
        print(f"{cell.workload:30s} {cell.algorithm:14s} {cell.note}", flush=True)
        return
    extra = ""
    if cell.ratio("fit", "symv"):
        extra += f"  {cell.ratio('fit', 'symv'):5.2f}x symv"
    if cell.ratio("fit", "kernel"):
        extra += f"  overhead {100 * (cell.ratio('fit', 'kernel') - 1):5.1f}%"
    if boundary_share(cell) is not None:
        extra += f" (stats pass {100 * cell.ratio('stats', 'kernel'):.0f}%, rest " \
                 f"{100 * boundary_share(cell):.1f}%)"
    print(f"{cell.workload:30s} {cell.algorithm:14s}{' [fm]' if cell.fastmath else '     '} "
          f"{cell.rate():13,.0f}/s  {cell.ratio('fit', 'floor'):6.2f}x floor  "
          f"{cell.ratio('fit', 'floor_fm'):6.2f}x fm-floor  {cell.ratio('fit', 'sgd'):6.2f}x SGD"
          f"{extra}  {cell.note}", flush=True)


def setup_separated(algorithm: str, data: dict, repeats: int) -> dict:
    """Per-fit setup and per-row kernel time of ``algorithm`` on each CSR workload in ``data``.

    The setup (``init_state``: for AOGD the d x D/2 frequencies) and the kernel on the
    prepared state (the spec's ``run``, as in :func:`kernel_runner`) are timed separately
    on the first ``SETUP_ROWS`` rows, with the dot floor on the same rows, interleaved over
    the workloads, ``repeats`` times. Returns ``{label: (setup s, kernel s/row, floor s/row)}``.
    """
    est = aucopt.make(algorithm, max_iter=1, shuffle=False, random_state=0)
    runners = {}
    for label, X, y in data.values():
        Xn, yn = X[:SETUP_ROWS], y[:SETUP_ROWS]
        prepare, run = kernel_runner(algorithm, est, Xn, yn)
        floor = dot_floor(Xn)
        run(prepare())  # compile
        floor()
        runners[label] = (prepare, run, floor, Xn.shape[0])
    times = {label: ([], [], []) for label in runners}
    for _ in range(repeats):
        for label, (prepare, run, floor, _n) in runners.items():
            start = time.process_time()
            prepared = prepare()
            times[label][0].append(time.process_time() - start)
            times[label][1].append(_timed(run, prepared))
            times[label][2].append(_timed(floor))
    return {label: (float(np.median(setup)), float(np.median(kernel)) / runners[label][3],
                    float(np.median(floor)) / runners[label][3])
            for label, (setup, kernel, floor) in times.items()}


def parse_args(argv=None):
    """Command-line options (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(aucopt.list_algorithms()))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--fastmath", default=FASTMATH_DEFAULT,
                        help="algorithms also run with fastmath=True on the dense workloads")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every n by this")
    parser.add_argument("--budget", type=float, default=1.0,
                        help="seconds per timed fit; slower cells use the first rows only")
    parser.add_argument("--min-rows", type=int, default=500,
                        help="fewest rows a timed cell uses")
    parser.add_argument("--max-seconds", type=float, default=10.0,
                        help="skip a cell predicted to take longer on --min-rows rows")
    parser.add_argument("--no-memory-test", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    return parser.parse_args(argv)


def main(argv=None):
    """Run the benchmark and write the report."""
    args = parse_args(argv)
    warnings.filterwarnings("ignore")  # SGDClassifier's ConvergenceWarning at max_iter=1
    started = time.time()
    blas_default = threadpool_info()
    algorithms = args.algorithms.split(",")
    fastmath = [a for a in args.fastmath.split(",") if a in algorithms]
    cells, setup, precondition, calibration = [], {}, {}, {}
    keys = args.workloads.split(",")
    # the two CSR workloads are timed together, so that their ratio sees one machine load
    groups = [[k] for k in keys if WORKLOADS[k][3] is None] + [[k for k in keys
                                                                if WORKLOADS[k][3]]]
    with threadpool_limits(limits=1):
        for group in (g for g in groups if g):
            data = {key: make_workload(key, args.scale) for key in group}
            dense = WORKLOADS[group[0]][3] is None
            for algorithm in algorithms:
                for fm in [False, True] if dense and algorithm in fastmath else [False]:
                    group_cells = [Cell(data[key][0], algorithm, fm) for key in group]
                    if not dense and needs_d_squared(algorithm):
                        for cell in group_cells:
                            cell.note = "skipped: d x d state at d >= 10^4"
                    else:
                        measure(group_cells, [data[key][1:] for key in group], args,
                                with_kernel=group == ["dense100"])
                    for cell in group_cells:
                        cells.append(cell)
                        _progress(cell)
                if not dense and algorithm in SETUP_SEPARATED:
                    setup[algorithm] = setup_separated(algorithm, data, args.repeats)
                    print(f"{algorithm} setup/per-row: {setup[algorithm]}", flush=True)
            for key in group:
                label, X, y = data[key]
                if key in _precondition_cost.WORKLOADS:
                    precondition[label] = _precondition_cost.measure(X, y, _timed, args.repeats)
                    print(f"{label} preconditioner: {precondition[label]}", flush=True)
                if key in _calibration_cost.WORKLOADS:
                    calibration[label] = _calibration_cost.measure(X, y, _timed, args.repeats)
                    print(f"{label} step calibration: {calibration[label]}", flush=True)
            del data
        memory = None if args.no_memory_test else memory_test(ROOT)
    write_report(cells, args, blas_default, memory, time.time() - started, O_NNZ, setup,
                 precondition, calibration)
    print(f"wrote {args.out} in {(time.time() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
