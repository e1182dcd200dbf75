"""Batch class-balanced univariate baselines: Uni-Log (L-BFGS) and Uni-Squ (exact).

Kotlowski, Dembczynski, Huellermeier, ICML 2011, as compared in Gao et al. 2013,
Section 6.1. Both minimise, over ``w`` and an unpenalised intercept ``b``,

    (lam/2) ||w||^2 + (1/n+) sum_{y_i=+1} l(w.x_i + b) + (1/n-) sum_{y_i=-1} l(-(w.x_i + b))

with ``l(m) = log(1 + exp(-m))`` (``uni-log-batch``) or ``(1 - m)^2`` (``uni-squ-batch``):
each class carries total weight 1 (the "balanced" univariate loss of Kotlowski et al.).
``uni-log-batch`` with ``class_weight=None`` weighs every row by ``2/n`` instead (plain l2
logistic regression, the same total weight 2): the logistic loss is strongly proper
composite, so it is an AUC-consistent surrogate without balancing (Agarwal, JMLR 2014).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse.linalg
from scipy.special import expit

from .._kernels._checks import OK
from .._kernels._state import F64, I64, D, zeros
from ..utils._param_validation import Options
from ._batch import (
    ORDER_FREE,
    ORDER_FREE_PRECONDITIONED,
    class_totals,
    effective_size,
    gcv_lam,
    gcv_path,
    lam_by_spread,
    pair_spread,
    spread_lam,
    unit_scale,
)
from ._cutting_plane import as_matrix
from ._params import POSITIVE, KernelScalars, Param, common, precondition
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._time_budget import deadline_of
from .batch_pairwise import (
    GRAM_PEAK,
    LAMS,
    check_gram_memory,
    class_statistics,
    resolve_lam,
    upgrade_state,
)

__all__ = [
    "LOG_PARAMS",
    "SQU_PARAMS",
    "UniBatchState",
    "hyper",
    "class_weights",
    "row_weights",
    "uni_log_lam",
    "balanced_logistic",
    "uni_squ_solution",
    "uni_squ_from_statistics",
    "uni_squ_gcv",
    "uni_squ_lam",
    "UNI_LOG_BATCH",
    "UNI_SQU_BATCH",
]

PAPER = (
    "W. Kotlowski, K. Dembczynski, E. Huellermeier. Bipartite ranking through "
    "minimization of univariate loss. ICML 2011; compared in W. Gao, R. Jin, S. Zhu, "
    "Z.-H. Zhou, One-pass AUC optimization, ICML 2013 (long version, section 6.1)."
)


def class_weights(y: np.ndarray) -> np.ndarray:
    """Return the balanced weights ``v_i / W+`` (positives) and ``v_i / W-`` (negatives).

    ``y`` holds the signed sample weights ``±v_i`` (notes.md#sample-weights); ``W+-`` are
    their class sums, so each class has total weight 1 (``1/n+-`` for unit weights).
    """
    pos = y > 0
    v = np.abs(y)
    return np.where(pos, v / v[pos].sum(), v / v[~pos].sum())


def row_weights(y: np.ndarray, class_weight) -> np.ndarray:
    """Return the weights ``a_i`` of the logistic terms: balanced, or ``2 v_i / W`` (None).

    Both sum to 2, so that with classes of equal weight they coincide and ``lam`` means
    the same; ``W`` is the sum of the sample weights ``v_i = |y_i|``.
    """
    if class_weight == "balanced":
        return class_weights(y)
    v = np.abs(y)
    return 2.0 * v / v.sum()


def balanced_logistic(wb, X, y, a, lam):
    """Return the objective and gradient of weighted l2 logistic regression at ``(w, b)``.

    ``sum_i a_i log(1 + exp(-s_i (w.x_i + b))) + (lam/2) ||w||^2`` with ``s_i`` the sign
    of ``y_i``; balanced for ``a`` = :func:`class_weights`.

    Parameters
    ----------
    wb : ndarray of shape (d + 1,)
        ``w`` followed by the intercept ``b`` (not penalised).
    X : ndarray or CSR matrix of shape (n, d)
    y : ndarray of shape (n,)
        Signed sample weights ``±v_i``; only the sign (the class) is read here.
    a : ndarray of shape (n,)
        Row weights (:func:`row_weights`).
    lam : float
        l2 weight.

    Returns
    -------
    value : float
    grad : ndarray of shape (d + 1,)
    """
    w, b = wb[:-1], wb[-1]
    sign = np.sign(y)
    margins = sign * (np.asarray(X @ w).ravel() + b)
    value = a @ np.logaddexp(0.0, -margins) + 0.5 * lam * (w @ w)
    coeff = -a * sign * expit(-margins)
    grad = np.empty_like(wb)
    grad[:-1] = np.asarray(X.T @ coeff).ravel() + lam * w
    grad[-1] = coeff.sum()
    return value, grad


def uni_squ_solution(X, y, lam):
    """Exact balanced square-loss solution ``(w, b)`` from its normal equations.

    Eliminating ``b`` gives ``b = -w.(c+ + c-)/2`` and
    ``(lam I + 2 (S+ + S-) + mu mu^T) w = 2 mu`` with ``mu = c+ - c-`` (1/n_class
    covariances), so the direction equals B-LS-SVM's with ``lam/2`` (notes.md#square-loss).
    """
    return uni_squ_from_statistics(*class_statistics(X, y), lam)


def uni_squ_from_statistics(c_pos, c_neg, s_pos, s_neg, lam):
    """Return the balanced square-loss ``(w, b)`` from class means and 1/n_class covariances.

    The normal equations of :func:`uni_squ_solution` depend on the data only
    through these statistics, so they can be computed in pieces and merged.
    """
    mu = c_pos - c_neg
    system = 2.0 * (s_pos + s_neg)
    system += np.outer(mu, mu)
    system[np.diag_indices_from(system)] += lam
    w = scipy.linalg.solve(system, 2.0 * mu, assume_a="pos", overwrite_a=True)
    return w, -0.5 * w @ (c_pos + c_neg)


def uni_squ_gcv(c_pos, c_neg, s_pos, s_neg, w_pos, w_neg):
    """Return ``(lams, values)``: GCV of the balanced square loss over the rows.

    With the balanced weights halved (``a_i / 2``, summing to 1) the objective is
    ``2 [E_a (y_i - w.x_i - b)^2 + (lam/4) ||w||^2]``; eliminating ``b`` centres the
    rows at ``(c+ + c-)/2``, which gives the ridge problem of
    :func:`~aucopt.algorithms._batch.gcv_path` with ``G = (S+ + S- + mu mu^T/2)/2``,
    ``h = mu/2``, ``t = lam/4`` and one degree of freedom for ``b``; the sample size
    is :func:`~aucopt.algorithms._batch.effective_size` of the class weight sums.
    """
    mu = c_pos - c_neg
    G = 0.5 * (s_pos + s_neg + 0.5 * np.outer(mu, mu))
    t, values = gcv_path(G, 0.5 * mu, 1.0, effective_size(w_pos, w_neg))
    return 4.0 * t, values


def uni_squ_lam(lam, stats, totals) -> float:
    """Uni-Squ's ``lam`` as a number (:func:`~.batch_pairwise.resolve_lam`, :func:`uni_squ_gcv`)."""
    return resolve_lam(lam, uni_squ_gcv, stats, totals, SQU_SPREAD)


def uni_log_lam(lam, X, y, class_weight) -> float:
    """Uni-Log's ``lam`` as a number: ``"auto"`` is a spread rule (notes.md#spread-lam).

    Balanced: ``LOG_SPREAD * E||x_i - x_j||^2 / n_eff``; None: ``PLAIN_SPREAD *
    E||x_i - x_j||^2 / W`` with ``W`` the total weight, the sample size of the
    unweighted problem. ``y`` holds the signed sample weights before any rescaling.
    """
    if class_weight == "balanced" or not (isinstance(lam, str) and lam == "auto"):
        return lam_by_spread(lam, X, y, LOG_SPREAD)
    spread = pair_spread(X, y)
    return PLAIN_SPREAD * (spread if spread > 0 else 1.0) / float(np.abs(y).sum())


class _OutOfTime(Exception):
    """Raised by a solver's callback when ``max_time`` is spent (carries the iterate)."""


def _uni_squ_cg(X, y, lam, tol, max_iter, w0, deadline=None):
    """Same solution by conjugate gradients on ``w`` (O(nnz) per step, no d x d matrix)."""
    a = class_weights(y)
    centre = np.asarray(X.T @ (0.5 * a)).ravel()       # (c+ + c-)/2
    rhs = 2.0 * np.asarray(X.T @ (a * np.sign(y))).ravel()  # 2 mu (sum_i a_i sign_i = 0)

    def matvec(v):
        u = a * (np.asarray(X @ v).ravel() - centre @ v)
        return lam * v + 2.0 * (np.asarray(X.T @ u).ravel() - centre * u.sum())

    d = X.shape[1]
    op = scipy.sparse.linalg.LinearOperator((d, d), matvec=matvec, dtype=np.float64)
    count = [0]

    def callback(w):
        count[0] += 1
        if deadline is not None and deadline.passed():
            raise _OutOfTime(w.copy())

    try:
        w, _ = scipy.sparse.linalg.cg(op, rhs, x0=w0, rtol=tol, atol=0.0, maxiter=max_iter,
                                      callback=callback)
    except _OutOfTime as stop:
        w = stop.args[0]
    return w, -w @ centre, count[0]


# ------------------------------------------------------------------------ specs
def _solver_params(max_iter_doc: str, warm_start_doc: str,
                   preconditioned: bool) -> tuple[Param, ...]:
    """The shared parameters of a deterministic solver run to convergence."""
    max_iter, shuffle, random_state, warm_start, verbose, max_time = common(
        max_iter=1000, max_iter_doc=max_iter_doc, warm_start=warm_start_doc)
    return (
        max_iter,
        shuffle.replace(default=False,
                        doc=ORDER_FREE_PRECONDITIONED if preconditioned else ORDER_FREE),
        random_state.replace(doc="Unused (deterministic); kept for the common estimator API."),
        warm_start,
        verbose.replace(doc="Log one line when the solve is done."),
        max_time,
    )


# lam="auto" of uni-log-batch: this factor * E||x_i - x_j||^2 / n_eff (notes.md#spread-lam),
# measured on the robustness suite
LOG_SPREAD = 2.0
# lam="auto" of uni-squ-batch above GCV_MAX_FEATURES and on the conjugate-gradient path: the
# data-size rule with this factor (its GCV choices were 2.8 to 17 times the spread over n_eff
# on the robustness suite)
SQU_SPREAD = 4.0
# lam="auto" of uni-log-batch with class_weight=None: this factor * E||x_i - x_j||^2 / W
# (W the total sample weight, n for unit weights), measured on the robustness suite, the
# mirrored datasets and the imbalanced synthetic cases of the peers benchmark (factor 2
# lost 0.006-0.008 AUC at 1% and 0.1% positives, 0.3 lost 0.006 on the few-rows case)
PLAIN_SPREAD = 1.0
CLASS_WEIGHT = Param("class_weight", "balanced", (Options(str, {"balanced", "none"}), None),
                     '"balanced", "none" or None', r"""
    ``"balanced"`` (default): each class has total weight 1, the balanced univariate loss
    of Kotlowski et al. (ICML 2011). None: each row weighs :math:`2 v_i / W` (its sample
    weight over the total), i.e. plain l2 logistic regression, an AUC-consistent surrogate
    too (strongly proper composite loss, Agarwal, JMLR 2014); with ``precondition=None``
    equal to ``sklearn.linear_model.LogisticRegression(C=2 / (lam * W))``. ``lam="auto"`` is
    then :math:`E\|x_i - x_j\|^2 / W`, with the total weight :math:`W` (``n`` for unit
    weights) as the sample size (notes.md#spread-lam). ``"none"`` (e.g. in a TOML config)
    is None.""")
LOG_PARAMS = (
    spread_lam(LOG_SPREAD),
    Param("tol", 1e-6, (POSITIVE,), "float", r"""
        Stop when the largest gradient component (including :math:`b`) is at
        most ``tol`` (L-BFGS-B ``gtol``), or earlier only if the objective stops
        decreasing in floating point (reached near 1e-9 on german.numer).""", kernel=float),
    *_solver_params("Maximum number of L-BFGS iterations.",
                    r"Start from the previous :math:`(w, b)`.", preconditioned=True),
)
SQU_PARAMS = (
    gcv_lam("""the balanced least-squares problem over the rows (sample size
        4 n+ n- / n); the same data-size rule also with the conjugate-gradient solver
        (above ``max_memory_gb``)"""),
    LOG_PARAMS[1].replace(default=1e-8, doc="""
        Relative residual of the conjugate-gradient solver, used only when the
        d x d normal equations exceed ``max_memory_gb``."""),
    Param("max_memory_gb", 2.0, (POSITIVE,), "float", """
        Above this size of three dense d x d matrices the normal equations
        are solved by conjugate gradients (O(nnz) per step, no d x d matrix)
        instead of a Cholesky factorisation."""),
    *_solver_params("Maximum number of conjugate-gradient steps (unused by the Cholesky solve).",
                    r"Start conjugate gradients from the previous :math:`w`.",
                    preconditioned=False),
)

# The solvers' scalars (no kernel: scipy runs the solve; lam is read by the specs)
hyper = KernelScalars("UniBatchHyper", __name__, SQU_PARAMS)
UniBatchHyper = hyper.type


class UniBatchState(NamedTuple):
    """The state of the batch univariate baselines."""

    w: F64[D]  # scoring vector
    bias: F64[1]  # the unpenalised intercept b
    n_iter: I64[1]  # iterations of the last solve (1 for the Cholesky solve)
    lam: F64[1]  # l2 weight of the last solve (lam, or the value "auto" chose)


def _init_state(n_features, n_samples, params, rng=None):
    return zeros(UniBatchState, n_features)


def coef(state, params) -> np.ndarray:
    """Return the scoring vector ``w``."""
    return state["w"]


def run_uni_log(state, rows: RowData, y, order, params, t, learn, rng=None):
    """Balanced logistic regression by L-BFGS-B, from the current ``(w, b)``."""
    X = as_matrix(rows)
    hp = hyper(params)
    x0 = np.append(state["w"], state["bias"])
    lam = uni_log_lam(params["lam"], X, y, params["class_weight"])
    y = unit_scale(y)  # after "auto", which counts integer weights as duplicated rows
    deadline = deadline_of(params)

    def out_of_time(intermediate_result):  # scipy stops the solver on StopIteration
        if deadline.passed():
            raise StopIteration

    result = scipy.optimize.minimize(
        balanced_logistic, x0, args=(X, y, row_weights(y, params["class_weight"]), lam),
        jac=True, method="L-BFGS-B", callback=out_of_time if deadline.end else None,
        options={"maxiter": int(params["max_iter"]), "gtol": hp.tol,
                 "ftol": 0.0, "maxcor": 20},
    )
    state["w"][:] = result.x[:-1]
    state["bias"][0] = result.x[-1]
    state["n_iter"][0] = result.nit
    state["lam"][0] = lam
    return t + int(result.nit), OK


def run_uni_squ(state, rows: RowData, y, order, params, t, learn, rng=None):
    """Balanced square loss: Cholesky of the normal equations, or CG if d x d is too big."""
    X = as_matrix(rows)
    hp = hyper(params)
    try:
        check_gram_memory(rows.n_features, params, GRAM_PEAK, "uni-squ-batch", "")
    except ValueError:
        lam = lam_by_spread(params["lam"], X, y, SQU_SPREAD)
        w, b, n_iter = _uni_squ_cg(X, unit_scale(y), lam, hp.tol, int(params["max_iter"]),
                                   state["w"], deadline_of(params))
    else:
        stats = class_statistics(X, unit_scale(y))
        lam = uni_squ_lam(params["lam"], stats, class_totals(y))
        (w, b), n_iter = uni_squ_from_statistics(*stats, lam), 1
    state["w"][:] = w
    state["bias"][0] = b
    state["n_iter"][0] = n_iter
    state["lam"][0] = lam
    return t + n_iter, OK


_COMMON = dict(
    family="batch_univariate",
    weights="statistics",
    paper=PAPER,
    source="Kotlowski et al., ICML 2011 (batch baseline of Gao et al., ICML 2013)",
    streaming=False,
    sparse=True,
    coef=coef,
    state=(UniBatchState,),
    upgrade_state=upgrade_state,
    step_param=None,
    warm_keys=("w", "bias"),
    equivalence_params={},
    epochs_by_base=False,
    grid={"lam": LAMS},
    quick_grid={"lam": ("auto", 1e-4, 1e-2, 1.0)},
)
_NOTES = ("Class-balanced univariate loss (each class has total weight 1, Kotlowski et al. "
          "2011) with an unpenalised intercept. Paper grid (Gao et al. 2013, Section 6.1): lam in "
          "2^[-10:10], "
          "5-fold CV; the batch baselines were trained on at most 8,000 examples.")

UNI_LOG_BATCH = register(AlgorithmSpec(
    id="uni-log-batch",
    name="Uni-Log (batch)",
    memory="O(d) + data (L-BFGS history of 20 pairs)",
    cost="O(nnz) per L-BFGS iteration",
    init_state=_init_state,
    run=run_uni_log,
    params=(LOG_PARAMS[0], CLASS_WEIGHT, *LOG_PARAMS[1:], precondition()),
    notes=_NOTES + " Solved by L-BFGS-B to max |gradient| <= tol. Default lam=\"auto\": a "
    "multiple of the pairs' mean squared distance over the sample size (notes.md#spread-lam).",
    **_COMMON,
))

UNI_SQU_BATCH = register(AlgorithmSpec(
    id="uni-squ-batch",
    name="Uni-Squ (batch)",
    memory="O(d^2) for the normal equations, or O(d) + data with CG above max_memory_gb",
    cost="O(nnz d + d^3) once (Cholesky), or O(nnz) per CG step",
    init_state=_init_state,
    run=run_uni_squ,
    params=SQU_PARAMS,
    notes=_NOTES + " Exact: Cholesky solve of the normal equations; conjugate gradients "
    "(relative residual <= tol) when three d x d matrices would exceed max_memory_gb. Default "
    "lam=\"auto\": generalised cross-validation over the rows (notes.md#gcv-lam).",
    **_COMMON,
))
