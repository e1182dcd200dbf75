"""The fixed costs of a fit: the step calibration's share, and a one-pass fit against SGD.

Measures, interleaved and as medians of ``--repeats`` runs on the same rows (the workloads of
``benchmarks/run.py``: uniform [-1, 1] features, 30% positives):

* the share of ``eta0="auto"``'s calibration (:func:`aucopt.algorithms._calibrate.calibrate_step`
  with the estimator's own arguments) in a default SPAM-L2 ``fit`` (10 passes), dense
  n = 10^5, d = 100, and CSR n = 10^5, d = 10^6 with 50 non-zeros a row;
* a one-pass dense SPAM-L2 ``fit`` (``max_iter=1``, default step) over one
  ``SGDClassifier`` epoch (``max_iter=1, tol=None, shuffle=False``) on n = 2 x 10^5, d = 100.

Every kernel is compiled by a warm-up fit first. Usage:
python benchmarks/_peers_fixed_costs.py [--repeats 5] [--algorithm spam-l2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import make_workload  # noqa: E402
from sklearn.linear_model import SGDClassifier  # noqa: E402

import aucopt  # noqa: E402
from aucopt.algorithms._calibrate import calibrate_step  # noqa: E402
from aucopt.algorithms._data import as_rows  # noqa: E402


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def calibration_share(algorithm: str, key: str, scale: float, repeats: int) -> dict:
    """Median of (calibration time / default fit time) over interleaved runs."""
    _, X, y = make_workload(key, scale)
    est = aucopt.make(algorithm, random_state=0)
    est.fit(X, y)  # warm-up: compiles, touches the data
    spec, params, rows = est._spec(), est._params(), as_rows(X)
    signed = (y > 0) * 2.0 - 1.0
    ratios, fits, calibs = [], [], []
    for _ in range(repeats):
        fit = _time(lambda: est.fit(X, y))
        calib = _time(lambda: calibrate_step(spec, params, rows, signed, est.max_iter))
        ratios.append(calib / fit)
        fits.append(fit)
        calibs.append(calib)
    return {"share": statistics.median(ratios), "fit": statistics.median(fits),
            "calibration": statistics.median(calibs), "rows": X.shape[0]}


def one_pass_over_sgd(algorithm: str, scale: float, repeats: int) -> dict:
    """Median of (one-pass fit / one SGDClassifier epoch), interleaved."""
    _, X, y = make_workload("dense100", scale)
    est = aucopt.make(algorithm, max_iter=1, shuffle=False, random_state=0)
    sgd = SGDClassifier(max_iter=1, tol=None, shuffle=False)
    est.fit(X, y)
    sgd.fit(X, y)
    ratios = []
    for _ in range(repeats):
        a, b = _time(lambda: est.fit(X, y)), _time(lambda: sgd.fit(X, y))
        ratios.append(a / b)
    return {"ratio": statistics.median(ratios), "runs": ratios, "rows": X.shape[0]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--algorithm", default="spam-l2")
    p.add_argument("--scale", type=float, default=1.0)
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    for key, scale in (("dense100", 0.5 * args.scale), ("csr1e6", args.scale)):
        r = calibration_share(args.algorithm, key, scale, args.repeats)
        print(f"{args.algorithm} {key} n={r['rows']}: calibration {r['calibration']:.4f}s of a "
              f"default fit {r['fit']:.4f}s = {100 * r['share']:.1f}% (median of ratios)")
    r = one_pass_over_sgd(args.algorithm, args.scale, args.repeats)
    print(f"{args.algorithm} dense n={r['rows']} d=100: one-pass fit / SGD epoch = "
          f"{r['ratio']:.2f}x (runs {', '.join(f'{x:.2f}' for x in r['runs'])})")


if __name__ == "__main__":
    main()
