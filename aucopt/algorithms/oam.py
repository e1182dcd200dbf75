"""OAM_seq and OAM_gra: state layout, hyperparameters, kernel call (spec section 4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._kernels._checks import OK
from .._kernels.oam import GRADIENT, SEQUENTIAL, oam_epoch
from ._registry import register
from ._spec import AlgorithmSpec, RowData

__all__ = ["OamHyper", "AUTO_C", "C_GRID", "BLOCK", "run_in_blocks", "OAM_SEQ", "OAM_GRA"]

PAPER = (
    "P. Zhao, S. C. H. Hoi, R. Jin, T. Yang. Online AUC maximization. ICML 2011; "
    "M. Natole Jr., PhD thesis, SUNY Albany 2020, Algs. 4-7."
)

# C="auto": C = AUTO_C[update] / M^2, M^2 the largest squared row norm of the data given so
# far; chosen on diabetes, german.numer and splice scaled to [-1, 1] (see the estimator docs).
AUTO_C = {"sequential": 0.003, "gradient": 0.003}
C_GRID = tuple(2.0**k for k in range(-12, 11))  # [D0]: "learning rate" 2^[-12:10] [FILL]
BLOCK = 1 << 14  # visits per kernel call: bounds the memory of the pre-drawn uniforms


class OamHyper(NamedTuple):
    """Scalar hyperparameters of :func:`aucopt._kernels.oam.oam_epoch`."""

    C: float
    update: int


def run_in_blocks(order: np.ndarray, width: int, rng, call: Callable, t: int):
    """Call ``call(order_block, draws_block, t) -> (t, status)`` over blocks of ``order``.

    ``draws_block = rng.random((len(order_block), width))``: the uniforms are
    drawn block by block in visit order, so the stream of draws (and the
    result) does not depend on the block size or on how the data are chunked.

    Parameters
    ----------
    order : ndarray of int64
        Rows to visit.
    width : int
        Uniforms per visit (0: none are drawn).
    rng : numpy.random.Generator
        The estimator's generator.
    call : callable
        The kernel call for one block.
    t : int
        Counter before the first block.

    Returns
    -------
    t : int
    status : int
    """
    for start in range(0, order.shape[0], BLOCK):
        block = order[start:start + BLOCK]
        draws = rng.random((block.shape[0], width)) if width else np.empty((block.shape[0], 0))
        t, status = call(block, draws, t)
        if status != OK:
            return t, status
    return t, OK


def step_scale(value, auto: float, state: dict) -> float:
    """Return ``value``, or ``auto / M^2`` (M^2 of the data given so far) for ``"auto"``."""
    if value == "auto":
        return auto / max(float(state["data_sqmax"][0]), 1e-12)
    return float(value)


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh OAM state.

    Returns
    -------
    dict
        ``w`` (d,); reservoirs ``buf`` (2, N, d) (negatives at index 0) with
        squared norms ``buf_sq`` (2, N), ``size`` (2,) and per-class counts
        ``seen`` (2,).
    """
    capacity = int(params["buffer_size"])
    return {
        "w": np.zeros(n_features),
        "buf": np.zeros((2, capacity, n_features)),
        "buf_sq": np.zeros((2, capacity)),
        "size": np.zeros(2, dtype=np.int64),
        "seen": np.zeros(2, dtype=np.int64),
    }


def _runner(update: str):
    code = {"sequential": SEQUENTIAL, "gradient": GRADIENT}[update]

    def run(state, rows: RowData, y, order, params, t, learn, rng=None):
        """One OAM pass; draws ``rng.random((len(order), 2))`` (coin, slot) block-wise.

        Every visit is an arrival (a second pass offers the rows again).
        """
        hp = OamHyper(C=step_scale(params["C"], AUTO_C[update], state), update=code)
        acc = np.zeros(rows.n_features)

        def call(block, draws, t):
            return oam_epoch(state["w"], state["buf"], state["buf_sq"], state["size"],
                             state["seen"], acc, rows.data, rows.indices, rows.indptr, y,
                             block, draws, hp, t)

        return run_in_blocks(order, 2, rng, call, t)

    return run


def coef(state, params) -> np.ndarray:
    """Return the last iterate (OAM outputs the last iterate)."""
    return state["w"]


_COMMON = dict(
    family="oam",
    paper=PAPER,
    source="Zhao, Hoi, Jin, Yang, ICML 2011 (thesis Algs. 4-7)",
    streaming=True,
    sparse=True,
    memory="O(N d): two dense reservoirs of N = buffer_size rows (CSR rows densified when "
    "stored)",
    init_state=init_state,
    coef=coef,
    grid={"C": C_GRID, "buffer_size": (100,)},
    step_param="C",
    warm_keys=("w",),
    equivalence_params={"C": 0.05},
)

OAM_SEQ = register(
    AlgorithmSpec(
        id="oam-seq",
        name="OAM_seq",
        estimator="aucopt.linear_model._oam:OAMSeqClassifier",
        run=_runner("sequential"),
        cost="O(N d) per sample (N proximal steps against the other class's reservoir)",
        quick_grid={"C": ("auto", 2.0**-12, 2.0**-9)},
        notes="[D0]/thesis: buffers N+ = N- = 100 (50 on high-dimensional data); C tuned on "
        "2^[-12:10] (the documents' online learning-rate grid). C='auto' = 0.003/M^2.",
        **_COMMON,
    )
)

OAM_GRA = register(
    AlgorithmSpec(
        id="oam-gra",
        name="OAM_gra",
        estimator="aucopt.linear_model._oam:OAMGraClassifier",
        run=_runner("gradient"),
        cost="O(N d) per sample (one hinge subgradient over the other class's reservoir)",
        quick_grid={"C": ("auto", 2.0**-12, 2.0**-9)},
        notes="[D0]/thesis: buffers N+ = N- = 100 (50 on high-dimensional data); C tuned on "
        "2^[-12:10]. C='auto' = 0.003/M^2.",
        **_COMMON,
    )
)
