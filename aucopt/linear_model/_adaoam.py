"""AdaOAM estimator (Natole 2020, Algorithm 9)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["AdaOAMClassifier"]


class AdaOAMClassifier(BaseAUCClassifier):
    r"""Adaptive-gradient Online AUC Maximisation (AdaOAM).

    OPAUC's one-pass pairwise square loss with the constraint
    :math:`\|w\| \le 1/\sqrt{\lambda}`,

    .. math::

        \min_{\|w\| \le 1/\sqrt\lambda}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{2n_+n_-}\sum_{i:y_i=+1}\sum_{j:y_j=-1}\big(1 - w^\top(x_i - x_j)\big)^2,

    optimised with diagonal AdaGrad: :math:`g_t` is OPAUC's gradient (class
    means and covariances by Welford), :math:`G \leftarrow G + g_t\odot g_t`,
    :math:`H_t = \delta I + \mathrm{diag}(\sqrt{G})` and

    .. math::

        w \leftarrow \Pi^{H_t}_{\|w\|\le 1/\sqrt\lambda}\big(w - \eta H_t^{-1} g_t\big),

    the projection being taken in the norm :math:`\sum_i H_{t,ii} w_i^2`
    (exact, Newton with bisection safeguard on the multiplier).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Last iterate.
    t_ : int
        Number of steps so far.
    {attributes}

    See Also
    --------
    OPAUCClassifier : the same gradient with a constant step.

    Notes
    -----
    Source: the thesis restatement (Algorithm 9) with notes.md#adaoam: the step uses
    :math:`H_t^{-1}` (Eq. 2.18 prints :math:`H_t`) and the projection is in
    the :math:`H_t` norm; memory O(d^2) (the thesis table lists O(td), which
    stores all past gradients; only their squared sums are needed).

    From the original paper (Ding et al., AAAI 2015; what the search tool
    returned is its abstract and introduction only): AdaOAM applies the
    adaptive gradient method of Duchi et al. to OPAUC's one-pass objective
    and "the time complexity ... remains the same as the previous
    non-adaptive algorithms", i.e. OPAUC's full-covariance gradient, which is
    what is implemented (the low-rank and sparse variants of the journal
    extension, SAdaOAM, are not). The step-size grid and :math:`\delta` of the
    original could not be retrieved; chosen here: the OPAUC grid
    :math:`\eta \in 2^{[-12:10]}`, :math:`\lambda \in 2^{[-10:2]}` as
    ``grid``, :math:`\delta = 10^{-8}` (the usual AdaGrad smoothing), and
    No step until both classes were seen
    (as OPAUC, notes.md#opauc-first-examples); last-iterate output. Cost O(d^2) per sample: the
    covariance term is OPAUC's (one symmetric BLAS product per sample). With
    ``sample_weight`` the class statistics are OPAUC's weighted ones and a row's
    gradient is scaled by its weight before it enters :math:`G` and the step
    (notes.md#sample-weights).

    References
    ----------
    .. [1] Y. Ding, P. Zhao, S. C. H. Hoi, Y.-S. Ong. "An adaptive gradient
       method for online AUC maximization." AAAI 2015.
    .. [2] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, Algorithm 9.

    Examples
    --------
    {example}
    """

    _algorithm = "adaoam"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
        delta=1e-8,
        max_memory_gb=2.0,
        max_iter=1,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())
