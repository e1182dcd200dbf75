"""Batch pairwise baselines: B-LS-SVM (exact), B-SVM-OR and SVM-perf (cutting plane).

The batch baselines of Gao et al. 2013, Section 6.1 and Natole 2020, Algorithms 13-15;
closed forms in notes.md#closed-forms. All three are batch solvers (``streaming=False``,
``epochs_by_base=False``): ``run`` does the whole solve on the data given to ``fit``.
None of them enumerates the n+ n- pairs.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._kernels._checks import DIVERGED, OK
from .._kernels._state import F64, I64, D, zeros
from ._batch import (
    BATCH,
    GCV_MAX_FEATURES,
    ORDER_FREE,
    ORDER_FREE_PRECONDITIONED,
    batch_common,
    best_lam,
    class_totals,
    effective_size,
    gcv_lam,
    gcv_path,
    lam_by_spread,
    max_memory_gb,
    spread_lam,
    spread_rule,
    unit_scale,
)
from ._cutting_plane import as_matrix, cutting_plane
from ._data import row_sqnorms
from ._params import POSITIVE, KernelScalars, Param, precondition
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._time_budget import deadline_of

__all__ = [
    "LAMS",
    "LS_SVM_PARAMS",
    "SVM_OR_PARAMS",
    "SVM_PERF_PARAMS",
    "BatchPairwiseState",
    "BatchPairwiseHyper",
    "hyper",
    "check_gram_memory",
    "GRAM_PEAK",
    "class_statistics",
    "ls_svm_solution",
    "ls_svm_from_statistics",
    "ls_svm_gcv",
    "resolve_lam",
    "ls_svm_lam",
    "upgrade_state",
    "run_cutting_plane",
    "sparse_covariance",
    "zero_minimiser",
    "B_LS_SVM",
    "B_SVM_OR",
    "SVM_PERF",
]

logger = logging.getLogger(__name__)

PAPER_D0 = (
    "W. Gao, R. Jin, S. Zhu, Z.-H. Zhou. One-pass AUC optimization. ICML 2013 "
    "(long version, section 6.1: batch baselines)."
)

# Gao et al. 2013, Section 6.1 / Gao et al. 2013, Section 6.1: batch lam in 2^[-10:10]
LAMS = tuple(2.0**k for k in range(-10, 11))

_IGNORED = dict(shuffle=ORDER_FREE,
                random_state="Unused (deterministic); kept for the common estimator API.",
                verbose="Log one line when the solve is done.")
LS_SVM_PARAMS = (
    gcv_lam("the pairwise least-squares problem (one observation per pair, sample size "
            "4 n+ n- / n)"),
    max_memory_gb("""
        Limit on the dense d x d matrices (up to five at once); above it ``fit``
        raises before allocating. CSR input is never densified (only the
        d x d statistics are dense)."""),
    *batch_common(max_iter=1,
                  max_iter_doc="Ignored (closed form); kept for the common estimator API.",
                  shuffle_default=False, warm_start="Ignored (closed form).", **_IGNORED),
)
_CUTS = batch_common(max_iter=1000, max_iter_doc="Maximum number of cutting planes (QP solves).",
                     shuffle_default=False, warm_start="Take the first cut at the previous "
                     "solution instead of at zero.",
                     **{**_IGNORED, "shuffle": ORDER_FREE_PRECONDITIONED})
# lam="auto" = factor * E||x_i - x_j||^2 / n_eff (notes.md#spread-lam), the factor measured on
# the robustness suite; SVM-perf's problem is SVM-OR's with lam/4, hence 4 times the factor.
# B-LS-SVM uses it above GCV_MAX_FEATURES only (its GCV choices were 1.5 to 6.6 times the
# spread over n_eff on the suite).
LS_SPREAD = 2.0
SVM_OR_SPREAD = 4.0
SVM_PERF_SPREAD = 4.0 * SVM_OR_SPREAD
SVM_OR_PARAMS = (
    spread_lam(SVM_OR_SPREAD),
    Param("tol", 1e-4, (POSITIVE,), "float", r"""
        Stop when the certified duality gap :math:`P(w) - D(\alpha)` is at most
        ``tol``; the returned :math:`w` is then within ``tol`` of the optimal
        objective (absolute, and relative to :math:`P(0) = 1`).""", kernel=float),
    *_CUTS,
)
SVM_PERF_PARAMS = (
    spread_lam(SVM_PERF_SPREAD, r"Regularisation :math:`\lambda = 1/C` of the structural SVM."),
    SVM_OR_PARAMS[1].replace(default=1e-3, doc=r"""
        :math:`\varepsilon`: stop when the most violated constraint exceeds
        :math:`\xi` by at most ``tol``, i.e. when the certified duality gap is at
        most ``tol`` (svm_perf's default ``-e 0.1`` in percent)."""),
    *_CUTS,
)

