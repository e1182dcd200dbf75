"""
Convergence to the exact optimum
================================

SPAM-L2 and VRSPAM-L2 minimise the same objective,
``p(1-p) L_sq(w) + (beta/2)|w|^2``, whose minimiser has the closed form
``(Sigma2 + beta/(2p(1-p)) I)^-1 mu`` (class means and covariances of the training data;
see *Implementation notes*). The stochastic SPAM approaches it sublinearly, pass after
pass; the variance-reduced VRSPAM converges linearly, stage after stage.
"""

import matplotlib.pyplot as plt
import numpy as np

import aucopt
from aucopt.datasets import make_auc_problem
from aucopt.plotting import legend_outside

X, y = make_auc_problem(1000, 10, separation=1.5, random_state=0)
beta = 1e-1
pos, neg = X[y > 0], X[y < 0]
p = len(pos) / len(X)
mu = pos.mean(0) - neg.mean(0)
sigma2 = np.cov(pos.T, bias=True) + np.cov(neg.T, bias=True) + np.outer(mu, mu)
w_star = np.linalg.solve(sigma2 + beta / (2 * p * (1 - p)) * np.eye(X.shape[1]), mu)


def error(algorithm, k, **params):
    est = aucopt.make(algorithm, beta=beta, max_iter=k, random_state=1, **params).fit(X, y)
    return np.linalg.norm(est.coef_[0] - w_star) / np.linalg.norm(w_star)


ks = np.arange(1, 16)
fig, ax = plt.subplots(figsize=(7.5, 4), layout="constrained")
ax.semilogy(ks, [error("spam-l2", k) for k in ks], "o-", label="SPAM-L2 (passes)")
ax.semilogy(ks, [error("vrspam-l2", k, tol=0.0) for k in ks], "s-",
            label="VRSPAM-L2 (stages)")
ax.set_xlabel("passes / outer stages")
ax.set_ylabel("relative distance |w - w*| / |w*|")
ax.set_title("Distance to the exact minimiser")
legend_outside(ax)
