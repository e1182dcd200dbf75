"""Partial-AUC learners: state layout, hyperparameters, kernel call.

``pauc-1pmb``: the one-pass mini-batch method 1PMB of P. Kar, H. Narasimhan, P. Jain,
"Online and stochastic gradient methods for non-decomposable loss functions", NeurIPS 2014
(section 5), on the one-way pAUC surrogate over FPR in [0, max_fpr] of H. Narasimhan and
S. Agarwal, "SVMpAUC-tight: a new support vector method for optimizing partial AUC based
on a tight convex upper bound", KDD 2013, in a streaming form with bounded memory
(:mod:`aucopt._kernels.pauc`).

``pauc-2pmb``: the two-pass mini-batch method 2PMB of the same paper (section 5), on the
same surrogate: a first pass draws a uniform sample of positives, a second streams the
negatives in batches, each step pairing a batch with that sample. It needs the whole
training set before its first step, so it is a batch id (``fit`` only).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels._buffers import LOSS_CODES
from .._kernels._schedules import CONSTANT, INV_SQRT
from .._kernels._state import view, zeros
from .._kernels.pauc import PaucState, batch_length, pauc_2pmb_epoch, pauc_epoch, share_count
from .._kernels.pauc_rows import pauc_row
from ..utils._param_validation import Interval, Options
from ..utils._roc_area import mcclish, sorted_area
from ._buffer_weights import check_weights
from ._calibrate import StepCalibration
from ._memory import check_memory
from ._params import NON_NEGATIVE, KernelScalars, Param, auto_step, codes, common, precondition
from ._pauc_rows import buffered_row_step
from ._registry import register
from ._rowpath import RowStep
from ._spec import AlgorithmSpec, RowData
from .oam import auto_scaled, buffer_size, check_slots, match_slots, max_memory

__all__ = ["PARAMS", "PARAMS_2PMB", "PaucHyper", "AUTO_ETA", "PAUC_1PMB", "PAUC_2PMB", "hyper",
           "partial_auc_surrogate", "max_fpr_param", "check_buffers", "partial_auc_objective"]

PAPER = (
    "P. Kar, H. Narasimhan, P. Jain. Online and stochastic gradient methods for "
    "non-decomposable loss functions. NeurIPS 2014 ({}, section 5); surrogate of "
    "H. Narasimhan, S. Agarwal. SVMpAUC-tight: a new support vector method for optimizing "
    "partial AUC based on a tight convex upper bound. KDD 2013."
)

# eta="auto" is calibrated on the data (aucopt.algorithms._calibrate) on a ladder centred on
# AUTO_ETA / m2, m2 the mean squared row norm of the sample; until partial_fit has a chunk to
# calibrate on, the kernel uses AUTO_ETA / M^2, M^2 the largest squared row norm seen.
AUTO_ETA = 1.0
SCHEDULES = {"inv_sqrt": INV_SQRT, "constant": CONSTANT}
ETA_GRID = tuple(2.0**k for k in range(-8, 3))
LAM_GRID = tuple(10.0**k for k in range(-8, 0))


TOP_K = r"""each step ranks every positive above the
        :math:`\lceil \beta n_- \rceil` negatives of the batch that the model scores
        highest"""


def max_fpr_param(default: float = 0.1, how: str = TOP_K) -> Param:
    """Declare ``max_fpr``, the upper end beta of the false-positive range [0, beta], whose
    description says ``how`` the method uses it."""
    return Param("max_fpr", default, (Interval(Real, 0, 1, closed="right"),), "float", rf"""
        Upper end :math:`\beta` of the false-positive range :math:`[0, \beta]` whose
        partial AUC is maximised: {how}. 1 gives the full pairwise AUC surrogate.""",
                 kernel=float)


# as TOP_K, with the positives that min_tpr keeps
_TOP_K_OF_STEP = r"""each step ranks its positives (every one, or
        the lowest-scored with ``min_tpr``) above the :math:`\lceil \beta n_- \rceil`
        negatives of the batch that the model scores
        highest"""

PARAMS = (
    auto_step("eta", AUTO_ETA, r"""
        Step scale: :math:`\eta_e = \eta/\sqrt{e}` at step :math:`e` (``schedule="inv_sqrt"``,
        Kar et al.'s schedule) or :math:`\eta` (``"constant"``). ``"auto"`` calibrates it on the
        training data (a short run per step of a geometric ladder, the lowest partial-AUC
        objective wins; :mod:`aucopt.algorithms._calibrate`) and stores the value used in
        ``eta_``."""),
    max_fpr_param(how=_TOP_K_OF_STEP),
    Param("min_tpr", 0.0, (Interval(Real, 0, 1, closed="left"),), "float", r"""
        Lower end :math:`\alpha` of the true-positive range of the two-way partial AUC
        (TPR :math:`\ge \alpha`, FPR :math:`\le \beta`): each step pairs only the
        :math:`n_+ - \lfloor \alpha n_+ \rfloor` stored positives that the model scores
        lowest (of the :math:`n_+` of the step) with the top negatives. 0 (every positive)
        is the one-way method of Kar et al.; :math:`\alpha > 0` is an extension of it to
        the two-way range (a convex upper bound of the batch's two-way risk with the hinge
        loss; notes.md#pauc-two-way).""",
          kernel=float),
    Param("lam", 0.0, (NON_NEGATIVE,), "float", r"""
        l2 weight :math:`\lambda` (proximal step). 0 by default: a fixed weight does not
        follow the scale of the features (Kar et al. keep the iterates in a ball; no
        projection here).""",
          kernel=float),
    Param("loss", "square", (Options(str, set(LOSS_CODES)),), '{"square", "hinge"}', r"""
        Pairwise surrogate :math:`\phi(m)`: ``"square"`` :math:`(1 - m)^2` or ``"hinge"``
        :math:`\max(0, 1 - m)` (the structural surrogate of Narasimhan & Agarwal). Both rank
        alike on imbalanced data; with the square loss a step far too large diverges (and
        is reported) instead of leaving a model made of the last batch's gradient.""",
          kernel=codes(LOSS_CODES)),
    buffer_size(r"""
        Size B of the negative batches (one step per B negatives, after first batches of
        1, 2, 4, ... negatives) and capacity of the ring of the last B positives used by
        every step. Smaller batches take more steps per
        pass; 32 did as well as 100 on imbalanced data at a third of the batches' cost.""").replace(
        default=32),
    max_memory("the two buffers"),
    Param("schedule", "inv_sqrt", (Options(str, set(SCHEDULES)),), '{"inv_sqrt", "constant"}',
          "Step-size schedule.", kernel=codes(SCHEDULES)),
    *common(max_iter=5, max_iter_doc="""
        Passes over the data in ``fit`` (1PMB makes one; a later pass offers every row
        again, as new arrivals).""",
            warm_start="Start ``fit`` from the previous iterate (the buffers restart empty)."),
)