# The solvers' scalars (no kernel: NumPy/SciPy run the solves; lam is read by the specs,
# B-LS-SVM has no tol).
hyper = KernelScalars("BatchPairwiseHyper", __name__, SVM_OR_PARAMS)
BatchPairwiseHyper = hyper.type


class BatchPairwiseState(NamedTuple):
    """The state of the three batch solvers."""

    w: F64[D]  # scoring vector
    n_iter: I64[1]  # solves (1) or cutting planes of the last fit
    gap: F64[1]  # certified duality gap reached by the cutting-plane method (0 for B-LS-SVM)
    lam: F64[1]  # l2 weight of the last solve (lam, or the value "auto" chose)


# dense d x d matrices alive at once in a closed-form fit of b-ls-svm or uni-squ-batch: the
# two class covariances, their sum, the system, and lam="auto"'s eigendecomposition
# (tracemalloc, d = 1000, 600 rows, dense and CSR: peaks of 5.05 matrices with lam="auto",
# 3.0-4.1 with a number; counting three let fits run to 1.5-1.8x max_memory_gb)
GRAM_PEAK = 5


def check_gram_memory(d: int, params: dict, n_matrices: int, name: str, alternative: str):
    """Raise ValueError if ``n_matrices`` dense d x d float64 arrays exceed ``max_memory_gb``."""
    need = n_matrices * d * d * 8 / 1e9
    limit = float(params["max_memory_gb"])
    if need > limit:
        raise ValueError(
            f"{name} forms {n_matrices} dense {d} x {d} matrices ({need:.3g} GB), more than "
            f"max_memory_gb={limit:g}. Use {alternative}, reduce the dimension first, or "
            "raise max_memory_gb if the memory is really available."
        )


def class_statistics(X, y):
    """Return ``(c+, c-, S+, S-)``: weighted class means and covariances (d x d).

    ``y`` holds the signed weights ``±w_i`` (notes.md#sample-weights): each class's
    mean and covariance are weighted by ``w_i / sum_class w`` (1/n_class for unit
    weights), so an integer weight ``k`` gives the statistics of ``k`` copies. Dense
    input is centred per class; CSR input uses ``X_c^T W_c X_c / W - c c^T`` from
    sparse products, so X is never densified (only the d x d results are dense), but for
    the columns whose mean that difference would cancel (:func:`_recentre`).
    """
    stats = []
    for mask in (y > 0, y < 0):
        Xc = X[mask]
        v = np.abs(y[mask])
        total = v.sum()
        if sp.issparse(Xc):
            weighted = sp.diags(v) @ Xc
            mean = np.asarray(weighted.sum(axis=0)).ravel() / total
            cov = sparse_covariance(Xc, v, weighted, mean, total)
        else:
            mean = (Xc * v[:, None]).sum(axis=0) / total
            centred = Xc - mean
            cov = (centred * v[:, None]).T @ centred / total
        stats.append((mean, cov))
    (c_pos, s_pos), (c_neg, s_neg) = stats
    return c_pos, c_neg, s_pos, s_neg


# a CSR column whose variance is below this share of its mean square (a mean of 100 times
# its spread or more) loses over four digits to the cancellation of gram - mean mean^T
CANCELLED = 1e-4


def sparse_covariance(Xc, v, weighted, mean, total) -> np.ndarray:
    """Return the weighted covariance ``X'WX/W - cc^T`` of CSR rows ``Xc`` (weights ``v``,
    ``weighted = diag(v) Xc``, their mean ``c``, total weight ``W``), in O(nnz) from sparse
    products, the columns where that difference cancels formed again (:func:`_recentre`)."""
    gram = (Xc.T @ weighted).toarray() / total
    cov = gram - np.outer(mean, mean)
    _recentre(cov, gram, mean, Xc, v, weighted, total)
    return cov


