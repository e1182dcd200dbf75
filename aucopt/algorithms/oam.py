"""OAM_seq and OAM_gra: state layout, hyperparameters, kernel call (Natole 2020, Algorithms 4-7)."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real

import numpy as np

from .._kernels._checks import OK
from .._kernels._state import view, zeros
from .._kernels.oam import GRADIENT, SEQUENTIAL, OamState, oam_epoch
from .._kernels.reservoir_rows import oam_keep, oam_row
from ..utils._param_validation import Interval
from ._buffer_weights import check_weights, unit_weights
from ._calibrate import StepCalibration, regularised
from ._memory import check_memory
from ._params import SIZE, KernelScalars, Param, auto_step, common, precondition
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData

__all__ = [
    "PARAMS", "OamHyper", "AUTO_C", "C_GRID", "BLOCK", "run_in_blocks", "new_slots",
    "match_slots", "buffer_size", "max_memory", "auto_scaled", "OAM_SEQ", "OAM_GRA", "hyper",
]

PAPER = (
    "P. Zhao, S. C. H. Hoi, R. Jin, T. Yang. Online AUC maximization. ICML 2011; "
    "M. Natole Jr., PhD thesis, SUNY Albany 2020, Algs. 4-7."
)

# C="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_C[update] / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_C[update] / M^2, M^2 the largest squared row norm seen.
AUTO_C = {"sequential": 0.003, "gradient": 0.003}
C_GRID = tuple(2.0**k for k in range(-12, 11))  # Gao et al. 2013: "learning rate" 2^[-12:10]
BLOCK = 1 << 14  # visits per kernel call: bounds the memory of the pre-drawn uniforms



def buffer_size(doc: str) -> Param:
    """Declare the capacity ``buffer_size`` of an example buffer (default 100, as the papers)."""
    return Param("buffer_size", 100, (SIZE,), "int", doc, structural=True)


def max_memory(what: str) -> Param:
    """Declare ``max_memory_gb``, the bound on the memory of ``what`` (the buffered rows)."""
    return Param("max_memory_gb", 2.0, (Interval(Real, 0, None, closed="neither"),), "float", f"""
        Refuse (ValueError, before allocating) when {what} of ``buffer_size`` rows
        (dense rows: d values each) would take more than this many GB (1 GB = 1e9
        bytes).""")


PARAMS = (
    auto_step("C", AUTO_C["sequential"], r"""
        Penalty :math:`C` (it acts as the learning rate). ``"auto"`` calibrates it on the
        training data (a short run per step of a geometric ladder, the lowest objective wins;
        :mod:`aucopt.algorithms._calibrate`) and stores the value used in ``C_``."""),
    buffer_size(r"""
        Capacity :math:`N_+ = N_-` of each reservoir (100 in the papers, 50 on
        high-dimensional data)."""),
    max_memory("the two reservoirs"),
    *common(max_iter=1, max_iter_doc="""
        Passes over the data in ``fit`` (one pass is the online setting; a
        later pass offers every row again, as new arrivals).""",
            warm_start="Start ``fit`` from the previous iterate (the reservoirs restart empty)."),
)

# The kernel scalars (the update rule is the kernel's argument ``update``).
hyper = KernelScalars("OamHyper", __name__, PARAMS)
OamHyper = hyper.type


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


def auto_scaled(hp, name: str, unit: float, state: dict):
    """Return the kernel scalars ``hp``, the step ``name`` set by the scale rule if "auto".

    For ``"auto"`` (the field ``auto_<name>``, see :func:`aucopt.algorithms._params.auto_step`)
    the step is ``unit / M^2``, M^2 the largest squared row norm of the data given so
    far (until a calibrated value is given); a number is left as it is.
    """
    if not getattr(hp, f"auto_{name}"):
        return hp
    return hp._replace(**{name: unit / max(float(state["data_sqmax"][0]), 1e-12)})


def new_slots(shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Return empty buffer slots for ``shape`` (e.g. ``(2, N)``): sparse, of width 0.

    The slots are stored in ``buf`` (values), ``buf_idx`` (int64 feature
    indices) and ``buf_nnz`` (row lengths). Sparse slots have ``buf`` and
    ``buf_idx`` of shape ``shape + (K,)``, K the longest row stored; dense
    slots have ``buf`` of shape ``shape + (d,)`` and ``buf_idx`` of width 0
    (see :mod:`aucopt._kernels._slots` and :func:`match_slots`).
    """
    return {
        "buf": np.zeros((*shape, 0)),
        "buf_idx": np.zeros((*shape, 0), dtype=np.int64),
        "buf_nnz": np.zeros(shape, dtype=np.int64),
    }


