"""CVaR partial-AUC estimator: SOPA of Zhu, Li, Wang, Wu & Yang (ICML 2022), streaming, for a
linear scorer."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["SOPAClassifier"]


class SOPAClassifier(BaseAUCClassifier):
    r"""Stochastic CVaR method for the one-way partial AUC (SOPA, Zhu et al. 2022).

    The one-way partial AUC over FPR in :math:`[0, \beta]` ranks each positive above the
    :math:`\beta n_-` negatives that score highest. Zhu, Li, Wang, Wu & Yang (ICML 2022,
    section 4) write the loss of positive :math:`x_i` as the conditional value at risk
    (CVaR) of its pairwise losses at level :math:`\beta`, with one threshold :math:`s_i`
    per positive:

    .. math::

        F(w, s) = \frac{1}{n_+} \sum_{i \in S_+} \Big( s_i + \frac{1}{\beta n_-}
        \sum_{j \in S_-} \big(L_{ij}(w) - s_i\big)_+ \Big),

    :math:`L_{ij}(w) = \max(0, m - w^\top(x_i - x_j))^2`. Minimised over :math:`s_i`,
    the bracket is the mean of the :math:`\beta n_-` largest losses of :math:`x_i`: those
    of the highest-scored negatives, the exact pAUC surrogate over FPR in
    :math:`[0, \beta]` (no temperature: ``max_fpr`` is :math:`\beta` itself). SOPA (the
    paper's Algorithm 1) takes stochastic subgradient steps on :math:`w` and the sampled
    :math:`s_i`; on a batch of positives :math:`B_+` and negatives :math:`B_-`:

    .. math::

        p_{ij} &= [L_{ij}(w) > s_i], \qquad
        s_i \leftarrow s_i - \eta_s \Big(1 - \frac{1}{\beta |B_-|} \sum_{j \in B_-}
        p_{ij}\Big), \\
        G &= \frac{1}{\beta |B_+| |B_-|} \sum_{i, j} p_{ij} \nabla L_{ij}(w), \qquad
        m \leftarrow \mu m + (1 - \mu) G, \qquad w \leftarrow w - \eta m.

    Streaming form, batches and memory as :class:`SOPASClassifier`: the last
    ``buffer_size`` positives meet every batch of ``buffer_size`` negatives, and the
    threshold :math:`s_i` of a positive lives in its ring slot, from :math:`s_i = 0` when
    it arrives.

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
    SOPASClassifier : the smooth KL-DRO counterpart (a temperature instead of ``max_fpr``).
    PAUC1PMBClassifier : the one-way partial AUC through the top-k negatives of a batch.

    Notes
    -----
    Departures from the paper, forced by a stream: the paper keeps one :math:`s_i` for
    every positive of the training set, starts it at 0 and steps it by
    :math:`\eta_2 / n_+`; here :math:`n_+` is unknown, ``eta_s`` stands for
    :math:`\eta_2 / n_+`, and a positive's threshold lives only while it is in the ring
    (it restarts from 0 when the positive re-enters the ring in a later pass), as the
    moving averages of :class:`SOPASClassifier` do. With ``momentum=0`` the step on
    :math:`w` is the paper's plain one; the paper also allows momentum (the default here).

    ``sample_weight``: a pair weighs :math:`w_i w_j` in :math:`G` (normalised by the
    weights of the batch), the negatives above :math:`s_i` are counted by weight, and the
    threshold step is not scaled by the positive's weight (the best :math:`s_i` does not
    depend on it).

    Cost (O(nnz + B) per sample amortised on CSR rows) and memory (independent of n) as
    :class:`SOPASClassifier`.

    References
    ----------
    .. [1] D. Zhu, G. Li, B. Wang, X. Wu, T. Yang. "When AUC meets DRO: Optimizing
       partial AUC for deep learning with non-convex convergence guarantee." ICML 2022.

    Examples
    --------
    {example}
    """

    _algorithm = "pauc-sopa"

    def __init__(
        self,
        *,
        eta="auto",
        max_fpr=0.1,
        eta_s=0.1,
        margin=1.0,
        momentum=0.9,
        buffer_size=32,
        max_memory_gb=2.0,
        max_iter=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
        precondition="auto",
    ):
        self._store(locals())
