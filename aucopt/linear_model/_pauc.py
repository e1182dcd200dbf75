"""Partial-AUC estimators: the streaming 1PMB and the two-pass 2PMB of Kar, Narasimhan & Jain
(NeurIPS 2014) and the structural pAUC SVM of Narasimhan & Agarwal (ICML 2013)."""

from __future__ import annotations

from ._base import BaseAUCClassifier
from ._batch_pairwise import FittedLam

__all__ = ["PAUC1PMBClassifier", "PAUC2PMBClassifier", "SVMPAUCClassifier"]


class PAUC1PMBClassifier(BaseAUCClassifier):
    r"""Streaming mini-batch SGD for the one-way partial AUC over FPR in [0, max_fpr] (1PMB).

    Maximises the area under the ROC curve where the false-positive rate is at most
    :math:`\beta` = ``max_fpr``, through the convex surrogate of Narasimhan & Agarwal
    (KDD 2013) that Kar, Narasimhan & Jain (NeurIPS 2014, section 5) minimise with their
    one-pass mini-batch method 1PMB: on a batch with positives :math:`P` and negatives
    :math:`N`,

    .. math::

        L(w) = \frac{1}{|P|\,k} \sum_{i \in P} \sum_{j \in T_k(N; w)}
        \phi\big(w^\top (x_i - x_j)\big), \qquad k = \lceil \beta |N| \rceil,

    :math:`T_k(N; w)` the :math:`k` negatives that :math:`w` scores highest (those that
    make the false positives at the top of the ranking), :math:`\phi(m) = (1-m)^2`
    (``loss="square"``) or :math:`\max(0, 1-m)` (``"hinge"``). One step per batch:
    :math:`w \leftarrow \mathrm{prox}_{\eta_e \frac{\lambda}{2}\|\cdot\|^2}(w - \eta_e
    \nabla L(w))`, :math:`\eta_e = \eta/\sqrt{e}`.

    Streaming form with memory independent of n: a batch is the next ``buffer_size``
    negatives of the stream (the first batches hold 1, 2, 4, ... negatives, so that the
    model moves from the first rows on), and its positives are the last ``buffer_size``
    positives seen (a ring buffer kept across batches), so that a rare positive class
    takes part in every step. With ``precondition=None`` and a numeric ``eta`` (nothing is
    then set from a first chunk: the preconditioner's scales and the calibrated step are,
    by default), a one-pass ``fit`` (``max_iter=1, shuffle=False``) equals ``partial_fit``
    over any chunking and River's ``learn_one``.

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
    KarClassifier : online pairwise gradient descent on the full AUC with a buffer.
    PAUC2PMBClassifier : the two-pass method on the same surrogate (``fit`` only).

    Notes
    -----
    Which paper algorithm this is: 1PMB (Kar et al. 2014, section 5) draws its
    epochs' batches from the stream, with both classes in the proportions of the
    stream, and steps on the batch's pAUC surrogate; here the negatives of a batch are
    the stream's, and the positives are the last ``buffer_size`` ones (on data with 1%
    positives a batch of 100 rows would mostly hold none). The same role is played in
    Kar et al.'s two-pass variant 2PMB (:class:`PAUC2PMBClassifier`) by the sample of
    positives its first pass collects. With ``max_fpr=1`` the surrogate is the pairwise
    AUC loss. ``min_tpr`` :math:`= \alpha > 0` extends the step to the two-way partial AUC
    (TPR :math:`\ge \alpha`, FPR :math:`\le \beta`), which the paper does not treat: the sum
    over :math:`P` keeps the :math:`|P| - \lfloor \alpha |P| \rfloor` positives that
    :math:`w` scores lowest (with the hinge, a convex upper bound of the batch's two-way
    risk; notes.md#pauc-two-way).
    The surrogate is the "tight" one of Narasimhan & Agarwal (KDD 2013, section 4):
    the hinge over the top-ranked negatives, a convex upper bound on
    :math:`1 - \mathrm{pAUC}(0, \beta)` of the batch (up to normalisation).

    ``sample_weight``: a pair weighs :math:`w_i w_j` and the normaliser is the sum of
    the pair weights; the selections (the top :math:`k` negatives, with ``min_tpr`` the
    lowest positives) count rows.

    Cost O(nnz + log B) per sample amortised on CSR rows (one step per B negatives
    costs O(B nnz) for the scores of the 2B stored rows and the update at their
    columns, O(B log B) for the selections and O(B k) for the pairs; the l2 shrinkage
    acts on a scale factor), O(d) per sample on dense rows. Memory O(B K + d) on CSR
    rows (K the longest row), O(B d) on dense rows.

    References
    ----------
    .. [1] P. Kar, H. Narasimhan, P. Jain. "Online and stochastic gradient methods for
       non-decomposable loss functions." NeurIPS 2014.
    .. [2] H. Narasimhan, S. Agarwal. "SVMpAUC-tight: a new support vector method for
       optimizing partial AUC based on a tight convex upper bound." KDD 2013.

    Examples
    --------
    {example}
    """

    _algorithm = "pauc-1pmb"

    def __init__(
        self,
        *,
        eta="auto",
        max_fpr=0.1,
        min_tpr=0.0,
        lam=0.0,
        loss="square",
        buffer_size=32,
        max_memory_gb=2.0,
        schedule="inv_sqrt",
        max_iter=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
        precondition="auto",
    ):
        self._store(locals())


