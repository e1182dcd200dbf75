"""
ROC curves of several learners
==============================

Five linear AUC learners of different families, each with its defaults, trained on 70 % of
the bundled german.numer data (features scaled to [-1, 1]) and scored on the rest. On this
data they rank about equally well: what separates them is their cost and what they need
(see *Choosing an algorithm* in the user guide).
"""

import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import aucopt
from aucopt.datasets import load, make_preprocessor
from aucopt.plotting import plot_roc

X, y = load("german.numer")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
curves = {}
for algorithm in ("spam-l2", "solam", "opauc", "uni-squ", "ftrl-auc"):
    clf = make_pipeline(make_preprocessor("minmax"), aucopt.make(algorithm, random_state=1))
    clf.fit(X_train, y_train)
    curves[algorithm] = (y_test, clf.decision_function(X_test))

fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
plot_roc(curves, from_scores=True, ax=ax, title="german.numer, 30 % test part")
