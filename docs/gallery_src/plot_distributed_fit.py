"""
A fit on a Dask cluster
=======================

The data arrive in four partitions, as a Dask array, and three strategies train on a
two-worker ``LocalCluster`` started by :func:`aucopt.distributed.local_cluster`:
``statistics`` (exact for the least-squares batch solution), ``sequential`` (the model state
visits the partitions in turn: exactly the single-machine ``partial_fit``) and ``average``
(one pass per partition from a common start, averaged; iterative parameter mixing). Each
result is a plain fitted estimator, scored here locally on a held-out part. The figure
compares each with the same algorithm fitted on one machine.

Worker processes re-import the main module, so a script guards the cluster with
``if __name__ == "__main__":``.
"""

import dask.array as da
import matplotlib.pyplot as plt

import aucopt
from aucopt import distributed as ad
from aucopt.datasets import make_auc_problem
from aucopt.plotting import legend_outside

if __name__ == "__main__":
    X_all, y_all = make_auc_problem(12_000, 30, separation=1.2, random_state=5)
    X, y, X_test, y_test = X_all[:8000], y_all[:8000], X_all[8000:], y_all[8000:]
    Xd, yd = da.from_array(X, chunks=(2000, 30)), da.from_array(y, chunks=2000)

    runs = (("b-ls-svm", "statistics"), ("spam-l2", "sequential"), ("spam-l2", "average"),
            ("ftrl-auc", "average"))
    one_machine, cluster = {}, {}
    with ad.local_cluster(n_workers=2, memory_limit="1GB"):
        for algorithm, strategy in runs:
            label = f"{algorithm}\n{strategy}"
            model = ad.fit(aucopt.make(algorithm, random_state=0), Xd, yd, strategy=strategy)
            cluster[label] = model.score(X_test, y_test)
            single = aucopt.make(algorithm, random_state=0)
            if strategy == "sequential":  # one partial_fit pass over the partitions in order
                for start in range(0, len(y), 2000):
                    single.partial_fit(X[start:start + 2000], y[start:start + 2000],
                                       classes=[-1, 1])
            else:
                single.fit(X, y)
            one_machine[label] = single.score(X_test, y_test)

    labels = list(cluster)
    positions = range(len(labels))
    fig, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
    ax.bar([p - 0.2 for p in positions], [one_machine[k] for k in labels], width=0.4,
           label="one machine")
    ax.bar([p + 0.2 for p in positions], [cluster[k] for k in labels], width=0.4,
           label="2-worker cluster, 4 partitions")
    ax.set_xticks(list(positions), labels)
    low = min(min(one_machine.values()), min(cluster.values()))
    ax.set_ylim(low - 0.02, 1.0)
    ax.set_ylabel("test AUC")
    ax.set_xlabel("algorithm and strategy")
    ax.set_title("Test AUC: one machine against a Dask cluster")
    legend_outside(ax)
    for k in labels:
        print(f"{k.replace(chr(10), ' / ')}: one machine {one_machine[k]:.4f}, "
              f"cluster {cluster[k]:.4f}")
