"""Batch pairwise baselines B-LS-SVM, B-SVM-OR and SVM-perf (Gao et al. 2013, Section 6)."""

from __future__ import annotations

from ._base import BaseAUCClassifier
from ._declared import fitted_weight

__all__ = ["LSSVMClassifier", "SVMORClassifier", "SVMPerfClassifier"]


class FittedLam:
    """The ``lam_`` attribute of the batch solvers: the l2 weight of the last ``fit``."""

    lam_ = fitted_weight("lam")


class LSSVMClassifier(FittedLam, BaseAUCClassifier):
    r"""Batch LS-SVM: the exact minimiser of the pairwise square loss (B-LS-SVM).

    .. math::

        \min_w\; \frac{\lambda}{2}\|w\|^2 + \frac{1}{2n_+n_-}\sum_{i:y_i=+1}
        \sum_{j:y_j=-1} \big(1 - w^\top(x_i - x_j)\big)^2,

    whose solution is :math:`w = (\lambda I + S_+ + S_- + \mu\mu^\top)^{-1}\mu`
    with the class means :math:`c_\pm`, :math:`\mu = c_+ - c_-` and the class
    covariances :math:`S_\pm` (1/n_class normalisation). The pairs are never
    enumerated: the class statistics give the pairwise loss in closed form.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Scoring vector :math:`w`.
    n_iter_ : int
        Always 1.
    t_ : int
        Number of solves (1).
    lam_ : float
        The l2 weight used: ``lam``, or the value ``lam="auto"`` chose.
    {attributes}

    See Also
    --------
    SVMORClassifier : the pairwise hinge loss (RankSVM).
    aucopt.linear_model.OPAUCClassifier : the one-pass method for the same objective.

    Notes
    -----
    The objective is OPAUC's (Gao et al. 2013,
    Eq. 2), solved exactly in :math:`O(n d^2 + d^3)` time (:math:`O(\mathrm{nnz}\,
    d + d^3)` for CSR, from sparse products :math:`X_c^\top X_c` per class) and
    :math:`O(d^2)` memory. Paper grid (Gao et al. 2013, Section 6.1): :math:`\lambda \in
    2^{[-10:10]}` by 5-fold CV; the batch baselines were trained on at most
    8,000 random examples (``max_train`` in
    :func:`aucopt.model_selection.evaluate_fold`). Dense input is centred per
    class; for CSR the covariance is :math:`X_c^\top X_c/n_c - c c^\top`, which
    loses digits when the means are large compared with the spread. With
    ``sample_weight`` the class means and covariances are weighted (each pair
    counts :math:`v_iv_j` times, notes.md#sample-weights), so integer weights
    equal duplicated rows exactly.

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.1).

    Examples
    --------
    {example}
    """

    _algorithm = "b-ls-svm"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        max_memory_gb=2.0,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
    ):
        self._store(locals())


