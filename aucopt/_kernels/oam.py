"""OAM kernel: Online AUC Maximisation with reservoir buffers (Natole 2020, Algorithms 4-7).

P. Zhao, S. C. H. Hoi, R. Jin, T. Yang, "Online AUC Maximization", ICML 2011;
restated in M. Natole Jr., PhD thesis (SUNY Albany 2020), Algorithms 4-7.

Objective: ``(1/2)||w||^2 + C sum_{i,j} max(0, 1 - w.(x_i+ - x_j-))``. Each
class keeps a reservoir of N examples; a new example is compared with the
reservoir of the other class, every comparison weighted by
``C_t = C max(1, N_opp^t / N)`` (notes.md#oam).

Sample weights (notes.md#sample-weights) arrive as signed labels ``y = +-w``: the
comparison of row ``t`` with a stored row ``j`` has the cost ``C_t w_t w_j`` (each
stored row keeps its weight in ``buf_w``). Admission to a reservoir and the counts in
``C_t`` count rows and ignore the weights.

One kernel body serves dense and sparse reservoir slots
(:mod:`aucopt._kernels._slots`): with CSR rows and sparse slots a visit costs
O(N nnz), never O(d).
"""

from typing import NamedTuple

from numba import njit

from ._buffers import (
    HINGE,
    all_finite,
    label_sign,
    pair_derivatives,
    pair_step,
    reservoir_update,
)
from ._checks import DIVERGED, OK, exploding
from ._rows import row_axpy, row_dot, row_sqnorm
from ._slots import class_slots, slot_axpy, slot_dot, slot_row_dot
from ._state import ANY, F64, I64, D, Dim

__all__ = ["SEQUENTIAL", "GRADIENT", "UPDATES", "OamState", "oam_epoch", "oam_seq_pair"]

SEQUENTIAL = 0  # OAM_seq: one proximal (PA-I type) step per buffer item, in slot order
GRADIENT = 1  # OAM_gra: one hinge subgradient step over the whole buffer, incoming w
UPDATES = {"sequential": SEQUENTIAL, "gradient": GRADIENT}

# ||x_t - b||^2 below this fraction of ||x_t||^2 + ||b||^2 counts as u = 0 (no step):
# it is computed as ||x||^2 - 2 x.b + ||b||^2, exact zero is lost to rounding.
_ZERO_PAIR = 1e-12

N = Dim("buffer_size")


class OamState(NamedTuple):
    """OAM's state: the last iterate and the two reservoirs (negatives at index 0)."""

    w: F64[D]  # last iterate
    buf: F64[2, N, ANY]  # slot values (sparse: width K, the longest row; dense: width d)
    buf_idx: I64[2, N, ANY]  # slot feature indices (sparse slots; width 0 when dense)
    buf_nnz: I64[2, N]  # slot row lengths (sparse slots)
    buf_sq: F64[2, N]  # squared norms of the stored rows
    buf_w: F64[2, N]  # sample weights of the stored rows (1 in files saved before weights)
    size: I64[2]  # rows stored per reservoir
    seen: I64[2]  # examples received per class (N_-^t, N_+^t)


@njit(cache=True, nogil=True)
def oam_seq_pair(margin, usq, c_t):
    """Return the step ``tau`` of ``w <- w + tau u`` for one OAM_seq comparison.

    ``argmin_w' ||w' - w||^2 + c_t max(0, 1 - w'.u)`` is ``w + tau u`` with
    ``tau = min(c_t/2, (1 - w.u)/||u||^2)`` when ``w.u < 1``, else 0 (spec
    section 4, notes.md#oam).

    Parameters
    ----------
    margin : float
        ``w.u`` with the current ``w``.
    usq : float
        ``||u||^2 > 0``.
    c_t : float
        Weight of the comparison.

    Returns
    -------
    float
    """
    if margin >= 1.0:
        return 0.0
    return min(0.5 * c_t, (1.0 - margin) / usq)


@njit(cache=True, nogil=True)
def _sequential(w, buf_sq, buf_w, size, c_t, yt, data, indices, indptr, i, slots):
    """OAM_seq (thesis Alg. 6): proximal steps against the first ``size`` slots in order.

    ``yt = +-w_t``; the comparison with slot ``j`` has the cost ``c_t w_t buf_w[j]``.
    """
    bval, bidx, bnnz = slots
    xsq = row_sqnorm(data, indices, indptr, i)
    score = row_dot(w, data, indices, indptr, i)
    sign = label_sign(yt)
    c_row = c_t * abs(yt)
    for j in range(size):
        margin = sign * (score - slot_dot(w, bval, bidx, bnnz, j))
        if exploding(margin):
            return DIVERGED
        if margin >= 1.0:
            continue
        usq = xsq - 2.0 * slot_row_dot(data, indices, indptr, i, bval, bidx, bnnz, j) + buf_sq[j]
        if usq <= _ZERO_PAIR * (xsq + buf_sq[j]):
            continue  # x_t = b_j: no pair direction
        step = sign * oam_seq_pair(margin, usq, c_row * buf_w[j])
        row_axpy(step, w, data, indices, indptr, i)
        slot_axpy(-step, w, bval, bidx, bnnz, j)
        score = row_dot(w, data, indices, indptr, i)  # w moved: O(nnz) for CSR rows
    return OK


