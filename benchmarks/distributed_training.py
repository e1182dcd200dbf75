"""Training on a Dask cluster: accuracy against one machine, time, traffic, memory.

Four measurements, written to ``docs/distributed.md`` (``--out``):

1. a9a (train 32,561 x 123, test a9a.t): test AUC of every distributed strategy against the
   single-machine ``fit`` with the same hyperparameters, in 2, 4 and 8 partitions.
2. Wall time of the single-machine ``fit`` against ``aucopt.distributed.fit`` on 1 and 2
   local workers: a9a and 10x a9a in 8 LIBSVM parts, lazy (parsed by the workers in every
   pass) and persisted (``benchmarks/_distributed_timing.py``).
3. Bytes moved per partition per round by each strategy (serialized sizes of what the tasks
   take and return), at a9a's d and extrapolated in d.
4. A run whose data (parsed CSR) exceed the memory_limit of each worker and of the whole
   cluster: the parts are read by the workers when needed and training completes.

a9a comes from ``aucopt.datasets.fetch`` (set ``AUCOPT_DATA_MIRROR`` to a directory holding
a9a.bz2 and a9a.t.bz2, or let it download). Usage:

    AUCOPT_DATA_MIRROR=DIR python benchmarks/distributed_training.py \\
        [--rows-big 2200000] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import cloudpickle
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _distributed_report import render  # noqa: E402
from _distributed_timing import CASES, FULL_CELLS, cluster, timing  # noqa: E402
from _stamp import stamp  # noqa: E402

import aucopt  # noqa: E402
from aucopt import distributed as ad  # noqa: E402
from aucopt.algorithms import get_algorithm, list_algorithms  # noqa: E402
from aucopt.datasets import fetch, make_auc_problem  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _parts(client, X, y, n_parts):
    """``(X, y)`` as dask arrays of ``n_parts`` row blocks, persisted on the workers."""
    import dask.array as da

    size = -(-X.shape[0] // n_parts)
    blocks = [da.from_array(X[i:i + size], chunks=-1, asarray=False)
              for i in range(0, X.shape[0], size)]
    Xd, yd = da.concatenate(blocks), da.from_array(y, chunks=size)
    return client.persist([Xd, yd])


def _make(algorithm):
    return aucopt.make(algorithm, random_state=0)


def accuracy(client, X, y, Xt, yt, partitions=(2, 4, 8), algorithms=None):
    """Test AUC of the single-machine fit and of each distributed strategy by partitions."""
    rows = []
    for algorithm in algorithms or list_algorithms():
        strategies = aucopt.algorithm_info(algorithm)["distributed"]
        if not strategies:
            continue
        single = _make(algorithm).fit(X, y).score(Xt, yt)
        for strategy in strategies:
            aucs = []
            for k in partitions:
                Xd, yd = _parts(client, X, y, k)
                aucs.append(ad.fit(_make(algorithm), Xd, yd, strategy=strategy).score(Xt, yt))
            rows.append((algorithm, strategy, single, aucs))
            print(f"accuracy {algorithm:14s} {strategy:10s} {single:.4f} "
                  f"{' '.join(f'{a:.4f}' for a in aucs)}", flush=True)
    return rows


def _size(obj) -> int:
    return len(cloudpickle.dumps(obj))


def _random_rows(n, d, nnz, seed=0):
    """``n`` CSR rows of ``nnz`` distinct random columns of ``d`` each, uniform values
    (O(n nnz); ``scipy.sparse.random`` draws from all ``n d`` positions: 20 s at d=10^6)."""
    rng = np.random.default_rng(seed)
    cols = np.sort(np.stack([rng.choice(d, nnz, replace=False) for _ in range(n)]), axis=1)
    return sp.csr_matrix((rng.random(n * nnz), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                         shape=(n, d))


def traffic(X, y, dims=(123, 10_000, 1_000_000), pickle_stats_up_to=10_000):
    """Bytes per partition per round of each strategy (what tasks take and return).

    The statistics (two d x d matrices) are pickled up to ``pickle_stats_up_to`` columns
    (1.6 GB at 10^4), above it counted as ``16 d^2`` bytes."""
    from aucopt.distributed._data import block_stats

    rows = []
    for d in dims:
        Xs = _random_rows(200, d, min(d, 20))
        ys = np.where(np.arange(200) % 2, 1, -1)
        stats = _size(block_stats(Xs, ys, 0, True)) if d <= pickle_stats_up_to else 16 * d * d
        spam = _make("spam-l2").partial_fit(Xs, ys, classes=[-1, 1])
        # the sizes of the state do not depend on the steps: one short stage
        vr = _make("vrspam-l2").set_params(max_iter=1, inner=1).fit(Xs, ys)
        w = vr._state["w"]
        svrg = (_size((w, vr._state["data_count"], vr._state["data_sum"])) + _size(w)
                + _size((w, w, vr._state["data_count"], vr._state["data_sum"], vr._rng))
                + _size((w, 0, vr._rng)))
        rows.append({"d": d, "statistics": stats, "sequential": 2 * _size(spam),
                     "average": 2 * _size(spam._state), "svrg": svrg})
        print("traffic", rows[-1], flush=True)
    return rows


def _write_parts(folder, n_rows, n_parts, d, nnz, seed=0):
    """LIBSVM parts with ``nnz`` one-decimal values per row; labels from a linear rule."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=d)
    per = n_rows // n_parts
    for k in range(n_parts):
        cols = np.sort(rng.integers(0, d, size=(per, nnz)), axis=1)
        vals = rng.integers(1, 10, size=(per, nnz)) / 10.0
        X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, per * nnz + 1, nnz)),
                          shape=(per, d))
        X.sum_duplicates()
        y = np.where(X @ truth + rng.normal(size=per) * 2.0 > 0, 1, -1)
        lines = [f"{label} " + " ".join(f"{j + 1}:{v:g}" for j, v in
                                       zip(X.indices[X.indptr[i]:X.indptr[i + 1]],
                                           X.data[X.indptr[i]:X.indptr[i + 1]]))
                 for i, label in enumerate(y)]
        (folder / f"part-{k:03d}.svm").write_text("\n".join(lines) + "\n")
    return str(folder / "part-*.svm")