# 2PMB: the same declarations, but for what its buffers hold and what a pass is
_2PMB_DOCS = {
    "buffer_size": r"""
        Size B of the negative batches (one step per B negatives, after first batches of
        1, 2, 4, ... negatives) and of the uniform sample of positives that the first pass
        of every epoch draws.""",
    "max_iter": """
        Epochs of ``fit``, each of two passes over the data (the sample of positives,
        then the batches of negatives); 2PMB makes one, a later epoch draws a new sample
        and goes on from the iterate.""",
}
PARAMS_2PMB = tuple(p.replace(doc=_2PMB_DOCS[p.name]) if p.name in _2PMB_DOCS else p
                    for p in PARAMS)

hyper = KernelScalars("PaucHyper", __name__, PARAMS)
PaucHyper = hyper.type


def partial_auc_surrogate(scores, y, max_fpr, loss) -> float:
    """Return the weighted pAUC surrogate of the scores: every positive against the
    ``ceil(max_fpr n-)`` highest-scored negatives (ties: the earlier row), mean of ``phi``.

    ``y`` are signed weights ``+-w``; a pair weighs ``w_i w_j``.
    """
    pos, weights = y > 0, np.abs(y).astype(np.float64)
    sp, wp = scores[pos], weights[pos]
    sn, wn = scores[~pos], weights[~pos]
    k = max(1, min(share_count(max_fpr, sn.shape[0], True), sn.shape[0]))
    top = np.argsort(-sn, kind="stable")[:k]
    margin = sp[:, None] - sn[top][None, :]
    phi = np.maximum(0.0, 1.0 - margin) if loss == "hinge" else (1.0 - margin) ** 2
    pair = wp[:, None] * wn[top][None, :]
    return float(np.sum(pair * phi) / np.sum(pair))


