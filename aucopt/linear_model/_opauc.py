"""OPAUC, OPAUCr and the reduced OPAUC baselines (Gao et al. 2013, Sections 3 and 6.2)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = [
    "OPAUCClassifier",
    "OPAUCrClassifier",
    "OPAUCfClassifier",
    "OPAUCrpClassifier",
    "OPAUCpcaClassifier",
]


class OPAUCClassifier(BaseAUCClassifier):
    r"""One-Pass AUC optimisation with full class covariances (OPAUC).

    Minimises the regularised pairwise square loss

    .. math::

        \frac{\lambda}{2}\|w\|^2 + \frac{1}{2n_+n_-}\sum_{i:y_i=+1}\sum_{j:y_j=-1}
        \big(1 - w^\top(x_i - x_j)\big)^2

    in one pass, keeping only the mean :math:`c_\pm` and covariance
    :math:`S_\pm` of each class (Welford updates). On a sample :math:`x_t` of
    class :math:`y_t`, with :math:`c, S` of the opposite class and
    :math:`\delta = x_t - c`, it steps along
    :math:`g_t = \lambda w - y_t\delta + \delta\,\delta^\top w + S w`.
    The output is the last iterate.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Last iterate.
    t_ : int
        Number of gradient steps so far.
    {attributes}

    See Also
    --------
    OPAUCrClassifier : low-rank sketch of the covariances, O(rank d) memory.

    Notes
    -----
    Paper grid: :math:`\eta \in 2^{[-12:10]}`, :math:`\lambda \in 2^{[-10:2]}`
    by 5-fold CV, five runs of 5-fold CV, features scaled to [-1, 1]. Errata:
    the covariance recursion printed in the paper is wrong; Welford's update is
    used (notes.md#opauc-covariance); no step until both classes were seen
    (notes.md#opauc-first-examples); last iterate
    output (notes.md#opauc-output). Cost O(d^2) per sample and memory O(d^2); CSR rows are
    accepted (each row is densified into a scratch buffer, the d^2 work
    dominates). ``partial_fit`` over chunks equals one ``fit`` pass.
    ``sample_weight`` weighs the class means and covariances (weight k: k copies
    of the row) and scales the row's step (notes.md#sample-weights).

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version: Algorithm 1).

    Examples
    --------
    {example}
    """

    _algorithm = "opauc"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
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


class OPAUCrClassifier(BaseAUCClassifier):
    r"""OPAUC with randomised low-rank class covariances (OPAUCr).

    As :class:`OPAUCClassifier`, but each class covariance is replaced by a
    Gaussian sketch: per class :math:`Z \leftarrow Z + x_t a_t^\top`,
    :math:`s \leftarrow s + a_t` with :math:`a_t = r_t/\sqrt{\tau}`,
    :math:`r_t \sim N(0, I_\tau)` drawn from the estimator's generator, and

    .. math::

        \hat S w = \frac{1}{T}(Z - c s^\top)(Z - c s^\top)^\top w

    (``centering="unbiased"``), computed in O(rank d) without any d x d
    matrix.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Paper (Gao et al. 2013, Section 6.2): :math:`\tau = 50`, :math:`\eta \in 2^{[-12:10]}`,
    :math:`\lambda \in 2^{[-10:2]}`. Scaling :math:`1/\sqrt{\tau}` of the sketch
    (notes.md#opaucr-sketch; the paper's :math:`1/\tau` estimates :math:`S/\tau`). Memory
    O(rank d), cost O(rank d) per sample; CSR rows are never densified (the
    sketch update costs O(rank nnz)). The sketch rows are drawn per pass over
    new data, in visiting order, so ``partial_fit`` over chunks equals one
    ``fit`` pass with the same ``random_state``. A row of ``sample_weight`` v enters
    its class sketch as :math:`\sqrt{v}\, x a^\top` (in law, v copies of the row) and
    its step is scaled by v (notes.md#sample-weights).

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version: Eqs. 6-11).

    Examples
    --------
    {example}
    """

    _algorithm = "opauc-r"
    _example_params = "rank=20, random_state=0"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
        rank=50,
        centering="unbiased",
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


class OPAUCfClassifier(BaseAUCClassifier):
    r"""OPAUC on a random subset of the features (OPAUC^f, baseline of Gao et al. 2013, Section
    6.2).

    ``n_components`` columns are drawn uniformly without replacement once per
    fit (from the estimator's generator) and full OPAUC runs on them;
    ``coef_`` has ``n_features`` entries, zero outside the subset, so
    ``decision_function`` is ``X @ coef``.

    .. math::

        \min_{v \in \mathbb{R}^k} \frac{\lambda}{2}\|v\|^2 + \frac{1}{2n_+n_-}
        \sum_{i,j} \big(1 - v^\top(x_{i,F} - x_{j,F})\big)^2

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Gao et al. 2013, Section 6.2 uses 1,000 features; hyperparameters as OPAUC. Cost O(k^2 + d)
    per sample. The subset is drawn in ``fit`` (and on the first
    ``partial_fit`` call), so ``partial_fit`` equals ``fit``.

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.2).

    Examples
    --------
    {example}
    """

    _algorithm = "opauc-f"
    _example_params = "n_components=8, random_state=0"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
        n_components=1000,
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


class OPAUCrpClassifier(OPAUCfClassifier):
    r"""OPAUC after a Gaussian random projection (OPAUC^rp, baseline of Gao et al. 2013, Section
    6.2).

    :math:`\hat x = H^\top x` with :math:`H \in \mathbb{R}^{d\times k}`,
    :math:`H_{ij} \sim N(0, 1/k)` drawn once per fit; full OPAUC on
    :math:`\hat x`; ``coef_`` :math:`= H v` so that
    ``decision_function`` is ``X @ coef``.

    .. math::

        \min_{v} \frac{\lambda}{2}\|v\|^2 + \frac{1}{2n_+n_-}
        \sum_{i,j} \big(1 - v^\top H^\top(x_i - x_j)\big)^2

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    The paper does not give the entry scale of H (immaterial up to eta/lam).
    Memory O(k^2 + k d) (H is stored dense), cost O(k^2 + k nnz) per sample.

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.2).

    Examples
    --------
    {example}
    """

    _algorithm = "opauc-rp"
    _example_params = "n_components=10, random_state=0"


class OPAUCpcaClassifier(OPAUCfClassifier):
    r"""OPAUC on the top principal components (OPAUC^pca, baseline of Gao et al. 2013, Section 6.2).

    The top ``n_components`` principal axes :math:`P` of the training data
    (batch PCA of the data given to ``fit``) define
    :math:`\hat x = P x`; full OPAUC runs on :math:`\hat x` and ``coef_``
    :math:`= P^\top v`, so ``decision_function`` is ``X @ coef``.

    .. math::

        \min_{v} \frac{\lambda}{2}\|v\|^2 + \frac{1}{2n_+n_-}
        \sum_{i,j} \big(1 - v^\top P(x_i - x_j)\big)^2

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    The PCA is a batch step fitted on the training data only (Gao et al. 2013, Section 6.2 /
    Gao et al. 2013, Section 6.2), so this estimator has no ``partial_fit`` (a PCA fitted on
    the first chunk would make chunked learning differ from ``fit``); for
    streams use :class:`OPAUCrpClassifier` or :class:`OPAUCrClassifier`. The
    PCA diagonalises the d x d covariance (exact; memory checked against
    ``max_memory_gb``); each axis has its largest entry positive. With
    ``sample_weight`` the PCA is that of the weighted covariance (notes.md#sample-weights).

    References
    ----------
    .. [1] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (long version, section 6.2).

    Examples
    --------
    {example}
    """

    _algorithm = "opauc-pca"
    _example_params = "n_components=5, random_state=0"
