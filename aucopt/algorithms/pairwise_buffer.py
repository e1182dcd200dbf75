"""OGD with the previous example (Yang et al. 2021) and Kar et al.'s OLP with an RS-x buffer.

State layout, hyperparameters and kernel call (Yang et al. 2021; Kar et al. 2013).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels._buffers import LOSS_CODES, Buffer
from .._kernels._schedules import CONSTANT, INV_SQRT
from .._kernels._state import view, zeros
from .._kernels.pairwise_buffer import (
    FIFO,
    RSX,
    FifoLazyState,
    FifoState,
    KarState,
    PairWork,
    fifo_epoch_dense,
    pairwise_buffer_epoch,
)
from .._kernels.pairwise_buffer_lazy import (
    LAZY_T,
    NEEDS_FOLD,
    fifo_epoch_lazy,
    fifo_lazy_fold,
    rsx_epoch_lazy,
)
from .._kernels.reservoir_rows import kar_keep, kar_row
from ..utils._param_validation import Interval, Options
from ._calibrate import StepCalibration, regularised
from ._data import drop_lazy_form, scaled_iterates
from ._fast import specialised
from ._memory import check_memory
from ._params import NON_NEGATIVE, KernelScalars, Param, auto_step, codes, common, precondition
from ._registry import register
from ._row_score import scaled_terms
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from .oam import (
    auto_scaled,
    buffer_size,
    check_slots,
    match_slots,
    max_memory,
    run_in_blocks,
)

__all__ = ["PARAMS", "KAR_PARAMS", "PairwiseHyper", "AUTO_ETA", "SCHEDULES", "OGD_FIFO", "KAR",
           "iterates", "hyper"]

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


def _radius(value) -> float:
    """The kernel's radius: 0 for None (no projection)."""
    return 0.0 if value is None else float(value)


_OUTPUT = Param("output", "average", (Options(str, {"average", "last"}),), '{"average", "last"}',
                "Score with the average of the iterates or the last one.")
PARAMS = (
    auto_step("eta", AUTO_ETA["ogd-fifo"], r"""
        Step scale: :math:`\eta_t = \eta/\sqrt{t}` (``schedule="inv_sqrt"``) or :math:`\eta`
        (``"constant"``). ``"auto"`` calibrates it on the training data (a short run per step of
        a geometric ladder, the lowest objective wins; :mod:`aucopt.algorithms._calibrate`) and
        stores the value used in ``eta_``."""),
    Param("lam", 1e-4, (NON_NEGATIVE,), "float", r"l2 weight :math:`\lambda` (proximal step).",
          kernel=float),
    Param("loss", "square", (Options(str, set(LOSS_CODES)),), '{"square", "hinge"}',
          r"Pairwise surrogate :math:`\phi`.", kernel=codes(LOSS_CODES)),
    Param("radius", None, (Interval(Real, 0, None, closed="neither"), None), "float or None",
          """
        Radius :math:`R` of the l2-ball projection (the authors' code); None
        for no projection.""", kernel=_radius),
    Param("schedule", "inv_sqrt", (Options(str, set(SCHEDULES)),), '{"inv_sqrt", "constant"}',
          "Step-size schedule.", kernel=codes(SCHEDULES)),
    _OUTPUT,
    *common(max_iter=10, max_iter_doc="""
        Passes over the data in ``fit`` (a later pass offers every row again;
        the authors' code used 10 passes).""",
            warm_start="Start ``fit`` from the previous last iterate (the counters restart)."),
)
_HEAD = [p.name for p in PARAMS].index("max_iter")  # Kar adds its buffer's before max_iter
_KAR_DOCS = {
    "max_iter": "Passes over the data in ``fit`` (a later pass offers every row again).",
    "warm_start": "Start ``fit`` from the previous last iterate (the buffer restarts empty).",
}
KAR_PARAMS = (
    *PARAMS[:_HEAD],
    buffer_size("Capacity s of the buffer (both classes together)."),
    max_memory("the buffer"),
    *(p.replace(doc=_KAR_DOCS[p.name]) if p.name in _KAR_DOCS else p
      for p in PARAMS[_HEAD:]),
)

# The kernel scalars (the buffer policy, FIFO or RS-x, is the kernel's argument ``policy``).
hyper = KernelScalars("PairwiseHyper", __name__, PARAMS)
PairwiseHyper = hyper.type


def _init_state(state_type):
    def init_state(n_features: int, n_samples: int, params: dict, rng=None):
        """Return a fresh state: the arrays of ``state_type``.

        :class:`~aucopt._kernels.pairwise_buffer.FifoState` (CSR rows switch it to
        :class:`~aucopt._kernels.pairwise_buffer.FifoLazyState`) or
        :class:`~aucopt._kernels.pairwise_buffer.KarState` (its slots start sparse, of
        width 0; see :func:`aucopt.algorithms.oam.new_slots`).
        """
        if state_type is KarState:
            s = int(params["buffer_size"])
            check_memory(4.0 * s, params, f"a buffer of {s} rows", "Lower buffer_size")
        return zeros(state_type, n_features, params)

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
    """Switch a FIFO state to the lazy form ``FifoLazyState`` (O(d), once: the first CSR
    call)."""
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
    return scaled_iterates(state, LAZY_T)


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
    st, position = view(FifoLazyState, state), 0
    while True:
        t, status, position = fifo_epoch_lazy(st, rows.data, rows.indices, rows.indptr, y, order,
                                              position, hp, t)
        if status != NEEDS_FOLD:
            return t, status
        if before_dense is not None:
            before_dense()
        fifo_lazy_fold(st.pack, st.acc, st.lazy)


