"""The wide-data choice of ``make("auto")`` against the alternatives, on hashed streams.

Writes docs/wide_choice.md: on synthetic hashed token streams (a Zipf law of tokens hashed
into ``d`` columns, labels from a logistic ground truth over the tokens present) of nine
kinds (Zipf exponents, tokens per row, positive rates, binary, count, tf-idf and
Pareto-tailed values, flipped labels, a few long rows), the test AUC and fit time of

- ``make("auto")`` (``aucopt.linear_model.choose``: one pass of ``uni-log``, online Uni-Log,
  Kotlowski et al., ICML 2011, the class-balanced logistic loss);
- two passes of ``spam-l2`` (SPAM, Natole, Ying and Lyu, ICML 2018) with ``t0`` a hundredth
  of the rows, which one SPAM pass needs on such data: its step scale decays for every column
  alike, and most columns are met a few times in a pass;
- one constant-step pass of ``uni-exp`` (online Uni-Exp, step calibrated as usual) over the
  rows as given: faster still, but its exponential loss weighs a confidently wrong row
  exponentially.

A second table learns the peers report's hashed stream chunk by chunk (``partial_fit``),
as a stream one cannot store.

Usage: python benchmarks/wide_choice.py [--rows 330000] [--stream-rows 1000000] [--smoke]
           [--out docs/wide_choice.md]
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import aucopt
from aucopt.exceptions import DivergenceError
from aucopt.linear_model import choose
from aucopt.linear_model._auto import has_one_scale
from aucopt.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers_cases import hashed_rows, hashed_stream, token_labels  # noqa: E402
from _stamp import stamp  # noqa: E402

logger = logging.getLogger("wide_choice")

SEED = 7
TEST_SHARE = 0.1
CHUNK = 10_000  # rows per partial_fit call of the stream table
CONSTANT = "uni-exp"  # the constant-step pass compared with the choice
CONSTANT_PARAMS = {"max_iter": 1, "schedule": "constant", "precondition": None}
SPAM_T0_PER_ROW = 0.01  # t0 of the two SPAM passes, per training row
# name: (Zipf exponent, tokens per row, positive rate, values, rows changed after the labels)
STREAMS = {
    "Zipf 1.1, 50 tokens, 20% positives, binary": (1.1, 50, 0.2, "binary", None),
    "same, 1% positives": (1.1, 50, 0.01, "binary", None),
    "same, 2% positives": (1.1, 50, 0.02, "binary", None),
    "Zipf 1.5, 10 tokens, 20%": (1.5, 10, 0.2, "binary", None),
    "Zipf 1.2, 30 tokens, 10%, tf-idf rows": (1.2, 30, 0.1, "tfidf", None),
    "Zipf 1.1, 5% of the labels flipped": (1.1, 50, 0.2, "binary", "flips"),
    "Zipf 1.1, token counts": (1.1, 50, 0.2, "counts", None),
    "Zipf 1.1, 1% of the rows with 20x the tokens": (1.1, 50, 0.2, "binary", "long"),
    "Zipf 1.1, Pareto(1.5) values": (1.1, 50, 0.2, "pareto", None),
}


def _values(X, kind: str, rng) -> sp.csr_matrix:
    """The stored values of token rows ``X`` for ``kind``: as they are (binary, or the
    counts), tf-idf rows of unit length, or Pareto-tailed values."""
    X = X.copy()
    if kind == "tfidf":
        df = np.bincount(X.indices, minlength=X.shape[1]) + 1.0
        X.data = np.log1p(X.data) * np.log(X.shape[0] / df)[X.indices]
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-12)) @ X)
    elif kind == "pareto":
        X.data = rng.pareto(1.5, X.data.size) + 1.0
    return X


def make_stream(n: int, d: int, spec: tuple, seed: int = SEED):
    """Return ``(X_train, y_train, X_test, y_test)`` of one kind of stream (see STREAMS)."""
    zipf, nnz, positives, values, change = spec
    rng = np.random.default_rng(seed)
    counts = hashed_rows(n, d, nnz, rng, zipf=zipf, binary=False)
    tokens = counts.copy()
    tokens.data[:] = 1.0  # which tokens a row has
    y = token_labels(tokens, nnz, positives, rng)
    X = _values(counts if values == "counts" else tokens, values, rng)
    if change == "flips":
        y = np.where(rng.random(n) < 0.05, -y, y)
    elif change == "long":  # 1% of the rows get 20 x nnz more tokens anywhere
        long = np.sort(rng.choice(n, n // 100, replace=False))
        extra = sp.csr_matrix((np.ones(long.size * 20 * nnz),
                               rng.integers(0, d, long.size * 20 * nnz),
                               np.arange(0, long.size * 20 * nnz + 1, 20 * nnz)),
                              shape=(long.size, d))
        lift = sp.csr_matrix((np.ones(long.size), (long, np.arange(long.size))),
                             shape=(n, long.size))
        X = sp.csr_matrix(X + lift @ extra)
        X.data[:] = 1.0
    split = int(n * (1.0 - TEST_SHARE))
    return X[:split], y[:split], X[split:], y[split:]


def learners(X) -> dict:
    """The fits compared on the training rows ``X``: name -> (registry id, hyperparameters).
    SPAM is preconditioned where ``make("auto")`` would be (:func:`has_one_scale`)."""
    spam = {"max_iter": 2, "output": "last", "t0": SPAM_T0_PER_ROW * X.shape[0],
            "precondition": None if has_one_scale(X) else "auto"}
    return {
        "make(\"auto\")": ("auto", {}),
        "spam-l2, two passes": ("spam-l2", spam),
        f"{CONSTANT}, one constant-step pass": (CONSTANT, dict(CONSTANT_PARAMS)),
    }


def _fit(algorithm, params, X, y, Xt, yt, chunks: int = 0):
    """Return ``(test AUC or None when it diverged, seconds, estimator)``."""
    est = aucopt.make(algorithm, random_state=0, **params)
    start = time.perf_counter()
    try:
        if chunks:
            for lo in range(0, X.shape[0], chunks):
                est.partial_fit(X[lo:lo + chunks], y[lo:lo + chunks], classes=[-1, 1])
        else:
            est.fit(X, y)
    except DivergenceError:
        return None, time.perf_counter() - start, est
    seconds = time.perf_counter() - start
    return roc_auc_score(yt, est.decision_function(Xt)), seconds, est


def _cell(auc, seconds) -> str:
    return "diverged" if auc is None else f"{auc:.4f} ({seconds:.2f} s)"


def run_streams(rows: int, d: int) -> tuple[list[str], list[tuple]]:
    """The table of the nine kinds of streams, and for each ``(stream, [(AUC or None when
    it diverged, seconds) of each learner])``."""
    names = list(learners(make_stream(3_000, 2**10, STREAMS[next(iter(STREAMS))])[0]))
    lines = ["| stream | choice | " + " | ".join(names) + " |",
             "| --- | --- | " + " | ".join("---" for _ in names) + " |"]
    results = []
    for name, spec in STREAMS.items():
        X, y, Xt, yt = make_stream(rows, d, spec)
        cells, choice, fits = [], "", []
        for label, (algorithm, params) in learners(X).items():
            auc, seconds, est = _fit(algorithm, params, X, y, Xt, yt)
            cells.append(_cell(auc, seconds))
            fits.append((auc, seconds))
            choice = choice or getattr(est, "algorithm_", "")
            logger.info("%s | %s: %s", name, label, cells[-1])
        chosen = choose(*X.shape, X.nnz, one_scale=has_one_scale(X))
        params = ", ".join(f"{k}={v!r}" for k, v in chosen[1].items())
        lines.append(f"| {name} | `{choice}` ({params}) | " + " | ".join(cells) + " |")
        results.append((name, fits))
    return lines, results


def verdict(results: list[tuple]) -> str:
    """Two sentences: how far ``make("auto")`` ranked from the best of the others on the
    streams and at what share of the two SPAM passes' time; where the constant-step
    pass lost most."""
    gaps, times, const = [], [], []
    for name, ((auto, auto_s), (spam, spam_s), (exp, _)) in results:
        best = max(v for v in (auto, spam, exp) if v is not None) if auto is not None else None
        gaps.append((name, None if auto is None else auto - best))
        times.append(auto_s / spam_s)
        const.append((name, (exp if exp is not None else 0.0) - (auto or 0.0)))
    lost = [(n, g) for n, g in gaps if g is None or g < 0]
    worst = min(lost, key=lambda item: -1.0 if item[1] is None else item[1]) if lost else None
    text = (f"`make(\"auto\")` ranked best or within {-worst[1]:.4f} of the best on every "
            f"stream (the furthest: *{worst[0]}*)" if worst and worst[1] is not None else
            "`make(\"auto\")` ranked best on every stream" if not lost else
            f"`make(\"auto\")` diverged on *{worst[0]}*")
    text += (f", in {min(times):.2f}-{max(times):.2f}x the time of two `spam-l2` passes. ")
    name, gap = min(const, key=lambda item: item[1])
    return text + (f"The constant-step `{CONSTANT}` pass ranked up to "
                   f"{max(g for _, g in const):+.4f} against it, and {gap:+.4f} on *{name}*.")


# the learners of a stream learnt chunk by chunk: label, registry id, hyperparameters
STREAM_LEARNERS = (
    ("make(\"auto\") by partial_fit (uni-log: chunks of more than 10^4 columns)", "auto", {}),
    ("spam-l2 by partial_fit (last iterate: make(\"auto\")'s on narrower chunks)", "spam-l2",
     {"output": "last"}),
    (f"{CONSTANT}, constant step, rows as given", CONSTANT, CONSTANT_PARAMS))


def run_chunks(rows: int, d: int) -> list[str]:
    """The peers report's hashed stream learnt by ``partial_fit`` in chunks of CHUNK rows."""
    X, y, Xt, yt = next(hashed_stream(rows, max(rows // 10, 1_000), d=d).splits())
    lines = ["| learner | test AUC (fit time) |", "| --- | --- |"]
    for label, algorithm, params in STREAM_LEARNERS:
        auc, seconds, _ = _fit(algorithm, params, X, y, Xt, yt, chunks=CHUNK)
        lines.append(f"| {label} | {_cell(auc, seconds)} |")
        logger.info("chunks | %s: %s", label, _cell(auc, seconds))
    return lines


def run_drift(rows: int, d: int, nnz: int = 50) -> list[str]:
    """A hashed stream whose concept changes halfway (new token weights), test-then-train
    by chunks of CHUNK rows: the mean AUC of each chunk before it is learnt, before and
    after the change, and over the last five chunks."""
    rng = np.random.default_rng(SEED)
    X = hashed_rows(rows, d, nnz, rng)
    half = rows // 2
    y = np.concatenate([token_labels(X[:half], nnz, 0.2, rng),
                        token_labels(X[half:], nnz, 0.2, rng)])
    lines = ["| learner | before the change | after it | last five chunks | time (s) |",
             "| --- | --- | --- | --- | --- |"]
    for label, algorithm, params in STREAM_LEARNERS:
        est = aucopt.make(algorithm, random_state=0, **params)
        scores, start = ([], []), time.perf_counter()
        for lo in range(0, rows, CHUNK):
            Xc, yc = X[lo:lo + CHUNK], y[lo:lo + CHUNK]
            if lo:  # (tested, then learnt)
                scores[lo >= half].append(roc_auc_score(yc, est.decision_function(Xc)))
            est.partial_fit(Xc, yc, classes=[-1, 1])
        seconds = time.perf_counter() - start
        lines.append(f"| {label} | {np.mean(scores[0]):.4f} | {np.mean(scores[1]):.4f} | "
                     f"{np.mean(scores[1][-5:]):.4f} | {seconds:.2f} |")
        logger.info("drift | %s", lines[-1])
    return lines


def warm_up() -> None:
    """Compile the kernels of every fit compared (dense rows apart), outside the timers."""
    X, y, _, _ = make_stream(2_000, 2**10, STREAMS[next(iter(STREAMS))])
    # make("auto") takes uni-log on these streams (its small warm-up data would not)
    fits = [("uni-log", {}), ("spam-l2", {"output": "last"}),
            *(v for v in learners(X).values() if v[0] != "auto")]
    for algorithm, params in fits:
        aucopt.make(algorithm, **params).fit(X, y)
        aucopt.make(algorithm, **params).partial_fit(X, y, classes=[-1, 1])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=330_000, help="rows per stream (10%% test)")
    p.add_argument("--stream-rows", type=int, default=1_000_000,
                   help="training rows of the chunked stream")
    p.add_argument("--smoke", action="store_true", help="tiny sizes (checks the script runs)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "wide_choice.md")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    warnings.filterwarnings("ignore")
    rows, stream_rows, d = (3_000, 3_000, 2**12) if args.smoke else (
        args.rows, args.stream_rows, 2**20)
    start = time.perf_counter()
    warm_up()
    streams, results = run_streams(rows, d)
    chunks = run_chunks(stream_rows, d)
    drift = run_drift(max(stream_rows * 3 // 5, 4 * CHUNK), d)
    minutes = (time.perf_counter() - start) / 60
    command = "python benchmarks/wide_choice.py" + (" --smoke" if args.smoke else "")
    text = "\n".join([
        "# The wide-data choice on hashed sparse streams", "",
        f"{stamp()}. Generated by `{command}` in {minutes:.1f} min (one fit per cell on a "
        "shared machine: times are indicative).", "",
        f"{verdict(results)}", "",
        "On data of more than 10^4 columns `make(\"auto\")` takes one pass of `uni-log` (the "
        "class-balanced logistic loss) from 2 x 10^5 rows on (the "
        "[choosing page](user_guide/choosing.md)). SPAM's step scale decays for every column "
        "alike, so the rare columns of hashed data, each met a few times in a pass, learn "
        "little in one pass: it needs two (with `t0` a hundredth of the rows). "
        f"`{CONSTANT}` with `schedule=\"constant\"` keeps learning them, faster still, but "
        "its exponential loss weighs a confidently wrong row exponentially, which flipped "
        "labels make common; the logistic loss's derivative is bounded.", "",
        "## Nine kinds of hashed streams", "",
        f"{rows:,} rows each ({TEST_SHARE:.0%} test, the last ones), d = {d:,}, seed {SEED}; "
        "test AUC and fit time. Tokens are drawn from a Zipf law and hashed into the "
        "columns; the label thresholds a linear score of the tokens present plus logistic "
        "noise at the positive rate. *choice*: what `make(\"auto\")` took.", "",
        *streams, "",
        "## A hashed stream learnt chunk by chunk", "",
        f"The peers report's hashed stream ({stream_rows:,} training rows, d = {d:,}) by "
        f"`partial_fit` in chunks of {CHUNK:,} rows; test AUC and the time of all the "
        "calls.", "", *chunks, "",
        "## A hashed stream whose concept changes", "",
        f"{max(stream_rows * 3 // 5, 4 * CHUNK):,} rows of the same kind (20% positives, d = "
        f"{d:,}) whose token weights are drawn anew halfway; each chunk of {CHUNK:,} rows is "
        "scored (test AUC) before `partial_fit` learns it.", "", *drift, "",
        "Rerun: `python benchmarks/wide_choice.py` (about two minutes; `--rows` and "
        "`--stream-rows` change the sizes).", ""])
    args.out.write_text(text)
    logger.info("wrote %s in %.1f min", args.out, minutes)


if __name__ == "__main__":
    main()