def _recentre(cov, gram, mean, Xc, v, weighted, total) -> None:
    """Form again, in place, the rows and columns of ``cov`` of the CSR columns ``J`` whose
    ``gram - mean mean^T`` cancels (variance below ``CANCELLED`` times the mean square: a
    large offset), from those columns centred explicitly (dense, O(n k) for k of them):
    ``E[x (x_J - c_J)] - c r^T`` against every column (O(nnz k)) and
    ``E[(x_J - c_J)(x_J - c_J)^T] - r r^T`` among them, ``r = E[x_J - c_J]`` the rounding
    left in the mean, so that no offset of ``x`` or ``x_J`` multiplies it (weights ``v``,
    ``weighted = diag(v) Xc``)."""
    cols = np.flatnonzero(np.diag(cov) <= CANCELLED * np.diag(gram))
    cols = cols[np.diag(gram)[cols] > 0]
    if cols.size == 0:
        return
    centred = Xc[:, cols].toarray() - mean[cols]
    rest = v @ centred / total
    across = np.asarray(weighted.T @ centred) / total - np.outer(mean, rest)
    cov[:, cols] = across
    cov[cols, :] = across.T
    cov[np.ix_(cols, cols)] = (centred * v[:, None]).T @ centred / total - np.outer(rest, rest)


def ls_svm_solution(X, y, lam):
    """Exact minimiser of notes.md#square-loss: ``w = (lam I + S+ + S- + mu mu^T)^-1 mu``,
    ``mu = c+ - c-``."""
    return ls_svm_from_statistics(*class_statistics(X, y), lam)


def ls_svm_from_statistics(c_pos, c_neg, s_pos, s_neg, lam):
    """Return ``(lam I + S+ + S- + mu mu^T)^-1 mu`` from the class means and covariances.

    The pairwise square loss depends on the data only through these statistics
    (Gao et al., ICML 2013, Eqs. 2-4), which is what lets them be computed in
    pieces and merged (:mod:`aucopt.distributed`). ``s_pos`` is overwritten.
    """
    mu = c_pos - c_neg
    system = s_pos
    system += s_neg
    system += np.outer(mu, mu)
    system[np.diag_indices_from(system)] += lam
    return scipy.linalg.solve(system, mu, assume_a="pos", overwrite_a=True)


def ls_svm_gcv(c_pos, c_neg, s_pos, s_neg, w_pos, w_neg):
    """Return ``(lams, values)``: GCV of B-LS-SVM's pairwise least-squares problem.

    The objective is ``(1/2) [E_pairs (1 - w.(x_i - x_j))^2 + lam ||w||^2]`` (pairs
    weighted by ``v_i v_j``), a ridge problem with ``G = S+ + S- + mu mu^T``,
    ``h = mu`` and ``t = lam`` (:func:`~aucopt.algorithms._batch.gcv_path`), no
    intercept; the sample size is :func:`~aucopt.algorithms._batch.effective_size`
    of the class weight sums ``w_pos, w_neg`` (the pairs are not independent).
    """
    mu = c_pos - c_neg
    return gcv_path(s_pos + s_neg + np.outer(mu, mu), mu, 0.0, effective_size(w_pos, w_neg))


def resolve_lam(lam, gcv, stats, totals, spread_factor: float) -> float:
    """Return ``lam`` as a number; for ``"auto"``, the GCV choice of ``gcv(*stats, *totals)``.

    ``stats`` are the class statistics ``(c+, c-, S+, S-)`` (not modified), ``totals``
    the class weight sums ``(W+, W-)``. Above ``GCV_MAX_FEATURES`` features ``"auto"`` is
    ``spread_factor`` times the pairs' mean squared distance ``tr(S+ + S- + mu mu^T)``
    over the sample size (:func:`~aucopt.algorithms._batch.spread_rule`).
    """
    if not (isinstance(lam, str) and lam == "auto"):
        return float(lam)
    c_pos, c_neg, s_pos, s_neg = stats
    if len(c_pos) > GCV_MAX_FEATURES:
        mu = c_pos - c_neg
        return spread_rule(float(np.trace(s_pos) + np.trace(s_neg) + mu @ mu), totals,
                           spread_factor)
    return best_lam(*gcv(*stats, *totals))


def ls_svm_lam(lam, stats, totals) -> float:
    """B-LS-SVM's ``lam`` as a number (:func:`resolve_lam` with :func:`ls_svm_gcv`)."""
    return resolve_lam(lam, ls_svm_gcv, stats, totals, LS_SPREAD)


