"""MBA: mini-batch AUC optimisation by sampled pair statistics (Natole 2020, Algorithm 16).

Sample weights (notes.md#sample-weights, signed labels ``y = ±v``): the objective
depends on the data through the pair statistics ``mu``, ``Sigma``, weighted by the
products ``v_i v_j``. ``pairs="all"`` computes them from the weighted class moments
(integer weights: the statistics of repeated rows, exactly); ``pairs="sampled"`` draws
each row of a pair with probability proportional to its weight, so a pair is drawn
with probability proportional to ``v_i v_j`` and the sampled statistics estimate the
weighted ones (repeated rows give the same law, not the same draws).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._kernels._checks import DIVERGED, OK
from .._kernels._state import zeros
from .._kernels.mba import MbaState, enet_quadratic_sweeps, times
from ..utils._param_validation import Options
from ._batch import BATCH, batch_common, lam_by_spread, max_memory_gb, spread_lam
from ._params import (
    COUNT,
    NON_NEGATIVE,
    POSITIVE,
    SHUFFLE_DRAWS,
    KernelScalars,
    Param,
    precondition,
)
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._time_budget import deadline_of
from .batch_pairwise import LS_SPREAD

__all__ = ["MBA", "PARAMS", "MbaHyper", "hyper", "pair_statistics", "all_pair_statistics",
           "solve_quadratic"]

PAPER = (
    "S. Gultekin, A. Saha, A. Ratnaparkhi, J. Paisley. MBA: Mini-batch AUC optimization. "
    "arXiv:1805.11221, 2018; M. Natole Jr., PhD thesis, SUNY Albany 2020, Alg. 16."
)

MAX_SWEEPS = 10_000  # coordinate-descent budget of the l1 solve
SWEEPS_PER_CHECK = 10  # sweeps between two looks at max_time (a sweep is O(d^2))

PARAMS = (
    Param("lam1", 0.0, (NON_NEGATIVE,), "float", r"l1 weight :math:`\lambda_1`.", kernel=float),
    spread_lam(LS_SPREAD, r"l2 weight :math:`\lambda_2` (the objective is B-LS-SVM's with "
               r"``lam = lam2`` when ``lam1 = 0``, hence its factor).", "lam2", NON_NEGATIVE),
    Param("batch_size", 1000, (COUNT,), "int",
          "Pairs per round :math:`B`."),
    Param("pairs", "sampled", (Options(str, {"sampled", "all"}),), '{"sampled", "all"}', """
        ``"all"`` uses the exact statistics of every positive-negative pair
        (computed from class moments, without enumerating pairs)."""),
    Param("tol", 1e-8, (POSITIVE,), "float", """
        Coordinate-descent tolerance when ``lam1 > 0`` (largest coordinate
        change relative to ``max(1, max |w_j|)``); with ``lam1 = 0`` the
        problem is solved by one linear solve.""", kernel=float),
    max_memory_gb(r"""
        Refuse (before allocating) when the :math:`d \times d` matrices, or the
        ``batch_size`` row differences of a round, would need more memory."""),
    *batch_common(max_iter=10, max_iter_doc="Rounds :math:`T` of pair sampling.",
                  shuffle=SHUFFLE_DRAWS,
                  random_state="Seed of the pair draws.",
                  warm_start="Start coordinate descent from the previous solution."),
)

hyper = KernelScalars("MbaHyper", __name__, PARAMS)
MbaHyper = hyper.type


def _matrix(rows: RowData):
    if rows.is_sparse:
        return sp.csr_matrix((rows.data, rows.indices, rows.indptr),
                             shape=(rows.n_samples, rows.n_features))
    return rows.data


def _dense(M) -> np.ndarray:
    return np.asarray(M.toarray() if sp.issparse(M) else M, dtype=np.float64)


def _draw(members, weights, size, rng):
    """Return ``size`` draws with replacement from ``members``, with probabilities
    proportional to ``weights`` (uniform ``rng.integers`` draws when all are 1)."""
    if (weights == 1.0).all():
        return members[rng.integers(0, members.size, size=size)]
    cumulative = np.cumsum(weights)
    picks = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
    return members[np.minimum(picks, members.size - 1)]  # u * total may round up to total


def pair_statistics(rows: RowData, y, n_pairs: int, n_rounds: int, rng, deadline=None):
    """Return the sampled U-statistics ``(mu_S, Sigma_S)`` of Algorithm 16 and the rounds.

    Each round draws ``n_pairs`` positive and ``n_pairs`` negative indices
    with replacement (positives first), with probabilities proportional to the
    sample weights (uniformly when unweighted), and pairs them in order.

    Parameters
    ----------
    rows : RowData
    y : ndarray of shape (n,)
        Signed sample weights ``±v`` (``±1`` unweighted).
    n_pairs, n_rounds : int
        Pairs per round ``B`` and rounds ``T``.
    rng : numpy.random.Generator
    deadline : Deadline, optional
        ``max_time``: checked between rounds (the first always runs); the statistics
        are those of the rounds done.

    Returns
    -------
    mu : ndarray of shape (d,)
    sigma : ndarray of shape (d, d)
    rounds : int
        Rounds done (``n_rounds`` unless the deadline passed).
    """
    X = _matrix(rows)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    mu, sigma = np.zeros(rows.n_features), np.zeros((rows.n_features, rows.n_features))
    rounds = 0
    while rounds < n_rounds and not (rounds and deadline is not None and deadline.passed()):
        i = _draw(pos, y[pos], n_pairs, rng)
        j = _draw(neg, -y[neg], n_pairs, rng)
        diff = X[i] - X[j]
        mu += np.asarray(diff.sum(axis=0)).ravel()
        sigma += _dense(diff.T @ diff)
        rounds += 1
    total = n_pairs * rounds
    return mu / total, sigma / total, rounds


def _moments(Z, weights):
    """Return the mean and the second moment ``E[x x']`` of the rows of ``Z``, weighted
    by ``weights`` (the plain ones when all are 1)."""
    if (weights == 1.0).all():
        return np.asarray(Z.mean(axis=0)).ravel(), _dense(Z.T @ Z) / Z.shape[0]
    total = float(weights.sum())
    scaled = sp.diags(weights) @ Z if sp.issparse(Z) else Z * weights[:, None]
    return np.asarray(Z.T @ weights).ravel() / total, _dense(Z.T @ scaled) / total


def all_pair_statistics(rows: RowData, y):
    """Return ``mu = m+ - m-`` and ``Sigma = E[(x+ - x-)(x+ - x-)']`` over every pair.

    A pair counts with the product of its sample weights, so the class means
    and second moments are weighted.

    Parameters
    ----------
    rows : RowData
    y : ndarray of shape (n,)
        Signed sample weights ``±v`` (``±1`` unweighted).

    Returns
    -------
    mu : ndarray of shape (d,)
    sigma : ndarray of shape (d, d)
    """
    X = _matrix(rows)
    (m_pos, s_pos), (m_neg, s_neg) = (_moments(X[members], np.abs(y[members]))
                                       for members in (y > 0, y < 0))
    cross = np.outer(m_pos, m_neg)
    return m_pos - m_neg, s_pos + s_neg - cross - cross.T


def solve_quadratic(sigma, mu, lam1, lam2, tol, w0=None, deadline=None):
    """Return ``argmin (1/2) w'Sigma w - w'mu + lam1 ||w||_1 + (lam2/2)||w||^2`` and sweeps.

    Without l1 the minimiser is the linear solve ``(Sigma + lam2 I)^-1 mu``
    (least squares when singular); otherwise coordinate descent to ``tol``.

    Parameters
    ----------
    sigma : ndarray of shape (d, d)
    mu : ndarray of shape (d,)
    lam1, lam2 : float
    tol : float
    w0 : ndarray of shape (d,), optional
        Start point of coordinate descent.
    deadline : Deadline, optional
        ``max_time``: checked every :data:`SWEEPS_PER_CHECK` sweeps (the sweeps done
        are those of one uninterrupted descent, bit for bit).

    Returns
    -------
    w : ndarray of shape (d,)
    sweeps : int
        0 for the linear solve; ``MAX_SWEEPS + 1`` if coordinate descent did
        not reach ``tol`` (within the sweep budget or ``max_time``).
    """
    d = mu.shape[0]
    if lam1 == 0.0:
        H = sigma + lam2 * np.eye(d)
        try:
            return scipy.linalg.solve(H, mu, assume_a="pos"), 0
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            return scipy.linalg.lstsq(H, mu)[0], 0
    w = np.zeros(d) if w0 is None else np.array(w0, dtype=np.float64)
    A = np.ascontiguousarray(sigma)
    r = times(A, w)  # kept up to date across the calls
    chunk = MAX_SWEEPS if deadline is None or deadline.end is None else SWEEPS_PER_CHECK
    done = 0
    while True:
        budget = min(chunk, MAX_SWEEPS - done)
        sweeps = enet_quadratic_sweeps(A, mu, lam1, lam2, w, r, tol, budget)
        if sweeps <= budget:
            return w, done + sweeps
        done += budget
        if done >= MAX_SWEEPS or deadline.passed():
            return w, MAX_SWEEPS + 1


def _check_memory(d: int, params: dict) -> None:
    need = 2.0 * d * d * 8 / 1e9
    if need > float(params["max_memory_gb"]):
        raise ValueError(
            f"MBA keeps a {d} x {d} pair covariance ({need:.3g} GB with its work copy), more "
            f"than max_memory_gb={float(params['max_memory_gb']):g}. Use an O(d) method such "
            "as 'spam-net' (elastic net, aucopt.make('spam-net')) or 'opauc-r', or raise "
            "max_memory_gb if the memory is really available."
        )


def _check_round_memory(rows: RowData, n_pairs: int, params: dict) -> None:
    """Refuse (before drawing) a round whose ``n_pairs`` row differences would need more
    than ``max_memory_gb``: the two drawn row sets and their difference, as matrices."""
    if rows.is_sparse:
        per_row = 12.0 * float(np.diff(rows.indptr).max(initial=0)) + 8.0  # value + index
    else:
        per_row = 8.0 * rows.n_features
    need = 3.0 * n_pairs * (per_row + 8.0) / 1e9  # + the drawn indices
    if need > float(params["max_memory_gb"]):
        raise ValueError(
            f"MBA draws batch_size={n_pairs} pairs per round as {n_pairs}-row matrices "
            f"({need:.3g} GB), more than max_memory_gb={float(params['max_memory_gb']):g}. "
            "Lower batch_size (and raise max_iter for as many pairs in all), or raise "
            "max_memory_gb if the memory is really available.")


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh MBA state (:class:`~aucopt._kernels.mba.MbaState`); checks the memory."""
    _check_memory(n_features, params)
    return zeros(MbaState, n_features)


def run(state, rows: RowData, y, order, params, t, learn, rng):
    """Sample the pair statistics (or take all pairs) and solve the quadratic problem."""
    hp = hyper(params)
    deadline = deadline_of(params)
    if params["pairs"] == "all":
        mu, sigma = all_pair_statistics(rows, y)
        rounds = 0
    else:
        _check_round_memory(rows, int(params["batch_size"]), params)
        mu, sigma, rounds = pair_statistics(rows, y, int(params["batch_size"]),
                                            int(params["max_iter"]), rng, deadline)
    lam2 = lam_by_spread(params["lam2"], _matrix(rows), y, LS_SPREAD)
    if not np.isfinite(lam2):  # "auto" on a spread that overflowed (extreme weights)
        raise ValueError(f"lam2={params['lam2']!r} gave {lam2!r} on these data and weights "
                         "(their spread is not finite in float64): give lam2 a number, or "
                         "rescale the features or the sample weights.")
    w, sweeps = solve_quadratic(sigma, mu, hp.lam1, lam2, hp.tol, w0=state["w"],
                                deadline=deadline)
    if not np.all(np.isfinite(w)):
        return t, DIVERGED
    state["w"][...] = w
    state["lam2"][0] = lam2
    state["sweeps"][0] = sweeps
    state["n_iter"][0] = rounds
    return t + rounds * int(params["batch_size"]), OK


def coef(state, params) -> np.ndarray:
    """Return the solution of the quadratic problem."""
    return state["w"]


def upgrade_state(state: dict) -> None:
    """Give files saved before ``lam2_`` existed a ``lam2`` entry of 0 (``lam2_`` then reads
    the parameter, a number in those versions)."""
    state.setdefault("lam2", np.zeros(1))


MBA = register(
    AlgorithmSpec(
        id="mba",
        name="MBA",
        family="mba",
        paper=PAPER,
        source="Gultekin et al. 2018 (thesis Alg. 16)",
        memory="O(d^2)",
        cost="O(B T d^2) for the sampled statistics (B pairs, T rounds), then O(d^3) "
        "(l2) or O(d^2) per coordinate-descent sweep (l1)",
        init_state=init_state,
        run=run,
        coef=coef,
        params=(*PARAMS, precondition()),
        state=(MbaState,),
        grid={"lam2": tuple(10.0**k for k in range(-5, 2)),
              "lam1": (0.0, *(10.0**k for k in range(-5, 0)))},
        upgrade_state=upgrade_state,
        quick_grid={"lam2": ("auto", 1e-4, 1e-2, 1.0)},
        step_param=None,
        warm_keys=("w",),
        notes="Not used in the papers' experiments, so no grid is published: lam1, lam2 are "
        "tuned on powers of ten. B and T are not given in the thesis.",
        weights="steps",
        **BATCH,
    )
)