def partial_auc_objective(scores, w, params, y) -> float:
    r"""The calibration objective of pauc-1pmb, pauc-2pmb and pauc-sopa: one minus the partial
    AUC over FPR in [0, max_fpr] (McClish's standardisation) of the sample's scores, or with
    ``min_tpr`` > 0 (pauc-1pmb, pauc-2pmb) over the two-way range TPR >= min_tpr too.

    The target itself rather than the surrogate: the hinge surrogate over the top negatives
    stays near its value at w = 0 after a brief run on hard data, so every step would look
    alike and the smallest would win. It depends on the ranking only (``scale_free``: the
    middle of the steps that score alike is chosen); rows count once whatever their weight.
    The two-way area is standardised as McClish's: 0.5 for a random ranking (the area
    :math:`(\beta - \alpha)_+^2 / 2` under the diagonal), 1 for a perfect one
    (:math:`(1 - \alpha) \beta`); at ``min_tpr=0`` both are McClish's.
    """
    max_fpr, min_tpr = float(params["max_fpr"]), float(params.get("min_tpr", 0.0))
    pos = y > 0
    area = sorted_area(np.sort(scores[pos]), np.sort(scores[~pos]), 0.0, max_fpr, min_tpr)
    if min_tpr > 0.0:
        least, most = max(0.0, max_fpr - min_tpr) ** 2 / 2.0, (1.0 - min_tpr) * max_fpr
        return 1.0 - 0.5 * (1.0 + (area - least) / (most - least))
    return 1.0 - (area if max_fpr >= 1.0 else mcclish(area, 0.0, max_fpr))


partial_auc_objective.scale_free = True


def init_state(n_features: int, n_samples: int, params: dict, rng=None) -> dict:
    """Return a fresh state: the arrays of :class:`aucopt._kernels.pauc.PaucState` (scale 1;
    the buffer slots start sparse, of width 0, :func:`aucopt.algorithms.oam.new_slots`)."""
    capacity = int(params["buffer_size"])
    check_memory(12.0 * capacity, params, f"two buffers of {capacity} rows", "Lower buffer_size")
    state = zeros(PaucState, n_features, params)
    state["scale"][0] = 1.0
    return state


