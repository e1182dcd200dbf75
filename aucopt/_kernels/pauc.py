"""Mini-batch stochastic gradient on the partial-AUC surrogate, one-way (Kar, Narasimhan & Jain,
NeurIPS 2014, section 5: the one-pass mini-batch method 1PMB in a streaming form, and the
two-pass method 2PMB) or, with ``min_tpr``, two-way (an extension: notes.md#pauc-two-way).

Objective on a batch (the "tight" structural surrogate of pAUC over FPR in [0, beta] of
Narasimhan & Agarwal, KDD 2013, which Kar et al. instantiate for pAUC):

    L(w) = 1/Z sum_{i in P} sum_{j in top_k(N; w)} w_i w_j phi(w.(x_i - x_j)),

``top_k(N; w)`` the ``k = ceil(beta |N|)`` negatives of the batch that ``w`` scores highest,
``Z = sum_i w_i * sum_{j in top_k} w_j``, ``phi(m) = max(0, 1 - m)`` or ``(1 - m)^2``,
``w_i`` the sample weights. With ``min_tpr = alpha > 0`` (the two-way partial AUC over
TPR >= alpha, FPR <= beta; notes.md#pauc-two-way) the sum over ``P`` is over
``bottom_m(P; w)``, the ``m = |P| - floor(alpha |P|)`` positives that ``w`` scores lowest,
and ``Z`` sums their weights; ``alpha = 0`` keeps every positive (the paper's method).
Step ``e`` (one per batch): ``w <- prox_{eta_e (lam/2)||.||^2}(w - eta_e grad L(w))``,
``eta_e = eta / sqrt(e)`` (or constant).

Streaming form with bounded memory: the batch of negatives is the next negatives of the
stream (stored until the batch is full, then one step, then cleared, as 1PMB's epochs),
and the positives of every step are the last ``buffer_size`` positives (a ring buffer that
outlives the steps), so that rare positives serve several steps. Batch ``e = 0, 1, ...``
holds ``min(buffer_size, 2^e)`` negatives: the first steps come after 1, 2, 4, ...
negatives, so that a model moves from the first rows on (small data, a new stream), and
the batches then keep the size ``buffer_size``.

2PMB (:func:`pauc_2pmb_epoch`) makes two passes over the rows: the first draws a uniform
sample of ``buffer_size`` positives (Vitter's reservoir sampling, Algorithm R), the second
streams the negatives through the same batches and steps as 1PMB, every step against that
fixed sample.

Sample weights (notes.md#sample-weights) arrive as signed labels ``+-w``.

The iterate is kept as ``w = scale * v`` so that the l2 shrinkage is O(1); a step writes
``v`` only at the columns of the stored rows (O(B nnz) per step on CSR rows).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._buffers import HINGE, pair_loss_derivative
from ._checks import DIVERGED, OK, exploding, unit_power
from ._schedules import step_size
from ._slots import class_slots, slot_axpy, slot_dot, slot_store
from ._state import ANY, F64, I64, D, Dim

__all__ = ["PaucState", "pauc_epoch", "pauc_2pmb_epoch", "batch_length", "store_row", "NEG", "POS",
           "pair_loss"]

NEG = 0
POS = 1
N = Dim("buffer_size")
_FOLD = 1e-150  # fold the scale into v below this (O(d), rare)


class PaucState(NamedTuple):
    """The state: the scaled iterate and two buffers (negatives at index 0)."""

    v: F64[D]  # w = scale * v
    scale: F64[1]
    buf: F64[2, N, ANY]  # slot values (sparse: width K, the longest row; dense: width d)
    buf_idx: I64[2, N, ANY]  # slot feature indices (sparse slots; width 0 when dense)
    buf_nnz: I64[2, N]  # slot row lengths (sparse slots)
    buf_w: F64[2, N]  # sample weights of the stored rows
    size: I64[2]  # rows stored: negatives of the current batch, positives in the ring
    ring: I64[1]  # next slot of the positive ring
    seen: I64[2]  # rows received per class
    batches: I64[1]  # negative batches completed (batch e holds min(B, 2^e) negatives)


@njit(cache=True, nogil=True)
def pair_loss(loss, margin):
    """Return ``phi(margin)``: ``(1 - m)^2`` (square) or ``max(0, 1 - m)`` (hinge)."""
    if loss == HINGE:
        return max(0.0, 1.0 - margin)
    return (1.0 - margin) ** 2


@njit(cache=True, nogil=True)
def _top_negatives(sn, size, k, top):
    """Write in ``top[:k]`` the slots of the ``k`` largest scores ``sn[:size]`` (ties: the
    earlier slot first) and return k."""
    order = np.argsort(-sn[:size], kind="mergesort")
    for r in range(k):
        top[r] = order[r]
    return k


@njit(cache=True, nogil=True)
def _sift_down(heap, root, size):
    """Restore the max-heap order of ``heap[:size]`` below ``root``."""
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and heap[child + 1] > heap[child]:
            child += 1
        if heap[root] >= heap[child]:
            return
        heap[root], heap[child] = heap[child], heap[root]
        root = child


@njit(cache=True, nogil=True)
def _bottom_positives(sp, size, m, heap, chosen):
    """Set ``chosen[i]`` to 1 for the ``m`` smallest scores ``sp[:size]`` (ties: the earlier
    slot first) and to 0 for the others; O(size log m), no allocation.

    ``heap`` (scratch of ``m`` entries or more, overwritten) holds a max-heap of the ``m``
    smallest scores met, so that its top ends as the ``m``-th smallest: the cut.
    """
    if m >= size:
        for i in range(size):
            chosen[i] = 1
        return
    for i in range(m):
        heap[i] = sp[i]
    for root in range(m // 2 - 1, -1, -1):
        _sift_down(heap, root, m)
    for i in range(m, size):
        if sp[i] < heap[0]:
            heap[0] = sp[i]
            _sift_down(heap, 0, m)
    cut = heap[0]  # below it every score is chosen, at it the earliest slots
    ties = m
    for i in range(size):
        if sp[i] < cut:
            ties -= 1
    for i in range(size):
        chosen[i] = 0
        if sp[i] < cut:
            chosen[i] = 1
        elif sp[i] == cut and ties > 0:
            chosen[i] = 1
            ties -= 1


@njit(cache=True, nogil=True)
def share_count(fraction, n, up):
    """Return ``ceil(fraction n)`` (``up``) or ``floor(fraction n)``, a product within a
    relative 1e-12 of an integer taken as that integer: 0.28 x 25 is 7.000000000000001 in
    floating point, and the 7 meant (not 8) is what the papers' ``ceil(beta n)`` counts."""
    x = fraction * n
    near = np.floor(x + 0.5)
    if abs(x - near) <= 1e-12 * max(1.0, abs(x)):
        return int(near)
    return int(np.ceil(x)) if up else int(np.floor(x))