# ------------------------------------------------------------------------ states
def _init_state(n_features, n_samples, params, rng=None):
    return zeros(BatchPairwiseState, n_features)


def _init_ls_state(n_features, n_samples, params, rng=None):
    check_gram_memory(n_features, params, GRAM_PEAK, "b-ls-svm",
                      "'b-svm-or' or 'uni-squ-batch' (O(nnz) memory)")
    return _init_state(n_features, n_samples, params, rng)


def coef(state, params) -> np.ndarray:
    """Return the scoring vector ``w``."""
    return state["w"]


def upgrade_state(state: dict) -> None:
    """Give files saved before ``lam_`` existed a ``lam`` entry of 0 (``lam_`` then reads
    the parameter, a number in those versions)."""
    state.setdefault("lam", np.zeros(1))


def run_ls_svm(state, rows: RowData, y, order, params, t, learn, rng=None):
    """B-LS-SVM: the closed form on the data given (``order`` and ``max_iter`` unused)."""
    totals = class_totals(y)  # "auto" counts integer weights as duplicated rows
    stats = class_statistics(as_matrix(rows), unit_scale(y))
    lam = ls_svm_lam(params["lam"], stats, totals)
    state["w"][:] = ls_svm_from_statistics(*stats, lam)
    state["lam"][0] = lam
    state["n_iter"][0] = 1
    return t + 1, OK


# lam below this times the largest squared row norm makes the working-set QP numerically
# singular: the solver then ran all max_iter rounds (42 s at 1e-12 on 300 x 10 rows against
# 0.4 s at 1e-9) without improving the model. A user's lam below it is refused (a number the
# user gives is never changed); an "auto" value below it is raised to it (logged, lam_).
LAM_FLOOR = 1e-10


def run_cutting_plane(state, rows, params, y, t, kappa, spread, cut=None):
    """The cutting-plane solve into ``state`` (``cut``: another risk's oracle, see
    :func:`aucopt.algorithms._cutting_plane.cutting_plane`)."""
    X = as_matrix(rows)
    lam = lam_by_spread(params["lam"], X, y, spread)
    y = unit_scale(y)  # after "auto", which counts integer weights as duplicated rows
    floor = LAM_FLOOR * max(float(row_sqnorms(X).max(initial=0.0)), 1e-300)
    if lam < floor:
        if not isinstance(params["lam"], str):
            raise ValueError(
                f"lam={lam:g} is below {LAM_FLOOR:g} x the largest squared row norm of X "
                f"(that is, below {floor:.3g}), where the cutting-plane QP is numerically "
                "singular and every max_iter round would run without improving the model. "
                f"Pass lam >= {floor:.3g}, or lam='auto'.")
        logger.warning("lam='auto' gave %g, below %g x the largest squared row norm, where "
                       "the cutting-plane QP is numerically singular; using lam=%g (lam_).",
                       lam, LAM_FLOOR, floor)
        lam = floor
    w, n_iter, gap = cutting_plane(X, y, lam, kappa=kappa, tol=float(params["tol"]),
                                   max_iter=int(params["max_iter"]), w0=state["w"],
                                   deadline=deadline_of(params), cut=cut)
    if not (np.isfinite(gap) and np.isfinite(w).all()):  # products of the rows overflowed
        return t + n_iter, DIVERGED
    state["w"][:] = w
    state["n_iter"][0] = n_iter
    state["gap"][0] = gap
    state["lam"][0] = lam
    return t + n_iter, OK


def run_svm_or(state, rows: RowData, y, order, params, t, learn, rng=None):
    """B-SVM-OR: RankSVM objective, margin 1 (``kappa = 1``)."""
    return run_cutting_plane(state, rows, params, y, t, kappa=1.0, spread=SVM_OR_SPREAD)


def run_svm_perf(state, rows: RowData, y, order, params, t, learn, rng=None):
    """SVM-perf ROCArea: Joachims (2005) joint feature map (``kappa = 2``)."""
    return run_cutting_plane(state, rows, params, y, t, kappa=2.0, spread=SVM_PERF_SPREAD)


_COMMON = dict(
    family="batch_pairwise",
    weights="statistics",
    paper=PAPER_D0,
    coef=coef,
    state=(BatchPairwiseState,),
    upgrade_state=upgrade_state,
    step_param=None,
    equivalence_params={},
    grid={"lam": LAMS},
    **BATCH,
)

