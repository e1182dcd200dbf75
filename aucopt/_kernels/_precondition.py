"""Column moments, row norms and the affine map with its row clipping, of the
preconditioner (notes.md#preconditioning).

One sweep over the rows each, row-major, so that a dense ``fit`` pays a few streams over
``X`` for its preconditioner (NumPy needs one temporary per operation). The CSR passes
give the bits of the NumPy/scipy expressions they replace (``numpy.bincount`` over the
stored entries, scipy's sum of two CSR matrices, sums in the stored order); they form the
per-entry values of a block of rows in one flat loop over slices, which vectorises its
gathers (a loop per row of ~50 entries did not, at half the speed), then walk the rows.

A row whose squared norm is not finite is never shortened (it would become zeros): it
reaches the statistics pass as it is, which refuses it with the row's number.
"""

import numpy as np
from numba import njit

from ._lanes import prefetch
from ._reduce import dot_unrolled

# the entries of the rows whose scaled values are formed in one flat loop (L1-resident)
BLOCK = 2048
# csr_moments prefetches the sums of the column this many entries ahead (a scattered add
# into a table of 32 d bytes; 16 to 64 gained 10-15% on 1e6 hashed rows, d = 2^20)
AHEAD = 64
_PAST = 1 << 62  # a column after every column
# a dense row whose four-lane squared norm is below (1 - NEAR) bound^2 is below the bound
# by its running sum too (their difference is a few d units of rounding: d < 10^9 here)
NEAR = 1e-6

__all__ = ["dense_moments", "dense_clip_affine", "csr_clip", "dense_affine_norms",
           "csr_affine_norms", "csr_moments", "csr_unit_counts", "csr_scale_clip",
           "csr_affine_clip"]


@njit(cache=True, nogil=True)
def dense_moments(X, weight, stride, count, total, squares):
    """Add the weighted non-zero count, sum and sum of squares of every column of the rows
    ``0, stride, 2 stride, ...`` of ``X``.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous
    weight : ndarray of shape (n,)
        Row weights.
    stride : int
        Every ``stride``-th row is read (1: all of them).
    count, total, squares : ndarray of shape (d,)
        Accumulated in place.
    """
    n, d = X.shape
    for i in range(0, n, stride):  # branch-free, so that the inner loop vectorises
        w = weight[i]
        for j in range(d):
            x = X[i, j]
            wx = w * x
            count[j] += w * (x != 0.0)
            total[j] += wx
            squares[j] += wx * x


@njit(cache=True, nogil=True)
def dense_clip_affine(X, inv, offset, bound, out):
    """Write ``out[i] = X[i] * inv + offset``, then scale every row of ``out`` whose norm
    exceeds ``bound`` down to norm ``bound`` (``bound`` 0: no row is scaled).

    The norm that decides and scales is the running sum of the row's squares in column
    order (the bits of :func:`csr_clip` and of a stream's rows). That sum is a chain of
    dependent additions (about 4 cycles per column), so a row is first measured by the
    four-lane sum (:func:`~._reduce.dot_unrolled`), and summed in order only when that
    is not clearly below the bound: the two sums of ``d`` non-negative terms differ by at
    most ``2 d`` units of rounding, far below ``NEAR``. The rows are those of the plain
    loop, bit for bit.
    """
    n, d = X.shape
    limit = bound * bound
    near = limit * (1.0 - NEAR)
    for i in range(n):
        for j in range(d):
            out[i, j] = X[i, j] * inv[j] + offset[j]
        if bound > 0.0 and not dot_unrolled(out[i], out[i]) < near:  # (NaN: summed in order)
            sq = 0.0
            for j in range(d):
                sq += out[i, j] * out[i, j]
            if limit < sq < np.inf:
                f = bound / np.sqrt(sq)
                for j in range(d):
                    out[i, j] *= f


@njit(cache=True, nogil=True)
def csr_clip(data, indptr, bound):
    """Scale, in place, every CSR row whose norm exceeds ``bound`` (> 0) down to ``bound``."""
    limit = bound * bound
    for i in range(indptr.size - 1):
        sq = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            sq += data[k] * data[k]
        if limit < sq < np.inf:
            f = bound / np.sqrt(sq)
            for k in range(indptr[i], indptr[i + 1]):
                data[k] *= f


