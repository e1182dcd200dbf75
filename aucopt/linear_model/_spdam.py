"""SPDAM estimator (Natole 2020, Algorithm 21)."""

from __future__ import annotations

from numbers import Integral, Real

from ..utils._param_validation import Interval, Options
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
    lam : float, default=1e-3
        l2 weight :math:`\lambda`. Values must be in the range `(0.0, inf)`.
    batch_size : float or int, default=0.1
        Mini-batch size :math:`m`: a fraction of :math:`n` (float in (0, 1])
        or a number of samples (int).
    params : {"thesis", "rederived"}, default="thesis"
        Step parameters :math:`\sigma, \tau, \theta`. ``"thesis"``: the
        printed Theorem 5.1 values with :math:`\kappa = \max_i\|x_i\|`.
        ``"rederived"``: the values that make the thesis' contraction argument
        hold, with :math:`\kappa = \max_i\|\bar x_i\|` (notes.md#spdam-reformulation); they are
        smaller. ``"thesis"`` is the default because it was measured faster
        (contraction per epoch 0.869 against 0.997 on splice, 0.948 against 0.989
        on german.numer, docs/convergence.md) and as accurate or more on every
        case of docs/robustness.md (at 100 epochs, up to 0.008 AUC closer to the
        least-squares optimum), with no divergence.
    tol : float, default=1e-6
        Stop when the relative change of :math:`w` over an epoch is at most
        ``tol``; 0 runs all ``max_iter`` epochs.
    max_iter : int, default=100
        Maximal number of epochs of :math:`\lceil n/m \rceil` iterations.
    shuffle : bool, default=True
        Random mini-batches (without replacement within a batch); ``False``
        takes consecutive blocks of the rows, cycling (deterministic).
    random_state : int, RandomState instance or None, default=None
        Seed of the mini-batches.
    warm_start : bool, default=False
        Start ``fit`` from the previous :math:`w` (the duals restart at 0).
    verbose : int, default=0
        Log one line per ``fit`` at INFO level on the ``aucopt`` logger.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The last primal iterate.
    intercept_ : ndarray of shape (1,)
        ``-(w.m+ + w.m-)/2``.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
    n_iter_ : int
        Epochs run.
    t_ : int
        Iterations (mini-batches) run.

    Notes
    -----
    Thesis grid :math:`\lambda \in 10^{[-5:1]}` by 5-fold CV, :math:`m` = 10% of
    :math:`n`. The thesis' reformulation (Proposition 5.1.1) is not equivalent
    to its objective and its Theorem 5.1 step misses a factor; both are
    corrected here (notes.md#spdam-reformulation, notes.md#spdam-reformulation) and
    ``params="thesis"`` keeps the printed
    step. Small :math:`\lambda` makes the contraction factor
    :math:`\theta` close to 1 (slow); cost O(m nnz + d) per iteration, memory
    O(n + d) besides the data. Not a streaming method.

    References
    ----------
    .. [1] M. Natole Jr., Y. Ying, S. Lyu. "Stochastic AUC optimization
       algorithms with linear convergence." Front. Appl. Math. Stat. 5, 2019.
    .. [2] Y. Zhang, L. Xiao. "Stochastic primal-dual coordinate method for
       regularized empirical risk minimization." JMLR 18, 2017.

    Examples
    --------
    >>> from aucopt.datasets import make_auc_problem
    >>> from aucopt.linear_model import SPDAMClassifier
    >>> X, y = make_auc_problem(500, 10, separation=2.0, random_state=0)
    >>> clf = SPDAMClassifier(random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _algorithm = "spdam"
    _parameter_constraints = {
        **BaseAUCClassifier._parameter_constraints,
        "lam": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Real, 0, 1, closed="right"), Interval(Integral, 1, None)],
        "params": [Options(str, {"rederived", "thesis"})],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

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
    ):
        self.lam = lam
        self.batch_size = batch_size
        self.params = params
        self.tol = tol
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
