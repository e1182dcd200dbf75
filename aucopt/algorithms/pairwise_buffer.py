"""OGD with the previous example (Yang et al. 2021) and Kar et al.'s OLP with an RS-x buffer.

State layout, hyperparameters and kernel call (Yang et al. 2021; Kar et al. 2013).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._kernels._buffers import LOSS_CODES
from .._kernels._schedules import CONSTANT, INV_SQRT
from .._kernels.pairwise_buffer import (
    FIFO,
    NEEDS_FOLD,
    RSX,
    fifo_epoch_dense,
    fifo_epoch_lazy,
    fifo_lazy_fold,
    pairwise_buffer_epoch,
    rsx_epoch_lazy,
)
from ._calibrate import StepCalibration, regularised
from ._data import drop_lazy_form, scaled_iterates
from ._memory import check_memory
from ._registry import register
from ._spec import AlgorithmSpec, RowData
from .oam import check_slots, match_slots, new_slots, run_in_blocks, step_scale

__all__ = ["PairwiseHyper", "AUTO_ETA", "SCHEDULES", "OGD_FIFO", "KAR", "iterates"]

YANG_PAPER = (
    "Z. Yang, Y. Lei, P. Wang, T. Yang, Y. Ying. Simple stochastic and online gradient "
    "descent algorithms for pairwise learning. NeurIPS 2021."
)
KAR_PAPER = (
    "P. Kar, B. K. Sriperumbudur, P. Jain, H. Karnick. On the generalization ability of "
    "online learning algorithms for pairwise loss functions. ICML 2013."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred
# on AUTO_ETA[id] / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA[id] / M^2, M^2 the largest squared row norm seen.
AUTO_ETA = {"ogd-fifo": 0.5, "kar": 0.5}
SCHEDULES = {"inv_sqrt": INV_SQRT, "constant": CONSTANT}
ETA_GRID = tuple(2.0**k for k in range(-8, 0))  # AlQuabeh et al. 2024: eta in 2^[-8:-1]
LAM_GRID = tuple(10.0**k for k in range(-8, 0))  # AlQuabeh et al. 2024: lambda in 10^[-8:-1]


class PairwiseHyper(NamedTuple):
    """Scalar hyperparameters of :func:`aucopt._kernels.pairwise_buffer.pairwise_buffer_epoch`."""

    eta: float
    schedule: int
    lam: float
    radius: float
    loss: int
    policy: int


def _init_state(capacity: int):
    def init_state(n_features: int, n_samples: int, params: dict, rng=None):
        """Return a fresh state.

        Returns
        -------
        dict
            ``w``, ``w_avg`` (d,); the buffer of s rows with ``buf_sq`` and
            ``buf_y`` (s,); ``size`` (1,) rows stored; ``seen`` (1,) examples
            received. FIFO (s = 1): ``buf`` (1, d) dense and the indices of
            the stored row (``prev_idx``, grown to the longest row seen); CSR
            rows switch ``w``, ``w_avg`` to the lazy form of
            :func:`aucopt._kernels.pairwise_buffer.fifo_epoch_lazy` (``pack``,
            ``acc``, ``lazy``). RS-x: slots ``buf``, ``buf_idx``, ``buf_nnz``
            (see :func:`aucopt.algorithms.oam.new_slots`).
        """
        s = int(params["buffer_size"]) if capacity == 0 else capacity
        if capacity == 0:
            check_memory(4.0 * s, params, f"a buffer of {s} rows", "Lower buffer_size")
        state = {
            "w": np.zeros(n_features),
            "w_avg": np.zeros(n_features),
            "buf_sq": np.zeros(s),
            "buf_y": np.zeros(s),
            "size": np.zeros(1, dtype=np.int64),
            "seen": np.zeros(1, dtype=np.int64),
        }
        if capacity == 1:  # FIFO on CSR rows: indices of the stored row (O(nnz) steps)
            state["buf"] = np.zeros((1, n_features))
            state["prev_idx"] = np.zeros(0, dtype=np.int64)
            state["prev_nnz"] = np.zeros(1, dtype=np.int64)
        else:
            state.update(new_slots((s,)))
        return state

    return init_state


def _check_state(capacity: int):
    def check_state(state: dict, params: dict, n_features: int) -> None:
        """Raise ValueError unless a loaded buffer state is consistent (sizes, indices)."""
        s = state["buf_sq"].shape[0]
        if int(state["size"][0]) > s:
            raise ValueError(f"buffer size {int(state['size'][0])} exceeds its {s} slots")
        if capacity != 1:
            check_slots(state, (s,), n_features)
            return
        nnz, idx = int(state["prev_nnz"][0]), state["prev_idx"]
        if (idx.ndim != 1 or not -1 <= nnz <= min(n_features, idx.shape[0])
                or (idx >= n_features).any()):
            raise ValueError(f"the stored row's support (prev_nnz={nnz}, prev_idx) does not fit "
                             f"n_features={n_features}")

    return check_state
def _to_lazy(state: dict, t: int) -> None:
    """Switch a FIFO state to the lazy form (O(d), once: the first CSR call)."""
    w = state.pop("w")
    pack = np.zeros((w.shape[0], 2))
    pack[:, 0] = w
    state.update(pack=pack, acc=state.pop("w_avg") * t, lazy=np.array([1.0, 0.0, w @ w, t]))


def _fresh_lazy(state: dict, params: dict) -> None:
    """Switch a fresh state to the lazy form (the reference layout of a saved lazy state)."""
    _to_lazy(state, 0)


def _to_plain(state: dict) -> None:
    """Switch a FIFO state back to ``w`` and ``w_avg`` (O(d), once: dense rows after CSR)."""
    drop_lazy_form(state, iterates, ("pack", "acc", "lazy"))


def plain_form(state: dict, params: dict, t: int) -> None:
    """Switch ``state`` to the plain form if it is in the lazy one (see ``AlgorithmSpec``)."""
    if "pack" in state:
        _to_plain(state)


def iterates(state: dict) -> tuple[np.ndarray, np.ndarray]:
    """Return the last iterate ``w`` and the average ``w_avg`` of a state in either form."""
    return scaled_iterates(state, 3)


def _fifo_lazy(state, rows: RowData, y, order, hp, t, before_dense):
    """FIFO on CSR rows: the O(nnz) kernel on the lazy form, kept between calls."""
    if "pack" not in state or state["prev_nnz"][0] < 0:  # O(d): switch forms, clear buf
        if before_dense is not None:
            before_dense()
        if "pack" not in state:
            _to_lazy(state, t)
    longest = int(np.diff(rows.indptr).max(initial=0))
    if state["prev_idx"].shape[0] < longest:
        grown = np.zeros(longest, dtype=np.int64)
        grown[:state["prev_idx"].shape[0]] = state["prev_idx"]
        state["prev_idx"] = grown
    lazy, position = state["lazy"], 0
    while True:
        t, status, position = fifo_epoch_lazy(
            state["pack"], state["acc"], lazy, state["buf"], state["buf_sq"], state["buf_y"],
            state["size"], state["seen"], state["prev_idx"], state["prev_nnz"], rows.data,
            rows.indices, rows.indptr, y, order, position, hp, t)
        lazy[3] = t
        if status != NEEDS_FOLD:
            return t, status
        if before_dense is not None:
            before_dense()
        fifo_lazy_fold(state["pack"], state["acc"], lazy)


def fifo_columns(state: dict) -> np.ndarray:
    """Columns a FIFO call writes besides its rows': those of the stored previous row."""
    return state["prev_idx"][:max(int(state["prev_nnz"][0]), 0)]