def fifo_columns(state: dict) -> np.ndarray:
    """Columns a FIFO call writes besides its rows': those of the stored previous row."""
    return state["prev_idx"][:max(int(state["prev_nnz"][0]), 0)]


def _fifo(state, rows: RowData, y, order, hp, t, before_dense):
    """FIFO: the lazy kernel on CSR rows, else the plain form (two sweeps per step on dense
    rows)."""
    if rows.is_sparse and specialised(fifo_epoch_lazy):  # exact O(nnz) steps
        return _fifo_lazy(state, rows, y, order, hp, t, before_dense)
    if before_dense is not None and (rows.is_sparse or "pack" in state):
        before_dense()  # the generic kernel writes every column
    if "pack" in state:
        _to_plain(state)
    st = view(FifoState, state)
    if not rows.is_sparse and specialised(fifo_epoch_dense):
        result = fifo_epoch_dense(st, rows.data, rows.indices, rows.indptr, y, order, hp, t)
    else:
        buf = Buffer(st.buf, None, None, st.buf_sq, st.buf_y)
        work = PairWork(np.empty(1), np.zeros(rows.n_features), _spare(buf, 0))
        result = pairwise_buffer_epoch(st, buf, work, rows.data, rows.indices, rows.indptr, y,
                                       order, np.empty((order.shape[0], 0)), hp, t, FIFO)
    state["prev_nnz"][0] = -1  # a row is stored densely: its support is unknown
    return result


def _spare(buf: Buffer, rows: int) -> Buffer:
    """Return ``rows`` empty slots of the layout and width of ``buf`` (RS-x repopulation)."""
    width = buf.val.shape[1]
    if buf.idx is None:
        return Buffer(np.zeros((rows, width)), None, None, np.zeros(rows), np.zeros(rows))
    return Buffer(np.zeros((rows, width)), np.zeros((rows, width), dtype=np.int64),
                  np.zeros(rows, dtype=np.int64), np.zeros(rows), np.zeros(rows))


def _kar(state, rows: RowData, y, order, params, hp, t, rng):
    """Kar's OLP: one pass, drawing ``rng.random((len(order), s))`` (RS-x) block-wise."""
    slots = match_slots(state, rows, params)
    st = view(KarState, state)
    buf = Buffer(*slots, st.buf_sq, st.buf_y)
    s = st.buf_sq.shape[0]
    seen = int(st.seen[0])
    repopulate = seen <= s < seen + order.shape[0]  # t = s + 1 in this call
    spare = _spare(buf, s if repopulate else 0)
    if buf.idx is not None and specialised(rsx_epoch_lazy):  # exact O(s nnz) steps (lazy)
        work = PairWork(np.empty(s), np.empty((rows.n_features, 2)), spare)

        def call(block, draws, t):
            return rsx_epoch_lazy(st, buf, work, rows.data, rows.indices, rows.indptr, y, block,
                                  draws, hp, t)
    else:
        work = PairWork(np.empty(s), np.zeros(rows.n_features), spare)

        def call(block, draws, t):
            return pairwise_buffer_epoch(st, buf, work, rows.data, rows.indices, rows.indptr, y,
                                         block, draws, hp, t, RSX)

    return run_in_blocks(order, s, rng, call, t)


def _kar_row(state: dict, hp) -> RowStep | None:
    """Return Kar's call of ``run`` on one CSR row: :func:`rsx_epoch_lazy` on sparse slots
    (None: dense slots, which ``run`` converts first) with the row's ``s`` uniforms
    (``RowStep.draws``), in :func:`~aucopt._kernels.reservoir_rows.kar_row`, which keeps
    the slots the row is written to (``RowStep.own``). Its lazy pass writes ``w`` and
    ``w_avg`` whole (O(d) per call, as ``run`` on a one-row chunk): the transaction saves
    them whole."""
    buf, idx = state["buf"], state["buf_idx"]
    if idx.shape[-1] != buf.shape[-1] or not specialised(rsx_epoch_lazy):
        return None
    st = view(KarState, state)
    slots = Buffer(buf, idx, state["buf_nnz"], st.buf_sq, st.buf_y)
    s = st.buf_sq.shape[0]
    work = PairWork(np.empty(s), np.empty((st.w.shape[0], 2)), _spare(slots, s))
    draws = np.empty((1, s))
    return RowStep(kar_row, (st, slots, work), (draws, hp), (kar_keep(s, buf.shape[1]),),
                   watch=("data_sqmax",) if hp.auto_eta else (), max_nnz=buf.shape[1],
                   own=("buf", "buf_idx", "buf_nnz", "buf_sq", "buf_y"), draws=draws)