@njit(cache=True, nogil=True)
def dense_affine_norms(X, inv, offset, stride, out):
    """Write the squared norms of the rows ``X[i] * inv + offset``, ``i = 0, stride,
    2 stride, ...``, to ``out`` (of size ``ceil(n / stride)``)."""
    n, d = X.shape
    for i in range(0, n, stride):
        sq = 0.0
        for j in range(d):
            v = X[i, j] * inv[j] + offset[j]
            sq += v * v
        out[i // stride] = sq


@njit(cache=True, nogil=True)
def csr_affine_norms(data, indices, indptr, affine, codes, common, scale, shift, centred,
                     stride, out):
    """Write the squared norms of the CSR rows ``(x - shift) / scale`` (``scale`` 0: 1),
    ``i = 0, stride, ...``, to ``out`` (of size ``ceil(n / stride)``); ``shift`` is
    non-zero at the columns ``centred`` only, and applies to the entries a row does not
    store too. Nothing of the rows' width is formed.

    ``affine`` of shape (d, 2) holds ``(1 / scale, -(shift / scale))`` per column (1 and
    0 where not set), so that a stored entry costs one cache line; ``scale`` and ``shift``
    give the part of the centred columns a row does not store. With ``stride`` 1 the
    terms of a block of rows are formed in one flat loop (which vectorises its gathers),
    then summed row by row in their stored order: the bits of the plain row loop.
    ``codes``, ``common``: the columns (not centred) whose inverse scale is ``common``, read
    from a table of one byte per column (:func:`_terms`; empty: none marked).
    """
    base = 0.0
    for j in centred:
        c = shift[j] / scale[j]
        base += c * c
    n = indptr.size - 1
    if stride != 1:
        for i in range(0, n, stride):
            sq = base
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                offset = affine[j, 1]
                v = data[k] * affine[j, 0] + offset
                sq += v * v - offset * offset
            out[i // stride] = sq
        return
    buf = np.empty(BLOCK)
    i = 0
    while i < n:
        a, stop, m, buf = _block(indptr, i, buf)
        _terms(data[a:a + m], indices[a:a + m], affine, codes, common, buf)
        _row_sums(buf, indptr[i:stop + 1], base, out[i:stop])
        i = stop


@njit(cache=True, nogil=True)
def _row_sums(terms, indptr, base, out):
    """Write ``out[r] = base + terms[indptr[r] - indptr[0]] + ...`` up to the row's end,
    added in their order."""
    for r in range(out.size):
        sq = base
        for k in range(indptr[r] - indptr[0], indptr[r + 1] - indptr[0]):
            sq += terms[k]
        out[r] = sq


@njit(cache=True, nogil=True)
def _terms(data, indices, affine, codes, common, out):
    """Write ``out[k] = v * v - o * o``, ``v = data[k] * affine[j, 0] + o``,
    ``o = affine[j, 1]`` (``j`` the entry's column): one flat loop over slices. Where
    ``codes[j]`` is 1 (the column's inverse scale is ``common`` and its offset 0), the
    same value from ``common`` and the small table ``codes`` (when given: not empty)
    instead of a wide one."""
    if codes.size == 0:
        for k in range(data.size):
            j = indices[k]
            offset = affine[j, 1]
            v = data[k] * affine[j, 0] + offset
            out[k] = v * v - offset * offset
        return
    for k in range(data.size):
        j = indices[k]
        if codes[j]:
            v = data[k] * common
            out[k] = v * v
        else:
            offset = affine[j, 1]
            v = data[k] * affine[j, 0] + offset
            out[k] = v * v - offset * offset


@njit(cache=True, nogil=True)
def _block(indptr, i, buf):
    """Return ``(first entry, row after the block, entries, buf)`` of the block of rows from
    ``i`` whose entries fit in ``BLOCK`` (at least row ``i``); ``buf`` grown if too short."""
    n = indptr.size - 1
    stop = i + 1
    while stop < n and indptr[stop + 1] - indptr[i] <= BLOCK:
        stop += 1
    m = indptr[stop] - indptr[i]
    if m > buf.size:
        buf = np.empty(m)
    return indptr[i], stop, m, buf


@njit(cache=True, nogil=True)
def _scaled(data, indices, scale, codes, common, out):
    """Write ``out[k] = data[k] * (1 / s)``, ``s`` the scale of the entry's column (1
    where it is 0): one flat loop over slices (indices from 0, so that numba adds no
    wrap-around test and the loop vectorises its gathers). Where ``codes[j]`` is 1 (the
    column's ``1 / s`` is ``common``), the same value without reading the wide ``scale``
    (``codes`` empty: not used)."""
    if codes.size == 0:
        for k in range(data.size):
            s = scale[indices[k]]
            out[k] = data[k] * (1.0 / s if s > 0.0 else 1.0)
        return
    for k in range(data.size):
        j = indices[k]
        if codes[j]:
            out[k] = data[k] * common
        else:
            s = scale[j]
            out[k] = data[k] * (1.0 / s if s > 0.0 else 1.0)


@njit(cache=True, nogil=True)
def csr_moments(data, indices, indptr, weight, out):
    """Add the weighted non-zero count, sum and sum of squares of every column of the
    CSR rows to ``out[j, 0]``, ``out[j, 1]``, ``out[j, 2]`` (``out`` of shape (d, 4),
    C-contiguous: the three sums of a column in one cache line, fetched ``AHEAD`` entries
    before they are added to), one stored entry after the other: the sums of
    ``numpy.bincount`` over the entries in their stored order, the same bits."""
    flat = out.reshape(-1)
    last = indptr[indptr.size - 1] - AHEAD
    for i in range(indptr.size - 1):
        w = weight[i]
        for k in range(indptr[i], indptr[i + 1]):
            if k < last:
                prefetch(flat, 4 * indices[k + AHEAD])
            j = indices[k]
            x = data[k]
            wx = w * x
            out[j, 0] += w * (x != 0.0)
            out[j, 1] += wx
            out[j, 2] += wx * x


@njit(cache=True, nogil=True)
def csr_unit_counts(data, indices, indptr, counts):
    """Add the number of stored entries of every column of the CSR rows to ``counts``
    (integers), if every stored value is 1; return False at the first value that is not
    (``counts`` then partial).

    On binary rows (hashed tokens, one-hot columns) of unit weight, each of the three sums
    of :func:`csr_moments` is this count: sums of ones are exact in float64 (below 2^53),
    so the count gives their bits, from a table of 4 bytes per column (int32 counts) instead
    of 32. The entries of ``counts`` are fetched ``AHEAD`` entries before they are added to.
    """
    end = indptr[indptr.size - 1]
    for k in range(indptr[0], end):
        if k + AHEAD < end:
            prefetch(counts, indices[k + AHEAD])
        if data[k] != 1.0:
            return False
        counts[indices[k]] += 1
    return True


@njit(cache=True, nogil=True)
def _shorten(data, start, stop, limit, bound):
    """Scale ``data[start:stop]`` down to norm ``bound`` if its squared norm exceeds
    ``limit`` (``bound ** 2``); the sum in the stored order, as :func:`csr_clip`."""
    sq = 0.0
    for k in range(start, stop):
        sq += data[k] * data[k]
    if limit < sq < np.inf:
        f = bound / np.sqrt(sq)
        for k in range(start, stop):
            data[k] *= f


@njit(cache=True, nogil=True)
def csr_scale_clip(data, indices, indptr, scale, codes, common, bound, out):
    """Write ``out[k] = data[k] * (1 / scale[j])`` (``scale`` 0: 1) for the CSR rows
    (same indices and row pointers), then shorten every row longer than ``bound`` (> 0;
    0: none) to it: ``data * (1 / scale)`` followed by :func:`csr_clip`, block by block
    of rows while they are in cache. ``codes``, ``common``: as in :func:`_scaled`."""
    limit = bound * bound
    n = indptr.size - 1
    i = 0
    while i < n:
        a, stop, m, _ = _block(indptr, i, out)  # (out holds any block: never replaced)
        _scaled(data[a:a + m], indices[a:a + m], scale, codes, common, out[a:a + m])
        if bound > 0.0:
            for r in range(i, stop):
                _shorten(out, indptr[r], indptr[r + 1], limit, bound)
        i = stop


@njit(cache=True, nogil=True)
def csr_affine_clip(data, indices, indptr, scale, codes, common, centred, offset, bound,
                    out_data, out_indices, out_indptr):
    """Write the CSR rows ``x * (1 / scale) + offset`` (``scale`` 0: 1; ``offset`` non-zero
    at the sorted columns ``centred`` only, added to the entries a row does not store too),
    each row longer than ``bound`` (> 0; 0: none) shortened to it.

    Each row is the merge of its stored entries (column indices non-decreasing) with the
    centred columns, as scipy's sum of two CSR matrices gives it: the columns sorted,
    repeated columns summed in their stored order, the offset added last, exact zeros
    dropped; then :func:`csr_clip`'s sum and factor. ``out_*`` must hold
    ``nnz + n * centred.size`` entries and ``n + 1`` row pointers. ``codes``, ``common``:
    as in :func:`_scaled`.

    Returns
    -------
    int
        The number of entries written, or -1 (nothing usable written) if a row's column
        indices decrease.
    """
    kc = centred.size
    limit = bound * bound
    n = indptr.size - 1
    buf = np.empty(BLOCK)
    p = 0
    out_indptr[0] = 0
    i = 0
    while i < n:
        a, stop, m, buf = _block(indptr, i, buf)
        _scaled(data[a:a + m], indices[a:a + m], scale, codes, common, buf)
        for r in range(i, stop):
            first = p
            sq = 0.0  # the row's squared length, summed in its stored order (csr_clip's)
            c = 0
            q = indptr[r]
            end = indptr[r + 1]
            previous = -1
            while True:
                j = indices[q] if q < end else _PAST  # after the last: the centred left
                if j < previous:
                    return -1
                previous = j
                while c < kc and centred[c] < j:  # centred columns the row does not store
                    if offset[c] != 0.0:
                        out_data[p] = offset[c]
                        out_indices[p] = centred[c]
                        sq += offset[c] * offset[c]
                        p += 1
                    c += 1
                if q == end:
                    break
                v = buf[q - a]
                q += 1
                while q < end and indices[q] == j:  # a repeated column: summed
                    v += buf[q - a]
                    q += 1
                if c < kc and centred[c] == j:
                    v += offset[c]
                    c += 1
                if v != 0.0:
                    out_data[p] = v
                    out_indices[p] = j
                    sq += v * v
                    p += 1
            if bound > 0.0 and limit < sq < np.inf:
                f = bound / np.sqrt(sq)
                for k in range(first, p):
                    out_data[k] *= f
            out_indptr[r + 1] = p
        i = stop
    return p
