"""Wall time of ``aucopt.distributed.fit`` against one machine: lazy and persisted data, 1 and
2 workers, a9a and 10x a9a (``benchmarks/distributed_training.py``, section 2)."""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import aucopt
from aucopt import distributed as ad

#: (algorithm, strategy) timed, and the largest ratio to one machine asked of 2 workers on a9a
#: in 8 persisted partitions.
CASES = (("b-ls-svm", "statistics", 3.0), ("spam-l2", "average", 3.0),
         ("vrspam-l2", "svrg", 5.0))


def cluster(client=None, **kwargs):
    """``client`` when given (a smoke run shares one cluster), else a new local cluster."""
    return contextlib.nullcontext(client) if client is not None else ad.local_cluster(**kwargs)


def _make(algorithm):
    return aucopt.make(algorithm, random_state=0)


def _write(folder: Path, X, y, copies: int, n_parts: int) -> str:
    """``copies`` concatenated copies of (X, y) as ``n_parts`` LIBSVM files."""
    X = sp.vstack([X] * copies, format="csr") if copies > 1 else X
    y = np.concatenate([y] * copies)
    for k, rows in enumerate(np.array_split(np.arange(X.shape[0]), n_parts)):
        dump_svmlight_file(X[rows], y[rows], str(folder / f"part-{k:03d}.svm"),
                           zero_based=False)
    return str(folder / "part-*.svm")


def _single(pattern, d, algorithm, lazy):
    """One machine: read the parts (when the data are lazy) and fit."""
    def run(data=[]):  # noqa: B006  (parsed once for the persisted case)
        start = time.perf_counter()
        if lazy or not data:
            files = sorted(Path(pattern).parent.glob("part-*.svm"))
            parts = [load_svmlight_file(str(f), n_features=d) for f in files]
            data[:] = [sp.vstack([a for a, _ in parts], format="csr"),
                       np.concatenate([b for _, b in parts])]
            if not lazy:
                start = time.perf_counter()
        _make(algorithm).fit(*data)
        return time.perf_counter() - start
    return run


def _distributed(client, pattern, d, algorithm, strategy, lazy):
    X, y = ad.read_svmlight(pattern, n_features=d)
    if not lazy:
        X, y = client.persist([X, y], optimize_graph=False)
        client.wait_for_workers(1)

    def run():
        start = time.perf_counter()
        ad.fit(_make(algorithm), X, y, strategy=strategy, client=client)
        return time.perf_counter() - start
    return run


#: The cells timed by a full run: (copies of a9a, name, workers, lazy, algorithms). The a9a
#: targets (persisted, 2 workers, every case), the same on 1 worker and on lazy data, and 10x
#: a9a lazy on 1 and 2 workers (is a second worker faster?) and persisted on 2.
FULL_CELLS = (
    (1, "a9a", 2, False, ("b-ls-svm", "spam-l2", "vrspam-l2")),
    (1, "a9a", 2, True, ("b-ls-svm", "spam-l2")),
    (1, "a9a", 1, False, ("b-ls-svm", "spam-l2")),
    (10, "10x a9a", 1, True, ("b-ls-svm",)),
    (10, "10x a9a", 2, True, ("b-ls-svm", "spam-l2")),
    (10, "10x a9a", 2, False, ("b-ls-svm",)),
)


def timing(X, y, cells=FULL_CELLS, *, n_parts=8, repeats=3, client=None):
    """Median seconds of one machine and of the distributed fit, interleaved per cell.

    ``cells`` are ``(copies, name, workers, lazy, algorithms)``, algorithms among
    :data:`CASES`; each cell starts a cluster of its workers, or uses ``client``. Returns a
    list of dicts: data, rows, lazy, workers, algorithm, strategy, single, dist, ratio.
    """
    rows = []
    d = X.shape[1]
    strategies = {algorithm: strategy for algorithm, strategy, _ in CASES}
    with tempfile.TemporaryDirectory() as tmp:
        patterns = {}
        for copies, name, n_workers, lazy, algorithms in cells:
            if name not in patterns:
                folder = Path(tmp) / name.replace(" ", "_")
                folder.mkdir()
                patterns[name] = _write(folder, X, y, copies, n_parts)
            pattern = patterns[name]
            with cluster(client, n_workers=n_workers) as cell_client:
                for algorithm in algorithms:
                    strategy = strategies[algorithm]
                    single = _single(pattern, d, algorithm, lazy)
                    dist = _distributed(cell_client, pattern, d, algorithm, strategy, lazy)
                    single(), dist()  # load kernels and data once, untimed
                    s_times, d_times = [], []
                    for _ in range(repeats):
                        s_times.append(single())
                        d_times.append(dist())
                    ratios = [b / a for a, b in zip(s_times, d_times)]
                    rows.append({
                        "data": name, "rows": X.shape[0] * copies, "lazy": lazy,
                        "workers": n_workers, "algorithm": algorithm, "strategy": strategy,
                        "single": statistics.median(s_times),
                        "dist": statistics.median(d_times),
                        "ratio": statistics.median(ratios)})
                    print("timing", rows[-1], flush=True)
    return rows


def render_timing(rows, n_parts=8) -> list[str]:
    """Section 2 of the report: the table and the targets."""
    out = [f"Each data set is written as {n_parts} LIBSVM parts. *lazy*: the workers parse the "
           "parts in every pass (`read_svmlight`), and one machine reads the same files then "
           "fits; *persisted*: the parsed parts are in the workers' memory (`client.persist`) "
           "and one machine fits in-memory data. Median of the interleaved runs; the ratio is "
           "the median of the per-run ratios (distributed / one machine). The distributed "
           "time includes the checking pass; the workers' kernels are loaded (a first fit "
           "ran before).", "",
           "| data | storage | workers | algorithm | strategy | one machine: s | "
           "distributed: s | ratio |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['data']} ({r['rows']:,} rows) | {'lazy' if r['lazy'] else 'persisted'}"
                   f" | {r['workers']} | {r['algorithm']} | {r['strategy']} | "
                   f"{r['single']:.3f} | {r['dist']:.3f} | {r['ratio']:.2f}x |")
    out += ["", "Targets on a9a in 8 persisted partitions, 2 workers:", ""]
    for algorithm, strategy, limit in CASES:
        hit = [r for r in rows if r["data"] == "a9a" and not r["lazy"] and r["workers"] == 2
               and r["algorithm"] == algorithm]
        if hit:
            ok = "met" if hit[0]["ratio"] <= limit else "NOT met"
            out.append(f"- `{strategy}` ({algorithm}): {hit[0]['ratio']:.2f}x one machine "
                       f"(target <= {limit:g}x): {ok}.")
    big = {(r["workers"], r["algorithm"]): r["dist"] for r in rows
           if r["data"] != "a9a" and r["lazy"]}
    if (1, "b-ls-svm") in big and (2, "b-ls-svm") in big:
        faster = big[2, "b-ls-svm"] < big[1, "b-ls-svm"]
        out.append(f"- 10x a9a, lazy data, `statistics`: 2 workers {big[2, 'b-ls-svm']:.2f} s "
                   f"against 1 worker {big[1, 'b-ls-svm']:.2f} s "
                   f"({'faster' if faster else 'NOT faster'}).")
    return out + [""]