def check_state(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless a loaded state has consistent buffers and a positive scale."""
    check_buffers(state, params, n_features)
    if not (np.isfinite(state["scale"][0]) and state["scale"][0] > 0):
        raise ValueError("the scale of the iterate must be a positive number")


def check_buffers(state: dict, params: dict, n_features: int) -> None:
    """Raise ValueError unless the two buffers of a loaded state (negatives of the current
    batch, ring of positives) are consistent."""
    capacity = int(params["buffer_size"])
    check_slots(state, (2, capacity), n_features)
    size, ring = state["size"], int(state["ring"][0])
    length = batch_length(int(state["batches"][0]), capacity)
    if (size > capacity).any() or size[0] >= length or not 0 <= ring < capacity:
        raise ValueError(f"buffer sizes {size.tolist()} / ring position {ring} do not fit "
                         f"buffer_size={capacity} (current batch: {length} negatives)")
    check_weights(state["buf_w"], np.arange(capacity) < size[:, None])


def _kernel_args(state, rows: RowData, params) -> tuple:
    """Return ``(hp, slots, work)``: the kernel scalars (an ``eta="auto"`` not yet calibrated
    is ``AUTO_ETA / M^2``, M^2 the largest squared row norm given so far), the buffer slots
    in the layout of ``rows`` and the scratch arrays of one step."""
    hp = auto_scaled(hyper(params), "eta", AUTO_ETA, state)
    slots = match_slots(state, rows, params)
    return hp, slots, _work(int(params["buffer_size"]))


def _work(capacity: int) -> tuple:
    """Return the scratch arrays of one step for buffers of ``capacity`` slots."""
    return (np.empty(capacity), np.empty(capacity), np.empty(capacity), np.empty(capacity),
            np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64))


def run(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One pass over ``order`` (see :func:`aucopt._kernels.pauc.pauc_epoch`); draws nothing."""
    hp, slots, work = _kernel_args(state, rows, params)
    return pauc_epoch(view(PaucState, state), slots, work, rows.data, rows.indices,
                      rows.indptr, y, order, hp, t)


def row_kernel(state: dict, params: dict) -> RowStep | None:
    """Return 1PMB's call of ``run`` on one CSR row (see ``AlgorithmSpec.row_kernel``; None
    for dense slots): :func:`aucopt._kernels.pauc_rows.pauc_row`, which keeps ``v`` at the
    stored rows' columns before a step."""
    hp = auto_scaled(hyper(params), "eta", AUTO_ETA, state)
    return buffered_row_step(pauc_row, view(PaucState, state), state, hp,
                             _work(int(params["buffer_size"])), hp.auto_eta, ("v",))


def reservoir_draws(n_positives: int, capacity: int, rng) -> np.ndarray:
    """Return the slot draws of a reservoir of ``capacity`` over ``n_positives`` rows: for the
    ``m``-th row past the first ``capacity``, an integer uniform in ``[0, capacity + m]``."""
    highs = np.arange(capacity + 1, n_positives + 1, dtype=np.int64)
    return rng.integers(0, highs) if highs.size else highs


def run_2pmb(state, rows: RowData, y, order, params, t, learn, rng=None):
    """One epoch of 2PMB over ``order``: the sample of positives (slot draws from ``rng``),
    then the batches of negatives (:func:`aucopt._kernels.pauc.pauc_2pmb_epoch`)."""
    hp, slots, work = _kernel_args(state, rows, params)
    draws = reservoir_draws(int(np.count_nonzero(y[order] > 0)), int(params["buffer_size"]),
                            rng)
    return pauc_2pmb_epoch(view(PaucState, state), slots, work, rows.data, rows.indices,
                           rows.indptr, y, order, draws, hp, t)


def coef(state, params) -> np.ndarray:
    """Return the last iterate ``scale * v``."""
    return state["v"] * state["scale"][0]


def coef_terms(state, params) -> tuple:
    """Return ``coef`` as ``scale`` times the entry ``v`` (see ``AlgorithmSpec.coef_terms``;
    a step writes ``v`` at the columns of the stored rows, a fold of the scale whole)."""
    return ((state["scale"][0], "v", 0),)


def warm_values(state: dict) -> dict:
    """Return the entries ``warm_start=True`` reuses: the iterate, scale folded in."""
    return {"v": coef(state, None), "scale": np.ones(1)}


# what the two mini-batch methods share: state, checks, the step and its calibration
_SHARED = dict(
    family="pauc",
    source="Kar, Narasimhan, Jain, NeurIPS 2014",
    sparse=True,
    init_state=init_state,
    coef=coef,
    coef_terms=coef_terms,
    state=(PaucState,),
    check_state=check_state,
    grid={"eta": ETA_GRID, "lam": LAM_GRID},
    quick_grid={"eta": ("auto", 2.0**-4, 2.0**-1)},
    step_param="eta",
    calibration=StepCalibration(partial_auc_objective, unit=AUTO_ETA, share=0.8,
                                weight_power=0.0),
    warm_keys=("v", "scale"),
    warm_values=warm_values,
    weights="steps",
)
_PAPER_SETTING = "Kar et al. 2014 tune the step on a held-out set; batch sizes in the hundreds. "
_AUTO_NOTE = (" eta='auto' is calibrated on the data with the pAUC objective (two-way when "
              "min_tpr > 0).")
_STEP_COST = ("(one step per B negatives: scores of the 2B stored rows, top-k and bottom-m "
              "selections, k = ceil(max_fpr B), m = B - floor(min_tpr B), m k pairs)")

PAUC_1PMB = register(
    AlgorithmSpec(
        id="pauc-1pmb",
        name="pAUC 1PMB (streaming)",
        paper=PAPER.format("1PMB"),
        streaming=True,
        memory="O(B K + d) on CSR rows (two buffers of B = buffer_size rows stored sparsely, K "
        "the longest row), O(B d) on dense rows; independent of n",
        cost=f"O(nnz + log B) per sample amortised on CSR rows {_STEP_COST}, "
        "O(d) per sample on dense rows",
        run=run,
        row_kernel=row_kernel,
        params=(*PARAMS, precondition()),
        equivalence_params={"eta": 0.05, "precondition": None},
        notes=_PAPER_SETTING + "Streaming form: the last buffer_size positives (a ring) meet "
        "every batch of buffer_size negatives." + _AUTO_NOTE,
        **_SHARED,
    )
)

PAUC_2PMB = register(
    AlgorithmSpec(
        id="pauc-2pmb",
        name="pAUC 2PMB (two passes)",
        paper=PAPER.format("2PMB"),
        streaming=False,
        memory="O(B K + d) on CSR rows (a sample of B = buffer_size positives and a batch of "
        "B negatives stored sparsely, K the longest row), O(B d) on dense rows; besides the "
        "training set, read twice per epoch",
        cost=f"per epoch O(nnz) for the sample of positives, then per negative O(nnz + log B) "
        f"amortised on CSR rows {_STEP_COST}, O(d) on dense rows",
        run=run_2pmb,
        params=(*PARAMS_2PMB, precondition()),
        exact_blocks=False,  # each call draws a new sample of positives
        notes=_PAPER_SETTING + "Each epoch draws a uniform sample of buffer_size positives "
        "(first pass) that meets every batch of buffer_size negatives (second pass)."
        + _AUTO_NOTE,
        **_SHARED,
    )
)
