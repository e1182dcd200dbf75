"""Cost of the CSR structure check on the sparse benchmark: fit and partial_fit of SPAM-L2
on a CSR matrix with d = 10^6 columns, 50 entries per row, 10^5 rows, with the check and
with it switched off, interleaved in one process (median of ``--repeats`` runs each).

Run: ``python benchmarks/csr_check_cost.py`` (prints the times and the ratios).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _stamp import stamp  # noqa: E402

import aucopt  # noqa: E402
from aucopt.linear_model import _inputs  # noqa: E402


def make_data(n, d, nnz, seed=0):
    rng = np.random.default_rng(seed)
    indices = np.sort(rng.integers(0, d, size=(n, nnz)), axis=1)
    X = sp.csr_matrix((rng.random(n * nnz), indices.ravel(), np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    X.sum_duplicates()
    y = np.where(rng.random(n) < 0.1, 1, -1)
    return X, y


def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10**5)
    parser.add_argument("--features", type=int, default=10**6)
    parser.add_argument("--nnz", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=10_000)
    args = parser.parse_args(argv)
    X, y = make_data(args.rows, args.features, args.nnz)
    chunks = [(X[i:i + args.chunk], y[i:i + args.chunk]) for i in range(0, X.shape[0],
                                                                         args.chunk)]
    checked = _inputs.check_sparse_structure

    def fit():
        aucopt.make("spam-l2", random_state=0).fit(X, y)

    def stream():
        est = aucopt.make("spam-l2", random_state=0)
        for Xc, yc in chunks:
            est.partial_fit(Xc, yc, classes=[-1, 1])

    fit(), stream()  # compile
    times = {(name, mode): [] for name in ("fit", "partial_fit") for mode in ("on", "off")}
    for _ in range(args.repeats):
        for mode in ("on", "off"):
            _inputs.check_sparse_structure = checked if mode == "on" else (lambda X: None)
            times["fit", mode].append(timed(fit))
            times["partial_fit", mode].append(timed(stream))
    _inputs.check_sparse_structure = checked
    check = [timed(lambda: checked(X)) for _ in range(args.repeats)]
    print(f"# CSR structure check cost ({stamp()})")
    print(f"n={args.rows}, d={args.features}, {args.nnz} nnz/row, partial_fit chunks of "
          f"{args.chunk}; median of {args.repeats}, interleaved")
    print(f"check alone: {statistics.median(check) * 1e3:.2f} ms")
    for name in ("fit", "partial_fit"):
        on, off = (statistics.median(times[name, m]) for m in ("on", "off"))
        print(f"{name}: with check {on:.3f} s, without {off:.3f} s, ratio {on / off:.3f}")


if __name__ == "__main__":
    main()