@njit(cache=True, nogil=True)
def _batch_step(st, slots, work, hp, t):
    """One 1PMB step on the stored batch; return ``(t, status)``.

    The pairs are the ``m = n_+ - floor(min_tpr n_+)`` lowest-scored stored positives
    (:func:`_bottom_positives`, in the scratch ``cp`` before it holds the positives'
    coefficients; all of them when ``min_tpr = 0``) against the
    ``k = ceil(max_fpr n_-)`` highest-scored negatives of the batch (notes.md#pauc-two-way).
    """
    v, scale = st.v, st.scale
    bval, bidx, bnnz = slots
    sp, sn, cp, cn, top, chosen = work
    n_neg, n_pos = st.size[NEG], st.size[POS]
    nv, ni, nn = class_slots(bval, bidx, bnnz, NEG)
    pv, pi, pn = class_slots(bval, bidx, bnnz, POS)
    s = scale[0]
    for j in range(n_neg):
        sn[j] = s * slot_dot(v, nv, ni, nn, j)
        if exploding(sn[j]):
            return t, DIVERGED
    for i in range(n_pos):
        sp[i] = s * slot_dot(v, pv, pi, pn, i)
        if exploding(sp[i]):
            return t, DIVERGED
    k = share_count(hp.max_fpr, n_neg, True)
    k = _top_negatives(sn, n_neg, max(1, min(k, n_neg)), top)
    m = n_pos - share_count(hp.min_tpr, n_pos, False)
    _bottom_positives(sp, n_pos, max(1, min(m, n_pos)), cp, chosen)
    wn = st.buf_w[NEG]
    wp = st.buf_w[POS]
    total_p = 0.0
    for i in range(n_pos):
        if chosen[i]:
            total_p += wp[i]
    total_n = 0.0
    for r in range(k):
        total_n += wn[top[r]]
    # the weighted pair mean with each class's weight sum brought into [1, 2) (the same bits;
    # weights beyond 1e154 made w_i w_j infinite and the iterate NaN, below 1e-154 zero)
    f_pos, f_neg = unit_power(total_p), unit_power(total_n)
    norm = 1.0 / ((total_p * f_pos) * (total_n * f_neg))
    for i in range(n_pos):
        cp[i] = 0.0
    for j in range(n_neg):
        cn[j] = 0.0
    for i in range(n_pos):
        if not chosen[i]:
            continue
        wi = wp[i] * f_pos  # (once per positive, not per pair)
        for r in range(k):
            j = top[r]
            g = pair_loss_derivative(hp.loss, sp[i] - sn[j]) * wi * (wn[j] * f_neg) * norm
            cp[i] += g
            cn[j] -= g
    t += 1
    eta = step_size(hp.schedule, hp.eta, 0.5, t)
    step = -eta / s
    for i in range(n_pos):
        if cp[i] != 0.0:
            slot_axpy(step * cp[i], v, pv, pi, pn, i)
    for r in range(k):
        j = top[r]
        if cn[j] != 0.0:
            slot_axpy(step * cn[j], v, nv, ni, nn, j)
    if hp.lam > 0.0:
        scale[0] = s / (1.0 + eta * hp.lam)
        if scale[0] < _FOLD:
            for q in range(v.shape[0]):
                v[q] *= scale[0]
            scale[0] = 1.0
    return t, OK


