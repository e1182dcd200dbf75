"""OGD with the previous example (Yang et al. 2021) and the OLP of Kar et al. (2013)."""

from __future__ import annotations

from ._base import BaseAUCClassifier

__all__ = ["OGDFIFOClassifier", "KarClassifier"]


class OGDFIFOClassifier(BaseAUCClassifier):
    r"""Online pairwise gradient descent with the previous example (Yang et al. 2021).

    Online gradient descent on the pairwise AUC surrogate where the buffer is
    the previous example only (FIFO of size one). On arrival of
    :math:`z_t = (x_t, y_t)` with :math:`y_{t-1} \ne y_t`:

    .. math::

        w \leftarrow \Pi_{\|w\| \le R}\Big(\mathrm{prox}_{\eta_t
        \frac{\lambda}{2}\|\cdot\|^2}\big(w - \eta_t \nabla_w
        \phi(y_t w^\top(x_t - x_{t-1}))\big)\Big),

    with :math:`\phi(m) = (1 - m)^2` (``loss="square"``) or
    :math:`\max(0, 1 - m)` (``"hinge"``); a pair of equal labels carries no
    AUC loss and gives no step. The output is the average of the iterates.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Scoring vector (averaged or last iterate).
    t_ : int
        Gradient steps so far (arrivals whose predecessor had the other label).
    {attributes}

    See Also
    --------
    KarClassifier : the same step against a buffer of s past examples.

    Notes
    -----
    Grid of the comparison in AlQuabeh et al. 2024: :math:`\eta \in 2^{[-8:-1]}`,
    :math:`\lambda \in 10^{[-8:-1]}` by 3-fold CV ("Reg. l2").

    Details of Yang et al. 2021, taken from the authors' public code
    (``zhenhuan-yang/simple-pairwise``, ``alg/auc_fifo_square.py`` and
    ``auc_fifo_hinge.py``, found with the search tool; the paper text itself
    was not retrieved):

    * same-label pairs: no step (the code updates only when
      :math:`y_t y_{t-1} < 0`); the previous example is replaced on every
      arrival;
    * losses: the code has the square and the hinge loss (its experiment
      script uses the hinge); the square loss is the default here;
    * projection onto an l2 ball of radius R (the code's ``beta``, tuned on
      :math:`10^{[-3:2]}`) instead of a penalty; AlQuabeh et al. 2024 lists an l2
      regulariser, so both are offered (``lam``, ``radius``);
    * step :math:`\eta/\sqrt{T}` constant in the code (T known in advance)
      or :math:`\eta/\sqrt{t}`; the online default here is
      :math:`\eta/\sqrt{t}`, t counting steps;
    * output: the average of the iterates (the code's "naive average"; here
      the average over steps, not over arrivals);
    * ``sample_weight``: the pair of :math:`x_t` with the previous example is
      weighted by :math:`w_t w_{t-1}` (notes.md#sample-weights).

    Cost O(nnz) per sample on CSR rows (the l2 shrinkage and the projection
    act on a scale factor, the average is kept lazily; O(d) once per call),
    O(d) on dense rows; memory O(d).

    References
    ----------
    .. [1] Z. Yang, Y. Lei, P. Wang, T. Yang, Y. Ying. "Simple stochastic and
       online gradient descent algorithms for pairwise learning." NeurIPS
       2021.

    Examples
    --------
    {example}
    """

    _algorithm = "ogd-fifo"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
        loss="square",
        radius=None,
        schedule="inv_sqrt",
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


class KarClassifier(OGDFIFOClassifier):
    r"""Online pairwise gradient descent with an RS-x buffer (OLP, Kar et al. 2013).

    Keeps a buffer B of ``buffer_size`` past examples by RS-x, reservoir
    sampling with replacement: the first s examples fill it; at
    :math:`t = s + 1` it is refilled with s draws with replacement from the
    s + 1 examples; afterwards each slot is independently replaced by the
    t-th example with probability :math:`1/t`, so every slot holds a uniform
    draw from the past. Before :math:`z_t` enters the buffer,

    .. math::

        w \leftarrow \Pi_{\|w\| \le R}\Big(\mathrm{prox}_{\eta_t
        \frac{\lambda}{2}\|\cdot\|^2}\big(w - \frac{\eta_t}{|B|}
        \sum_{(x, y) \in B,\, y \ne y_t} \nabla_w
        \phi(y_t w^\top(x_t - x))\big)\Big).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    {attributes}

    Notes
    -----
    Grid of the comparison in AlQuabeh et al. 2024: :math:`\eta \in 2^{[-8:-1]}`,
    :math:`\lambda \in 10^{[-8:-1]}`; the buffer size is not reported
    (theory: :math:`s = O(\sqrt{T})`); 100 here, as OAM.

    Details Kar et al. 2013 leave open follow the OLP re-implementation of
    Yang et al.
    (``zhenhuan-yang/simple-pairwise``, ``alg/auc_olp_square.py``,
    ``auc_olp_hinge.py``):

    * RS-x with the repopulation step at :math:`t = s + 1` (the
      re-implementation's ``rs_xx_t``; notes.md#reservoir states only the
      :math:`1/t` replacements). Each slot draws its own uniform.
    * Gradient normalised by :math:`|B|`, the whole buffer (both labels),
      same-label buffer entries contributing nothing (as in the
      re-implementation); no step when the buffer holds no example of
      the other label.
    * The step uses the buffer before :math:`z_t` enters it; the
      re-implementation inserts first.
    * Projection set W: an l2 ball of radius R (re-implementation) or none;
      AlQuabeh et al. 2024 lists an l2 regulariser (``lam``).
    * Loss: square (default) or hinge; step :math:`\eta/\sqrt{t}` (OLP's
      analysis) or constant; output the average of the iterates.
    * ``sample_weight``: the pair of :math:`x_t` with a stored :math:`x` is
      weighted by :math:`w_t w_x`; :math:`|B|` counts rows and RS-x draws as
      without weights, a stored row keeping its weight (notes.md#sample-weights).

    Cost per sample O(s nnz) on CSR input (nnz the length of the rows): the
    buffer stores CSR rows sparsely (index/value slots as wide as the longest
    row seen), the l2 shrinkage and the projection act on a scale factor and
    the average is kept lazily (O(d) once per call), as in
    :class:`OGDFIFOClassifier`; O(s d) on dense input. Plus s uniforms per
    sample for RS-x. Memory O(s K + d) on CSR input (K the longest row),
    O(s d) on dense input. Chunks may switch between dense and CSR; the
    buffer is converted exactly and the result does not change.

    References
    ----------
    .. [1] P. Kar, B. K. Sriperumbudur, P. Jain, H. Karnick. "On the
       generalization ability of online learning algorithms for pairwise
       loss functions." ICML 2013.

    Examples
    --------
    {example}
    """

    _algorithm = "kar"

    def __init__(
        self,
        *,
        eta="auto",
        lam=1e-4,
        loss="square",
        radius=None,
        schedule="inv_sqrt",
        output="average",
        buffer_size=100,
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
