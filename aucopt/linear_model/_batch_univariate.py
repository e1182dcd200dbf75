"""Batch class-balanced univariate baselines Uni-Log and Uni-Squ (Kotlowski et al. 2011)."""

from __future__ import annotations

from ._base import BaseAUCClassifier
from ._batch_pairwise import FittedLam

__all__ = ["UniLogBatchClassifier", "UniSquBatchClassifier"]


class UniLogBatchClassifier(FittedLam, BaseAUCClassifier):
    r"""Batch Uni-Log: class-balanced l2 logistic regression as a bipartite ranker.

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{n_+}\sum_{i:y_i=+1} \log\big(1 + e^{-(w^\top x_i + b)}\big)
        + \frac{1}{n_-}\sum_{i:y_i=-1} \log\big(1 + e^{w^\top x_i + b}\big)

    solved by L-BFGS-B; the scores are :math:`w^\top x` (the unpenalised
    intercept :math:`b` does not change the ranking). With ``class_weight=None`` every
    row weighs the same instead, plain l2 logistic regression with the same total weight:

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{2}{n}\sum_{i} \log\big(1 + e^{-y_i(w^\top x_i + b)}\big),

    with ``precondition=None`` the solution of
    ``sklearn.linear_model.LogisticRegression(C=2 / (lam * n))`` (``n`` is the total sample
    weight with ``sample_weight``; with the default ``precondition="auto"`` the penalty
    applies to the weights of the standardised columns instead).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Scoring vector :math:`w`.
    intercept_ : ndarray of shape (1,)
        ``-(w.m+ + w.m-)/2`` from the class means, as for every aucopt
        estimator (the fitted :math:`b` is kept in ``_state["bias"]``).
    n_iter_ : int
        L-BFGS iterations of the last ``fit``.
    t_ : int
        L-BFGS iterations so far.
    lam_ : float
        The l2 weight used: ``lam``, or the value ``lam="auto"`` chose.
    {attributes}

    See Also
    --------
    UniSquBatchClassifier : the balanced square loss, in closed form.

    Notes
    -----
    Gao et al. 2013 (Section 6.1, "batch Uni-Log ... (weighted) univariate logistic
    loss", weights "as done in (Kotlowski et al., 2011)"). Weighting:
    Kotlowski et al. (ICML 2011) bound the rank regret by the regret of the
    *balanced* (class-weighted, cost-sensitive) univariate loss, i.e. each
    class weighted inversely to its frequency (confirmed from the paper's
    abstract and Agarwal, JMLR 2014, who restates their result as "balanced
    versions of the standard logistic and exponential losses"; the full text
    was not available, so the constant factor is ours: each class has total
    weight 1; a common factor only
    rescales :math:`\lambda`). The intercept is unpenalised, as in standard
    logistic regression: without it the ranking would depend on where the
    origin of the features is. With ``sample_weight`` a row's term is weighted
    by :math:`v_i` over its class's weight sum (each class still has total
    weight 1; notes.md#sample-weights), so integer weights equal duplicated
    rows. Paper grid (Gao et al. 2013, Section 6.1): :math:`\lambda \in
    2^{[-10:10]}` by 5-fold CV, at most 8,000 training examples.

    ``class_weight=None``: the logistic loss is strongly proper composite, so its
    minimiser over a rich enough class also ranks optimally, without balancing the
    classes (Agarwal, JMLR 2014, who derives regret bounds with no balancing term). With
    very rare positives it ranked better than the balanced loss: 0.869 against 0.856
    test AUC (``lam="auto"`` each) on 210,000 training rows with 0.1% positives
    (``docs/user_guide/choosing.md``). ``lam="auto"`` is then
    :math:`E\|x_i - x_j\|^2 / n` (notes.md#spread-lam). Cost
    :math:`O(\mathrm{nnz})` per iteration, memory :math:`O(d)` plus the data.

    References
    ----------
    .. [1] W. Kotlowski, K. Dembczynski, E. Huellermeier. "Bipartite ranking
       through minimization of univariate loss." ICML 2011.
    .. [2] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.1).
    .. [3] S. Agarwal. "Surrogate regret bounds for bipartite ranking via strongly
       proper losses." JMLR 15, 2014, 1653-1674.

    Examples
    --------
    {example}
    """

    _algorithm = "uni-log-batch"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        class_weight="balanced",
        tol=1e-6,
        max_iter=1000,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())


class UniSquBatchClassifier(UniLogBatchClassifier):
    r"""Batch Uni-Squ: class-balanced l2 least squares on the labels, solved exactly.

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{n_+}\sum_{i:y_i=+1} \big(1 - w^\top x_i - b\big)^2
        + \frac{1}{n_-}\sum_{i:y_i=-1} \big(1 + w^\top x_i + b\big)^2

    Eliminating the unpenalised :math:`b` gives the normal equations
    :math:`(\lambda I + 2(S_+ + S_-) + \mu\mu^\top)\,w = 2\mu`,
    :math:`b = -w^\top(c_+ + c_-)/2`, so :math:`w` points along the
    B-LS-SVM solution for :math:`\lambda/2` (:class:`LSSVMClassifier`).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    lam_ : float
        The l2 weight used: ``lam``, or the value ``lam="auto"`` chose.
    {attributes}

    Notes
    -----
    Weighting as for :class:`UniLogBatchClassifier` (balanced,
    Kotlowski et al. 2011). Cost :math:`O(n d^2 + d^3)` (dense) or
    :math:`O(\mathrm{nnz}\, d + d^3)` (CSR, never densified) with
    :math:`O(d^2)` memory, or :math:`O(\mathrm{nnz})` per CG step. Paper grid
    (Gao et al. 2013, Section 6.1): :math:`\lambda \in 2^{[-10:10]}` by 5-fold CV, at most 8,000
    training examples.

    References
    ----------
    .. [1] W. Kotlowski, K. Dembczynski, E. Huellermeier. "Bipartite ranking
       through minimization of univariate loss." ICML 2011.
    .. [2] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.1).

    Examples
    --------
    {example}
    """

    _algorithm = "uni-squ-batch"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        tol=1e-8,
        max_memory_gb=2.0,
        max_iter=1000,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
    ):
        self._store(locals())