B_LS_SVM = register(AlgorithmSpec(
    id="b-ls-svm",
    name="B-LS-SVM",
    params=LS_SVM_PARAMS,
    source="Gao et al., ICML 2013 (batch baseline)",
    memory="O(d^2) (class covariances; refused above max_memory_gb) + data",
    cost="O(nnz d + d^3) once (O(n d^2 + d^3) dense); no pair enumeration",
    init_state=_init_ls_state,
    run=run_ls_svm,
    warm_keys=(),
    quick_grid={"lam": ("auto", 1e-5, 1e-3, 1e-1)},
    notes="Exact minimiser (lam I + S+ + S- + mu mu^T)^-1 mu of the pairwise square loss "
    "(notes.md#square-loss, 7.3). Paper grid (Gao et al. 2013, Section 6.1): lam in 2^[-10:10], "
    "5-fold CV; the batch "
    "baselines were trained on at most 8,000 examples. Default lam=\"auto\": generalised "
    "cross-validation of the pairwise least squares (notes.md#gcv-lam).",
    **_COMMON,
))

_CP_NOTES = (" Solved by the 1-slack cutting-plane method with an O(n log n) most violated "
             "constraint (no pair enumeration); stops at a certified duality gap <= tol. "
             "Default lam=\"auto\": a multiple of the pairs' mean squared distance over the "
             "sample size (notes.md#spread-lam).")


def zero_minimiser(state: dict, params: dict) -> bool:
    """Whether a cutting-plane fit certified ``w = 0`` as the objective's minimiser to
    within ``tol`` (it returned the zero start with a duality gap of at most ``tol``)."""
    return not state["w"].any() and float(state["gap"][0]) <= float(params["tol"])


def _hinge_zero_reason(state: dict, params: dict) -> str | None:
    """The reason of ``zero_reason`` for the full-AUC cutting-plane solvers."""
    if not zero_minimiser(state, params):
        return None
    return (f"w = 0 minimises the objective to within tol={float(params['tol']):g} "
            "(certified by the duality gap): at a constant score the pairwise hinge sees "
            "only the difference of the class means, which gains less here than the penalty "
            f"at lam_={float(state['lam'][0]):.3g} costs; lower lam (no lam helps where the "
            "means are equal).")


_CUTTING_PLANE = dict(
    zero_reason=_hinge_zero_reason,
    memory="O(k d) (k cutting planes) + data",
    cost="O(nnz + n log n + k d) per cut, k cuts (k ~ O(1/(lam tol)) worst case)",
    init_state=_init_state,
    warm_keys=("w",),
    **_COMMON,
)

B_SVM_OR = register(AlgorithmSpec(
    id="b-svm-or",
    name="B-SVM-OR",
    params=(*SVM_OR_PARAMS, precondition()),
    source="Joachims, KDD 2006 (batch baseline of Gao et al., ICML 2013)",
    run=run_svm_or,
    quick_grid={"lam": ("auto", 2.0**-10, 2.0**-7, 2.0**-4)},
    notes="(lam/2)||w||^2 + mean pairwise hinge max(0, 1 - w.(x+ - x-)) (Gao et al. 2013, Section "
          "6 (batch baselines)). Paper "
    "grid (Gao et al. 2013, Section 6.1): lam in 2^[-10:10]." + _CP_NOTES,
    **_CUTTING_PLANE,
))

SVM_PERF = register(AlgorithmSpec(
    id="svm-perf",
    name="SVM-perf (ROCArea)",
    params=(*SVM_PERF_PARAMS, precondition()),
    source="Joachims, ICML 2005 (batch baseline of Gao et al., ICML 2013)",
    run=run_svm_perf,
    quick_grid={"lam": ("auto", 2.0**-8, 2.0**-5, 2.0**-2)},
    notes="Structural SVM for ROC area (Gao et al. 2013, Section 6 (batch baselines); thesis Algs. "
          "13-15): (lam/2)||w||^2 + xi "
    "with the loss and joint feature map normalised by n+ n- (lam = 1/C). Equals b-svm-or "
    "with lam/4 and w/2. Paper grid (Gao et al. 2013, Section 6.1): lam in 2^[-10:10]." + _CP_NOTES,
    **_CUTTING_PLANE,
))
