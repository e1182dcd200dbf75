"""Run by tests/test_io_fuzz.py in a subprocess: use every model file of a manifest.

``python tests/_fuzz_worker.py MANIFEST.json`` loads each listed model, continues
it with ``partial_fit`` (streaming ids, dense then CSR rows where accepted) and
scores with ``decision_function``. One JSON line per model on stdout:
``{"path": ..., "outcome": "ok" | "ValueError" | "other", "error": ...}``. A
crash (signal) of this process is what the test looks for; an exception that is
not a ``ValueError`` is reported as ``"other"``.
"""

import json
import sys
import warnings

import numpy as np
import scipy.sparse as sp

import aucopt.io
from aucopt.algorithms import get_algorithm


def use(path, X, y):
    """Load, continue and score one model file."""
    model = aucopt.io.load(path)
    spec = get_algorithm(model._algorithm)
    if spec.streaming:
        model.partial_fit(X, y)
        if spec.sparse:
            model.partial_fit(sp.csr_matrix(X), y)
    scores = model.decision_function(X)
    if spec.sparse:
        scores = np.concatenate([scores, model.decision_function(sp.csr_matrix(X))])
    if not np.isfinite(scores).all():  # loaded and trained "fine" but scores are garbage
        raise ArithmeticError("non-finite scores after load + partial_fit")
    return scores


def main(manifest_path):
    """Use every model of the manifest; print one JSON line each."""
    manifest = json.loads(open(manifest_path).read())
    X = np.load(manifest["X"])
    y = np.load(manifest["y"])
    warnings.simplefilter("ignore")
    for path in manifest["models"]:
        try:
            use(path, X, y)
            outcome, error = "ok", ""
        except ValueError as exc:
            outcome, error = "ValueError", f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            outcome, error = "other", f"{type(exc).__name__}: {exc}"
        print(json.dumps({"path": path, "outcome": outcome, "error": error[:500]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