def check_slots(state: dict, prefix: tuple[int, ...], n_features: int) -> None:
    """Raise ValueError unless the slots of a loaded ``state`` fit ``prefix`` and ``n_features``.

    Sparse slots: ``buf`` and ``buf_idx`` of equal width K <= d, feature
    indices below d; dense slots: ``buf`` of width d, ``buf_idx`` of width 0;
    row lengths ``buf_nnz`` at most the width.
    """
    buf, idx, nnz = state["buf"], state["buf_idx"], state["buf_nnz"]
    width = buf.shape[-1]
    if buf.shape[:-1] != prefix or idx.shape[:-1] != prefix or nnz.shape != prefix:
        raise ValueError(f"buffer slots must have shapes {prefix} + (width,), got buf "
                         f"{buf.shape}, buf_idx {idx.shape}, buf_nnz {nnz.shape}")
    if idx.shape[-1] == width:
        if width > n_features or (idx >= n_features).any():
            raise ValueError(f"sparse buffer slots must hold feature indices below {n_features}")
    elif idx.shape[-1] != 0 or width != n_features:
        raise ValueError(f"dense buffer slots must have width {n_features} and no indices")
    if (nnz > width).any():
        raise ValueError("buffer row lengths buf_nnz exceed the slot width")


def _sparse_slots(state: dict) -> bool:
    return state["buf_idx"].shape[-1] == state["buf"].shape[-1]


def match_slots(state: dict, rows: RowData, params: dict | None = None) -> tuple:
    """Give the slots of ``state`` the layout of ``rows``; return the kernel's slot triple.

    CSR rows get sparse slots at least as wide as their longest row (grown
    here, outside the kernel); dense rows get dense slots. Slots of the other
    layout are converted (exactly, O(slots x width) once), so every chunk of a
    stream may come in either format.

    Parameters
    ----------
    state : dict
        Holds the entries of :func:`new_slots`; replaced when they change.
    rows : RowData
        The chunk.
    params : dict, optional
        Estimator hyperparameters: ``max_memory_gb`` bounds the slots (None: no bound).

    Returns
    -------
    tuple
        ``(buf, buf_idx, buf_nnz)`` (sparse) or ``(buf, None, None)`` (dense).
    """
    buf, idx, nnz = state["buf"], state["buf_idx"], state["buf_nnz"]
    longest = int(np.diff(rows.indptr).max(initial=0)) if rows.is_sparse else rows.n_features
    if params is not None:
        check_memory(2.0 * nnz.size * max(longest, buf.shape[-1]), params,
                     f"{nnz.size} buffered rows of up to {longest} values",
                     "Lower buffer_size, or pass CSR rows (stored sparsely)")
    if rows.is_sparse:
        if not _sparse_slots(state):  # dense -> sparse
            mask = buf != 0.0
            nnz = mask.sum(axis=-1).astype(np.int64)
            width = max(longest, int(nnz.max(initial=0)))
            order = np.argsort(~mask, axis=-1, kind="stable")[..., :width]  # nonzeros first
            keep = np.take_along_axis(mask, order, axis=-1)
            idx = np.where(keep, order, 0).astype(np.int64)
            buf = np.where(keep, np.take_along_axis(buf, order, axis=-1), 0.0)
        elif longest > buf.shape[-1]:  # widen
            pad = [(0, 0)] * (buf.ndim - 1) + [(0, longest - buf.shape[-1])]
            buf, idx = np.pad(buf, pad), np.pad(idx, pad)
        state.update(buf=np.ascontiguousarray(buf), buf_idx=np.ascontiguousarray(idx),
                     buf_nnz=nnz)
        return state["buf"], state["buf_idx"], state["buf_nnz"]
    if _sparse_slots(state):  # sparse -> dense
        dense = np.zeros((*nnz.shape, rows.n_features))
        stored = np.arange(buf.shape[-1]) < nnz[..., None]
        slot = np.nonzero(stored)[:-1]
        dense[(*slot, idx[stored])] = buf[stored]
        state.update(buf=dense, buf_idx=np.zeros((*nnz.shape, 0), dtype=np.int64),
                     buf_nnz=np.zeros_like(nnz))
    return state["buf"], None, None


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict[str, np.ndarray]:
    """Return a fresh OAM state: the arrays of :class:`aucopt._kernels.oam.OamState`.

    The reservoir slots start sparse, of width 0 (see :func:`new_slots`).
    """
    capacity = int(params["buffer_size"])
    check_memory(8.0 * capacity, params, f"two reservoirs of {capacity} rows", "Lower buffer_size")
    return zeros(OamState, n_features, params)


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded OAM state has consistent reservoirs."""
    capacity = int(params["buffer_size"])
    check_slots(state, (2, capacity), n_features)
    if (state["size"] > capacity).any():
        raise ValueError(f"reservoir sizes {state['size'].tolist()} exceed buffer_size={capacity}")
    check_weights(state["buf_w"], np.arange(capacity) < state["size"][:, None])


def upgrade_state(state: dict) -> None:
    """Add the weights ``buf_w`` (ones) of the rows stored by a file saved before weights."""
    unit_weights(state, "buf_w", "buf_sq")


def _runner(update: str):
    code = {"sequential": SEQUENTIAL, "gradient": GRADIENT}[update]

    def run(state, rows: RowData, y, order, params, t, learn, rng=None):
        """One OAM pass; draws ``rng.random((len(order), 2))`` (coin, slot) block-wise.

        Every visit is an arrival (a second pass offers the rows again).
        """
        hp = auto_scaled(hyper(params), "C", AUTO_C[update], state)
        slots = match_slots(state, rows, params)
        st = view(OamState, state)
        work = (np.empty(state["buf_sq"].shape[1]),
                np.empty(rows.n_features if slots[1] is None and code == GRADIENT else 0))

        def call(block, draws, t):
            return oam_epoch(st, slots, work, rows.data, rows.indices, rows.indptr, y, block,
                             draws, hp, t, code)

        return run_in_blocks(order, 2, rng, call, t)

    return run


def _row_kernel(update: str):
    code = {"sequential": SEQUENTIAL, "gradient": GRADIENT}[update]

    def row_kernel(state: dict, params: dict) -> RowStep | None:
        """Return ``run``'s call on one CSR row (see ``AlgorithmSpec.row_kernel``; None for
        dense slots, which ``run`` converts first): :func:`~aucopt._kernels.reservoir_rows.oam_row`
        with the row's coin and slot (``RowStep.draws``), keeping the iterate at the
        columns of the other reservoir's rows and the slot it writes (``RowStep.own``)."""
        buf, idx = state["buf"], state["buf_idx"]
        if idx.shape[-1] != buf.shape[-1]:
            return None
        hp = auto_scaled(hyper(params), "C", AUTO_C[update], state)
        capacity, width = buf.shape[1], buf.shape[2]
        work = (np.empty(capacity), np.empty(0))
        draws = np.empty((1, 2))
        return RowStep(oam_row, (view(OamState, state), (buf, idx, state["buf_nnz"]), work),
                       (draws, hp), ((code, oam_keep(capacity, width)),),
                       watch=("data_sqmax",) if hp.auto_C else (), max_nnz=width,
                       own=("w", "buf", "buf_idx", "buf_nnz", "buf_sq", "buf_w"), draws=draws)

    return row_kernel


