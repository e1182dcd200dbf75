"""FSAUC estimator (Liu et al. 2018, Algorithms 1-3)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["FSAUCClassifier"]


class FSAUCClassifier(BaseAUCClassifier):
    r"""Fast Stochastic AUC maximisation (FSAUC): multi-stage primal-dual SGD.

    Solves the saddle problem of SOLAM with an l1 ball and no penalty
    (Liu et al. 2018),

    .. math::

        \min_{\|w\|_1\le R,\ |a|,|b|\le R\kappa}\ \max_{|\alpha|\le 2R\kappa}\
        \mathbb{E}_z\big[F(w, a, b, \alpha; z)\big],

    in :math:`m = \lfloor \tfrac12\log_2(2n/\log_2 n)\rfloor - 1` stages of
    :math:`n_0 = \lfloor n/m \rfloor` examples. Stage :math:`k` runs PDSG with a
    constant step :math:`\eta_k` from the previous stage's output
    :math:`(\hat v_{k-1}, \hat\alpha_{k-1})`, projecting the primal variable onto
    :math:`\Omega_1 \cap B(\hat v_{k-1}, r_k)` and the dual onto
    :math:`\Omega_2 \cap B(\hat\alpha_{k-1}, D_k)`; its output is the average of
    its iterates and :math:`\hat\alpha_k = \bar w^\top(\hat m_- - \hat m_+)`.
    Then :math:`r` halves, :math:`\beta_k, D_k` follow Lemma 1 and
    :math:`\eta_{k+1} = \eta_k\sqrt{\beta_k/\beta_{k-1}}/2`. The model is the
    w-part of :math:`\hat v` of the last completed stage.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The w-part of :math:`\hat v` of the last completed stage (zero before
        the first stage completes).
    t_ : int
        Number of examples processed so far.
    {attributes}

    See Also
    --------
    SOLAML1Classifier : the single-stage method with the same constraint set.

    Notes
    -----
    Paper grid (Liu et al. 2018, Section 5): :math:`R \in 10^{[-1:5]}`,
    :math:`\eta_1 \in 2^{[-10:10]}` on a validation split, one pass.
    Constants follow Liu et al. 2018, not the thesis restatement (notes.md#fsauc-constants):
    :math:`R_0 = 2\sqrt{1+2\kappa^2}R`, :math:`\beta_0 = 1+8\kappa^2`,
    :math:`D_0 = 2\sqrt2\kappa R_0` (notes.md#fsauc-constants), :math:`\hat p = T_+/(T_+ + T_-)`
    (notes.md#fsauc-constants), :math:`\hat\alpha` with the sign of Algorithm 2
    (notes.md#fsauc-constants). Guards
    (notes.md#fsauc-unstated): :math:`m \ge 1`; a Lemma 1 denominator :math:`\le 0` gives
    :math:`D = 4R\kappa` and keeps :math:`\beta`. ``n`` should be known in
    advance: ``partial_fit`` cannot take it as an argument (its signature is
    shared by all estimators), hence ``n_samples_hint`` (or the doubling
    restarts above). A first step with :math:`\eta_1\kappa^2 > 16` raises
    :class:`~aucopt.exceptions.DivergenceError`: the per-example curvature is up
    to :math:`2\kappa^2`, and such steps bounce across the feasible set (the
    averaged model then ranks worse than chance). Cost per example:
    O(d) plus the projection (O(d log d); the exact method adds a root search,
    about 10-40 projections onto :math:`\Omega_1`, only on steps that leave
    the ball). With ``sample_weight``, :math:`T_\pm`, :math:`A_\pm` and :math:`\hat p` are
    weight sums and an example's partial derivatives are scaled by its weight; the stage
    length still counts examples (notes.md#sample-weights).

    References
    ----------
    .. [1] M. Liu, X. Zhang, Z. Chen, X. Wang, T. Yang. "Fast stochastic AUC
       maximization with O(1/n)-convergence rate." ICML 2018.

    Examples
    --------
    {example}

    The order of the stream matters. While only one class has arrived,
    :math:`\hat p` is 0 or 1 and the gradient in :math:`w` vanishes, so a
    label-sorted stream wastes the first stage (here, with one pass, half of the
    data) and the shrinking radii keep the model near that stage's poor output.
    Passing the data generator's seed as the estimator's seed does exactly that,
    because ``make_auc_problem`` places the positives at the first indices of the
    same permutation that the first pass of ``fit`` uses (shown for the papers'
    algorithm, ``precondition=None``):

    >>> FSAUCClassifier(random_state=0, max_iter=1, precondition=None).fit(X, y).score(X, y) < 0.6
    True
    """

    _algorithm = "fsauc"
    _example_params = "random_state=1"

    def __init__(
        self,
        *,
        R=10.0,
        eta1="auto",
        kappa="auto",
        delta=0.1,
        projection="exact",
        projection_rounds=100,
        stats="global",
        step_decay="capped",
        n_samples_hint=None,
        max_iter=3,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