@njit(cache=True, nogil=True)
def _gradient(w, buf_w, c_t, yt, g, acc, data, indices, indptr, i, slots):
    """OAM_gra (thesis Alg. 7): ``w += (c_t/2) y_t sum_{active j} buf_w[j] (x_t - b_j)``.

    ``yt = +-w_t`` (signed weight); ``g`` is the scratch of the derivatives, one per
    stored row of the slots.
    """
    bval, bidx, bnnz = slots
    score = row_dot(w, data, indices, indptr, i)
    if exploding(score):
        return DIVERGED
    # every stored row is compared (all of the other class): buf_w gives their weights
    a, _ = pair_derivatives(w, score, 1.0, buf_w, g.shape[0], False, yt, HINGE, g, bval, bidx,
                            bnnz)
    if a != 0.0:  # gradient of the hinge sum: y (a x_t - sum_j g_j b_j), a = -active weight
        pair_step(0.5 * c_t * yt, a, w, acc, data, indices, indptr, i, bval, bidx, bnnz, g)
    return OK


@njit(cache=True, nogil=True)
def oam_epoch(st, slots, work, data, indices, indptr, y, order, draws, hp, t, update):
    """Run OAM over the rows in ``order``; update the state in place.

    Costs O(N d) per visit with dense slots and O(N nnz) with sparse slots
    (N the size of the other class's reservoir, nnz the length of the rows).

    Parameters
    ----------
    st : OamState
        The state; ``w``, ``buf_sq``, ``buf_w``, ``size`` and ``seen`` are read here.
    slots : tuple
        The reservoirs' slots in the layout of the rows: dense ``(buf, None, None)``
        with ``buf`` of shape (2, N, d), or sparse ``(buf, buf_idx, buf_nnz)`` (see
        :mod:`aucopt._kernels._slots`; sparse slots take CSR rows only).
    work : tuple
        Scratch ``(g, acc)``: ``g`` of shape (N,) (OAM_gra's hinge derivatives) and
        ``acc`` of shape (d,) for OAM_gra with dense slots (else unused).
    data, indices, indptr, y, order
        Rows, signed weights ``+-w`` and visiting order: the common kernel arguments
        (:mod:`aucopt._kernels`).
    draws : ndarray of shape (m, 2)
        Uniforms in [0, 1): reservoir coin flip and slot for each visit.
    hp : OamHyper
        The kernel scalars (:data:`aucopt.algorithms.oam.PARAMS`): the penalty ``C``.
    t : int
        Updates done before this call.
    update : int
        ``SEQUENTIAL`` (OAM_seq) or ``GRADIENT`` (OAM_gra).

    Returns
    -------
    t : int
        Updates done after this call (visits that met a non-empty reservoir).
    status : int
        ``OK`` or ``DIVERGED``.
    """
    w, buf_sq, buf_w, size, seen = st.w, st.buf_sq, st.buf_w, st.size, st.seen
    buf, buf_idx, buf_nnz = slots
    g, acc = work
    capacity = buf.shape[1]
    for r in range(order.shape[0]):
        i = order[r]
        yt = y[i]
        c = 1 if yt > 0 else 0
        o = 1 - c
        seen[c] += 1
        c_t = hp.C * max(1.0, seen[o] / capacity)  # notes.md#oam
        bval, bidx, bnnz = class_slots(buf, buf_idx, buf_nnz, c)
        size[c], slot = reservoir_update(buf_sq[c], size[c], seen[c], draws[r, 0], draws[r, 1],
                                         data, indices, indptr, i, bval, bidx, bnnz)
        if slot >= 0:
            buf_w[c, slot] = abs(yt)
        if size[o] == 0:
            continue  # nothing of the other class yet: the loss is zero
        t += 1
        other = class_slots(buf, buf_idx, buf_nnz, o)
        if update == SEQUENTIAL:
            status = _sequential(w, buf_sq[o], buf_w[o], size[o], c_t, yt, data, indices, indptr,
                                 i, other)
        else:
            status = _gradient(w, buf_w[o], c_t, yt, g[:size[o]], acc, data, indices, indptr, i,
                               other)
        if status != OK:
            return t, status
    if not all_finite(w):
        return t, DIVERGED
    return t, OK