def _peak_rss(client, stop, peaks):
    import psutil

    def rss():
        return psutil.Process().memory_info().rss

    while not stop.is_set():
        try:
            for worker, value in client.run(rss).items():
                peaks[worker] = max(peaks.get(worker, 0), value)
        except Exception:  # a worker restarting; sample again
            pass
        time.sleep(0.5)


def out_of_memory(n_rows, n_parts, d, nnz, memory_limit, workers=(1, 2), client=None):
    """Fit spam-l2 (one pass) from LIBSVM parts larger than the cluster's memory; time it.

    Each entry of ``workers`` starts a cluster of that many workers, or uses ``client``.

    The distributed fit reads every part twice (the checking pass, then the round); the
    single machine reads all parts into memory once and fits with ``max_iter=1``.
    """
    from sklearn.datasets import load_svmlight_file

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        pattern = _write_parts(Path(tmp), n_rows, n_parts, d, nnz)
        generated = time.perf_counter() - start
        files = sorted(Path(tmp).glob("part-*.svm"))
        text_bytes = sum(f.stat().st_size for f in files)
        start = time.perf_counter()
        loaded = [load_svmlight_file(str(f), n_features=d) for f in files]
        X, y = sp.vstack([a for a, _ in loaded], format="csr"), np.concatenate(
            [b for _, b in loaded])
        read_single = time.perf_counter() - start
        csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
        start = time.perf_counter()
        single = aucopt.make("spam-l2", max_iter=1, random_state=0).fit(X, y)
        fit_single = time.perf_counter() - start
        auc_single = single.score(X, y)
        del X, y, loaded
        runs = []
        for n_workers in workers:
            with cluster(client, n_workers=n_workers, memory_limit=memory_limit) as active:
                stop, peaks = threading.Event(), {}
                sampler = threading.Thread(target=_peak_rss, args=(active, stop, peaks))
                sampler.start()
                Xd, yd = ad.read_svmlight(pattern, n_features=d)
                start = time.perf_counter()
                model = ad.fit(_make("spam-l2"), Xd, yd, strategy="average", n_rounds=1)
                seconds = time.perf_counter() - start
                auc = ad.roc_auc_score(yd, ad.decision_function(model, Xd))
                stop.set()
                sampler.join()
                runs.append({"workers": n_workers, "seconds": seconds, "auc": auc,
                             "peak_rss": max(peaks.values()) if peaks else float("nan")})
                print("out-of-memory", runs[-1], flush=True)
    return {"rows": n_rows, "parts": n_parts, "d": d, "nnz": nnz, "text_bytes": text_bytes,
            "csr_bytes": csr_bytes, "memory_limit": memory_limit, "generated": generated,
            "read_single": read_single, "fit_single": fit_single, "auc_single": auc_single,
            "runs": runs}


