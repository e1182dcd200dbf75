"""FSAUC: state layout, stage constants, hyperparameters, kernel call (Liu et al. 2018)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from .._kernels._checks import OK
from .._kernels._prox_l1l2 import PROJECTION_CODES
from .._kernels._state import view, zeros
from .._kernels.fsauc import (
    DECAY_CAPPED,
    DECAY_HALVE,
    DECAY_PAPER,
    FsaucState,
    V,
    fsauc_epoch,
    fsauc_epoch_dense,
)
from ..utils._param_validation import Interval, Options
from ._calibrate import StepCalibration, regularised
from ._data import counts_as_weights, split_packed
from ._fast import specialised
from ._params import KernelScalars, Param, auto_step, codes, common, precondition
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from ._stability import step_status, weight_scale
from .solam import KAPPA, RADII, ZETAS, R, kappa_of

__all__ = ["PARAMS", "FsaucHyper", "STEP_DECAYS", "AUTO_ETA1", "n_stages", "hyper", "FSAUC"]

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

ETA1 = auto_step("eta1", AUTO_ETA1, r"""
    First-stage step :math:`\eta_1`. ``"auto"`` calibrates it on the training data (a
    short run per step of a geometric ladder, the lowest objective wins;
    :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``eta1_``. (The
    paper's theoretical :math:`\sqrt{\beta_0}R_0/(\sqrt{3n_0}\,G)` with :math:`G` at its
    bound does not shrink with :math:`\kappa` and fails on unscaled data.)""")
PARAMS = (
    R.replace(doc=r"Radius of the l1 ball of :math:`w`."),
    ETA1,
    KAPPA.replace(doc=r"""
        :math:`\kappa = \max_i \|x_i\|`. ``"auto"`` takes it from the data given
        to the first ``fit``/``partial_fit`` call; it is fixed when the first
        stage starts (it defines :math:`R_0, \beta_0, D_0`)."""),
    Param("delta", 0.1, (Interval(Real, 0, 1, closed="neither"),), "float", r"""
        Confidence :math:`\delta` of Lemma 1 (not stated in the paper;
        notes.md#fsauc-unstated).""", kernel=float),
    Param("projection", "exact", (Options(str, set(PROJECTION_CODES)),),
          '{"exact", "dykstra", "alternating"}', r"""
        Projection onto :math:`\Omega_1 \cap B(c, r)`: ``"exact"`` by a
        one-dimensional dual root search (notes.md#exact-projection); ``"dykstra"``:
        Dykstra's algorithm (converges to the same point); ``"alternating"``: plain
        alternating projections as suggested in the paper, which give a
        feasible point that is not the projection (notes.md#exact-projection).""",
          kernel=codes(PROJECTION_CODES)),
    Param("projection_rounds", 100, (Interval(Integral, 1, None, closed="left"),), "int",
          'Maximal rounds of the ``"dykstra"`` and ``"alternating"`` projections.', kernel=int),
    Param("stats", "global", (Options(str, {"global", "local"}),), '{"global", "local"}', r"""
        ``"global"``: the class sums and :math:`\hat p` accumulate over all
        stages (the paper's remark after Theorem 1); ``"local"``: they restart
        at every stage (Algorithm 2 as printed).""",
          kernel=codes({"global": True, "local": False}), fields=("global_stats",)),
    Param("step_decay", "capped", (Options(str, set(STEP_DECAYS)),),
          '{"paper", "capped", "halve"}', r"""
        Step between stages: ``"paper"``
        :math:`\eta_{k+1} = \eta_k\sqrt{\beta_k/\beta_{k-1}}/2`; ``"capped"``
        the same but never larger than :math:`\eta_k`; ``"halve"``
        :math:`\eta_{k+1} = \eta_k/2` (notes.md#fsauc-step).""", kernel=codes(STEP_DECAYS)),
    Param("n_samples_hint", None, (Interval(Integral, 1, None, closed="left"), None),
          "int or None", r"""
        Number :math:`n` of examples the stream will deliver, which sets the
        stage count and length; examples beyond :math:`m n_0` continue in
        further stages of length :math:`n_0`. ``None``: ``fit`` uses
        ``max_iter`` times the number of rows; ``partial_fit`` starts with the
        rows of its first call as :math:`n` and, whenever the :math:`m` stages
        of a run are done, restarts the stage schedule (radii, step, stage
        length) with :math:`n` doubled, from the last output :math:`\hat v`
        (the doubling trick for an unknown horizon). So a stream fed one row
        at a time learns (runs of 1, 2, 4, ... examples), at a constant-factor
        cost in the rate; pass ``n_samples_hint`` when the length is known."""),
    *common(max_iter=3, max_iter_doc="""
        Passes over the data in ``fit``; the passes form one stream of
        ``max_iter * n_samples`` examples (FSAUC is a one-pass method: 1 is the
        paper's setting). The default of 3 keeps the test AUC within 0.006 of the
        least-squares optimum on every case of ``benchmarks/robustness.py`` (three
        orders each), where one pass falls up to 0.016 short (Pareto-tailed columns,
        german.numer).""", warm_start=r"""
        Start the first stage of ``fit`` from the previous output
        :math:`(\hat v, \hat\alpha)` instead of 0."""),
)

hyper = KernelScalars("FsaucHyper", __name__, PARAMS)
FsaucHyper = hyper.type


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
    the first chunk, once: a chunk is one pass, its ``max_iter`` is 1 here).

    Returns
    -------
    dict
        The arrays of :class:`aucopt._kernels.fsauc.FsaucState`.
    """
    hint = params["n_samples_hint"]
    n = int(hint) if hint is not None else int(params["max_iter"]) * int(n_samples)
    m = n_stages(n)
    state = zeros(FsaucState, n_features, params, **{V: n_features + 2})
    state["n0"][0] = max(1, n // m)
    state["n_total"][0], state["n_stages"][0] = n, m
    return state


def _start(state: dict, hp, weight: float = 1.0) -> int:
    """Set the constants of Liu et al. 2018, Algorithm 1 line 1 and start stage 1 at ``v_hat``.

    Returns ``DIVERGED`` when ``eta1 * weight * kappa^2`` exceeds :data:`MAX_STEP_CURVATURE`
    (``weight``: :func:`~._stability.weight_scale` of the rows to learn).
    """
    kappa = kappa_of(hp, state)
    r0 = 2.0 * math.sqrt(1.0 + 2.0 * kappa * kappa) * hp.R
    state["radius"][0] = r0
    # D_0 = 2 sqrt(2) kappa R_0 (notes.md#fsauc-constants)
    state["dual_radius"][0] = 2.0 * math.sqrt(2.0) * kappa * r0
    state["beta"][0] = 1.0 + 8.0 * kappa * kappa
    eta = hp.eta1 / max(kappa * kappa, 1e-300) if hp.auto_eta1 else hp.eta1
    state["eta"][0] = eta
    state["kappa"][0] = kappa
    state["v"][:] = state["v_hat"]  # v_hat_0 = 0 unless warm-started
    state["v1"][:] = state["v_hat"]
    state["alpha"][:] = state["alpha_hat"]
    state["alpha1"][:] = state["alpha_hat"]
    state["stage"][0] = 1
    return step_status(eta * weight, kappa * kappa, MAX_STEP_CURVATURE)


def _restart(state: dict, hp, weight: float = 1.0) -> int:
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
    state["n0"][0] = max(1, n // m)
    state["stage_steps"][0] = 0
    state["v_sum"][:] = 0.0
    return _start(state, hp, weight)


def upgrade_state(state: dict) -> None:
    """Unpack ``sched`` and ``counters`` of files saved before FSAUC had named fields; class
    counts saved as rows become weights."""
    split_packed(state, "sched", ("radius", "dual_radius", "beta", "eta", "kappa"))
    split_packed(state, "counters", ("n0", "stage", "stage_steps", "root_steps"))
    counts_as_weights(state, "run_count")


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless the stage counters of a loaded FSAUC state are consistent."""
    n, m = int(state["n_total"][0]), int(state["n_stages"][0])
    n0, stage, steps = (int(state[key][0]) for key in ("n0", "stage", "stage_steps"))
    if n < 1 or m != n_stages(n) or n0 != max(1, n // m) or steps >= n0 or stage < 0:
        raise ValueError(f"stage counters (n_total={n}, n_stages={m}, n0={n0}, "
                         f"steps={steps}, stage={stage}) are inconsistent")


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """FSAUC over ``order`` (see :func:`aucopt._kernels.fsauc.fsauc_epoch`)."""
    hp = hyper(params)
    if state["stage"][0] == 0 and hp.auto_kappa and state["data_sqmax"][0] == 0.0:
        # only zero rows so far (empty documents): kappa = 0 would fix stage 1's step at
        # eta1 / 0; the run starts with the first row that has a norm
        return t, OK
    weight = weight_scale(y, order)
    status = _start(state, hp, weight) if state["stage"][0] == 0 else OK
    if status != OK:
        return t, status
    st = view(FsaucState, state)
    scratch, work = np.empty((4, st.v.shape[0])), np.zeros(1)
    dense = not rows.is_sparse and specialised(fsauc_epoch_dense)
    doubling = params["n_samples_hint"] is None
    pos = 0
    while pos < order.shape[0]:
        if doubling and st.stage[0] > st.n_stages[0]:
            status = _restart(state, hp, weight)
            if status != OK:
                return t, status
        if doubling:  # steps left in the current run
            size = (int(st.n_stages[0]) - int(st.stage[0]) + 1) * int(st.n0[0])
            size = max(size - int(st.stage_steps[0]), 1)
        else:
            size = order.shape[0]
        part = order[pos:pos + size]
        pos += part.shape[0]
        if dense:
            t, status = fsauc_epoch_dense(st, scratch, work, rows.data, y, part, hp, t, learn)
        else:
            t, status = fsauc_epoch(st, scratch, work, rows.data, rows.indices, rows.indptr, y,
                                    part, hp, t, learn)
        if status != OK:
            return t, status
    return t, OK


def row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return the call of ``run`` on one CSR row within a stage (see
    ``AlgorithmSpec.row_kernel``; None when ``run`` would first start or restart a run).

    Bound again whenever the stage changes (``watch``)."""
    stage = int(state["stage"][0])
    if stage == 0 or (params["n_samples_hint"] is None and stage > int(state["n_stages"][0])):
        return None
    work = np.zeros(1)
    return RowStep(fsauc_epoch, (view(FsaucState, state), np.empty((4, state["v"].shape[0])),
                                 work), (hyper(params),), (True,), watch=("stage",),
                   zeroed=(work,))


def zero_reason(state, params) -> str | None:
    """Why the weights are zero when no stage has ended yet (the output is a stage's
    average, formed at its end): a fit stopped early by ``max_time``, a short stream."""
    if int(state["stage"][0]) > 1:
        return None
    steps, n0 = int(state["stage_steps"][0]), int(state["n0"][0])
    return (f"FSAUC outputs the average of a stage's iterates when the stage ends, and its "
            f"first stage has not ended ({steps} of its {n0} steps done; a fit's stages are "
            f"n_samples * max_iter / {int(state['n_stages'][0])} steps long). With max_time, "
            "lower max_iter or give more time; in a stream, learn more rows.")


def coef(state, params) -> np.ndarray:
    """Return the w-part of ``v_hat``, the average of the last completed stage."""
    return state["v_hat"][:-2]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as the first ``d`` entries of ``v_hat`` (see
    ``AlgorithmSpec.coef_terms``; written whole at the end of a stage)."""
    return ((1.0, "v_hat", 0),)


FSAUC = register(
    AlgorithmSpec(
        id="fsauc",
        name="FSAUC",
        exact_blocks=False,  # per-call sums or scales: blocks agree to rounding only
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
        row_kernel=row_kernel,
        coef=coef,
        coef_terms=coef_terms,
        check_state=check_state,
        upgrade_state=upgrade_state,
        params=(*PARAMS, precondition()),
        state=(FsaucState,),
        grid={"R": RADII, "eta1": ZETAS},
        quick_grid={"R": (10.0, 100.0), "eta1": ("auto", 2.0**-8, 2.0**-6, 2.0**-4)},
        step_param="eta1",
        calibration=StepCalibration(regularised("square"), unit=AUTO_ETA1),
        warm_keys=("v_hat", "alpha_hat"),
        zero_reason=zero_reason,
        equivalence_params={"kappa": 4.0, "n_samples_hint": 600, "precondition": None},
        weights="steps",
        notes="Liu et al. 2018 grid: R in 10^[-1:1:5], eta1 in 2^[-10:1:10] on a validation "
        "split; delta = 0.1 (notes.md#fsauc-unstated). n: fit uses max_iter * n_samples; "
        "partial_fit takes n_samples_hint, else it starts with the first chunk and restarts "
        "with a doubled horizon whenever a run's stages are done. Exact P5 projection by "
        "default (notes.md#exact-projection).",
    )
)