class PAUC2PMBClassifier(PAUC1PMBClassifier):
    r"""Two-pass mini-batch SGD for the one-way partial AUC over FPR in [0, max_fpr] (2PMB).

    Minimises the batch surrogate of :class:`PAUC1PMBClassifier`,

    .. math::

        L(w) = \frac{1}{|P|\,k} \sum_{i \in P} \sum_{j \in T_k(N; w)}
        \phi\big(w^\top (x_i - x_j)\big), \qquad k = \lceil \beta |N| \rceil,

    with the two-pass mini-batch method 2PMB of Kar, Narasimhan & Jain (NeurIPS 2014,
    section 5), meant for data whose positives are rare: the first pass over the data
    draws a uniform sample :math:`P` of ``buffer_size`` positives (reservoir sampling),
    the second streams the negatives in batches :math:`N` of ``buffer_size`` (the first
    batches hold 1, 2, 4, ... negatives), and each batch makes one step
    :math:`w \leftarrow \mathrm{prox}_{\eta_e \frac{\lambda}{2}\|\cdot\|^2}(w - \eta_e
    \nabla L(w))`, :math:`\eta_e = \eta/\sqrt{e}`, against the same sample :math:`P`.

    A batch method: the sample of positives is drawn from the whole training set before
    the first step, so there is no ``partial_fit`` (:class:`PAUC1PMBClassifier` streams,
    with the last positives seen in place of the sample).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    t_ : int
        Steps so far (full negative batches; each meets the sample of positives).
    {attributes}

    See Also
    --------
    PAUC1PMBClassifier : the one-pass method, streaming.
    SVMPAUCClassifier : the optimum of the same surrogate by cutting planes.

    Notes
    -----
    One epoch is Kar et al.'s 2PMB; each further epoch (``max_iter``) draws a new
    sample of positives, from the ``random_state``, and goes on from the iterate and
    the step count. The model is the last iterate, and the step, the batch sizes,
    ``sample_weight`` (a pair weighs :math:`w_i w_j`; the sample of positives and the
    top :math:`k` negatives count rows), ``min_tpr`` (the two-way range,
    notes.md#pauc-two-way) and the cost of a step are those of :class:`PAUC1PMBClassifier`.
    Memory O(B K + d) on CSR rows (K the longest row), O(B d) on dense rows, besides the
    training set.

    References
    ----------
    .. [1] P. Kar, H. Narasimhan, P. Jain. "Online and stochastic gradient methods for
       non-decomposable loss functions." NeurIPS 2014.
    .. [2] H. Narasimhan, S. Agarwal. "SVMpAUC-tight: a new support vector method for
       optimizing partial AUC based on a tight convex upper bound." KDD 2013.
    .. [3] J. S. Vitter. "Random sampling with a reservoir." ACM TOMS, 1985.

    Examples
    --------
    {example}
    """

    _algorithm = "pauc-2pmb"


