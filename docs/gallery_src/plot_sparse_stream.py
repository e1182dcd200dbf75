"""
A sparse, high-dimensional stream
=================================

A stream of CSR rows with 200,000 features and 30 non-zeros per row, learned chunk by
chunk with ``partial_fit``. The O(nnz) learners (SPAM-L2, FTRL-AUC, the online univariate
square loss) do work proportional to the non-zeros of a row, not to the dimension, and
keep O(d) memory. The positives carry a small signal on 50 of the features.
"""

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

import aucopt
from aucopt.plotting import legend_outside

d, nnz, rng = 200_000, 30, np.random.default_rng(0)
signal = rng.choice(d, 50, replace=False)


def chunk(n):
    """n rows: 30 random non-zeros each; positives add +1 on 3 of the signal features."""
    y = np.where(rng.random(n) < 0.3, 1, -1)
    cols = rng.integers(0, d, (n, nnz))
    vals = rng.uniform(-1, 1, (n, nnz))
    cols[y > 0, :3] = rng.choice(signal, (int((y > 0).sum()), 3))
    vals[y > 0, :3] = 1.0
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, d))
    X.sum_duplicates()
    return X, y


X_test, y_test = chunk(3000)
learners = {a: aucopt.make(a) for a in ("spam-l2", "ftrl-auc", "uni-squ")}
seen, curves = [], {a: [] for a in learners}
for step in range(12):
    X, y = chunk(1000)
    for algorithm, est in learners.items():
        est.partial_fit(X, y, classes=[-1, 1])
        curves[algorithm].append(est.score(X_test, y_test))
    seen.append(1000 * (step + 1))

fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
for algorithm, aucs in curves.items():
    ax.plot(seen, aucs, "o-", label=algorithm)
ax.set_xlabel("rows streamed")
ax.set_ylabel("test AUC")
ax.set_title(f"CSR stream, d = {d:,}, {nnz} non-zeros per row")
legend_outside(ax)