def _runner(algorithm_id: str, policy: int):
    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One pass; Kar draws ``rng.random((len(order), s))`` (RS-x) block-wise, FIFO nothing.

        Every visit is an arrival (a second pass offers the rows again).
        """
        radius = params["radius"]
        hp = PairwiseHyper(
            eta=step_scale(params["eta"], AUTO_ETA[algorithm_id], state),
            schedule=SCHEDULES[params["schedule"]],
            lam=float(params["lam"]),
            radius=0.0 if radius is None else float(radius),
            loss=LOSS_CODES[params["loss"]],
            policy=policy,
        )
        if policy == FIFO and rows.is_sparse:  # exact O(nnz) steps (lazy scale and average)
            return _fifo_lazy(state, rows, y, order, hp, t, before_dense)
        if "pack" in state:
            if before_dense is not None:
                before_dense()
            _to_plain(state)
        if policy == FIFO:  # dense rows: two sweeps per step
            result = fifo_epoch_dense(
                state["w"], state["w_avg"], state["buf"], state["buf_sq"], state["buf_y"],
                state["size"], state["seen"], rows.data, rows.indices, rows.indptr, y, order,
                hp, t)
            state["prev_nnz"][0] = -1  # a dense row is stored: its support is unknown
            return result
        slots = match_slots(state, rows, params) if policy == RSX else (state["buf"], None, None)
        s = state["buf_sq"].shape[0]
        seen = int(state["seen"][0])
        repopulate = policy == RSX and seen <= s < seen + order.shape[0]  # t = s+1 in this call
        scratch_rows = s if repopulate else 0
        scratch = (np.zeros((scratch_rows, slots[0].shape[1])), np.zeros(scratch_rows),
                   np.zeros(scratch_rows))
        g = np.empty(s)
        if slots[1] is not None:  # RS-x on CSR rows: exact O(s nnz) steps (lazy)
            scratch_slots = (np.zeros((scratch_rows, slots[1].shape[1]), dtype=np.int64),
                             np.zeros(scratch_rows, dtype=np.int64))
            pack = np.empty((rows.n_features, 2))

            def call(block, draws, t):
                return rsx_epoch_lazy(
                    state["w"], state["w_avg"], *slots, state["buf_sq"], state["buf_y"],
                    state["size"], state["seen"], g, scratch[0], *scratch_slots, scratch[1],
                    scratch[2], pack, rows.data, rows.indices, rows.indptr, y, block, draws, hp,
                    t)
        else:
            acc = np.zeros(rows.n_features)

            def call(block, draws, t):
                return pairwise_buffer_epoch(
                    state["w"], state["w_avg"], slots[0], state["buf_sq"], state["buf_y"],
                    state["size"], state["seen"], g, acc, *scratch, rows.data, rows.indices,
                    rows.indptr, y, block, draws, hp, t)

        return run_in_blocks(order, s, rng, call, t)

    return run


def coef(state, params) -> np.ndarray:
    """Return the averaged iterate (``output="average"``) or the last one."""
    w, w_avg = iterates(state)
    return w_avg if params["output"] == "average" else w


def warm_values(state: dict) -> dict:
    """Return the entry ``warm_start=True`` reuses: the last iterate ``w``."""
    return {"w": iterates(state)[0]}


def _loss(params) -> str:
    """Return the pairwise loss the estimator minimises."""
    return params["loss"]


_COMMON = dict(
    streaming=True,
    sparse=True,
    coef=coef,
    step_param="eta",
    warm_keys=("w",),
    warm_values=warm_values,
    equivalence_params={"eta": 0.05},
    family="pairwise_buffer",
)

OGD_FIFO = register(
    AlgorithmSpec(
        id="ogd-fifo",
        name="OGD (FIFO, previous example)",
        estimator="aucopt.linear_model._pairwise_buffer:OGDFIFOClassifier",
        paper=YANG_PAPER,
        source="Yang, Lei, Wang, Yang, Ying, NeurIPS 2021",
        memory="O(d) (iterate, average, the previous example densified, its indices)",
        cost="O(nnz) per sample on CSR rows (lazy scale and average kept between calls), "
        "O(d) on dense rows",
        init_state=_init_state(1),
        column_keys=("pack", "acc", "buf"),
        extra_columns=fifo_columns,
        lazy_form=_fresh_lazy,
        plain_form=plain_form,
        data_shaped=("prev_idx",),  # grown to the longest CSR row seen
        run=_runner("ogd-fifo", FIFO),
        signed_state=("prev_nnz",),  # -1: a dense row is stored
        check_state=_check_state(1),
        calibration=StepCalibration(regularised(_loss, l2="lam"), unit=AUTO_ETA["ogd-fifo"]),
        grid={"eta": ETA_GRID, "lam": LAM_GRID},
        quick_grid={"eta": ("auto", 2.0**-7, 2.0**-5, 2.0**-3)},
        notes="AlQuabeh et al. 2024: eta in 2^[-8:-1], lambda in 10^[-8:-1], 3-fold CV. "
        "eta='auto' is "
        "calibrated on the data. Same-label pairs: no step (authors' code).",
        **_COMMON,
    )
)

KAR = register(
    AlgorithmSpec(
        id="kar",
        name="OLP (Kar et al., RS-x buffer)",
        estimator="aucopt.linear_model._pairwise_buffer:KarClassifier",
        paper=KAR_PAPER,
        source="Kar, Sriperumbudur, Jain, Karnick, ICML 2013",
        memory="O(s K + d) on CSR rows (a buffer of s = buffer_size rows stored sparsely, K the "
        "longest row), O(s d) on dense rows",
        cost="O(s nnz) per sample on CSR rows (lazy l2 scale, projection and average; O(d) once "
        "per call), O(s d) on dense rows; + s uniforms per sample for RS-x",
        init_state=_init_state(0),
        run=_runner("kar", RSX),
        data_shaped=("buf", "buf_idx"),
        check_state=_check_state(0),
        calibration=StepCalibration(regularised(_loss, l2="lam"), unit=AUTO_ETA["kar"]),
        grid={"eta": ETA_GRID, "lam": LAM_GRID, "buffer_size": (100,)},
        quick_grid={"eta": ("auto", 2.0**-9, 2.0**-7, 2.0**-5)},
        notes="AlQuabeh et al. 2024: eta in 2^[-8:-1], lambda in 10^[-8:-1], 3-fold CV; buffer "
        "size not "
        "reported (100 here, as OAM). eta='auto' is calibrated on the data.",
        **_COMMON,
    )
)
