"""SPDAM estimator (Natole 2020, Algorithm 21)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["SPDAMClassifier"]


class SPDAMClassifier(BaseAUCClassifier):
    r"""Stochastic primal-dual AUC maximisation (SPDAM), a finite-sum solver.

    Minimises the class-normalised pairwise square loss with an l2 penalty,

    .. math::
        \min_w\; \frac{1}{n_+ n_-}\sum_{i: y_i=1}\sum_{j: y_j=-1}
        \big(1 - w^\top(x_i - x_j)\big)^2 + \frac{\lambda}{2}\|w\|^2,

    whose minimiser is :math:`(\Sigma_2 + \frac{\lambda}{2} I)^{-1}\mu`, through
    the saddle problem
    :math:`\min_w\max_\beta \frac1n\sum_i(\beta_i\langle w,\bar x_i\rangle -
    \beta_i^2/2) + (b^\top w)^2 + 2b^\top w + \frac{\lambda}{2}\|w\|^2` with
    :math:`\bar x_i = \sqrt{2/p}\,(x_i - m_+)` for positives,
    :math:`\sqrt{2/(1-p)}\,(x_i - m_-)` for negatives and :math:`b = m_- - m_+`.
    Each iteration updates the duals of a random mini-batch in closed form,
    then makes a proximal primal step solved exactly by Sherman-Morrison, and
    extrapolates (SPDC). The rate is linear.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The last primal iterate.
    n_iter_ : int
        Epochs run.
    t_ : int
        Iterations (mini-batches) run.
    {attributes}

    Notes
    -----
    Thesis grid :math:`\lambda \in 10^{[-5:1]}` by 5-fold CV, :math:`m` = 10% of
    :math:`n`. The thesis' reformulation (Proposition 5.1.1) is not equivalent
    to its objective and its Theorem 5.1 step misses a factor; both are
    corrected here (notes.md#spdam-reformulation, notes.md#spdam-reformulation) and
    ``params="thesis"`` keeps the printed
    step. Small :math:`\lambda` makes the contraction factor
    :math:`\theta` close to 1 (slow); cost O(m nnz + d) per iteration, memory
    O(n + d) besides the data. Not a streaming method. ``sample_weight``
    (notes.md#sample-weights) weighs the statistics and scales row :math:`i`'s coupling
    row by :math:`\sqrt{n w_i / W}`: the primal is then the weighted objective, so integer
    weights reach the minimiser of the repeated rows, not their iterates.

    References
    ----------
    .. [1] M. Natole Jr., Y. Ying, S. Lyu. "Stochastic AUC optimization
       algorithms with linear convergence." Front. Appl. Math. Stat. 5, 2019.
    .. [2] Y. Zhang, L. Xiao. "Stochastic primal-dual coordinate method for
       regularized empirical risk minimization." JMLR 18, 2017.

    Examples
    --------
    {example}
    """

    _algorithm = "spdam"

    def __init__(
        self,
        *,
        lam=1e-3,
        batch_size=0.1,
        params="thesis",
        tol=1e-6,
        max_iter=100,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
