"""One-pass speed of every registered algorithm, as ratios to floors measured in the same run.

For each workload (dense d=100, dense d=1000, CSR d=1e4 and d=1e6 with 50 non-zeros per row)
and each algorithm, the time of one ``fit`` pass (``max_iter=1``, no shuffle) is compared with
(a) a numba loop doing one dot product per row over the same data (the floor of any one-pass
method) and (b) one epoch of scikit-learn's SGDClassifier. Timings are interleaved and the
median of ``--repeats`` runs is reported. Results go to docs/performance.md.

Usage: python benchmarks/run.py [--algorithms a,b] [--repeats 5] [--scale 1.0] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.linear_model import SGDClassifier

import aucopt

ROOT = Path(__file__).resolve().parents[1]


@njit(cache=True)
def _floor_dense(w, X):
    s = 0.0
    for i in range(X.shape[0]):
        t = 0.0
        for j in range(X.shape[1]):
            t += w[j] * X[i, j]
        s += t
    return s


@njit(cache=True)
def _floor_csr(w, data, indices, indptr):
    s = 0.0
    for i in range(indptr.shape[0] - 1):
        t = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            t += w[indices[k]] * data[k]
        s += t
    return s


def _workloads(scale):
    rng = np.random.default_rng(0)
    out = []
    for n, d in ((200_000, 100), (20_000, 1000)):
        n = int(n * scale)
        out.append((f"dense n={n} d={d}", rng.uniform(-1, 1, (n, d)),
                    np.where(rng.random(n) < 0.3, 1, -1)))
    for d in (10_000, 1_000_000):
        n, nnz = int(100_000 * scale), 50
        indices = np.sort(rng.integers(0, d, (n, nnz)), axis=1).ravel()
        X = sp.csr_matrix((rng.uniform(-1, 1, n * nnz), indices, np.arange(0, n * nnz + 1, nnz)),
                          shape=(n, d))
        X.sum_duplicates()
        out.append((f"csr n={n} d={d} nnz/row=50", X, np.where(rng.random(n) < 0.3, 1, -1)))
    return out


def _time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _floor(X):
    w = np.zeros(X.shape[1])
    if sp.issparse(X):
        idx, ptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
        return lambda: _floor_csr(w, X.data, idx, ptr)
    return lambda: _floor_dense(w, X)


def _machine():
    try:
        from threadpoolctl import threadpool_info

        blas = "; ".join(f"{i.get('internal_api')} {i.get('version')} "
                         f"({i.get('num_threads')} threads)" for i in threadpool_info())
    except ImportError:
        blas = "unknown"
    return {"machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
            "cpus": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "aucopt": aucopt.__version__, "blas": blas,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(aucopt.list_algorithms()))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every n by this")
    parser.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    parser.add_argument("--max-seconds", type=float, default=30.0,
                        help="skip a cell whose first run exceeds this")
    args = parser.parse_args()
    rows = []
    for label, X, y in _workloads(args.scale):
        floor, sgd = _floor(X), SGDClassifier(max_iter=1, tol=None, shuffle=False)
        floor()
        for algorithm in args.algorithms.split(","):
            info = aucopt.algorithm_info(algorithm)
            if sp.issparse(X) and not info["sparse"]:
                continue
            est = aucopt.make(algorithm, max_iter=1, shuffle=False, random_state=0)
            if "d=1000000" in label and "O(d^2)" in info["memory"]:
                rows.append((label, algorithm, None, None, None, "skipped: O(d^2) memory"))
                continue
            try:
                start = time.perf_counter()
                est.fit(X[:2000], y[:2000])  # compile and warm up
                est.fit(X, y)
                first = time.perf_counter() - start
            except (ValueError, MemoryError) as exc:
                rows.append((label, algorithm, None, None, None, f"error: {exc}"[:80]))
                continue
            if first > args.max_seconds:
                rows.append((label, algorithm, X.shape[0] / first, None, None,
                             f"one run only ({first:.1f} s)"))
                continue
            ta, tf, ts = [], [], []
            for _ in range(args.repeats):  # interleaved
                ta += _time(lambda e=est, X=X, y=y: e.fit(X, y), 1)
                tf += _time(floor, 1)
                ts += _time(lambda m=sgd, X=X, y=y: m.fit(X, y), 1)
            a, f, s = np.median(ta), np.median(tf), np.median(ts)
            rows.append((label, algorithm, X.shape[0] / a, a / f, a / s, ""))
            print(f"{label:32s} {algorithm:14s} {X.shape[0] / a / 1e6:8.3f} M/s  "
                  f"{a / f:7.1f}x floor  {a / s:6.2f}x SGD", flush=True)
    _write(rows, args)


def _write(rows, args):
    lines = ["# Performance", "",
             "Generated by `make bench` (`benchmarks/run.py`). One `fit` pass (`max_iter=1`, no "
             "shuffle, validation included) per cell; ratios are medians of "
             f"{args.repeats} interleaved runs against a floor measured in the same run (numba, "
             "one dot product per row) and against one scikit-learn SGDClassifier epoch. "
             "Lower ratios are better.", "", "Machine:", ""]
    lines += [f"- {k}: {v}" for k, v in _machine().items()]
    lines += ["", "| workload | algorithm | samples/s | x floor | x SGDClassifier epoch | note |",
              "| --- | --- | --- | --- | --- | --- |"]
    def fmt(value, digits):
        return "" if value is None else f"{value:.{digits}f}"

    for label, algorithm, rate, floor, sgd, note in rows:
        lines.append(f"| {label} | {algorithm} | {'' if rate is None else f'{rate:,.0f}'} | "
                     f"{fmt(floor, 1)} | {fmt(sgd, 2)} | {note} |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
