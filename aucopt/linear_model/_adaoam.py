"""AdaOAM estimator (Natole 2020, Algorithm 9)."""

from __future__ import annotations

from numbers import Real

from ..utils._param_validation import Interval, Options
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
    eta : float or "auto", default="auto"
        Step size :math:`\eta` (AdaGrad moves each coordinate by about :math:`\eta/\sqrt{t}`).
        ``"auto"`` calibrates it on the training data (a short run per step of a geometric ladder,
        the lowest objective wins; :mod:`aucopt.algorithms._calibrate`) and stores the value used in
        ``eta_``.
    lam : float, default=1e-4
        l2 weight :math:`\lambda`; the radius of the ball is
        :math:`1/\sqrt\lambda`. Values must be in the range `(0.0, inf)`.
    delta : float, default=1e-8
        Smoothing :math:`\delta \ge 0` of :math:`H_t`.
    max_memory_gb : float, default=2.0
        Refuse (ValueError, before allocating) when the two d x d
        covariances need more than this many GB.
    max_iter : int, default=1
        Passes over the data in ``fit`` (later passes take steps only).
    shuffle : bool, default=True
        Shuffle the samples before each pass of ``fit``.
    random_state : int, RandomState instance or None, default=None
        Seed of the sample order.
    warm_start : bool, default=False
        Start ``fit`` from the previous last iterate (statistics and
        :math:`G` restart).
    verbose : int, default=0
        Log one line per pass.

    Attributes
    ----------
    eta_ : float or None
        The eta used: the number given, or the one ``"auto"`` calibrated;
        None while ``partial_fit`` waits for a chunk with a usable scale.
    coef_ : ndarray of shape (1, n_features)
        Last iterate.
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
        Number of steps so far.

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
    covariance term is OPAUC's (one symmetric BLAS product per sample).

    References
    ----------
    .. [1] Y. Ding, P. Zhao, S. C. H. Hoi, Y.-S. Ong. "An adaptive gradient
       method for online AUC maximization." AAAI 2015.
    .. [2] M. Natole Jr. "Fast Optimization Algorithms for AUC Maximization."
       PhD thesis, SUNY Albany, 2020, Algorithm 9.

    Examples
    --------
    >>> from aucopt.datasets import make_auc_problem
    >>> from aucopt.linear_model import AdaOAMClassifier
    >>> X, y = make_auc_problem(500, 10, separation=2.0, random_state=0)
    >>> clf = AdaOAMClassifier(random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _algorithm = "adaoam"
    _parameter_constraints = {
        **BaseAUCClassifier._parameter_constraints,
        "eta": [Interval(Real, 0, None, closed="neither"), Options(str, {"auto"})],
        "lam": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, None, closed="left")],
        "max_memory_gb": [Interval(Real, 0, None, closed="neither")],
    }

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
    ):
        self.eta = eta
        self.lam = lam
        self.delta = delta
        self.max_memory_gb = max_memory_gb
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
