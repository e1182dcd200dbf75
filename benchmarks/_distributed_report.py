"""Markdown of ``benchmarks/distributed_training.py`` (``docs/distributed.md``)."""

from __future__ import annotations

from _distributed_timing import render_timing

import aucopt
from aucopt.algorithms import list_algorithms

PARTITIONS = (2, 4, 8)
TB, GB, MB = 1e12, 1e9, 1e6


def _bytes(n) -> str:
    for unit, size in (("GB", GB), ("MB", MB), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _accuracy(rows):
    out = ["| algorithm | strategy | one machine | " + " | ".join(
        f"{k} partitions" for k in PARTITIONS) + " | largest gap |", "| --- " * 7 + "|"]
    for algorithm, strategy, single, aucs in rows:
        gap = max(abs(a - single) for a in aucs)
        out.append(f"| {algorithm} | {strategy} | {single:.4f} | "
                   + " | ".join(f"{a:.4f}" for a in aucs) + f" | {gap:.4f} |")
    return out


def _traffic(sizes):
    out = ["| d | statistics (once) | sequential (per hop) | average (per round) | "
           "svrg (per stage) |", "| --- | --- | --- | --- | --- |"]
    for row in sizes:
        out.append(f"| {row['d']:,} | {_bytes(row['statistics'])} | "
                   f"{_bytes(row['sequential'])} | {_bytes(row['average'])} | "
                   f"{_bytes(row['svrg'])} |")
    return out


def _projection(sizes, big):
    by_d = {row["d"]: row for row in sizes}
    two = [r for r in big["runs"] if r["workers"] == 2][0]
    # the fit reads every part twice (checking pass + one round): bytes of text per second
    rate = 2 * big["text_bytes"] / (two["seconds"] * 2)
    hours = TB / (100 * rate) / 3600
    parts = int(TB / GB)
    avg = by_d[1_000_000]["average"]
    stats = by_d[10_000]["statistics"]
    return [
        f"Measured here: one worker parses and trains at {_bytes(rate)}/s of LIBSVM text "
        f"(2-worker run of the out-of-memory section, two reads per fit). Assuming the same "
        f"per-worker rate, 100 workers and 1 TB of text in {parts:,} parts of 1 GB:",
        "",
        "| quantity | formula | 1 TB, 100 workers |",
        "| --- | --- | --- |",
        f"| one read of the data | size / (workers x rate) | {hours:.1f} h |",
        f"| `average`, traffic per round (d = 10^6) | parts x 2 x state, O(d) per part | "
        f"{_bytes(parts * avg)} ({_bytes(avg)} per part, spread over the workers) |",
        f"| `average`, into the client per round | one state (shares tree-merged on the "
        f"workers) | {_bytes(avg / 2)} |",
        f"| `statistics`, once (d = 10^4) | parts x 2 classes x 8 d^2 (tree-merged on the "
        f"workers) | {_bytes(parts * stats)} ({_bytes(stats)} per part) |",
        f"| `svrg`, per stage (d = 10^6) | parts x O(d) | "
        f"{_bytes(parts * by_d[1_000_000]['svrg'])} |",
        "",
        "Reading: a round of `average` or `svrg` moves O(d) per partition, negligible next to "
        "reading a 1 GB partition as long as d is far below the rows per part; the "
        "partition shares are combined pairwise on the workers, so the client receives one "
        "state per round (log2(parts) merge levels). "
        "`statistics` moves O(d^2) per partition once, merged pairwise on the workers "
        "(Chan et al.); it is practical to d of about 10^4 (800 MB per class matrix) and "
        "refused above `max_memory_gb`. Reading the data dominates everything else.",
    ]


def _strategies():
    out = ["| algorithm | strategies (`auto` first) |", "| --- | --- |"]
    for algorithm in list_algorithms():
        strategies = aucopt.algorithm_info(algorithm)["distributed"]
        out.append(f"| {algorithm} | {', '.join(strategies) or '(one process only)'} |")
    return out


USAGE = '''```python
from pathlib import Path

from sklearn.datasets import dump_svmlight_file

import aucopt
from aucopt import distributed as ad
from aucopt.datasets import make_auc_problem

if __name__ == "__main__":          # workers are spawned processes: guard the script
    Path("parts").mkdir(exist_ok=True)  # two LIBSVM parts of 1,000 rows (your files here)
    for part in range(2):
        Xp, yp = make_auc_problem(1000, 123, separation=1.5, random_state=10 + part)
        dump_svmlight_file(Xp, yp, f"parts/{part}.svm", zero_based=False)
    with ad.local_cluster(n_workers=2, memory_limit="2GB") as client:
        X, y = ad.read_svmlight("parts/*.svm", n_features=123)   # lazy, read on the workers
        model = ad.fit(aucopt.make("spam-l2"), X, y)              # strategy="auto"
        auc = ad.roc_auc_score(y, ad.decision_function(model, X)) # exact, ties one half
    aucopt.io.save(model, "model")  # a plain estimator; metadata: distributed_strategy_
```

On a real cluster pass `client=distributed.Client("tcp://scheduler:8786")` or the address
string. From the shell:

```
aucopt fit spam-l2 'parts/*.svm' --distributed --n-features 123 --workers 2
aucopt fit b-ls-svm 'parts/*.svm' --distributed --n-features 123 --scheduler tcp://host:8786
```'''


def render(stamp, seconds, acc, times, sizes, big, n_streaming):
    avg_gaps = [max(abs(a - s) for a in aucs[:1]) for _, strategy, s, aucs in acc
                if strategy == "average"]
    two = {r["workers"]: r for r in big["runs"]}
    lines = [
        "# Training on a Dask cluster",
        "",
        f"Generated by `benchmarks/distributed_training.py` ({stamp}) in {seconds / 60:.1f} min "
        "on a 2-core machine shared with other jobs (times are noisy).",
        "",
        "## Results",
        "",
        "- Exact strategies (checked by `tests/test_distributed.py` on a 2-worker "
        "`LocalCluster`): `statistics` equals the single-machine B-LS-SVM, Uni-Squ (batch) and "
        "OPAUC batch target to 1e-10, and `sequential` equals chunked `partial_fit` bit for "
        f"bit for all {n_streaming} streaming algorithms.",
        f"- `average` on a9a in 2 partitions: largest test-AUC gap to the single-machine fit "
        f"{max(avg_gaps):.4f} over {len(avg_gaps)} algorithms (table 1; more partitions "
        "cost more, see the last column).",
        f"- Data larger than memory: {_bytes(big['csr_bytes'])} of parsed CSR "
        f"({_bytes(big['text_bytes'])} of LIBSVM text in {big['parts']} parts) trained with "
        f"`memory_limit={big['memory_limit']}` per worker: "
        + "; ".join(f"{w} worker(s) {r['seconds']:.1f} s, peak worker RSS "
                    f"{_bytes(r['peak_rss'])}, training AUC {r['auc']:.4f}"
                    for w, r in two.items())
        + f" (one machine: read {big['read_single']:.1f} s + fit {big['fit_single']:.1f} s, "
        f"AUC {big['auc_single']:.4f}).",
        "- Time (section 2): distributed against one machine on a9a and on 10x a9a, lazy "
        "(the workers parse the LIBSVM parts in every pass) and persisted, 1 and 2 workers, "
        "with the targets stated there. Each pass reads every part once; "
        "`fit(..., persist=True)` reads it once for the whole fit.",
        "",
        "### 1. a9a: test AUC against the single-machine fit",
        "",
        "Same hyperparameters (defaults, `random_state=0`), trained on a9a, scored on a9a.t; "
        "partitions are consecutive row blocks held in the workers' memory. `statistics` and "
        "`sequential` differ from the one-machine column only because they compute something "
        "else exactly (OPAUC: its batch target instead of one pass; `sequential`: one "
        "`partial_fit` pass per chunk instead of `fit`'s `max_iter` passes).",
        "",
        *_accuracy(acc),
        "",
        "### 2. Wall time: one machine against 1 and 2 workers",
        "",
        *render_timing(times),
        f"From {big['parts']} LIBSVM parts on disk ({_bytes(big['text_bytes'])}, "
        f"{big['rows']:,} rows, d = {big['d']}, {big['nnz']} non-zeros per row), spam-l2 "
        f"`average`, one round: one machine reads all parts then fits in "
        f"{big['read_single'] + big['fit_single']:.1f} s; "
        + "; ".join(f"{w} worker(s): {r['seconds']:.1f} s" for w, r in two.items()) + ".",
        "",
        "### 3. Bytes per partition per round",
        "",
        "Serialized size of what a partition's tasks take and return (pickled): `statistics` "
        "the class counts, means and scatter matrices (2 classes x 8 d^2 bytes, once); "
        "`sequential` the estimator in and out per hop; `average` the state in and out "
        "(spam-l2); `svrg` the snapshot, the full-gradient share and the inner-loop result "
        "(vrspam-l2). The data never move.",
        "",
        *_traffic(sizes),
        "",
        "### 4. Projected cost at 100 workers and 1 TB",
        "",
        *_projection(sizes, big),
        "",
        "## Using it",
        "",
        USAGE,
        "",
        "Strategies: `statistics` merges per-partition class counts, means and scatter "
        "matrices with the pairwise update of Chan, Golub and LeVeque (1979) and solves "
        "exactly; `sequential` carries the model from partition to partition (`partial_fit` "
        "where the data are); `average` is iterative parameter mixing (Zinkevich et al., NIPS "
        "2010; McDonald et al., NAACL 2010): a pass per partition from a common state with the "
        "exact class statistics of all the data, averaged by partition size, `n_rounds` times "
        "(default `max_iter`); `svrg` is VRSPAM with its full gradient by map-reduce and the "
        "inner loops on the partitions, averaged. A worker that dies is replaced and its "
        "tasks recomputed (every step is deterministic, so the result does not change); with "
        "no worker left for 30 s the fit raises `NoWorkersError`. Errors name the partition "
        "(width, NaN/inf; one class with `average`/`svrg`); empty partitions are skipped.",
        "",
        *_strategies(),
        "",
        "## Rerun",
        "",
        "```",
        "AUCOPT_DATA_MIRROR=/path/to/libsvm/files python benchmarks/distributed_training.py",
        "```",
        "",
    ]
    return "\n".join(lines)