def coef(state, params) -> np.ndarray:
    """Return the last iterate (OAM outputs the last iterate)."""
    return state["w"]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as the entry ``w`` (see ``AlgorithmSpec.coef_terms``; a row's steps
    write it at the row's columns and those of the other reservoir's rows, a dense pass
    whole)."""
    return ((1.0, "w", 0),)


_COMMON = dict(
    family="oam",
    paper=PAPER,
    source="Zhao, Hoi, Jin, Yang, ICML 2011 (thesis Algs. 4-7)",
    streaming=True,
    sparse=True,
    memory="O(N K + d) on CSR rows (two reservoirs of N = buffer_size rows stored sparsely, K "
    "the longest row), O(N d) on dense rows",
    init_state=init_state,
    coef=coef,
    coef_terms=coef_terms,
    params=(*PARAMS, precondition()),
    state=(OamState,),
    check_state=check_state,
    grid={"C": C_GRID, "buffer_size": (100,)},
    step_param="C",
    warm_keys=("w",),
    equivalence_params={"C": 0.05, "precondition": None},
    upgrade_state=upgrade_state,
    weights="steps",
)

OAM_SEQ = register(
    AlgorithmSpec(
        id="oam-seq",
        name="OAM_seq",
        run=_runner("sequential"),
        row_kernel=_row_kernel("sequential"),
        calibration=StepCalibration(regularised("hinge"), unit=AUTO_C["sequential"], share=0.5,
                                    weight_power=2.0),
        cost="O(N nnz) per sample on CSR rows, O(N d) on dense rows (N proximal steps against "
        "the other class's reservoir)",
        quick_grid={"C": ("auto", 2.0**-12, 2.0**-9)},
        notes="Gao et al. 2013/thesis: buffers N+ = N- = 100 (50 on high-dimensional data); C "
        "tuned on "
        "2^[-12:10] (the documents' online learning-rate grid). C='auto' is calibrated on the "
        "data.",
        **_COMMON,
    )
)

OAM_GRA = register(
    AlgorithmSpec(
        id="oam-gra",
        name="OAM_gra",
        run=_runner("gradient"),
        row_kernel=_row_kernel("gradient"),
        calibration=StepCalibration(regularised("hinge"), unit=AUTO_C["gradient"], share=0.5,
                                    weight_power=2.0),
        cost="O(N nnz) per sample on CSR rows, O(N d) on dense rows (one hinge subgradient "
        "over the other class's reservoir)",
        quick_grid={"C": ("auto", 2.0**-12, 2.0**-9)},
        notes="Gao et al. 2013/thesis: buffers N+ = N- = 100 (50 on high-dimensional data); C "
        "tuned on "
        "2^[-12:10]. C='auto' is calibrated on the data.",
        **_COMMON,
    )
)
