"""Cost of one ``learn_one``: ``aucopt.river.AUCClassifier`` against River's ``LogisticRegression``.

Both learn the same stream of 20-feature dicts (fixed schema, standard normal values,
labels from a noisy linear rule) in the same process, interleaved; the figure is the
median over ``--repeats`` runs of the process CPU time per call in microseconds (on a
shared machine wall time also counts the time the process waits for a core), for
``learn_one`` alone and for a test-then-train step (``predict_proba_one`` then
``learn_one``, which also forms ``coef_`` and ``intercept_`` after every update). The
AUCClassifier call is split into its parts, timed separately on the same stream:

- *dict -> row*: ``ColumnMap.row``, the feature dict turned into a one-row CSR;
- *core*: the estimator's ``_learn_row`` on prebuilt rows (the spec's fused row kernel
  where it has one, else the general ``_fit_rows``: the kernel calls and their
  bookkeeping);
- *front-end alone*: ``learn_one`` with ``_learn_row`` replaced by a no-op (label
  lookup, dict -> row, the call itself);
- *spec.run alone*: the algorithm's own pass (``AlgorithmSpec.run``: its hyperparameter
  tuple and the kernel call) on the same rows, without the estimator's bookkeeping
  (class statistics, undo log, commit).

Used by ``benchmarks/prequential.py`` for the section of ``docs/prequential.md``.

Ids whose state cannot grow with new names (random features per input column) hash the
20 names into ``FIXED_WIDTH`` columns.

Usage: python benchmarks/river_learn_one.py [--rows 20000] [--repeats 5]
           [--algorithms all | spam-l2,solam,...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from river import linear_model

from aucopt.algorithms._data import identity_order
from aucopt.river import AUCClassifier

N_FEATURES = 20
_clock = time.process_time  # CPU time of this process: waiting for a core is not counted
ALGORITHMS = "all"  # every streaming registry id
FIXED_WIDTH = 256
RIVER = "River LogisticRegression"


def _model(algorithm):
    """A new ``AUCClassifier`` of ``algorithm`` (hashed when its state cannot grow)."""
    from aucopt.river._classifier import probe_feature_axes

    try:
        probe_feature_axes(algorithm)
        return AUCClassifier(algorithm)
    except ValueError:
        return AUCClassifier(algorithm, n_features=FIXED_WIDTH)


def streaming_ids(spec: str) -> list[str]:
    """The ids of ``--algorithms`` (``all``: every streaming registry id)."""
    import aucopt

    if spec != "all":
        return spec.split(",")
    return [a for a in aucopt.list_algorithms() if aucopt.algorithm_info(a)["streaming"]]


def make_stream(n_rows: int, seed: int = 0):
    """Return ``n_rows`` (dict, bool) pairs with ``N_FEATURES`` named features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, N_FEATURES))
    y = (X @ rng.normal(size=N_FEATURES) + rng.normal(size=n_rows) > 0).tolist()
    names = [f"x{j}" for j in range(N_FEATURES)]
    return [dict(zip(names, row)) for row in X.tolist()], y


def _learn(model, xs, ys) -> float:
    start = _clock()
    for x, y in zip(xs, ys):
        model.learn_one(x, y)
    return (_clock() - start) / len(xs) * 1e6


def _timed(calls) -> float:
    """Microseconds per call of ``calls``, a list of ``(function, args, kwargs)``."""
    start = _clock()
    for func, args, kwargs in calls:
        func(*args, **kwargs)
    return (_clock() - start) / len(calls) * 1e6


def _parts(algorithm, xs, ys) -> tuple[float, float, float, float]:
    """Microseconds per call of the dict -> row step, of the core call alone, of
    ``learn_one`` with the core call replaced by a no-op (the front-end's whole share), and
    of the algorithm's ``spec.run`` alone."""
    hollow = _model(algorithm)
    hollow.learn_one(xs[0], ys[0])
    hollow.estimator._learn_row = lambda *args, **kwargs: None
    front = _learn(hollow, xs, ys)
    model = _model(algorithm)
    model.learn_one(xs[0], ys[0])
    to_row, width = model._map.row, model._width
    convert = _timed([(to_row, (x, width), {"grow": True}) for x in xs])
    rows = [to_row(x, width, grow=True) for x in xs]  # for the core timing, not timed
    signed = [np.array([1.0 if y else -1.0]) for y in ys]
    core = _timed([(model.estimator._learn_row, (r, s), {}) for r, s in zip(rows, signed)])
    est = model.estimator  # its state goes on learning: the model is not used afterwards
    spec, params, order = est._spec(), est._params(), identity_order(1)
    hook = {"before_dense": None} if spec.column_keys else {}
    run = _timed([(spec.run, (est._state, r, s, order, params, est.t_ + i, True, est._rng),
                   hook) for i, (r, s) in enumerate(zip(rows, signed))])
    return convert, core, front, run


