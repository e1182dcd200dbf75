"""Online Uni-Exp, Uni-Squ and Uni-Log estimators (Kotlowski et al. 2011; Gao et al. 2013,
Section 6)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["UniExpClassifier", "UniLogClassifier", "UniSquClassifier"]


class UniExpClassifier(BaseAUCClassifier):
    r"""Online weighted univariate exponential loss (online Uni-Exp).

    Ranks by a linear score :math:`s(x) = w^\top x + b` trained on a
    *univariate* loss whose class weights balance the two classes, which
    bounds the rank (1 - AUC) regret (Kotlowski et al. 2011):

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{2n_+}\sum_{y_i=+1} \ell(s(x_i))
        + \frac{1}{2n_-}\sum_{y_i=-1} \ell(-s(x_i)),
        \qquad \ell(m) = e^{-m},

    by one stochastic gradient step per example: with weight
    :math:`\omega_t = n/(2 n_{y_t})`,
    :math:`(w, b) \leftarrow (w, b) - \eta_t \omega_t \ell'(y_t s(x_t))
    y_t (x_t, 1)`, then :math:`w \leftarrow w/(1 + \eta_t\lambda)`.
    The output is the last iterate.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Scoring vector ``w`` (last iterate).
    intercept_ : ndarray of shape (1,)
        ``-(w.m+ + w.m-)/2`` from the class means of the training data (as
        for every aucopt estimator; the learnt bias only shapes ``w``).
    t_ : int
        Steps so far.
    {attributes}

    See Also
    --------
    UniSquClassifier : the square loss :math:`(1 - m)^2`.
    UniLogClassifier : the logistic loss :math:`\log(1 + e^{-m})`.

    Notes
    -----
    Gao et al. 2013, Section 6.1 compares the online Uni-Exp / Uni-Squ with learning
    rates tuned on :math:`2^{[-12:10]}` by 5-fold CV and "weights (i.e.,
    class ratios) chosen as done in (Kotlowski et al., 2011)".

    Choices where the papers leave room (Kotlowski et al. 2011; Gao et al.
    2013, Section 6). The abstract of Kotlowski et al. and Agarwal (JMLR 2014),
    who summarises it as regret bounds "in terms of ... balanced
    versions of the standard (non-pairwise) logistic and exponential
    losses", support the balanced weighting :math:`1/n_\pm` used here. The online variant is not
    described in
    either document: plain SGD with the per-example weight
    :math:`n/(2n_{y_t})` (an unbiased estimate of the balanced loss), which
    replaces the weight :math:`\ell/T^{(y_t)}_t` (which
    decays like 1/t, so the penalty dominates long streams). An unpenalised
    bias is learnt, as in the batch linear models of the paper. A
    constant rate is ``schedule="constant"``; the default
    :math:`\eta/\sqrt{t}` was better in our benchmark. The output is the
    last iterate. The exponential loss grows fast for badly ranked
    examples; a non-finite step raises ``DivergenceError``.

    Cost O(nnz) per sample on CSR rows (the l2 shrinkage is applied lazily as
    a scale factor kept between ``partial_fit`` calls), memory O(d).
    ``sample_weight`` is not the ``weights`` parameter: the class counts
    :math:`n_\pm` become sums of the sample weights, and an example's step is scaled by
    its weight (notes.md#sample-weights).

    References
    ----------
    .. [1] W. Kotlowski, K. Dembczynski, E. Huellermeier. "Bipartite ranking
       through minimization of univariate loss." ICML 2011.
    .. [2] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization."
       ICML 2013 (section 6.1).

    Examples
    --------
    {example}
    """

    _algorithm = "uni-exp"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-6,
        schedule="inv_sqrt",
        weights="train",
        max_iter=10,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,

        precondition="auto",
    ):
        self._store(locals())


class UniSquClassifier(UniExpClassifier):
    r"""Online weighted univariate square loss (online Uni-Squ).

    As :class:`UniExpClassifier` with :math:`\ell(m) = (1 - m)^2`, i.e. a
    class-balanced least-squares fit of the labels :math:`\pm 1`:

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{2n_+}\sum_{y_i=+1} (1 - s(x_i))^2
        + \frac{1}{2n_-}\sum_{y_i=-1} (1 + s(x_i))^2.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Same grid and decisions as :class:`UniExpClassifier`. With
    balanced weights the population minimiser is the balanced least-squares
    (Fisher-type) direction. Cost O(nnz) per sample, memory O(d).

    References
    ----------
    .. [1] W. Kotlowski, K. Dembczynski, E. Huellermeier. "Bipartite ranking
       through minimization of univariate loss." ICML 2011.

    Examples
    --------
    {example}
    """

    _algorithm = "uni-squ"


class UniLogClassifier(UniExpClassifier):
    r"""Online weighted univariate logistic loss (online Uni-Log).

    As :class:`UniExpClassifier` with :math:`\ell(m) = \log(1 + e^{-m})`, i.e. a
    class-balanced logistic regression learnt by one stochastic gradient step per example:

    .. math::

        \min_{w, b}\; \frac{\lambda}{2}\|w\|^2
        + \frac{1}{2n_+}\sum_{y_i=+1} \log(1 + e^{-s(x_i)})
        + \frac{1}{2n_-}\sum_{y_i=-1} \log(1 + e^{s(x_i)}).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    The balanced logistic loss is one of the univariate losses whose minimisers Kotlowski et
    al. (2011) show to bound the rank regret; Gao et al. (2013, Section 6.1) compare its batch
    form (:class:`UniLogBatchClassifier`, ``uni-log-batch``) and the online exponential and
    square losses. This online form makes the same choices as :class:`UniExpClassifier`.
    Its derivative is bounded by 1, so a badly ranked example (a mislabelled one) moves the
    weights by at most the step times the row, where the exponential loss's step grows as
    :math:`e^{-m}`: on noisy labels and with large steps it is the safer of the three. Cost
    O(nnz) per sample, memory O(d).

    References
    ----------
    .. [1] W. Kotlowski, K. Dembczynski, E. Huellermeier. "Bipartite ranking through
       minimization of univariate loss." ICML 2011.
    .. [2] W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. "One-pass AUC optimization." ICML 2013
       (section 6.1).

    Examples
    --------
    {example}
    """

    _algorithm = "uni-log"
