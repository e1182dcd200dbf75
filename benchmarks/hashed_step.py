"""Test-then-train step at 10^4 and 10^6 hashed columns (50 non-zeros), against River LR.

One step is ``predict_proba_one(x)`` then ``learn_one(x, y)`` on a dict of 50 names drawn
from 10^6 names (``x_<k>``, values standard normal), through
``aucopt.river.AUCClassifier(id, n_features=D)`` for ``D = 10^4`` and ``10^6``, and through
River's ``LogisticRegression`` (which keeps a dict of the weights it has seen). Process CPU
time per step in microseconds, median of ``--repeats`` interleaved runs over the same
stream. Used for the streaming section of ``docs/streaming.md``.

``--formed`` adds, for each learner, runs whose one-row scores form ``coef_`` and
``intercept_`` from the state (O(D)) instead of the O(nnz) score from the lazy form:
the cost without it, measured in the same runs.

Usage: python benchmarks/hashed_step.py [--rows 5000] [--repeats 5] [--algorithms spam-l2,ftrl-auc]
       [--formed]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from river import linear_model

from aucopt.river import AUCClassifier

WIDTHS = (10**4, 10**6)
NNZ = 50


def make_stream(n_rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    names = rng.integers(0, 10**6, size=(n_rows, NNZ))
    values = rng.normal(size=(n_rows, NNZ))
    xs = [dict(zip((f"x_{k}" for k in row), vals)) for row, vals in
          zip(names.tolist(), values.tolist())]
    ys = (values[:, 0] + 0.5 * rng.normal(size=n_rows) > 0).tolist()
    return xs, ys


def _step(model, xs, ys) -> float:
    start = time.process_time()
    for x, y in zip(xs, ys):
        model.predict_proba_one(x)
        model.learn_one(x, y)
    return (time.process_time() - start) / len(xs) * 1e6


def _formed(algorithm: str, width: int) -> AUCClassifier:
    """A model whose one-row scores form ``coef_`` and ``intercept_`` (O(D))."""
    model = AUCClassifier(algorithm, n_features=width)
    model.estimator._score_row = lambda rows: None
    return model


def measure(algorithms, n_rows, repeats, formed=False):
    xs, ys = make_stream(n_rows)
    makers = {"River LogisticRegression": linear_model.LogisticRegression}
    for a in algorithms:
        for width in WIDTHS:
            makers[f"{a} D={width:.0e}"] = lambda a=a, w=width: AUCClassifier(a, n_features=w)
            if formed:
                makers[f"{a} (coef_ formed) D={width:.0e}"] = (
                    lambda a=a, w=width: _formed(a, w))
    for make in makers.values():  # compile outside the timed runs
        _step(make(), xs[:100], ys[:100])
    runs = {name: [] for name in makers}
    for _ in range(repeats):
        for name, make in makers.items():
            model = make()
            _step(model, xs[:200], ys[:200])  # both classes seen: the model is not zero
            runs[name].append(_step(model, xs[200:], ys[200:]))
    return {name: statistics.median(times) for name, times in runs.items()}


def markdown(results, algorithms, n_rows, repeats) -> str:
    river = results["River LogisticRegression"]
    lines = [f"{n_rows:,} steps of {NNZ} hashed names, process CPU time per step (us), median "
             f"of {repeats} interleaved runs; River LogisticRegression: {river:.1f} us.", "",
             "| learner | D = 10^4 (us) | D = 10^6 (us) | 10^6 / 10^4 | 10^6 / River LR |",
             "| --- | --- | --- | --- | --- |"]
    for a in algorithms:
        for variant, label in (("", ""), (" (coef_ formed)", ", coef_ formed per score")):
            if f"{a}{variant} D=1e+04" not in results:
                continue
            small, large = results[f"{a}{variant} D=1e+04"], results[f"{a}{variant} D=1e+06"]
            lines.append(f"| AUCClassifier(\"{a}\"){label} | {small:.1f} | {large:.1f} | "
                         f"{large / small:.1f}x | {large / river:.1f}x |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--algorithms", default="spam-l2,ftrl-auc")
    parser.add_argument("--formed", action="store_true",
                        help="also time scores that form coef_ (the O(D) path)")
    args = parser.parse_args(argv)
    algorithms = args.algorithms.split(",")
    print(markdown(measure(algorithms, args.rows, args.repeats, args.formed), algorithms,
                  args.rows, args.repeats))


if __name__ == "__main__":
    main()
