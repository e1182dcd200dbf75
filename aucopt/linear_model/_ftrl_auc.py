"""FTRL-AUC estimator (Zhou, Ying, Skiena, ICDM 2020)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["FTRLAUCClassifier"]


class FTRLAUCClassifier(BaseAUCClassifier):
    r"""Follow-the-regularised-leader AUC maximisation for sparse data (FTRL-AUC).

    Minimises the pairwise square-loss AUC surrogate with an elastic-net
    penalty,

    .. math::

        \min_w\; p(1-p)\,\mathbb{E}\big[(1 - w^\top(x - x'))^2 \,\big|\, y=+1, y'=-1\big]
        + \lambda_1\|w\|_1 + \frac{\lambda_2}{2}\|w\|^2,

    through the saddle reformulation of Ying et al. (2016): with
    :math:`a = w^\top m_+`, :math:`b = w^\top m_-`, :math:`\alpha = b - a`,
    the gradient in :math:`w` of the per-sample saddle function is
    :math:`G_t = g_t x_t` with :math:`g_t = 2(1-p)(w^\top x_t - b - 1)` for a
    positive and :math:`g_t = 2p(w^\top x_t - a + 1)` for a negative example;
    it is zero outside the non-zeros of :math:`x_t`. FTRL-Proximal
    (McMahan et al., 2013) keeps per feature :math:`z_j \mathrel{+}= G_{tj}
    - \sigma_{tj} w_j` and :math:`n_j \mathrel{+}= G_{tj}^2`, with
    :math:`\sigma_{tj} = (\sqrt{n_j + G_{tj}^2} - \sqrt{n_j})/\alpha_{\rm lr}`, and

    .. math::

        w_j = \begin{cases} 0 & |z_j| \le \lambda_1 \\
        -\dfrac{z_j - \operatorname{sign}(z_j)\lambda_1}{(\beta + \sqrt{n_j})/\alpha_{\rm lr}
        + \lambda_2} & \text{otherwise,} \end{cases}

    so a step costs O(nnz) of its row and the model has exact zeros.
    :math:`p` and the class means are running estimates that include the
    current sample (as SOLAM's :math:`\hat p_t`); :math:`w^\top m_\pm` are
    maintained incrementally from class sums.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The current FTRL weights (the last iterate).
    {attributes}

    See Also
    --------
    SPAMNetClassifier : proximal SGD on the same objective (O(d) per step with l1).

    Notes
    -----
    Symbols: ``alpha`` is the paper's and the authors' code's :math:`\gamma`
    (the FTRL-Proximal :math:`\alpha` of McMahan et al.), ``beta`` is
    :math:`\beta`, ``lam1`` and ``lam2`` are the l1 and l2 weights
    :math:`\lambda_1, \lambda_2` of FTRL-Proximal. The authors tune
    :math:`\gamma \in \{10^{-5}, 5\cdot10^{-5}, \dots, 1, 5\}` and
    :math:`\lambda_1 \in \{10^{-8}, \dots, 5\}` with :math:`\beta = 1`,
    :math:`\lambda_2 = 0`, one pass. The paper's gradient is the one of SPAM
    (:math:`a, b, \alpha` at their optimum for the current :math:`w`); the
    authors' C code approximates :math:`w^\top m_\pm` by the running mean of
    the scores each sample got on arrival, whereas this implementation keeps
    them exact at O(nnz) per step. The per-feature AdaGrad rate makes the step
    nearly scale-free, so unscaled data does not diverge, but scaling to
    [-1, 1] still improves AUC. :math:`\lambda_1` acts on sums of gradients:
    its useful size grows with the stream length. Cost O(nnz) per sample on
    CSR input (O(d) per sample on dense input), with nothing O(d) per
    ``partial_fit`` call; memory 5 floats per feature. With ``sample_weight``,
    :math:`p` and the class means are weighted and a sample's gradient (in :math:`z_j`
    and :math:`n_j`) is scaled by its weight (notes.md#sample-weights).

    References
    ----------
    .. [1] B. Zhou, Y. Ying, S. Skiena. "Online AUC optimization for sparse
       high-dimensional datasets." ICDM 2020, arXiv:2009.10867.
    .. [2] H. B. McMahan et al. "Ad click prediction: a view from the
       trenches." KDD 2013.
    .. [3] Y. Ying, L. Wen, S. Lyu. "Stochastic online AUC maximization."
       NIPS 2016.

    Examples
    --------
    {example}
    """

    _algorithm = "ftrl-auc"

    def __init__(
        self,
        *,
        alpha="auto",
        beta=1.0,
        lam1=1e-3,
        lam2=0.0,
        max_iter=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