@njit(cache=True, nogil=True)
def batch_length(batches, capacity):
    """Return the number of negatives of batch ``batches``: ``min(capacity, 2^batches)``."""
    if batches >= 62:
        return capacity
    return min(capacity, 1 << batches)


@njit(cache=True, nogil=True)
def _put(st, slots, data, indices, indptr, y, i, label, slot):
    """Write row ``i`` and its weight in slot ``slot`` of buffer ``label``."""
    bval, bidx, bnnz = slots
    cv, ci, cn = class_slots(bval, bidx, bnnz, label)
    slot_store(data, indices, indptr, i, cv, ci, cn, slot)
    st.buf_w[label, slot] = abs(y[i])


@njit(cache=True, nogil=True)
def store_row(st, slots, data, indices, indptr, y, i):
    """Store row ``i`` in the buffers: a negative at the end of the current batch, a
    positive in the next slot of the ring; return ``(label, slot)``."""
    capacity = st.buf_w.shape[1]
    label = POS if y[i] > 0 else NEG
    st.seen[label] += 1
    if label == POS:
        slot = st.ring[0]
        st.ring[0] = (slot + 1) % capacity
        st.size[POS] = min(st.size[POS] + 1, capacity)
    else:
        slot = st.size[NEG]
        st.size[NEG] += 1
    _put(st, slots, data, indices, indptr, y, i, label, slot)
    return label, slot


@njit(cache=True, nogil=True)
def pauc_epoch(st, slots, work, data, indices, indptr, y, order, hp, t):
    """Stream the rows ``order`` through the buffers, one 1PMB step per full negative batch.

    Parameters
    ----------
    st : PaucState
        The state; updated.
    slots : tuple
        ``(buf, buf_idx, buf_nnz)`` (sparse slots) or ``(buf, None, None)`` (dense),
        :mod:`aucopt._kernels._slots`.
    work : tuple
        Scratch ``(sp, sn, cp, cn, top, chosen)`` of ``buffer_size`` entries each (``top``
        and ``chosen`` int64).
    data, indices, indptr, y, order
        Rows, signed weights and visiting order (:mod:`aucopt._kernels`).
    hp : PaucHyper
        Kernel scalars (:data:`aucopt.algorithms.pauc.PARAMS`).
    t : int
        Steps done before this call.

    Returns
    -------
    t : int
        Steps done after this call (full negative batches met with a stored positive).
    status : int
        ``OK`` or ``DIVERGED``.
    """
    return _batches(st, slots, work, data, indices, indptr, y, order, hp, t, True)


@njit(cache=True, nogil=True)
def _batches(st, slots, work, data, indices, indptr, y, order, hp, t, ring):
    """Stream the rows ``order``: negatives fill the batches, one step per full batch with a
    stored positive; positives enter the ring if ``ring`` (1PMB) and are skipped otherwise
    (2PMB's second pass: the sample of positives stays as the first pass drew it)."""
    capacity = st.buf_w.shape[1]
    for r in range(order.shape[0]):
        if not ring and y[order[r]] > 0:
            continue
        store_row(st, slots, data, indices, indptr, y, order[r])
        if st.size[NEG] == batch_length(st.batches[0], capacity):
            if st.size[POS] > 0:
                t, status = _batch_step(st, slots, work, hp, t)
                if status != OK:
                    return t, status
            st.size[NEG] = 0
            st.batches[0] += 1
    return t, OK


@njit(cache=True, nogil=True)
def _sample_positives(st, slots, data, indices, indptr, y, order, draws):
    """2PMB's first pass: replace the positive buffer by a uniform sample of the positives
    of ``order`` (Algorithm R: the first ``buffer_size`` fill the slots, the ``m``-th after
    them, ``m = 0, 1, ...``, replaces slot ``draws[m]`` if it is below ``buffer_size``,
    ``draws[m]`` uniform in ``[0, buffer_size + m]``)."""
    capacity = st.buf_w.shape[1]
    seen = 0
    for r in range(order.shape[0]):
        i = order[r]
        if y[i] <= 0:
            continue
        slot = seen if seen < capacity else draws[seen - capacity]
        seen += 1
        if slot < capacity:
            _put(st, slots, data, indices, indptr, y, i, POS, slot)
    st.size[POS] = min(seen, capacity)
    st.seen[POS] += seen


@njit(cache=True, nogil=True)
def pauc_2pmb_epoch(st, slots, work, data, indices, indptr, y, order, draws, hp, t):
    """One epoch of 2PMB over the rows ``order``: the sample of positives, then the batches.

    The arguments and the result ``(t, status)`` are those of :func:`pauc_epoch`, with
    ``draws`` (int64) the reservoir's slot draws of :func:`_sample_positives`: one per
    positive of ``order`` past the first ``buffer_size``.
    """
    _sample_positives(st, slots, data, indices, indptr, y, order, draws)
    return _batches(st, slots, work, data, indices, indptr, y, order, hp, t, False)
