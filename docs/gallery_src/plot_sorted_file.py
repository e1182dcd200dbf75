"""
Streaming a label-sorted file, done right
=========================================

Many files are sorted by label: all positives, then all negatives. Read in that order, a
one-pass learner first sees only one class: there are no pairs to rank, its class
statistics are one-sided, and FSAUC's first stage is wasted; ``partial_fit`` warns
(``OrderedStreamWarning``) after 1,000 rows of one class. Reading the same file through a
seeded shuffle buffer (``iter_svmlight(..., shuffle_buffer=N)``, what ``aucopt fit --stream``
does by default) mixes the classes again: here a buffer of a third of the file brings both
learners most or all of the way back. Shuffling the file once when writing it gives the
pass what ``fit`` sees.
"""

import tempfile
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import dump_svmlight_file

import aucopt
from aucopt.datasets import iter_svmlight, make_auc_problem
from aucopt.exceptions import OrderedStreamWarning
from aucopt.plotting import legend_outside

X_all, y_all = make_auc_problem(9000, 20, separation=1.5, random_state=0)
X, y, X_test, y_test = X_all[:6000], y_all[:6000], X_all[6000:], y_all[6000:]
folder = Path(tempfile.mkdtemp())
sorted_rows = np.argsort(-y, kind="stable")                   # positives first
shuffled_rows = np.random.default_rng(2).permutation(len(y))  # shuffled once
dump_svmlight_file(X[sorted_rows], y[sorted_rows], str(folder / "sorted.svm"))
dump_svmlight_file(X[shuffled_rows], y[shuffled_rows], str(folder / "shuffled.svm"))


def stream(algorithm, path, shuffle_buffer, **params):
    est = aucopt.make(algorithm, **params)
    seen, aucs = [0], [0.5]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OrderedStreamWarning)
        for X_chunk, y_chunk in iter_svmlight(path, chunk_size=500, n_features=20,
                                              shuffle_buffer=shuffle_buffer, random_state=0):
            est.partial_fit(X_chunk, y_chunk, classes=[-1, 1])
            seen.append(seen[-1] + X_chunk.shape[0])
            aucs.append(est.score(X_test, y_test))
    for warning in caught:
        print(f"{algorithm}, {path.name}, buffer {shuffle_buffer}: {warning.message}")
    return seen, aucs


RUNS = (("sorted file, in order", "sorted", 0),
        ("sorted file, shuffle buffer of 2,000 lines", "sorted", 2000),
        ("file shuffled once", "shuffled", 0))
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True, layout="constrained")
for ax, (algorithm, params) in zip(axes, [("spam-l2", {"stats": "online"}),
                                          ("fsauc", {"n_samples_hint": len(y)})]):
    for label, name, buffer in RUNS:
        ax.plot(*stream(algorithm, folder / f"{name}.svm", buffer, **params), label=label)
    ax.set_title(algorithm)
    ax.set_xlabel("rows streamed")
axes[0].set_ylabel("test AUC")
legend_outside(axes[1])