class SVMPAUCClassifier(FittedLam, BaseAUCClassifier):
    r"""Structural SVMs for the partial AUC over FPR in [min_fpr, max_fpr] (ICML / KDD 2013).

    With :math:`\alpha` = ``min_fpr``, :math:`\beta` = ``max_fpr``, the negatives sorted by
    score :math:`s_{(1)} \ge s_{(2)} \ge \dots` (:math:`s = w^\top x`), :math:`j_\alpha =
    \alpha n_-`, :math:`j_\beta = \beta n_-` (integers here; fractions below),

    .. math::

        \min_w\; \frac{\lambda}{2}\|w\|^2 + \frac{1}{n_+ (j_\beta - j_\alpha)}
        \sum_{i \in P} \max_{0 \le r \le r_{\max}} \Big[ \big(\min(r, j_\beta) -
        j_\alpha\big)_+ + 2 \sum_{k \le r} w^\top\big(x_{(k)} - x_i\big) \Big],

    i.e. each positive :math:`i` picks the number :math:`r` of negatives ranked above it and
    pays the partial-AUC loss of that ranking plus :math:`2 (s_{(k)} - s_i)` for each of
    them. This is the structural SVM of Joachims' ROC-area SVM (:class:`SVMPerfClassifier`)
    with the partial-AUC loss, maximised over every ordering of positives and negatives
    (the negatives in score order are the best for every positive at once). The two
    surrogates differ in :math:`r_{\max}`:

    * ``surrogate="structural"`` (ICML 2013, its general range, used for
      :math:`\alpha > 0`): :math:`r_{\max} = n_-`; the hinge terms reach every negative.
    * ``surrogate="tight"`` (SVMpAUC-tight, KDD 2013): :math:`r_{\max} = j_\beta`; the
      terms stop at the negatives that can lie in :math:`[0, \beta]`, so the surrogate is
      never larger.

    For :math:`\alpha = 0` both are the :math:`[0, \beta]` surrogate of ICML 2013,

    .. math::

        \max_{q \in Q} \frac{1}{n_+ \beta n_-} \sum_{i \in P} \sum_{j \in N} q_j
        \max\big(0, 1 - 2 w^\top(x_i - x_j)\big),\quad
        Q = \{0 \le q_j \le 1, \textstyle\sum_j q_j = \beta n_-\},

    the ROC-area surrogate restricted to the positives against the :math:`\beta n_-`
    negatives scored highest. Each surrogate upper-bounds :math:`1 -
    \mathrm{pAUC}(\alpha, \beta)` (normalised; :func:`aucopt.metrics.partial_roc_auc_score`
    with ``standardized=False`` divided by :math:`\beta - \alpha`) and is solved by the
    1-slack cutting-plane method of ``svm-perf``: the most violated constraint sorts the
    negatives by score and places each positive at its best rank, one binary search per
    range zone (above, inside, below the range), O(n log n) per cut.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    n_iter_ : int
        Cutting planes added by the last ``fit``.
    t_ : int
        Cutting planes added so far.
    lam_ : float
        The l2 weight used: ``lam``, or the value ``lam="auto"`` chose.
    {attributes}

    See Also
    --------
    SVMPerfClassifier : the full ROC area (``max_fpr=1`` here gives the same problem).
    PAUC1PMBClassifier : a one-pass stochastic method on the same surrogate.

    Notes
    -----
    The solution is the reference optimum of the partial-AUC surrogate: the stop is a
    certified duality gap at most ``tol``. When :math:`\alpha n_-` or :math:`\beta n_-`
    is not an integer, or with ``sample_weight``, each negative fills an interval of
    length its weight :math:`v_j` on :math:`[0, W_-)` in score order, the loss counts the
    part inside :math:`[\alpha W_-, \beta W_-)`, a pair weighs :math:`v_i v_j`, and a
    negative straddling :math:`\beta W_-` may count a fraction, so that integer weights
    equal duplicated rows. The structural surrogate with ``min_fpr > 0`` reaches every
    negative while with ``min_fpr=0`` it stops at :math:`\beta n_-` of them (the two
    output spaces of ICML 2013): it does not tend to the ``min_fpr=0`` problem as
    ``min_fpr`` goes to 0; the tight one does. Cost per cut O(nnz + n log n + k' d),
    k' the cuts so far.

    References
    ----------
    .. [1] H. Narasimhan, S. Agarwal. "A structural SVM based approach for optimizing
       partial AUC." ICML 2013.
    .. [2] H. Narasimhan, S. Agarwal. "SVMpAUC-tight: a new support vector method for
       optimizing partial AUC based on a tight convex upper bound." KDD 2013.

    Examples
    --------
    {example}
    """

    _algorithm = "svm-pauc"
    _example_params = ""

    def __init__(
        self,
        *,
        lam="auto",
        max_fpr=0.1,
        min_fpr=0.0,
        surrogate="structural",
        tol=1e-3,
        max_iter=1000,
        shuffle=False,
        random_state=None,
        warm_start=False,
        verbose=0,
        max_time=None,
        precondition="auto",
    ):
        self._store(locals())