def _runner(algorithm_id: str, policy: int):
    def run(state, rows: RowData, y, order, params, t, learn, rng=None, before_dense=None):
        """One pass; Kar draws ``rng.random((len(order), s))`` (RS-x) block-wise, FIFO nothing.

        Every visit is an arrival (a second pass offers the rows again).
        """
        hp = auto_scaled(hyper(params), "eta", AUTO_ETA[algorithm_id], state)
        if policy == FIFO:
            return _fifo(state, rows, y, order, hp, t, before_dense)
        return _kar(state, rows, y, order, params, hp, t, rng)

    def row_kernel(state: dict, params: dict) -> RowStep | None:
        """Return the call of ``run`` on one CSR row (see ``AlgorithmSpec.row_kernel``; None
        when ``run`` would change forms first): FIFO's in the lazy form, which also writes
        the columns of the stored previous row (:func:`fifo_columns`), or Kar's
        (:func:`_kar_row`)."""
        hp = auto_scaled(hyper(params), "eta", AUTO_ETA[algorithm_id], state)
        if policy == RSX:
            return _kar_row(state, hp)
        if not specialised(fifo_epoch_lazy) or "pack" not in state or state["prev_nnz"][0] < 0:
            return None
        return RowStep(fifo_epoch_lazy, (view(FifoLazyState, state),), (0, hp), (),
                       watch=("data_sqmax",) if hp.auto_eta else (),
                       extra=("prev_idx", "prev_nnz"), max_nnz=state["prev_idx"].shape[0])

    return {"run": run, "row_kernel": row_kernel}


def coef(state, params) -> np.ndarray:
    """Return the averaged iterate (``output="average"``) or the last one."""
    w, w_avg = iterates(state)
    return w_avg if params["output"] == "average" else w


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as terms of FIFO's lazy form (see ``AlgorithmSpec.coef_terms``), or
    in the plain form (Kar's OLP, whose pass writes ``w`` and ``w_avg`` whole; FIFO on
    dense rows) the entry itself."""
    return scaled_terms(state, LAZY_T, params["output"] == "average")


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
    coef_terms=coef_terms,
    step_param="eta",
    warm_keys=("w",),
    warm_values=warm_values,
    equivalence_params={"eta": 0.05, "precondition": None},
    family="pairwise_buffer",
    weights="steps",  # buf_y keeps the signed weights +-w of the stored rows
)

OGD_FIFO = register(
    AlgorithmSpec(
        id="ogd-fifo",
        name="OGD (FIFO, previous example)",
        paper=YANG_PAPER,
        source="Yang, Lei, Wang, Yang, Ying, NeurIPS 2021",
        memory="O(d) (iterate, average, the previous example densified, its indices)",
        cost="O(nnz) per sample on CSR rows (lazy scale and average kept between calls), "
        "O(d) on dense rows",
        init_state=_init_state(FifoState),
        params=(*PARAMS, precondition()),
        state=(FifoState, FifoLazyState),
        column_keys=("pack", "acc", "buf"),
        extra_columns=fifo_columns,
        lazy_form=_fresh_lazy,
        plain_form=plain_form,
        **_runner("ogd-fifo", FIFO),
        check_state=_check_state(1),
        calibration=StepCalibration(regularised(_loss, l2="lam"), unit=AUTO_ETA["ogd-fifo"],
                                    weight_power=2.0),
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
        exact_blocks=False,  # per-call sums or scales: blocks agree to rounding only
        paper=KAR_PAPER,
        source="Kar, Sriperumbudur, Jain, Karnick, ICML 2013",
        memory="O(s K + d) on CSR rows (a buffer of s = buffer_size rows stored sparsely, K the "
        "longest row), O(s d) on dense rows",
        cost="O(s nnz) per sample on CSR rows (lazy l2 scale, projection and average; O(d) once "
        "per call), O(s d) on dense rows; + s uniforms per sample for RS-x",
        init_state=_init_state(KarState),
        params=(*KAR_PARAMS, precondition()),
        state=(KarState,),
        **_runner("kar", RSX),
        check_state=_check_state(0),
        calibration=StepCalibration(regularised(_loss, l2="lam"), unit=AUTO_ETA["kar"], share=0.8,
                                    weight_power=2.0),
        grid={"eta": ETA_GRID, "lam": LAM_GRID, "buffer_size": (100,)},
        quick_grid={"eta": ("auto", 2.0**-9, 2.0**-7, 2.0**-5)},
        notes="AlQuabeh et al. 2024: eta in 2^[-8:-1], lambda in 10^[-8:-1], 3-fold CV; buffer "
        "size not "
        "reported (100 here, as OAM). eta='auto' is calibrated on the data.",
        **_COMMON,
    )
)
