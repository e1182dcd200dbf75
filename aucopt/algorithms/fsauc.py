"""FSAUC: state layout, stage constants, hyperparameters, kernel call (Liu et al. 2018)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._kernels._checks import OK
from .._kernels._prox_l1l2 import PROJECTION_CODES
from .._kernels.fsauc import (
    DECAY_CAPPED,
    DECAY_HALVE,
    DECAY_PAPER,
    F_BETA,
    F_DUAL_RADIUS,
    F_ETA,
    F_KAPPA,
    F_RADIUS,
    I_N0,
    I_STAGE,
    I_T_STAGE,
    fsauc_epoch,
    fsauc_epoch_dense,
)
from ._calibrate import StepCalibration, regularised
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status
from .solam import RADII, ZETAS, kappa_of

__all__ = ["FsaucHyper", "STEP_DECAYS", "AUTO_ETA1", "n_stages", "FSAUC"]

PAPER = (
    "M. Liu, X. Zhang, Z. Chen, X. Wang, T. Yang. Fast stochastic AUC maximization with "
    "O(1/n)-convergence rate. ICML 2018, Algorithms 1-3; M. Natole Jr., PhD thesis, SUNY "
    "Albany 2020, Algs. 11-12."
)

# eta1="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA1 / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA1 / kappa^2, kappa the largest row norm (the paper's
# theoretical eta1, G at its bound, does not shrink with kappa and fails on unscaled data).
AUTO_ETA1 = 0.5

STEP_DECAYS = {"paper": DECAY_PAPER, "capped": DECAY_CAPPED, "halve": DECAY_HALVE}

# Largest useful first step, as eta1 * kappa^2 (see aucopt.algorithms._stability). The square
# loss of one example has curvature up to 2 kappa^2 in w, so a constant step above 1/kappa^2
# already overshoots along x; measured after one pass: test AUC 0.78 at eta1 kappa^2 = 1.4 and
# 0.44 at 22 on german.numer scaled to [-1, 1]; 0.75 at 4.3 and 0.46 at 69 on a synthetic
# problem.
MAX_STEP_CURVATURE = 16.0


class FsaucHyper(NamedTuple):
    """Scalar hyperparameters of the FSAUC kernel."""

    radius: float
    delta: float
    projection: int
    rounds: int
    step_decay: int
    global_stats: bool


def n_stages(n: int) -> int:
    """Return ``m = max(1, floor(log2(2n / log2 n) / 2) - 1)`` (Liu et al. 2018, Alg. 1, guard of
    notes.md#fsauc-unstated)."""
    if n < 3:
        return 1
    return max(1, math.floor(0.5 * math.log2(2.0 * n / math.log2(n))) - 1)


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh FSAUC state; the stage constants are set by the first ``run``.

    ``n`` (the number of examples to be processed) is ``n_samples_hint`` if
    given, else ``max_iter * n_samples`` (``fit``: every pass; ``partial_fit``:
    the first chunk, ``max_iter`` times).

    Returns
    -------
    dict
        Primal ``v`` and centre ``v1``, stage sum ``v_sum`` and output ``v_hat``
        (d + 2,); ``alpha``, ``alpha1``, ``alpha_hat`` (1,); received-example
        statistics ``run_count`` (2,), ``run_sum`` (2, d), ``run_sqmax`` (1,);
        ``sched`` (5,) = ``r, D, beta, eta, kappa``; ``counters`` (4,) =
        ``n0, stage, steps in stage, root searches``; ``n_total``,
        ``n_stages`` (1,).
    """
    hint = params["n_samples_hint"]
    n = int(hint) if hint is not None else int(params["max_iter"]) * int(n_samples)
    m = n_stages(n)
    counters = np.zeros(4, dtype=np.int64)
    counters[I_N0] = max(1, n // m)
    k = n_features + 2
    return {
        "v": np.zeros(k),
        "v1": np.zeros(k),
        "v_sum": np.zeros(k),
        "v_hat": np.zeros(k),
        "alpha": np.zeros(1),
        "alpha1": np.zeros(1),
        "alpha_hat": np.zeros(1),
        "run_count": np.zeros(2, dtype=np.int64),
        "run_sum": np.zeros((2, n_features)),
        "run_sqmax": np.zeros(1),
        "sched": np.zeros(5),
        "counters": counters,
        "n_total": np.array([n], dtype=np.int64),
        "n_stages": np.array([m], dtype=np.int64),
    }


def _start(state: dict, params: dict) -> int:
    """Set the constants of Liu et al. 2018, Algorithm 1 line 1 and start stage 1 at ``v_hat``.

    Returns ``DIVERGED`` when ``eta1 * kappa^2`` exceeds :data:`MAX_STEP_CURVATURE`.
    """
    kappa = kappa_of(params, state)
    radius = float(params["R"])
    r0 = 2.0 * math.sqrt(1.0 + 2.0 * kappa * kappa) * radius
    sched = state["sched"]
    sched[F_RADIUS] = r0
    # D_0 = 2 sqrt(2) kappa R_0 (notes.md#fsauc-constants)
    sched[F_DUAL_RADIUS] = 2.0 * math.sqrt(2.0) * kappa * r0
    sched[F_BETA] = 1.0 + 8.0 * kappa * kappa
    eta1 = params["eta1"]
    sched[F_ETA] = AUTO_ETA1 / max(kappa * kappa, 1e-300) if eta1 == "auto" else float(eta1)
    sched[F_KAPPA] = kappa
    state["v"][:] = state["v_hat"]  # v_hat_0 = 0 unless warm-started
    state["v1"][:] = state["v_hat"]
    state["alpha"][:] = state["alpha_hat"]
    state["alpha1"][:] = state["alpha_hat"]
    state["counters"][I_STAGE] = 1
    return step_status(sched[F_ETA], kappa * kappa, MAX_STEP_CURVATURE)


def _restart(state: dict, params: dict) -> int:
    """Begin a new FSAUC run with twice the horizon, from the last output (doubling trick).

    Without ``n_samples_hint`` the stream length ``n`` is unknown; the first
    run assumes the rows of the first call (``max_iter`` times). When its
    ``m`` stages are done, FSAUC restarts with ``n`` doubled: new stage count
    and length for ``2n``, the radii, dual radius and step of stage 1 again,
    centred at the last output ``(v_hat, alpha_hat)``. Runs of ``n, 2n, 4n,
    ...`` examples lose at most a constant factor of the rate for a known
    horizon (the standard device for an unknown ``T``).
    """
    n = 2 * int(state["n_total"][0])
    m = n_stages(n)
    state["n_total"][0], state["n_stages"][0] = n, m
    state["counters"][I_N0] = max(1, n // m)
    state["counters"][I_T_STAGE] = 0
    state["v_sum"][:] = 0.0
    return _start(state, params)


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless the stage counters of a loaded FSAUC state are consistent."""
    n, m = int(state["n_total"][0]), int(state["n_stages"][0])
    n0, stage, steps = (int(c) for c in state["counters"][:3])
    if n < 1 or m != n_stages(n) or n0 != max(1, n // m) or steps >= n0 or stage < 0:
        raise ValueError(f"stage counters (n_total={n}, n_stages={m}, n0={n0}, "
                         f"steps={steps}, stage={stage}) are inconsistent")


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """FSAUC over ``order`` (see :func:`aucopt._kernels.fsauc.fsauc_epoch`)."""
    status = _start(state, params) if state["counters"][I_STAGE] == 0 else OK
    if status != OK:
        return t, status
    hp = FsaucHyper(
        radius=float(params["R"]),
        delta=float(params["delta"]),
        projection=PROJECTION_CODES[params["projection"]],
        rounds=int(params["projection_rounds"]),
        step_decay=STEP_DECAYS[params["step_decay"]],
        global_stats=params["stats"] == "global",
    )
    k = state["v"].shape[0]
    iterates = (state["v"], state["alpha"], state["v1"], state["alpha1"], state["v_sum"],
                state["v_hat"], state["alpha_hat"], state["run_count"], state["run_sum"],
                state["run_sqmax"], state["sched"], state["counters"], np.empty((4, k)),
                np.zeros(1))
    doubling = params["n_samples_hint"] is None
    counters, pos = state["counters"], 0
    while pos < order.shape[0]:
        if doubling and counters[I_STAGE] > state["n_stages"][0]:
            status = _restart(state, params)
            if status != OK:
                return t, status
        if doubling:  # steps left in the current run
            size = (int(state["n_stages"][0]) - int(counters[I_STAGE]) + 1) * int(counters[I_N0])
            size = max(size - int(counters[I_T_STAGE]), 1)
        else:
            size = order.shape[0]
        part = order[pos:pos + size]
        pos += part.shape[0]
        if rows.is_sparse:
            t, status = fsauc_epoch(*iterates, rows.data, rows.indices, rows.indptr, y, part,
                                    hp, t, learn)
        else:
            t, status = fsauc_epoch_dense(*iterates, rows.data, y, part, hp, t, learn)
        if status != OK:
            return t, status
    return t, OK


def coef(state, params) -> np.ndarray:
    """Return the w-part of ``v_hat``, the average of the last completed stage."""
    return state["v_hat"][:-2]


FSAUC = register(
    AlgorithmSpec(
        id="fsauc",
        name="FSAUC",
        estimator="aucopt.linear_model._fsauc:FSAUCClassifier",
        family="fsauc",
        paper=PAPER,
        source="Liu et al., ICML 2018",
        streaming=True,
        sparse=True,
        memory="O(d)",
        cost="O(d) per sample (one sweep dense, two on CSR: the l1-ball constraint needs every "
        "coordinate, so no O(nnz) form) while the step stays in the l1 ball cap l2 ball; "
        "otherwise plus the projection (exact: O(d log d), or O(K d log d) with K "
        "root-search steps when the l2 ball binds)",
        init_state=init_state,
        run=run,
        coef=coef,
        check_state=check_state,
        grid={"R": RADII, "eta1": ZETAS},
        quick_grid={"R": (10.0, 100.0), "eta1": ("auto", 2.0**-8, 2.0**-6, 2.0**-4)},
        step_param="eta1",
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA1),
        warm_keys=("v_hat", "alpha_hat"),
        equivalence_params={"kappa": 4.0, "n_samples_hint": 600},
        notes="Liu et al. 2018 grid: R in 10^[-1:1:5], eta1 in 2^[-10:1:10] on a validation "
        "split; delta = 0.1 (notes.md#fsauc-unstated). n: fit uses max_iter * n_samples; "
        "partial_fit takes n_samples_hint, else it starts with the first chunk and restarts "
        "with a doubled horizon whenever a run's stages are done. Exact P5 projection by "
        "default (notes.md#exact-projection).",
    )
)
