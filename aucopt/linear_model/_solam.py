"""SOLAM, SOLAM-l1 and regSOLAM estimators (Natole 2020, Algorithms 10 and 18)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["SOLAMClassifier", "SOLAML1Classifier", "RegSOLAMClassifier"]


class SOLAMClassifier(BaseAUCClassifier):
    r"""Stochastic Online AUC Maximisation (SOLAM) with an l2 ball.

    Solves the saddle-point form of the pairwise square-loss AUC surrogate
    (Ying et al. 2016),

    .. math::

        \min_{\|w\|\le R,\ |a|,|b|\le R\kappa}\ \max_{|\alpha|\le 2R\kappa}\
        \mathbb{E}_z\big[F(w, a, b, \alpha; z)\big],

    .. math::

        F = (1-p)(w^\top x - a)^2 \mathbb{I}_{y=1} + p(w^\top x - b)^2 \mathbb{I}_{y=-1}
        + 2(1+\alpha)\big(p\, w^\top x\, \mathbb{I}_{y=-1} - (1-p)\, w^\top x\,
        \mathbb{I}_{y=1}\big) - p(1-p)\alpha^2,

    whose value at the optimal :math:`a, b, \alpha` is
    :math:`p(1-p)(\mathbb{E}[(1 - w^\top(x - x'))^2 \mid y=1, y'=-1] - 1)`. Each
    example gives one projected primal descent / dual ascent step with
    :math:`\gamma_t = \zeta/\sqrt{t}` and the running estimate :math:`\hat p_t`;
    the output is the :math:`\gamma`-weighted average of the iterates.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The averaged :math:`\bar w`.
    {attributes}

    See Also
    --------
    SOLAML1Classifier : the same with an l1 ball.
    RegSOLAMClassifier : with an l2 penalty and :math:`R = \sqrt{2/\lambda}`.

    Notes
    -----
    Paper grid (Liu et al. 2018, Section 5, following Ying et al.): :math:`R \in 10^{[-1:5]}`,
    :math:`\zeta \in 2^{[-10:10]}`, tuned on a validation set;
    :math:`\kappa` from the data. The thesis' Algorithm 10 prints a descent step
    for :math:`\alpha`; the dual step here is an ascent (notes.md#solam-dual-sign). The
    estimate :math:`\hat p_t` counts every example received, including the
    current one (and, with ``max_iter > 1``, the repeated ones). Cost O(d) per
    dense example, O(nnz) per CSR example (scaling and averaging kept lazily
    between ``partial_fit`` calls), memory O(d). When the constraints are
    inactive the saddle point is
    :math:`w^* = \Sigma_2^{-1}\mu`, :math:`a^* = w^{*\top} m_+`,
    :math:`b^* = w^{*\top} m_-`, :math:`\alpha^* = b^* - a^*` (notes.md#closed-forms).
    With ``sample_weight``, :math:`\hat p_t` is the positive share of the weight received
    and an example's partial derivatives are scaled by its weight (notes.md#sample-weights).

    References
    ----------
    .. [1] Y. Ying, L. Wen, S. Lyu. "Stochastic online AUC maximization." NIPS 2016.
    .. [2] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, Algorithm 10.

    Examples
    --------
    {example}
    """

    _algorithm = "solam"

    def __init__(
        self,
        *,
        R=10.0,
        eta0="auto",
        kappa="auto",
        max_iter=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())


class SOLAML1Classifier(SOLAMClassifier):
    r"""SOLAM with an l1 ball (SOLAM-l1, the baseline of Liu et al. 2018).

    As :class:`SOLAMClassifier` with :math:`\|w\|_1 \le R` instead of
    :math:`\|w\| \le R`,

    .. math::

        \min_{\|w\|_1\le R,\ |a|,|b|\le R\kappa}\ \max_{|\alpha|\le 2R\kappa}\
        \mathbb{E}_z\big[F(w, a, b, \alpha; z)\big];

    the primal step is followed by the sort-based l1-ball projection (Duchi et
    al. 2008), which produces exact zeros in the last iterate.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Paper grid (Liu et al. 2018, Section 5): :math:`R \in 10^{[-1:5]}`,
    :math:`\zeta \in 2^{[-10:10]}`. Cost O(d log d) per example (the l1
    projection sorts :math:`|w|` when :math:`w` leaves the ball), memory O(d).

    References
    ----------
    .. [1] M. Liu, X. Zhang, Z. Chen, X. Wang, T. Yang. "Fast stochastic AUC
       maximization with O(1/n)-convergence rate." ICML 2018, section 5.
    .. [2] Y. Ying, L. Wen, S. Lyu. "Stochastic online AUC maximization." NIPS 2016.

    Examples
    --------
    {example}
    """

    _algorithm = "solam-l1"


class RegSOLAMClassifier(BaseAUCClassifier):
    r"""Regularised SOLAM (regSOLAM, Natole 2020, chapter 3).

    SOLAM applied to :math:`F_\lambda = F + \frac{\lambda}{2}\|w\|^2`,

    .. math::

        \min_{\|w\|\le R,\ |a|,|b|\le R\kappa}\ \max_{|\alpha|\le 2R\kappa}\
        \mathbb{E}_z\big[F(w, a, b, \alpha; z)\big] + \frac{\lambda}{2}\|w\|^2,
        \qquad R = \sqrt{2/\lambda},

    i.e. :math:`p(1-p)\,L_{sq}(w) + \frac{\lambda}{2}\|w\|^2` up to a constant;
    the primal gradient gains :math:`+\lambda w`, the step is
    :math:`\gamma_t = \zeta/\sqrt{t}` and the output is the
    :math:`\gamma`-weighted average.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Thesis grid: :math:`\zeta \in [1:9:100]` (1, 10, ..., 100) and
    :math:`\lambda \in 10^{[-5:5]}`, 5-fold CV (on unit-norm rows, where
    :math:`\kappa = 1`). The thesis adds :math:`\frac{\lambda}{2}\|w\|^2`
    inside :math:`F`, so relative to the pairwise loss the effective weight is
    :math:`\lambda/(2p(1-p))` (notes.md#regsolam); :math:`R = \sqrt{2/\lambda}` is
    derived in its section 3.3 and not tuned. Algorithm 18 names the steps
    :math:`\eta_t` but uses :math:`\gamma_t = \zeta/\sqrt{t}` (Corollary 3.4.1).
    With inactive constraints the saddle point is
    :math:`w^* = (\Sigma_2 + \frac{\lambda}{2p(1-p)} I)^{-1}\mu` (notes.md#closed-forms).
    Cost O(d) per dense example, O(nnz) per CSR example (as SOLAM).

    References
    ----------
    .. [1] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, chapter 3, Algorithm 18.

    Examples
    --------
    {example}
    """

    _algorithm = "reg-solam"

    def __init__(
        self,
        *,
        lam=1e-4,
        eta0="auto",
        kappa="auto",
        max_iter=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
