"""
Test AUC against the number of passes
=====================================

One pass is enough for the averaged one-pass learners: more passes change the test AUC in
the third decimal. ``partial_fit`` over the shuffled training set, once per pass, and the
test AUC after each pass.
"""

import matplotlib.pyplot as plt
import numpy as np

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.plotting import legend_outside

X, y = make_auc_problem(4000, 30, separation=1.0, random_state=0)
X, X_test, y, y_test = X[:2000], X[2000:], y[:2000], y[2000:]
rng = np.random.default_rng(1)
passes = np.arange(1, 9)

fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
for algorithm in ("spam-l2", "solam", "uni-squ", "ogd-fifo"):
    est = aucopt.make(algorithm, random_state=1)
    aucs = []
    for _ in passes:
        order = rng.permutation(len(y))
        est.partial_fit(X[order], y[order], classes=[-1, 1])
        aucs.append(est.score(X_test, y_test))
    ax.plot(passes, aucs, "o-", label=algorithm)
ax.set_xlabel("passes over the training data")
ax.set_ylabel("test AUC")
ax.set_title("Test AUC after each pass (2,000 training rows, d = 30)")
legend_outside(ax)