class SVMORClassifier(FittedLam, BaseAUCClassifier):
    r"""Batch SVM-OR (RankSVM): l2-regularised pairwise hinge loss, by cutting planes.

    .. math::

        \min_w\; \frac{\lambda}{2}\|w\|^2 + \frac{1}{n_+n_-}\sum_{i:y_i=+1}
        \sum_{j:y_j=-1} \max\big(0, 1 - w^\top(x_i - x_j)\big)

    solved by the 1-slack cutting-plane method of Joachims (2006): each cut
    is the most violated ROC-area constraint, found by one sort in
    :math:`O(n \log n)`, and its subgradient is :math:`X^\top e` for a
    per-sample vector :math:`e`, so the :math:`n_+n_-` pairs are never
    enumerated. The working-set QP is solved exactly in the dual (a small
    simplex-constrained QP, active-set method).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    n_iter_ : int
        Cutting planes added by the last ``fit``.
    t_ : int
        Cutting planes added so far.
    lam_ : float
        The l2 weight used: ``lam``, or the value ``lam="auto"`` chose.
    {attributes}

    See Also
    --------
    SVMPerfClassifier : the structural (ROCArea) form of the same problem.
    LSSVMClassifier : the pairwise square loss, in closed form.

    Notes
    -----
    Gao et al. 2013, Section 6.1 (the batch SVM-OR baseline, after Joachims 2006).
    Normalisation by :math:`n_+n_-` (Joachims' programs
    scale the loss by :math:`100/(n_+n_-)`, which only rescales
    :math:`\lambda`). Solver: Joachims (2006) 1-slack formulation; the
    separation oracle is thesis Algorithm 15 with offsets :math:`\mp 1/2`
    (margin 1) and a decreasing scan (notes.md#svm-perf-order). Cost per cut
    :math:`O(\mathrm{nnz} + n\log n + k d)` with :math:`k` cuts so far; at
    most ``max_iter`` cuts (worst case :math:`O(1/(\lambda\,\mathrm{tol}))`;
    measured on german.numer: 30 cuts at :math:`\lambda = 2^{-4}`, 330 at
    :math:`2^{-10}` for ``tol=1e-4``). If ``max_iter`` stops the solve, the
    gap reached is kept in the state (``_state["gap"]``). With ``sample_weight``
    each pair counts :math:`v_iv_j` times in the loss and in every cut (per-pair
    costs, notes.md#sample-weights): integer weights equal duplicated rows up
    to the solver's tolerance. Paper grid
    (Gao et al. 2013, Section 6.1): :math:`\lambda \in 2^{[-10:10]}`, 5-fold CV, at most 8,000
    training examples.

    References
    ----------
    .. [1] T. Joachims. "Training linear SVMs in linear time." KDD 2006.
    .. [2] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.1).

    Examples
    --------
    {example}
    """

    _algorithm = "b-svm-or"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        tol=1e-4,
        max_iter=1000,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())


class SVMPerfClassifier(SVMORClassifier):
    r"""SVM-perf for ROC area: the structural SVM of Joachims (2005), by cutting planes.

    .. math::

        \min_{w,\,\xi \ge 0}\; \frac{\lambda}{2}\|w\|^2 + \xi \quad\text{s.t.}\quad
        \forall \bar y' \ne \bar y:\;
        \frac{w^\top[\Psi(\bar x, \bar y) - \Psi(\bar x, \bar y')]}{n_+n_-}
        \ge \frac{\Delta(\bar y', \bar y)}{n_+n_-} - \xi,

    with :math:`\Psi(\bar x, \bar y') = \sum_{i,j} y'_{ij}(x_i - x_j)` over the
    positive-negative pairs and :math:`\Delta` the number of swapped pairs
    (ROCArea loss). Thesis Algorithm 13 adds the most violated
    :math:`\bar y'` (Algorithm 15, :math:`O(n\log n)`) while it is violated by
    more than :math:`\xi + \varepsilon` and re-solves the QP over the working set.
    The problem equals :class:`SVMORClassifier` with :math:`\lambda/4` and
    :math:`w/2` (each swapped pair changes :math:`\Psi` by :math:`2(x_i - x_j)`),
    i.e. :math:`\frac{\lambda}{2}\|w\|^2 + \frac{1}{n_+n_-}\sum_{i,j}\max(0,
    1 - 2w^\top(x_i - x_j))`.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Natole 2020, Algorithms 14-15 and notes.md#svm-perf-order (decreasing sort; ``Psi(x, y)``, not
    ``Psi(w, y)``, in Algorithm 13). Details from Joachims (2005) as
    restated in the thesis and from the svm_perf source ([EXT], evidence only):
    the most violated labeling is found by sorting the scores shifted by
    :math:`\mp 1/4` in decreasing order; the loss is normalised by
    :math:`n_+n_-` (svm_perf reports it in percent, i.e. :math:`\times 100`,
    and its ROCArea mode uses margin 1, so ``svm_perf -l 10 -c C`` is this
    estimator with :math:`\lambda = 1/(25C)`, up to that reparametrisation);
    :math:`\varepsilon` = ``tol`` in the same normalised units (svm_perf's
    default 0.1 % gives 1e-3). The paper grid "lam in 2^[-10:10] for batch
    algorithms" (Gao et al. 2013, Section 6.1) is read as :math:`\lambda = 1/C`. The cutting-plane
    machinery is shared with :class:`SVMORClassifier`; see its Notes for cost.

    References
    ----------
    .. [1] T. Joachims. "A support vector method for multivariate performance
       measures." ICML 2005.
    .. [2] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, Algorithms 13-15.

    Examples
    --------
    {example}
    """

    _algorithm = "svm-perf"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        tol=1e-3,
        max_iter=1000,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