def _sections(args, data, partitions, algorithms, workers, shared):
    """Sections 1-4: accuracy, timing, traffic, out of memory; each starts the clusters it
    needs, or all use ``shared`` (a smoke run)."""
    X, y, Xt, yt = data
    with cluster(shared, n_workers=2) as client:
        acc = accuracy(client, X, y, Xt, yt, partitions, algorithms)
    smoke_cells = ((1, "a9a", 2, True, tuple(a for a, _, _ in CASES[:2])),)
    times = timing(X, y, smoke_cells if args.smoke else FULL_CELLS,
                   repeats=1 if args.smoke else args.repeats, client=shared)
    sizes = traffic(X, y, pickle_stats_up_to=123 if args.smoke else 10_000)
    big = out_of_memory(args.rows_big, args.parts_big, 1000, 40, args.memory_limit, workers,
                        client=shared)
    return acc, times, sizes, big


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows-big", type=int, default=2_200_000)
    parser.add_argument("--parts-big", type=int, default=44)
    parser.add_argument("--memory-limit", default="500MB")
    parser.add_argument("--repeats", type=int, default=3,
                        help="interleaved timing runs per cell (section 2)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "distributed.md")
    parser.add_argument("--smoke", action="store_true",
                        help="a minute-long run on small synthetic data (checks the script)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    if args.smoke:
        X_all, y_all = make_auc_problem(4000, 20, separation=1.5, random_state=1)
        X, y, Xt, yt = X_all[:2000], y_all[:2000], X_all[2000:], y_all[2000:]
        partitions, algorithms, workers = (2,), ("b-ls-svm", "spam-l2"), (2,)
        # tiny parts: the limit only has to leave room for a worker that compiles kernels
        # (LLVM takes a few hundred MB); at 500MB such a worker pauses and the run never ends
        args.rows_big, args.parts_big, args.memory_limit = 4000, 2, "2GB"
    else:
        X, y = fetch("a9a")
        Xt, yt = fetch("a9a.t")
        Xt = Xt[:, :X.shape[1]]
        partitions, algorithms, workers = (2, 4, 8), None, (1, 2)
    data = (X, y, Xt, yt)
    if args.smoke:  # one cluster for every section (its workers each re-import this script)
        with ad.local_cluster(n_workers=2, memory_limit=args.memory_limit) as client:
            acc, times, sizes, big = _sections(args, data, partitions, algorithms, workers,
                                               client)
    else:
        acc, times, sizes, big = _sections(args, data, partitions, algorithms, workers, None)
    streaming = [a for a in list_algorithms() if get_algorithm(a).streaming]
    text = render(stamp(), time.perf_counter() - began, acc, times, sizes, big,
                  n_streaming=len(streaming))
    args.out.write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
