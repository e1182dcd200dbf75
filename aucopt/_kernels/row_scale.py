"""The preconditioner of one streaming row in one compiled call (River's ``learn_one``).

A stream whose state holds a diagonal preconditioner (``precondition="auto"``,
notes.md#preconditioning) gives each new feature the shared sparse scale when it first
holds a non-zero value, then hands the kernels the row ``x_j / s_j``, shortened to the
row bound when it is longer. :func:`scale_row` does both for one canonical CSR row of a
state without centred columns (every stream started by ``learn_one``: a first row is
too few to centre on), with the same arithmetic as
:func:`aucopt.algorithms._precondition.fix_scale` and
:func:`aucopt.algorithms._precondition.transform_rows`, so the kernels see the same bits.
Anything else (centred columns, a row that is not canonical, a non-finite value at a new
feature, which must raise) is left to those functions.
"""

import numpy as np
from numba import njit

from ._checks import OK
from ._precondition import csr_clip

__all__ = ["scale_row", "SCALE_ELSEWHERE"]

SCALE_ELSEWHERE = -1  # status: nothing written; the general functions handle the row


@njit(cache=True, nogil=True)
def scale_row(scale, shared, bound, fix, data, indices, indptr, out, fixed):
    """Set the scale of the row's new features (if ``fix``), then write the scaled row.

    Parameters
    ----------
    scale : ndarray of float64 of shape (d,)
        Per-feature scales (0: a feature not seen yet), updated in place.
    shared : ndarray of float64 of shape (1,)
        The shared sparse scale a new feature gets (1 where it is not positive).
    bound : float
        The row bound (0: none).
    fix : bool
        Whether new features get their scale here (``precondition="auto"`` and a row of
        positive weight).
    data, indices, indptr : ndarray
        One CSR row: column indices increasing, within ``[0, d)``.
    out : ndarray of float64
        The scaled values, written at ``out[:nnz]``.
    fixed : ndarray of int64
        The columns whose scale was set, written at ``fixed[:count]``.

    Returns
    -------
    (int, int)
        ``(count, OK)``, or ``(0, SCALE_ELSEWHERE)`` with nothing written.
    """
    d = scale.shape[0]
    if indptr.shape[0] != 2 or indptr[0] != 0:
        return 0, SCALE_ELSEWHERE
    nnz = indptr[1]
    if nnz > data.shape[0] or nnz > indices.shape[0] or nnz > out.shape[0] or (
            nnz > fixed.shape[0]):
        return 0, SCALE_ELSEWHERE
    previous = -1
    for q in range(nnz):
        j = indices[q]
        if j <= previous or j >= d:
            return 0, SCALE_ELSEWHERE
        previous = j
        v = data[q]
        # fix_scale refuses a non-finite sum or sum of squares at a new feature
        if fix and scale[j] == 0.0 and not (np.isfinite(v) and np.isfinite(v * v)):
            return 0, SCALE_ELSEWHERE
    count = 0
    if fix:
        value = shared[0] if shared[0] > 0.0 else 1.0
        for q in range(nnz):
            j = indices[q]
            if scale[j] == 0.0 and data[q] != 0.0:
                scale[j] = value
                fixed[count] = j
                count += 1
    for q in range(nnz):
        s = scale[indices[q]]
        out[q] = data[q] * (1.0 / s if s > 0.0 else 1.0)
    if bound > 0.0:
        csr_clip(out, indptr, bound)
    return count, OK