def _test_then_train(model, xs, ys) -> float:
    """Microseconds per sample of ``predict_proba_one`` then ``learn_one`` (a prequential step)."""
    start = _clock()
    for x, y in zip(xs, ys):
        model.predict_proba_one(x)
        model.learn_one(x, y)
    return (_clock() - start) / len(xs) * 1e6


def measure(algorithms, n_rows=20_000, repeats=5):
    """Return ``{name: {"learn_one": us, "test-then-train": us, "dict -> row": us, "core": us,
    "front-end": us, "spec.run": us}}`` (medians; River's model has the first two)."""
    xs, ys = make_stream(n_rows)
    for algorithm in algorithms:  # compile the kernels outside the timed runs
        _learn(_model(algorithm), xs[:200], ys[:200])
        _test_then_train(_model(algorithm), xs[:200], ys[:200])
    models = {RIVER: linear_model.LogisticRegression}
    models |= {a: (lambda a=a: _model(a)) for a in algorithms}
    runs = {name: [] for name in models}
    parts = {name: [] for name in models if name in algorithms}
    for _ in range(repeats):
        for name, new in models.items():
            runs[name].append((_learn(new(), xs, ys), _test_then_train(new(), xs, ys)))
            if name in parts:
                parts[name].append(_parts(name, xs, ys))
    keys = ("dict -> row", "core", "front-end", "spec.run")
    out = {}
    for name, times in runs.items():
        out[name] = {"learn_one": statistics.median(t[0] for t in times),
                     "test-then-train": statistics.median(t[1] for t in times)}
        for i, key in enumerate(keys if name in parts else ()):
            out[name][key] = statistics.median(p[i] for p in parts[name])
    return out


def markdown(results, n_rows, repeats) -> str:
    """Return the results as a Markdown table with a one-line legend."""
    lines = [
        f"{n_rows:,} rows of {N_FEATURES} features, process CPU time per call in microseconds, "
        f"median of {repeats} interleaved runs. *predict_proba_one + learn_one* is one step "
        "of test-then-train evaluation; *spec.run alone* is the algorithm's own pass on the "
        "same rows (its hyperparameter tuple and the kernel call), part of the core call.",
        "",
        "| learner | learn_one (us) | / River LR | predict_proba_one + learn_one (us) "
        "| / River LR | front-end alone (us) | dict -> row alone (us) "
        "| core `_learn_row` (us) | spec.run alone (us) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    river = results.get(RIVER)
    for name, r in results.items():
        row = f"AUCClassifier(\"{name}\")" if name in aucopt_ids() else name
        learn, pair = r["learn_one"], r["test-then-train"]
        lines.append(f"| {row} | {learn:.1f} | {_ratio(learn, river, 'learn_one')} | "
                     f"{pair:.1f} | {_ratio(pair, river, 'test-then-train')} | "
                     f"{_fmt(r.get('front-end'))} | {_fmt(r.get('dict -> row'))} | "
                     f"{_fmt(r.get('core'))} | {_fmt(r.get('spec.run'))} |")
    return "\n".join(lines)


def _ratio(value, river, key) -> str:
    return "" if river is None else f"{value / river[key]:.1f}x"


def aucopt_ids():
    import aucopt

    return set(aucopt.list_algorithms())


def _fmt(value) -> str:
    return "" if value is None else f"{value:.1f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--algorithms", default=ALGORITHMS)
    args = parser.parse_args(argv)
    results = measure(streaming_ids(args.algorithms), args.rows, args.repeats)
    print(markdown(results, args.rows, args.repeats))


if __name__ == "__main__":
    main()
