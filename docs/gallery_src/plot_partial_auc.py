"""
Partial AUC: training for the low false-positive region
=======================================================

Where only the top of a ranking is reviewed (fraud, screening), what matters is the true
positive rate while the false positives stay under a few percent: the partial AUC over
FPR in [0, 0.1]. Here 1 % of the rows are positive, of two kinds: some stand far out along
one direction, the others are mildly shifted along a second direction along which 8 % of
the negatives ("decoys") are shifted further. A full-AUC learner (``spam-l2``) uses the
second direction for the bulk of the ranking and so lifts the decoys into the top; the
one-pass partial-AUC learner ``pauc-1pmb`` (trained with ``max_fpr=0.1``) keeps them out
of it, at the price of full AUC. The right panel zooms on FPR <= 0.1.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split

import aucopt
from aucopt.metrics import partial_roc_auc_score, roc_auc_score
from aucopt.plotting import plot_roc

rng = np.random.default_rng(0)
n = 20_000
y = np.where(rng.random(n) < 0.01, 1, -1)
X = rng.standard_normal((n, 10))
far = (y > 0) & (rng.random(n) < 0.4)
X[far, 0] += 4.0  # far positives
X[(y > 0) & ~far, 1] += 1.5  # mild positives
X[(y < 0) & (rng.random(n) < 0.08), 1] += 3.0  # decoy negatives
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
curves = {}
for algorithm, params in (("spam-l2", {}), ("pauc-1pmb", {"max_fpr": 0.1})):
    scores = aucopt.make(algorithm, random_state=0, **params).fit(
        X_train, y_train).decision_function(X_test)
    label = (f"{algorithm}: pAUC@0.1 {partial_roc_auc_score(y_test, scores, max_fpr=0.1):.3f}"
             f", AUC {roc_auc_score(y_test, scores):.3f}")
    curves[label] = (y_test, scores)

fig, (full, zoom) = plt.subplots(1, 2, figsize=(13, 4.5), layout="constrained")
plot_roc(curves, from_scores=True, ax=full, title="ROC, 30 % test part", legend=False)
plot_roc(curves, from_scores=True, ax=zoom, title="zoom: FPR <= 0.1", fpr_max=0.1)
