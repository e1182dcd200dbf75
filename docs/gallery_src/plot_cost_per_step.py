"""
Cost per step against the dimension
===================================

The registry states each learner's cost per step (``aucopt.algorithm_info(id)["cost"]``).
Measured here: time per row of one ``fit`` pass on dense data as ``d`` grows. The O(d)
learners (SPAM-L2, SOLAM) grow linearly, OPAUC's O(d^2) class covariances quadratically;
OPAUCr's sketch of rank 20 keeps O(rank d). Timings depend on the machine; the first fit of
each learner compiles its kernel and is not timed.
"""

import time

import matplotlib.pyplot as plt

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.plotting import legend_outside

dims = [25, 50, 100, 200, 400]
learners = {"spam-l2": {}, "solam": {}, "opauc": {}, "opauc-r": {"rank": 20}}
times = {a: [] for a in learners}
for d in dims:
    X, y = make_auc_problem(2000, d, random_state=0)
    for algorithm, params in learners.items():
        est = aucopt.make(algorithm, max_iter=1, random_state=1, **params)
        est.fit(X[:200], y[:200])  # compile outside the timing
        start = time.perf_counter()
        est.fit(X, y)
        times[algorithm].append((time.perf_counter() - start) / len(y) * 1e6)

fig, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
for algorithm, us in times.items():
    ax.loglog(dims, us, "o-", label=f"{algorithm}: {aucopt.algorithm_info(algorithm)['memory']}"
              .split(" (")[0])
ax.set_xlabel("d (dense features)")
ax.set_ylabel("time per row (microseconds)")
ax.set_title("Cost of one training step against the dimension")
legend_outside(ax)
