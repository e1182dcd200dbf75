"""SPAM-L2 and SPAM-NET estimators (Natole 2020, Algorithm 20)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["SPAML2Classifier", "SPAMNetClassifier"]



class SPAML2Classifier(BaseAUCClassifier):
    r"""Stochastic Proximal AUC Maximisation with an l2 penalty (SPAM-L2).

    Minimises the pairwise square-loss AUC surrogate plus an l2 penalty,

    .. math::

        \min_w\; p(1-p)\,\mathbb{E}\big[(1 - w^\top(x - x'))^2 \,\big|\, y=+1, y'=-1\big]
        + \frac{\beta}{2}\|w\|^2,

    by proximal stochastic gradient steps that need one sample each: with
    :math:`a = w^\top m_+`, :math:`b = w^\top m_-`, :math:`\alpha = b - a`,
    :math:`G = 2(1-p)(w^\top x - a)x - 2(1+\alpha)(1-p)x` for a positive and
    :math:`G = 2p(w^\top x - b)x + 2(1+\alpha)p\,x` for a negative example,
    then :math:`w \leftarrow \mathrm{prox}_{\eta_t\Omega}(w - \eta_t G)`. The
    output is the uniform average of the iterates.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Scoring vector (averaged or last iterate).
    {attributes}

    See Also
    --------
    SPAMNetClassifier : the elastic-net variant (sparse solutions).

    Notes
    -----
    Paper grid: :math:`\beta \in 10^{[-5:5]}` tuned by 5-fold CV on 80/20
    splits (20 runs). The thesis does not state the step schedule (notes.md#spam-step);
    ``"inv_sqrt"`` with averaging and ``t0=0`` is the authors' code (the default offset
    ``t0`` is our extension, see the parameter). The class statistics
    must be known in advance (notes.md#spam-class-statistics); ``stats="online"`` is the pure
    streaming deviation. Cost O(d) per dense sample; O(nnz) per CSR sample
    (SPAM-L2: the shrinkage, the class-mean terms and the average are kept
    lazily between ``partial_fit`` calls), memory O(d).

    References
    ----------
    .. [1] M. Natole Jr., Y. Ying, S. Lyu. "Stochastic proximal algorithms for
       AUC maximization." ICML 2018.
    .. [2] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, ch. 4, Algorithm 20.

    Examples
    --------
    {example}
    """

    _algorithm = "spam-l2"

    def __init__(
        self,
        *,
        beta=1e-4,
        eta0="auto",
        t0=30.0,
        schedule="inv_sqrt",
        power_t=0.5,
        stats="train",
        warmup=0.1,
        decay=0.0,
        output="average",
        max_iter=10,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())


class SPAMNetClassifier(SPAML2Classifier):
    r"""Stochastic Proximal AUC Maximisation with an elastic-net penalty (SPAM-NET).

    As :class:`SPAML2Classifier` with
    :math:`\Omega(w) = \frac{\beta}{2}\|w\|^2 + \beta_1\|w\|_1`, whose proximal
    map is soft thresholding followed by shrinkage,
    :math:`w_j = \mathrm{sign}(u_j)\max(|u_j| - \eta\beta_1, 0)/(1 + \eta\beta)`,
    so the last iterate has exact zeros (use ``output="last"`` for a sparse
    ``coef_``; the average of sparse iterates is sparse only where every
    iterate was zero).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Paper grid: :math:`\beta_1 \in 10^{[-5:5]}`; the grid of :math:`\beta`
    is not stated (notes.md#spam-net-names) and is tuned on the same range.

    References
    ----------
    .. [1] M. Natole Jr., Y. Ying, S. Lyu. "Stochastic proximal algorithms for
       AUC maximization." ICML 2018.

    Examples
    --------
    {example}
    """

    _algorithm = "spam-net"
    _example_params = "beta1=1e-3, random_state=0"

    def __init__(
        self,
        *,
        beta=1e-4,
        beta1=1e-4,
        eta0="auto",
        t0=30.0,
        schedule="inv_sqrt",
        power_t=0.5,
        stats="train",
        warmup=0.1,
        decay=0.0,
        output="average",
        max_iter=10,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
