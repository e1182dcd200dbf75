"""Slot access of the example buffers: one kernel body for dense and sparse buffers.

A buffer of ``capacity`` stored rows reaches a kernel as three arguments
``(bval, bidx, bnnz)``, the same convention as the rows of :mod:`._rows`:

* dense slots: ``(buf, None, None)`` with ``buf`` of shape (capacity, d);
* sparse slots: ``bval`` (float64) and ``bidx`` (int64) of shape
  (capacity, K) hold in ``[:bnnz[j]]`` the values and the sorted feature
  indices of the row in slot ``j``; the entries past ``bnnz[j]`` are zero.
  K, the longest row stored, is grown by the caller outside the kernels.

Sparse slots take CSR rows only; dense slots take dense or CSR rows. Every
operation on a sparse slot costs O(nnz) of the rows involved, never O(d), and
gives the same sums, in the same order, as on the dense slot (the skipped
terms are exact zeros). Each helper picks its body at compile time from the
type of ``bidx`` (:func:`._rows._row_function`; the last four arguments are
``bval, bidx, bnnz, j``), so a kernel written with them compiles once per
layout.
"""

from ._rows import _row_function, row_dot, row_sqnorm, row_to_dense

__all__ = [
    "with_sparse_twin",
    "class_slots",
    "slot_dot",
    "slot_axpy",
    "slot_store",
    "slot_copy",
    "slot_row_dot",
]


def with_sparse_twin(sparse_impl):
    """Decorate the dense-slot body of a helper with its sparse-slot twin ``sparse_impl``.

    Both bodies have the same signature ending in ``bval, bidx, bnnz, j``; the
    decorated name dispatches on ``bidx is None`` in Python and at compile time
    in numba (:func:`aucopt._kernels._rows._row_function`).
    """
    return lambda dense_impl: _row_function(dense_impl, sparse_impl)


def _sparse_class_slots(bval, bidx, bnnz, c):
    return bval[c], bidx[c], bnnz[c]


@with_sparse_twin(_sparse_class_slots)
def class_slots(bval, bidx, bnnz, c):
    """Return the slots ``(bval[c], bidx[c], bnnz[c])`` of buffer ``c`` of a stacked buffer."""
    return bval[c], None, None


def _sparse_slot_dot(w, bval, bidx, bnnz, j):
    s = 0.0
    for k in range(bnnz[j]):
        s += w[bidx[j, k]] * bval[j, k]
    return s


@with_sparse_twin(_sparse_slot_dot)
def slot_dot(w, bval, bidx, bnnz, j):
    """Return ``w . b_j``."""
    return row_dot(w, bval, None, None, j)


def _sparse_slot_axpy(a, w, bval, bidx, bnnz, j):
    for k in range(bnnz[j]):
        w[bidx[j, k]] += a * bval[j, k]


@with_sparse_twin(_sparse_slot_axpy)
def slot_axpy(a, w, bval, bidx, bnnz, j):
    """Add ``a * b_j`` to ``w`` in place."""
    for k in range(w.shape[0]):
        w[k] += a * bval[j, k]


def _sparse_slot_store(data, indices, indptr, i, bval, bidx, bnnz, j):
    sq = 0.0
    m = 0
    for k in range(indptr[i], indptr[i + 1]):
        x = data[k]
        bval[j, m] = x
        bidx[j, m] = indices[k]
        sq += x * x
        m += 1
    for k in range(m, bnnz[j]):  # clear the tail of the row stored before
        bval[j, k] = 0.0
        bidx[j, k] = 0
    bnnz[j] = m
    return sq


@with_sparse_twin(_sparse_slot_store)
def slot_store(data, indices, indptr, i, bval, bidx, bnnz, j):
    """Store row ``x_i`` in slot ``j`` and return ``||x_i||^2``."""
    row_to_dense(bval[j], data, indices, indptr, i)
    return row_sqnorm(data, indices, indptr, i)


def _sparse_slot_copy(sval, sidx, snnz, k, bval, bidx, bnnz, j):
    for q in range(bval.shape[1]):  # the whole width: the zero tail comes along
        bval[j, q] = sval[k, q]
        bidx[j, q] = sidx[k, q]
    bnnz[j] = snnz[k]


@with_sparse_twin(_sparse_slot_copy)
def slot_copy(sval, sidx, snnz, k, bval, bidx, bnnz, j):
    """Copy slot ``k`` of the buffer ``(sval, sidx, snnz)`` (same layout) into slot ``j``."""
    for q in range(bval.shape[1]):
        bval[j, q] = sval[k, q]


def _sparse_slot_row_dot(data, indices, indptr, i, bval, bidx, bnnz, j):
    s = 0.0  # merge of the two sorted index lists: O(nnz(x_i) + nnz(b_j))
    p = indptr[i]
    end = indptr[i + 1]
    q = 0
    m = bnnz[j]
    while p < end and q < m:
        a = indices[p]
        b = bidx[j, q]
        if a == b:
            s += bval[j, q] * data[p]
            p += 1
            q += 1
        elif a < b:
            p += 1
        else:
            q += 1
    return s


@with_sparse_twin(_sparse_slot_row_dot)
def slot_row_dot(data, indices, indptr, i, bval, bidx, bnnz, j):
    """Return ``x_i . b_j``."""
    return row_dot(bval[j], data, indices, indptr, i)
