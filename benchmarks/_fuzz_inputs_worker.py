"""Worker of benchmarks/fuzz_inputs.py: runs fuzz cases read from stdin, one JSON line each.

Each input line is a case (a JSON object, see :func:`run_case`); each output line is
``{"id": ..., "outcome": "ok" | "documented" | "undocumented", "error": ..., "wrong": ...}``.
``documented`` errors are ``ValueError`` (and subclasses) and ``OSError``; anything else
is ``undocumented``. ``wrong`` names a silent wrong result: an invalid input accepted,
non-finite scores after a successful call, a model changed by a failed call, a saved
model that does not load back equal (or a fitted one that load refuses). A crash of this
process or a case that does not finish is seen by the parent.
"""

from __future__ import annotations

import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import aucopt
import aucopt.io

DOCUMENTED = (ValueError, OSError)


def _data(kind: str, seed: int, n: int = 60, d: int = 6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1)
    y[:2] = [1, -1]
    if kind == "huge":
        X = X * 1e150
    elif kind == "tiny":
        X = X * 1e-150
    elif kind == "constant":
        X = np.ones_like(X)
    elif kind == "binary":
        X = (X > 0).astype(float)
    elif kind == "two_rows":
        X, y = X[:2], y[:2]
    elif kind == "one_column":
        X = X[:, :1]
    elif kind == "duplicates":
        X = np.repeat(X[: n // 6], 6, axis=0)
        y = np.repeat(y[: n // 6], 6)
        y[:2] = [1, -1]
    elif kind == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    return X, y


def _weights(kind: str | None, n: int):
    if kind is None:
        return None
    table = {"1e308": np.full(n, 1e308), "2^62": np.full(n, 2.0**62),
             "1e-300": np.full(n, 1e-300),
             "mixed": np.where(np.arange(n) % 2 == 0, 1e-300, 1e300),
             "one_heavy": np.r_[1e15, np.ones(n - 1)], "ints": np.arange(n) % 3}
    return table[kind]


def _scores(est, X):
    return np.asarray(est.decision_function(X), dtype=float)


def _damaged(case):
    good = sp.random(60, 8, density=0.4, format="csr", random_state=case["seed"])
    X = good.copy()
    kind, pos, value = case["damage"], case["position"], case["value"]
    if kind == "index":
        X.indices = X.indices.astype(np.int64) if abs(value) >= 2**31 else X.indices
        X.indices[pos % X.indices.size] = value
    elif kind == "indptr":
        X.indptr = X.indptr.astype(np.int64) if abs(value) >= 2**31 else X.indptr
        X.indptr[pos % X.indptr.size] = value
    elif kind == "short_indptr":
        X.indptr = X.indptr[: -(1 + pos % 5)]
    elif kind == "short_data":
        X.data = X.data[: -(1 + pos % 5)]
    return good, X


def still_valid(X) -> bool:
    """Whether a damaged CSR matrix is a valid one after all (e.g. ``indptr[2]`` set to 8
    between ``indptr[1] = 5`` and ``indptr[3] = 10``: other rows, the same structure)."""
    if X.data.shape != X.indices.shape:
        return False
    try:
        sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape).check_format(full_check=True)
    except ValueError:
        return False
    return True


def run_csr(case):
    """fit / partial_fit / decision_function on a CSR matrix damaged after construction
    (a damage that leaves a valid matrix must be accepted, as any valid input)."""
    good, X = _damaged(case)
    y = np.where(np.arange(60) % 3 == 0, 1, -1)
    est = aucopt.make(case["algorithm"], random_state=0)
    if case["call"] != "fit":
        est.fit(good, y)
    call = getattr(est, case["call"])
    call(X) if case["call"] == "decision_function" else call(X, y)
    return None if still_valid(X) else "an invalid CSR structure was accepted"


def run_sequence(case, folder: Path):
    """A sequence of partial_fit / set_params / fit / save+load / scoring calls."""
    X, y = _data("normal", case["seed"])
    est = aucopt.make(case["algorithm"], random_state=0)
    est.partial_fit(X[:20], y[:20], classes=[-1, 1])
    for k, (op, *args) in enumerate(case["ops"]):
        before = _scores(est, X)
        try:
            if op == "set":
                est.set_params(**{args[0]: args[1]})
            elif op == "partial_fit":
                chunk = slice(20 + 5 * args[0], 40 + 5 * args[0])
                est.partial_fit(X[chunk], y[chunk])
            elif op == "fit":
                est.fit(X, y)
            elif op == "save_load":
                aucopt.io.save(est, folder / f"m{k}")
                loaded = aucopt.io.load(folder / f"m{k}")
                if not np.array_equal(_scores(loaded, X), before):
                    return f"op {k}: the loaded model scores differently"
                est = loaded
        except DOCUMENTED:
            if not np.array_equal(_scores(est, X), before, equal_nan=True):
                return f"op {k} ({op}) failed and changed the model"
            continue
        scores = _scores(est, X)
        if not np.isfinite(scores).all():
            return f"op {k} ({op}): non-finite scores"
    return None


def _round_trip(est, X, scores, path: Path):
    """Return what is wrong with saving ``est`` and loading it back (None: nothing)."""
    try:
        aucopt.io.save(est, path)
        loaded = aucopt.io.load(path)
    except DOCUMENTED as exc:  # a model fit wrote must save and load
        return f"the fitted model does not save and load back ({type(exc).__name__}: {exc})"
    if not np.array_equal(_scores(loaded, X), scores):
        return "the fitted model loads back with other scores"
    return None


def run_extreme(case, folder: Path):
    """fit (and partial_fit) with extreme parameters, weights or data; a fitted model must
    score finitely and save and load back equal."""
    X, y = _data(case["data"], case["seed"])
    est = aucopt.make(case["algorithm"], random_state=0, **case["params"])
    w = _weights(case["weights"], X.shape[0])
    est.fit(X, y, sample_weight=w)
    scores = _scores(est, X)
    if not np.isfinite(scores).all():
        return "non-finite scores after a successful fit"
    wrong = _round_trip(est, X, scores, folder / f"extreme{case['id']}")
    if wrong:
        return wrong
    if hasattr(est, "partial_fit"):
        before = scores
        try:
            est.partial_fit(X, y, sample_weight=w)
        except DOCUMENTED:
            if not np.array_equal(_scores(est, X), before):
                return "a failed partial_fit changed the model"
            return None
        scores = _scores(est, X)
        if not np.isfinite(scores).all():
            return "non-finite scores after a successful partial_fit"
        return _round_trip(est, X, scores, folder / f"extreme{case['id']}")
    return None


def run_case(case, folder: Path) -> dict:
    out = {"id": case["id"], "outcome": "ok", "error": "", "wrong": None}
    try:
        if case["kind"] == "csr":
            out["wrong"] = run_csr(case)
        elif case["kind"] == "sequence":
            out["wrong"] = run_sequence(case, folder)
        else:
            out["wrong"] = run_extreme(case, folder)
    except DOCUMENTED as exc:
        out.update(outcome="documented", error=f"{type(exc).__name__}: {exc}"[:300])
    except Exception as exc:  # noqa: BLE001 - what the fuzz counts
        out.update(outcome="undocumented", error=f"{type(exc).__name__}: {exc}"[:300])
    return out


def main():
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    with tempfile.TemporaryDirectory() as tmp:
        for line in sys.stdin:
            case = json.loads(line)
            print(json.dumps(run_case(case, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
