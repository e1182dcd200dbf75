"""SPAM-L2 and SPAM-NET estimators (Natole 2020, Algorithm 20)."""

from __future__ import annotations

from numbers import Integral, Real

from ..utils._param_validation import Interval, Options
from ._base import BaseAUCClassifier

__all__ = ["SPAML2Classifier", "SPAMNetClassifier"]

_SPAM_CONSTRAINTS = {
    **BaseAUCClassifier._parameter_constraints,
    "beta": [Interval(Real, 0, None, closed="neither")],
    "eta0": [Interval(Real, 0, None, closed="neither"), Options(str, {"auto"})],
    "schedule": [Options(str, {"inv_sqrt", "theory_poly", "theory_1_over_t"})],
    "power_t": [Interval(Real, 0, 1, closed="neither")],
    "stats": [Options(str, {"train", "online", "warmup"})],
    "warmup": [Interval(Real, 0, 1, closed="neither"), Interval(Integral, 1, None)],
    "decay": [Interval(Real, 0, 1, closed="left")],
    "output": [Options(str, {"average", "last"})],
}


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
    beta : float, default=1e-4
        l2 weight :math:`\beta`. Values must be in the range `(0.0, inf)`.
    eta0 : float or "auto", default="auto"
        Step scale :math:`C` of :math:`\eta_t = C/\sqrt{t}`. ``"auto"`` calibrates it on the
        training data (a short run per step of a geometric ladder, the lowest objective wins;
        :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``eta0_``. Ignored by the
        theoretical schedules.
    schedule : {"inv_sqrt", "theory_poly", "theory_1_over_t"}, default="inv_sqrt"
        ``"inv_sqrt"``: :math:`\eta_t = C/\sqrt{t}` (the authors' code);
        ``"theory_poly"``: :math:`\eta_t = \beta/(128 M^4)\, t^{-\theta}`
        (Theorem 4.1, :math:`\theta` = ``power_t``); ``"theory_1_over_t"``:
        :math:`\eta_t = 1/(\tilde C (t+1))`,
        :math:`\tilde C = \beta/(1 + \beta^2/(128M^4))^2` (Theorem 4.2).
    power_t : float, default=0.5
        Exponent :math:`\theta \in (0, 1)` of ``"theory_poly"``.
    stats : {"train", "online", "warmup"}, default="train"
        Where :math:`p, m_+, m_-` come from. ``"train"``: the training data
        given so far (all of ``X`` in ``fit``; in ``partial_fit``, every chunk
        seen including the current one), as in the thesis. ``"online"``:
        running estimates updated with each sample before its step (exactly
        equal across chunkings). ``"warmup"``: the first ``warmup`` samples
        only estimate them, then they are frozen.
    warmup : float or int, default=0.1
        Warm-up size for ``stats="warmup"``: a fraction of the first data
        given, or a number of samples.
    decay : float in [0, 1), default=0.0
        Exponential forgetting of the running class statistics of
        ``stats="online"`` (our extension for drifting streams, not in the
        papers): before each new sample is added, the class counts and sums are
        multiplied by ``1 - decay``, so :math:`p, m_+, m_-` follow roughly the
        last ``1/decay`` samples. ``M^2`` (for ``eta0="auto"``) is not forgotten.
        0 keeps every sample (the exact results of the running statistics).
    output : {"average", "last"}, default="average"
        Score with the averaged iterate or the last one.
    max_iter : int, default=10
        Passes over the data in ``fit`` (the authors' code used 15). 10 rather than
        5 was measured on docs/robustness.md's cases: up to 0.024 AUC closer to the
        least-squares optimum on the heavy-tailed and imbalanced ones (pareto -0.0071
        -> -0.0004, positives-1% -0.0756 -> -0.0519), no change on the others.
    shuffle : bool, default=True
        Reshuffle the samples before each pass of ``fit``.
    random_state : int, RandomState instance or None, default=None
        Seed of the sample order.
    warm_start : bool, default=False
        Start ``fit`` from the previous last iterate (the counters restart).
    verbose : int, default=0
        Log one line per pass at INFO level on the ``aucopt`` logger.

    Attributes
    ----------
    eta0_ : float or None
        The eta0 used: the number given, or the one ``"auto"`` calibrated;
        None while ``partial_fit`` waits for a chunk with a usable scale.
    coef_ : ndarray of shape (1, n_features)
        Scoring vector (averaged or last iterate).
    intercept_ : ndarray of shape (1,)
        ``-(w.m+ + w.m-)/2`` from the class means of the training data.
    classes_ : ndarray of shape (2,)
        Labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.
    n_iter_ : int
        Passes run by the last call.
    t_ : int
        Number of updates so far.

    See Also
    --------
    SPAMNetClassifier : the elastic-net variant (sparse solutions).

    Notes
    -----
    Paper grid: :math:`\beta \in 10^{[-5:5]}` tuned by 5-fold CV on 80/20
    splits (20 runs). The thesis does not state the step schedule (notes.md#spam-step);
    ``"inv_sqrt"`` with averaging is the authors' code. The class statistics
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
    >>> from aucopt.datasets import make_auc_problem
    >>> from aucopt.linear_model import SPAML2Classifier
    >>> X, y = make_auc_problem(500, 10, separation=2.0, random_state=0)
    >>> clf = SPAML2Classifier(random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _algorithm = "spam-l2"
    _parameter_constraints = _SPAM_CONSTRAINTS

    def _check_params_extra(self) -> None:
        if self.decay > 0 and self.stats != "online":
            raise ValueError(
                f"decay={self.decay!r} forgets the running class statistics, which only "
                f"stats='online' keeps (got stats={self.stats!r}): set stats='online' or "
                "decay=0."
            )

    def __init__(
        self,
        *,
        beta=1e-4,
        eta0="auto",
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
    ):
        self.beta = beta
        self.eta0 = eta0
        self.schedule = schedule
        self.power_t = power_t
        self.stats = stats
        self.warmup = warmup
        self.decay = decay
        self.output = output
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose


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
    beta : float, default=1e-4
        l2 weight :math:`\beta`. Values must be in the range `(0.0, inf)`.
    beta1 : float, default=1e-4
        l1 weight :math:`\beta_1`. Values must be in the range `[0.0, inf)`.
    eta0 : float or "auto", default="auto"
        See :class:`SPAML2Classifier`.
    schedule : {"inv_sqrt", "theory_poly", "theory_1_over_t"}, default="inv_sqrt"
        See :class:`SPAML2Classifier`.
    power_t : float, default=0.5
        See :class:`SPAML2Classifier`.
    stats : {"train", "online", "warmup"}, default="train"
        See :class:`SPAML2Classifier`.
    warmup : float or int, default=0.1
        See :class:`SPAML2Classifier`.
    decay : float in [0, 1), default=0.0
        See :class:`SPAML2Classifier`.
    output : {"average", "last"}, default="average"
        See :class:`SPAML2Classifier`.
    max_iter : int, default=10
        See :class:`SPAML2Classifier`.
    shuffle : bool, default=True
        Reshuffle the samples before each pass of ``fit``.
    random_state : int, RandomState instance or None, default=None
        Seed of the sample order.
    warm_start : bool, default=False
        Start ``fit`` from the previous last iterate.
    verbose : int, default=0
        Log one line per pass.

    Attributes
    ----------
    eta0_ : float or None
        The eta0 used: the number given, or the one ``"auto"`` calibrated;
        None while ``partial_fit`` waits for a chunk with a usable scale.
    coef_, intercept_, classes_, n_features_in_, n_iter_, t_
        See :class:`SPAML2Classifier`.

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
    >>> from aucopt.datasets import make_auc_problem
    >>> from aucopt.linear_model import SPAMNetClassifier
    >>> X, y = make_auc_problem(500, 10, separation=2.0, random_state=0)
    >>> clf = SPAMNetClassifier(beta1=1e-3, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _algorithm = "spam-net"
    _parameter_constraints = {
        **_SPAM_CONSTRAINTS,
        "beta1": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        beta=1e-4,
        beta1=1e-4,
        eta0="auto",
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
    ):
        super().__init__(
            beta=beta, eta0=eta0, schedule=schedule, power_t=power_t, stats=stats,
            warmup=warmup, decay=decay, output=output, max_iter=max_iter, shuffle=shuffle,
            random_state=random_state, warm_start=warm_start, verbose=verbose,
        )
        self.beta1 = beta1
