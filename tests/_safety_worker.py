"""Run by tests/test_safety_kernels.py in a subprocess: calls that once crashed the process.

``python tests/_safety_worker.py CASES.json`` runs each case and prints one JSON line
``{"case": ..., ...}``; a case that kills the process leaves its line (and the next
ones) missing, which the test reports with the exit signal.
"""

import json
import sys
import warnings

import numpy as np
import scipy.sparse as sp

import aucopt
import aucopt.io


def csr_cases(algorithm, damages):
    """fit / partial_fit / decision_function on CSR matrices damaged after construction."""
    rng = np.random.default_rng(0)
    good = sp.random(60, 8, density=0.4, format="csr", random_state=0)
    y = np.where(rng.random(60) < 0.5, 1, -1)
    streaming = hasattr(aucopt.make(algorithm), "partial_fit")
    for damage, code in sorted(damages.items()):
        for call in ("fit", "partial_fit", "decision_function"):
            if call == "partial_fit" and not streaming:
                continue
            est = aucopt.make(algorithm, random_state=0)
            if call != "fit":
                est.fit(good, y)
            X = good.copy()
            exec(code, {"X": X, "np": np})  # noqa: S102 - the damage, written by the test
            try:
                if call == "fit":
                    est.fit(X, y)
                elif call == "partial_fit":
                    est.partial_fit(X, y)
                else:
                    est.decision_function(X)
                outcome, message = "accepted", ""
            except ValueError as exc:
                outcome, message = "ValueError", str(exc)
            except Exception as exc:  # noqa: BLE001 - reported to the test
                outcome, message = type(exc).__name__, str(exc)
            yield {"case": f"csr/{algorithm}/{damage}/{call}", "outcome": outcome,
                   "message": message}


def structural_case(algorithm, name, value, path):
    """set_params of a structural hyperparameter mid-stream, then continue, save, load."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = np.where(X[:, 0] + rng.normal(size=200) > 0, 1, -1)
    est = aucopt.make(algorithm, random_state=0)
    est.partial_fit(X[:100], y[:100], classes=[-1, 1])
    before = est.decision_function(X)
    est.set_params(**{name: value})
    out = {"case": f"structural/{algorithm}/{name}"}
    try:
        est.partial_fit(X[100:], y[100:])
        out["partial_fit"] = "accepted"
    except ValueError as exc:
        out["partial_fit"] = str(exc)
    out["unchanged"] = bool(np.array_equal(est.decision_function(X), before))
    aucopt.io.save(est, path)
    loaded = aucopt.io.load(path)
    out["round_trip"] = bool(np.array_equal(loaded.decision_function(X), before))
    loaded.partial_fit(X[100:], y[100:])  # the loaded model continues its stream
    est.fit(X, y)  # fit restarts with the new value
    est.partial_fit(X[100:], y[100:])
    out["refit"] = bool(np.isfinite(est.decision_function(X)).all())
    return out


def main(path):
    warnings.simplefilter("ignore")
    spec = json.loads(open(path).read())
    for algorithm in spec["csr_ids"]:
        for line in csr_cases(algorithm, spec["damages"]):
            print(json.dumps(line), flush=True)
    for algorithm, name, value, model in spec["structural"]:
        print(json.dumps(structural_case(algorithm, name, value, model)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
