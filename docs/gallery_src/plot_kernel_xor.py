"""
A kernel learner on XOR
=======================

On XOR every linear scorer has an expected AUC of 0.5: no direction ranks the positives
(``x0 * x1 > 0``) above the negatives. AOGD learns a scorer in a random Fourier feature space
of a Gaussian kernel and ranks them almost perfectly; the linear SPAM-L2 cannot.
"""

import matplotlib.pyplot as plt
import numpy as np

import aucopt
from aucopt.datasets import make_nonlinear_problem

X, y = make_nonlinear_problem(1500, "xor", random_state=0)
X_test, y_test = make_nonlinear_problem(2000, "xor", random_state=1)
grid = np.linspace(-1, 1, 121)
xx, yy = np.meshgrid(grid, grid)
points = np.column_stack([xx.ravel(), yy.ravel()])

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")
for ax, algorithm in zip(axes, ("aogd", "spam-l2")):
    est = aucopt.make(algorithm, random_state=1).fit(X, y)
    scores = est.decision_function(points).reshape(xx.shape)
    ax.contourf(xx, yy, scores, levels=20, cmap="RdBu_r")
    ax.scatter(*X_test[:300].T, c=y_test[:300], cmap="RdBu_r", edgecolors="k", s=12)
    ax.set_title(f"{algorithm}: test AUC {est.score(X_test, y_test):.3f}")
    ax.set_aspect("equal")
    ax.set_xlabel("feature 1")
    ax.set_ylabel("feature 2")
