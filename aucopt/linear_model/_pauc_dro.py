"""KL-DRO partial-AUC estimators: SOPA-s (one-way) and SOTA-s (two-way) of Zhu, Li, Wang,
Wu & Yang (ICML 2022), streaming, for a linear scorer."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["SOPASClassifier", "SOTASClassifier"]


class SOPASClassifier(BaseAUCClassifier):
    r"""Stochastic KL-DRO method for the one-way partial AUC (SOPA-s, Zhu et al. 2022).

    The one-way partial AUC over FPR in :math:`[0, \beta]` ranks each positive above the
    negatives that score highest. Zhu, Li, Wang, Wu & Yang (ICML 2022, section 4) replace
    the hard selection of those negatives by a distributionally robust loss per positive:
    the worst weighting :math:`p` of the negatives with a KL penalty of temperature
    :math:`\lambda`, whose value is a log-mean-exp,

    .. math::

        F(w) = \frac{1}{n_+} \sum_{i \in S_+} \max_{p \in \Delta}
        \Big(\sum_{j \in S_-} p_j L_{ij}(w) - \lambda\, \mathrm{KL}(p, \tfrac{1}{n_-})\Big)
        = \frac{1}{n_+} \sum_{i \in S_+} \lambda \log \frac{1}{n_-} \sum_{j \in S_-}
        \exp\frac{L_{ij}(w)}{\lambda},

    :math:`L_{ij}(w) = \max(0, m - w^\top(x_i - x_j))^2`. SOPA-s (the paper's algorithm
    for this objective) keeps per positive a moving average :math:`u_i` of the inner
    mean and steps with momentum; on a batch of positives :math:`B_+` and negatives
    :math:`B_-`:

    .. math::

        u_i &\leftarrow (1 - \gamma) u_i + \gamma \frac{1}{|B_-|} \sum_{j \in B_-}
        e^{L_{ij}/\lambda}, \qquad p_{ij} = e^{L_{ij}/\lambda} / u_i, \\
        G &= \frac{1}{|B_+| |B_-|} \sum_{i, j} p_{ij} \nabla L_{ij}(w), \qquad
        m \leftarrow \beta m + (1 - \beta) G, \qquad w \leftarrow w - \eta m.

    Streaming form with memory independent of n: a batch is the next ``buffer_size``
    negatives of the stream (the first batches hold 1, 2, 4, ... negatives), and its
    positives are the last ``buffer_size`` positives seen (a ring buffer kept across
    batches); the moving average :math:`u_i` of a positive lives in its ring slot, from
    :math:`u_i = 0` when it arrives. With ``precondition=None`` and a numeric ``eta``
    (nothing is then set from a first chunk: the preconditioner's scales and the calibrated
    step are, by default), a one-pass ``fit`` (``max_iter=1, shuffle=False``) equals
    ``partial_fit`` over any chunking and River's ``learn_one``.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The last iterate.
    t_ : int
        Steps so far (full negative batches met with at least one stored positive).
    {attributes}

    See Also
    --------
    SOPAClassifier : the exact one-way partial AUC (CVaR at level ``max_fpr``).
    PAUC1PMBClassifier : the one-way partial AUC through the top-k negatives of a batch.
    SOTASClassifier : the two-way partial AUC (a second KL-DRO over the positives).

    Notes
    -----
    There is no ``max_fpr``: the temperature ``lam`` sets how sharply the weights
    :math:`p_{ij} \propto \exp(L_{ij}/\lambda)` single out the top-scored negatives
    of each positive (the KL penalty is the Lagrangian form of a constraint on how far
    :math:`p` may move from uniform; the paper's CVaR variant SOPA,
    :class:`SOPAClassifier`, is the hard :math:`\beta` counterpart). ``lam`` large gives
    the mean pairwise squared hinge, the full AUC's surrogate.

    ``sample_weight``: the means over :math:`B_-` and :math:`B_+` are weighted and a
    pair weighs :math:`w_i w_j`.

    The momentum decays every coordinate at every step; on CSR rows it is applied
    lazily (a coordinate catches up the steps it missed when a stored row reads it, and
    ``coef_`` catches all of them up), so a step costs O(B nnz + B^2), not O(d): O(nnz +
    B) per sample amortised. Memory O(B K + d) on CSR rows (K the longest row), O(B d)
    on dense rows.

    References
    ----------
    .. [1] D. Zhu, G. Li, B. Wang, X. Wu, T. Yang. "When AUC meets DRO: Optimizing
       partial AUC for deep learning with non-convex convergence guarantee." ICML 2022.

    Examples
    --------
    {example}
    """

    _algorithm = "pauc-sopa-s"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1.0,
        gamma=0.9,
        margin=1.0,
        momentum=0.9,
        buffer_size=32,
        max_memory_gb=2.0,
        max_iter=10,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
        precondition="auto",
    ):
        self._store(locals())


class SOTASClassifier(BaseAUCClassifier):
    r"""Stochastic KL-DRO method for the two-way partial AUC (SOTA-s, Zhu et al. 2022).

    The two-way partial AUC counts the ROC curve where FPR :math:`\le` ``max_fpr`` and
    TPR :math:`\ge` ``min_tpr``: the lowest-scored positives against the highest-scored
    negatives. Zhu, Li, Wang, Wu & Yang (ICML 2022, section 5) put a KL-regularised DRO
    on both sides, temperature :math:`\lambda` over the negatives of each positive and
    :math:`\lambda'` over the positives:

    .. math::

        F(w) = \lambda' \log \frac{1}{n_+} \sum_{i \in S_+} \Big(\frac{1}{n_-}
        \sum_{j \in S_-} \exp\frac{L_{ij}(w)}{\lambda}\Big)^{\lambda / \lambda'},

    :math:`L_{ij}(w) = \max(0, m - w^\top(x_i - x_j))^2`. SOTA-s (the paper's algorithm
    for this objective) keeps the moving averages :math:`u_i` of SOPA-s and one more,
    :math:`v`, of the outer mean; on a batch:

    .. math::

        u_i &\leftarrow (1 - \gamma) u_i + \gamma \frac{1}{|B_-|} \sum_{j \in B_-}
        e^{L_{ij}/\lambda}, \qquad
        v \leftarrow (1 - \gamma') v + \gamma' \frac{1}{|B_+|} \sum_{i \in B_+}
        u_i^{\lambda/\lambda'}, \\
        p_{ij} &= u_i^{\lambda/\lambda' - 1} e^{L_{ij}/\lambda} / v, \qquad
        G = \frac{1}{|B_+| |B_-|} \sum_{i, j} p_{ij} \nabla L_{ij}(w), \qquad
        m \leftarrow \beta m + (1 - \beta) G, \qquad w \leftarrow w - \eta m.

    Streaming form, batches and memory as :class:`SOPASClassifier`; :math:`v` is one
    number kept across the batches.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The last iterate.
    t_ : int
        Steps so far (full negative batches met with at least one stored positive).
    {attributes}

    See Also
    --------
    SOPASClassifier : the one-way partial AUC (``lam_pos`` infinite).

    Notes
    -----
    The two-way region (FPR :math:`\le \beta`, TPR :math:`\ge \alpha`) is not given by
    rates but by the two temperatures: ``lam`` plays the part of ``max_fpr`` (smaller:
    the weight goes to fewer, higher-scored negatives of each positive) and ``lam_pos``
    the part of ``min_tpr`` (smaller: the weight goes to fewer, lower-scored positives,
    those that make the low-TPR end of the curve; :math:`\lambda' \to \infty` weighs
    all positives alike and gives SOPA-s's objective). The paper's region is
    :math:`\mathrm{TPR} \ge \alpha` with :math:`\alpha` = ``min_tpr`` of
    :func:`aucopt.metrics.two_way_partial_roc_auc_score`.

    ``sample_weight``: the means over :math:`B_-` and :math:`B_+` are weighted and a
    pair weighs :math:`w_i w_j`. Cost and memory as :class:`SOPASClassifier`.

    References
    ----------
    .. [1] D. Zhu, G. Li, B. Wang, X. Wu, T. Yang. "When AUC meets DRO: Optimizing
       partial AUC for deep learning with non-convex convergence guarantee." ICML 2022.

    Examples
    --------
    {example}
    """

    _algorithm = "pauc-sota-s"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1.0,
        lam_pos=1.0,
        gamma=0.9,
        gamma_pos=0.9,
        margin=1.0,
        momentum=0.9,
        buffer_size=32,
        max_memory_gb=2.0,
        max_iter=10,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
        precondition="auto",
    ):
        self._store(locals())
