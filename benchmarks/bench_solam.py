"""One-pass speed of SOLAM, SOLAM-l1, regSOLAM and FSAUC: kernel and fit against the floor.

For each workload (dense ``make_auc_problem(n, d)`` with d=100 and d=1000; CSR with d=1e4 and
d=1e6, 50 non-zeros per row) and each algorithm, three timings are interleaved ``--repeats``
times and their medians reported: the spec's ``run`` alone on a fresh state (the kernel time a
benchmark sees), one ``fit`` pass (``max_iter=1``, no shuffle, validation included) and the
floor of ``benchmarks/_floors.py`` (a numba loop with one dot product per row over the same data).

Usage: python benchmarks/bench_solam.py [--algorithms solam,fsauc] [--repeats 5] [--n 100000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from _floors import dot_floor  # benchmarks/_floors.py: this script's directory is on sys.path

import aucopt
from aucopt.algorithms._data import as_rows, new_data_stats, observe_data
from aucopt.algorithms._registry import get_algorithm
from aucopt.datasets import make_auc_problem

IDS = ("solam", "solam-l1", "reg-solam", "fsauc")


def _workloads(n, which, csr_n):
    rng = np.random.default_rng(0)
    if "dense" in which:
        for d in (100, 1000):
            X, y = make_auc_problem(n, d, random_state=0)
            yield f"dense n={n} d={d}", np.ascontiguousarray(X, dtype=np.float64), y
    if "csr" in which:
        for d in (10_000, 1_000_000):
            n, nnz = csr_n or n, 50
            indices = np.sort(rng.integers(0, d, (n, nnz)), axis=1).ravel()
            X = sp.csr_matrix((rng.uniform(-1, 1, n * nnz), indices,
                               np.arange(0, n * nnz + 1, nnz)), shape=(n, d))
            X.sum_duplicates()
            yield f"csr n={n} d={d} nnz/row=50", X, np.where(rng.random(n) < 0.3, 1, -1)


def _kernel_timer(algorithm, X, y):
    """Return a function timing ``spec.run`` on a fresh state (setup not timed)."""
    spec = get_algorithm(algorithm)
    est = aucopt.make(algorithm, max_iter=1, shuffle=False, random_state=0)
    params = est.get_params(deep=False)
    rows = as_rows(X)
    signed = np.where(np.asarray(y) > 0, 1.0, -1.0)
    order = np.arange(rows.n_samples)

    def timed():
        state = spec.init_state(rows.n_features, rows.n_samples, params, None)
        state.update(new_data_stats(rows.n_features))
        observe_data(state, rows, signed)
        start = time.perf_counter()
        spec.run(state, rows, signed, order, params, 0, True, np.random.default_rng(0))
        return time.perf_counter() - start

    return timed


def _clock(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(IDS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--workloads", default="dense,csr")
    parser.add_argument("--csr-n", type=int, default=0, help="rows of the CSR sets (default n)")
    args = parser.parse_args()
    print(f"{'workload':34s} {'algorithm':10s} {'kernel /s':>10s} {'x floor':>8s} "
          f"{'fit /s':>10s} {'x floor':>8s} {'fit/kernel':>10s}")
    for label, X, y in _workloads(args.n, args.workloads, args.csr_n):
        floor = dot_floor(X)
        floor()
        for algorithm in args.algorithms.split(","):
            est = aucopt.make(algorithm, max_iter=1, shuffle=False, random_state=0)
            kernel = _kernel_timer(algorithm, X, y)
            est.fit(X[:2000], y[:2000])  # compile (kept out of the timings)
            kernel()
            tk, tf, tfl = [], [], []
            for _ in range(args.repeats):  # interleaved
                tk.append(kernel())
                tf.append(_clock(lambda e=est, X=X, y=y: e.fit(X, y)))
                tfl.append(_clock(floor))
            k, f, fl = np.median(tk), np.median(tf), np.median(tfl)
            n = X.shape[0]
            print(f"{label:34s} {algorithm:10s} {n / k:10.4g} {k / fl:8.3g} "
                  f"{n / f:10.4g} {f / fl:8.3g} {f / k:10.2f}", flush=True)


if __name__ == "__main__":
    main()
