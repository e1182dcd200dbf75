"""AOGD estimator: online pairwise learning on random Fourier features (AlQuabeh et al. 2024)."""

from __future__ import annotations

from ..linear_model import BaseAUCClassifier

__all__ = ["AOGDClassifier"]


class AOGDClassifier(BaseAUCClassifier):
    r"""Average Online Gradient Descent with random Fourier features (AOGD).

    Learns a non-linear scoring function :math:`f(x) = w^\top\phi(x)` on
    :math:`D` random Fourier features of a Gaussian kernel,
    :math:`\phi(x) = \sqrt{2/D}\,[\sin(u_i^\top x), \cos(u_i^\top x)]_{i=1}^{D/2}`,
    :math:`u_i \sim N(0, \sigma^{-2} I)`, by minimising the local all-pairs
    square AUC loss

    .. math::

        \ell(w; z, z') = \big(1 - y\,w^\top(\phi(x) - \phi(x'))\big)^2
        + \frac{\lambda}{2}\|w\|^2, \qquad y' = -y,

    with two gradient steps per example: one against the running mean
    :math:`\bar\phi_{-y}` of the opposite class (step :math:`\eta`), then one
    against a random representative :math:`\hat\phi_{-y}` of the opposite
    class (step :math:`\gamma`). A representative is replaced by the new
    example of its class with probability ``q``. Memory is O(Dd + D),
    independent of the number of samples.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    intercept_ : ndarray of shape (1,)
        ``-(f(m+) + f(m-))/2`` with the per-class mean feature vectors.
    t_ : int
        Number of examples that produced steps so far.
    {attributes}

    See Also
    --------
    RandomFourierFeatures : the same feature map as a transformer, for any linear learner.

    Notes
    -----
    Paper grid (AlQuabeh et al. 2024): :math:`\eta \in 2^{[-8:-1]}`, :math:`\lambda \in
    10^{[-8:-1]}`, 3-fold CV; :math:`D`, :math:`\sigma`, :math:`\gamma` and
    the Bernoulli probability are not reported (notes.md#aogd-defaults: library choices
    :math:`\gamma = \eta`, ``q = 0.5``). Errata: the feature scale is
    :math:`\sqrt{2/D}` (notes.md#rff-scale; Algorithm 1's :math:`2/\sqrt{D}` doubles the
    kernel), the kernel is parameterised by :math:`\sigma` (notes.md#rff-scale), and the
    averages and representatives are kept per class (notes.md#aogd-averages). The frequencies
    are drawn from ``random_state`` when fitting starts and kept in the state,
    so a saved model scores identically. Cost: O(D nnz) per sample for the
    feature map plus O(D) for the steps; scoring costs the same per row. The
    output is the last iterate :math:`w_T`, as in Algorithm 1. With ``sample_weight``
    (notes.md#sample-weights) the averages and the ``"auto"`` bandwidth are weighted,
    the step against the average is scaled by the row's weight and the step against a
    representative by the product of both weights.

    References
    ----------
    .. [1] H. AlQuabeh, W. de Vazelhes, B. Gu. "Limited memory online gradient
       descent for kernelized pairwise learning with dynamic averaging."
       AAAI 2024.
    .. [2] A. Rahimi, B. Recht. "Random features for large-scale kernel
       machines." NIPS 2007.

    Examples
    --------
    {example}
    """

    _algorithm = "aogd"

    def __init__(
        self,
        *,
        n_components=200,
        bandwidth="auto",
        eta="auto",
        eta_random=None,
        lam=1e-4,
        q=0.5,
        averaging="per_class",
        max_memory_gb=2.0,
        max_iter=1,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
    ):
        self._store(locals())
