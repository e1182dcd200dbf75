"""The nonlinear case of ``benchmarks/partial_auc.py``: partial-AUC learners on random Fourier
features, where no linear scorer ranks the positives.

The data (:func:`ring`) put the rare positives on a circle around standard normal negatives:
every linear direction lifts one arc of the circle and buries the opposite one, so a linear
scorer is near chance, while the Gaussian-kernel scorer ``||x||`` (learnable through random
Fourier features) is close to perfect. ``tests/test_pauc_kernel.py`` uses the same data.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

import aucopt
from aucopt.kernel_model import RandomFourierFeatures

__all__ = ["RFF", "kernel_models", "nonlinear_verdict", "ring"]

RFF = {"n_components": 100, "bandwidth": "auto"}  # the feature map of every kernel model
KERNEL_PAUC = ("pauc-1pmb", "pauc-sopa", "pauc-sopa-s", "pauc-sota-s", "svm-pauc")
KERNEL_FULL = ("spam-l2",)


def ring(n, pos_rate, *, n_features=4, radius=3.0, seed=0):
    """Rare positives on a circle around the negatives.

    Negatives are standard normal in ``n_features`` dimensions; positives (a share
    ``pos_rate``, at least 2) are standard normal too except in the first two coordinates,
    where they lie at angle uniform in [0, 2 pi) and distance ``radius + 0.3 N(0, 1)`` from
    the origin. Labels in {-1, 1}.
    """
    rng = np.random.default_rng(seed)
    y = -np.ones(n, dtype=np.int64)
    pos = rng.choice(n, max(2, round(pos_rate * n)), replace=False)
    y[pos] = 1
    X = rng.standard_normal((n, n_features))
    angle = rng.uniform(0.0, 2.0 * np.pi, pos.size)
    r = radius + 0.3 * rng.standard_normal(pos.size)
    X[pos, 0], X[pos, 1] = r * np.cos(angle), r * np.sin(angle)
    return X, y


def rff_pipeline(estimator, seed=0):
    """``make_pipeline(RandomFourierFeatures(**RFF), estimator)``."""
    return make_pipeline(RandomFourierFeatures(**RFF, random_state=seed), estimator)


def kernel_models(target):
    """The RFF pipelines: the pAUC ids of ``KERNEL_PAUC`` (with ``max_fpr=target`` where they
    take it), the full-AUC ``KERNEL_FULL`` and scikit-learn's logistic regression."""
    out = {}
    for a in (*KERNEL_PAUC, *KERNEL_FULL):
        params = {"max_fpr": target} if "max_fpr" in aucopt.make(a).get_params() else {}
        out[f"RFF + {a}"] = rff_pipeline(aucopt.make(a, random_state=0, **params))
    out["RFF + logistic (sklearn)"] = rff_pipeline(LogisticRegression(max_iter=2000))
    return out


def nonlinear_verdict(cells):
    """The best RFF pAUC pipeline, the best linear model and the best full-AUC RFF pipeline
    at pAUC@0.1: three (name, pAUC@0.1) pairs."""
    kernel = [f"RFF + {a}" for a in KERNEL_PAUC]
    linear = [k for k in cells if not k.startswith("RFF")]
    full = [k for k in cells if k.startswith("RFF") and k not in kernel]
    return [(k, cells[k][1]) for k in (max(group, key=lambda k: cells[k][1])
                                       for group in (kernel, linear, full))]
