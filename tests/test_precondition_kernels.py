"""The compiled CSR passes of the preconditioner (notes.md#preconditioning) against slow
NumPy/scipy transcriptions on the same rows: the same bits, with and without the JIT.

Rows cover the edge cases of the merge: empty rows, rows that store only centred columns,
stored exact zeros, values that cancel their column's offset exactly, a column repeated in a
row, int32 and int64 indices, one row.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from aucopt._kernels._precondition import (
    BLOCK,
    csr_affine_clip,
    csr_affine_norms,
    csr_clip,
    csr_moments,
    csr_scale_clip,
    csr_unit_counts,
    dense_clip_affine,
    dense_moments,
)
from aucopt.algorithms import _precondition as pre
from aucopt.algorithms._moments import column_sums, unit_counts
from aucopt.algorithms._spec import RowData

D = 40
CENTRED = np.array([3, 17, 18, 39])
SHARED = 1.7


def _rows(n=60, index_type=np.int32, seed=0, long_row=False):
    """CSR rows over ``D`` columns with the edge cases of the module docstring, the
    transform (scale, shift) they are merged with, and a bound that shortens some rows."""
    rng = np.random.default_rng(seed)
    scale = rng.uniform(0.5, 3.0, D)
    scale[8:36] = SHARED  # most columns share one scale (centred ones too: their own path)
    scale[[5, 6]] = 0.0  # features not set
    shift = np.zeros(D)
    shift[CENTRED] = rng.normal(size=CENTRED.size)
    data, indices, indptr = [], [], [0]
    for i in range(n):
        if i % 7 == 0:
            cols = np.empty(0, int)  # an empty row
        elif i % 7 == 1:
            cols = CENTRED[rng.random(CENTRED.size) < 0.7]  # only centred columns
        else:
            cols = np.sort(rng.choice(D, rng.integers(1, 12), replace=False))
        vals = rng.normal(size=cols.size) * rng.choice([1.0, 30.0], p=[0.9, 0.1])
        if i % 5 == 2 and cols.size:
            vals[0] = 0.0  # a stored zero
        if i % 4 == 3:
            at = np.flatnonzero(np.isin(cols, CENTRED))
            vals[at] = shift[cols[at]]  # cancels the offset exactly: dropped
        if i % 9 == 4 and cols.size:
            cols, vals = np.insert(cols, 0, cols[0]), np.insert(vals, 0, 0.5)  # repeated
        data.extend(vals)
        indices.extend(cols)
        indptr.append(len(indices))
    if long_row:  # one row longer than a block
        cols = np.arange(BLOCK + 50) % D
        cols.sort()
        data.extend(rng.normal(size=cols.size))
        indices.extend(cols)
        indptr.append(len(indices))
        n += 1
    rows = RowData(np.array(data, dtype=np.float64), np.array(indices, dtype=index_type),
                   np.array(indptr, dtype=index_type), n, D)
    return rows, scale, shift


def _inverse(scale):
    return np.where(scale > 0, 1.0 / np.where(scale > 0, scale, 1.0), 1.0)


def _clip_reference(data, indptr, bound):
    """Each row of norm above ``bound`` (> 0) scaled to it, the sum in stored order."""
    data = data.copy()
    for i in range(indptr.size - 1):
        a, b = indptr[i], indptr[i + 1]
        sq = 0.0
        for k in range(a, b):
            sq += data[k] * data[k]
        if bound > 0 and sq > bound * bound:
            data[a:b] *= bound / np.sqrt(sq)
    return data


def moments_reference(rows, weight):
    per = np.repeat(weight, np.diff(rows.indptr))
    val = rows.data
    return (np.bincount(rows.indices, weights=per * (val != 0), minlength=rows.n_features),
            np.bincount(rows.indices, weights=per * val, minlength=rows.n_features),
            np.bincount(rows.indices, weights=per * val * val, minlength=rows.n_features))


def norms_reference(rows, scale, shift, centred, stride):
    """The squared lengths of ``(x - shift) / scale`` by a row loop in Python."""
    base = 0.0
    for j in centred:
        base += (shift[j] / scale[j]) ** 2
    out = []
    for i in range(0, rows.n_samples, stride):
        sq = base
        for k in range(rows.indptr[i], rows.indptr[i + 1]):
            j = rows.indices[k]
            inv = 1.0 / scale[j] if scale[j] > 0 else 1.0
            offset = -(shift[j] * inv)
            v = rows.data[k] * inv + offset
            sq += v * v - offset * offset
        out.append(sq)
    return np.array(out)


def affine_reference(rows, scale, centred, offset, bound):
    """scipy's sum of the scaled rows and the offsets of the centred columns, sorted, then
    the long rows shortened."""
    n, d = rows.n_samples, rows.n_features
    data = rows.data * _inverse(scale[rows.indices])
    X = sp.csr_matrix((data, rows.indices, rows.indptr), shape=(n, d))
    fill = sp.csr_matrix((np.tile(offset, n), np.tile(centred, n),
                          np.arange(0, n * centred.size + 1, centred.size)), shape=(n, d))
    X = (X + fill).tocsr()
    X.sort_indices()
    return _clip_reference(X.data, X.indptr, bound), X.indices, X.indptr


def _shared(scale):
    """The two forms of the shared-scale argument: not used, and a table marking the
    columns (not centred) whose scale is ``SHARED``."""
    codes = (scale == SHARED) & ~np.isin(np.arange(D), CENTRED)
    return [(np.zeros(0, np.uint8), 1.0), (codes.view(np.uint8), 1.0 / SHARED)]


def _kernel(fn, jit):
    return fn if jit else fn.py_func


def check_moments(jit, index_type=np.int32):
    rows, _, _ = _rows(index_type=index_type, long_row=True)
    weight = 1.0 + np.arange(rows.n_samples) % 3
    out = np.zeros((D, 4))
    _kernel(csr_moments, jit)(rows.data, rows.indices, rows.indptr, weight, out)
    for k, expected in enumerate(moments_reference(rows, weight)):
        np.testing.assert_array_equal(out[:, k], expected)


def check_norms(jit, index_type=np.int32):
    rows, scale, shift = _rows(index_type=index_type, long_row=True)
    inv = _inverse(scale)
    offset = np.zeros(D)
    offset[CENTRED] = -(shift[CENTRED] * inv[CENTRED])
    affine = np.stack((inv, offset), 1)
    for stride in (1, 3):
        out = np.empty(-(-rows.n_samples // stride))
        for codes, common in _shared(scale):
            _kernel(csr_affine_norms, jit)(rows.data, rows.indices, rows.indptr, affine, codes,
                                           common, scale, shift, CENTRED, stride, out)
            np.testing.assert_array_equal(out, norms_reference(rows, scale, shift, CENTRED,
                                                               stride))


def check_scale_clip(jit, index_type=np.int32):
    rows, scale, _ = _rows(index_type=index_type, long_row=True)
    for bound, (codes, common) in zip((0.0, 2.0, 2.0), _shared(scale) * 2):
        out = np.empty_like(rows.data)
        _kernel(csr_scale_clip, jit)(rows.data, rows.indices, rows.indptr, scale, codes, common,
                                     bound, out)
        expected = rows.data * _inverse(scale[rows.indices])
        np.testing.assert_array_equal(out, _clip_reference(expected, rows.indptr, bound))


def check_affine_clip(jit, index_type=np.int32, n=60):
    rows, scale, shift = _rows(n=n, index_type=index_type, long_row=n > 1)
    offset = -(shift[CENTRED] * _inverse(scale[CENTRED]))
    most = rows.data.size + rows.n_samples * CENTRED.size
    for bound, (codes, common) in zip((0.0, 2.0, 2.0), _shared(scale) * 2):
        data, indices = np.empty(most), np.empty(most, dtype=index_type)
        indptr = np.empty(rows.n_samples + 1, dtype=index_type)
        nnz = _kernel(csr_affine_clip, jit)(rows.data, rows.indices, rows.indptr, scale, codes,
                                            common, CENTRED, offset, bound, data, indices,
                                            indptr)
        expected = affine_reference(rows, scale, CENTRED, offset, bound)
        assert nnz == expected[0].size
        np.testing.assert_array_equal(data[:nnz], expected[0])
        np.testing.assert_array_equal(indices[:nnz], expected[1])
        np.testing.assert_array_equal(indptr, expected[2])


def check_unit_counts(jit, index_type=np.int32):
    """On binary rows the counts are each of csr_moments' three sums at unit weights, bit
    for bit; a value other than 1 is refused (and a repeated column counts twice, as in
    csr_moments)."""
    rows, _, _ = _rows(index_type=index_type, long_row=True)
    rows = rows._replace(data=np.ones_like(rows.data))
    counts = np.zeros(D, dtype=index_type)
    assert _kernel(csr_unit_counts, jit)(rows.data, rows.indices, rows.indptr, counts)
    for expected in moments_reference(rows, np.ones(rows.n_samples)):
        np.testing.assert_array_equal(counts.astype(np.float64), expected)
    for value in (2.0, 0.0, np.nan):
        data = rows.data.copy()
        data[-5] = value
        assert not _kernel(csr_unit_counts, jit)(data, rows.indices, rows.indptr,
                                                  np.zeros(D, dtype=index_type))


def check_dense_moments(jit, index_type=np.int32):
    """The rows 0, stride, 2 stride, ... of a dense X: their weighted non-zero counts, sums
    and sums of squares, as NumPy sums them row after row."""
    X = _rows(index_type=index_type)[0]
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.n_samples, D)).toarray()
    weight = 1.0 + np.arange(X.shape[0]) % 3
    for stride in (1, 3):
        out = np.zeros(D), np.zeros(D), np.zeros(D)
        _kernel(dense_moments, jit)(X, weight, stride, *out)
        count, total, squares = np.zeros(D), np.zeros(D), np.zeros(D)
        for i in range(0, X.shape[0], stride):
            count += weight[i] * (X[i] != 0)
            total += weight[i] * X[i]
            squares += weight[i] * X[i] * X[i]
        for got, want in zip(out, (count, total, squares)):
            np.testing.assert_array_equal(got, want)


def check_dense_clip_at_the_bound(jit, index_type=np.int32):
    """Dense rows whose norm is the bound, or one unit of rounding beside it, are scaled
    exactly as the plain loop scales them: the norm that decides is the running sum in
    column order, whatever the kernel measures first (odd and even widths, heavy tails)."""
    rng = np.random.default_rng(5)
    for d in (1, 3, 4, 7, 64):
        X = rng.standard_cauchy(size=(40, d))
        inv, offset = rng.uniform(0.5, 2.0, d), rng.normal(size=d)
        moved = X * inv + offset
        running = np.array([float(np.sqrt(sum(v * v for v in row))) for row in moved])
        for norm in running[:6]:
            for bound in (norm, np.nextafter(norm, 0.0), np.nextafter(norm, np.inf)):
                out = np.empty_like(X)
                _kernel(dense_clip_affine, jit)(X, inv, offset, bound, out)
                want = moved.copy()
                for i, row in enumerate(moved):
                    sq = sum(v * v for v in row)
                    if bound * bound < sq < np.inf:
                        want[i] = row * (bound / np.sqrt(sq))
                np.testing.assert_array_equal(out, want)


def check_overflow_is_not_shortened(jit, index_type=np.int32):
    """A row whose squared norm overflows is left as it is by every clipping kernel (a
    factor bound / inf would turn it into zeros that no check refuses); the row beside it,
    merely long, is shortened."""
    with np.errstate(over="ignore"):  # (the squared norm, without numba)
        _overflow_rows(jit, index_type)


def _overflow_rows(jit, index_type):
    big, long = 1e200, 10.0
    data = np.array([big, big, long, long])
    indices, indptr = np.array([0, 5, 1, 2], dtype=index_type), np.array([0, 2, 4], index_type)
    got = data.copy()
    _kernel(csr_clip, jit)(got, indptr, 2.0)
    assert got[:2].tolist() == [big, big] and np.linalg.norm(got[2:]) == pytest.approx(2.0)
    ones, none = np.ones(D), np.zeros(0, dtype=np.uint8)
    out = np.empty(4)
    _kernel(csr_scale_clip, jit)(data, indices, indptr, ones, none, 1.0, 2.0, out)
    np.testing.assert_array_equal(out, got)
    out, idx, ptr = np.empty(4), np.empty(4, dtype=index_type), np.empty(3, dtype=index_type)
    _kernel(csr_affine_clip, jit)(data, indices, indptr, ones, none, 1.0, np.zeros(0, np.intp),
                                  np.zeros(0), 2.0, out, idx, ptr)
    np.testing.assert_array_equal(out, got)
    X = np.array([[big, big], [long, long]])
    dense = np.empty_like(X)
    _kernel(dense_clip_affine, jit)(X, np.ones(2), np.zeros(2), 2.0, dense)
    assert dense[0].tolist() == [big, big] and np.linalg.norm(dense[1]) == pytest.approx(2.0)


CHECKS = (check_moments, check_norms, check_scale_clip, check_affine_clip, check_unit_counts,
          check_dense_moments, check_dense_clip_at_the_bound,
          check_overflow_is_not_shortened)


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_kernel_equals_its_transcription(check, jit, index_type):
    check(jit, index_type)


@pytest.mark.parametrize("jit", [True, False])
def test_one_row_merge(jit):
    check_affine_clip(jit, n=1)


def test_the_cases_occur():
    """The rows hold every edge case the module docstring names (else the checks above
    would not test them)."""
    rows, scale, shift = _rows()
    offset = -(shift[CENTRED] * _inverse(scale[CENTRED]))
    lengths = np.diff(rows.indptr)
    assert (lengths == 0).any() and (rows.data == 0).any()
    only = [set(rows.indices[a:b]) <= set(CENTRED) for a, b in
            zip(rows.indptr[:-1], rows.indptr[1:]) if b > a]
    assert any(only)
    assert any((np.diff(rows.indices[a:b]) == 0).any()  # a repeated column
               for a, b in zip(rows.indptr[:-1], rows.indptr[1:]))
    data, indices, indptr = affine_reference(rows, scale, CENTRED, offset, 2.0)
    merged = rows.data.size + rows.n_samples * CENTRED.size
    assert data.size < merged  # entries dropped: stored zeros, cancellations, repeats
    assert affine_reference(rows, scale, CENTRED, offset, 0.0)[0].tolist() != data.tolist()


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_column_sums_equal_the_moments(weighted):
    """The preconditioner's column sums of binary rows (the counts at unit weights, else the
    moments pass) equal csr_moments' bit for bit, over all columns or some of them."""
    rows, _, _ = _rows(n=200, seed=3)
    rows = rows._replace(data=np.ones_like(rows.data))
    weight = 1.0 + (np.arange(rows.n_samples) % 3 == 0) * weighted
    sums = np.zeros((D, 4))
    csr_moments(rows.data, rows.indices, rows.indptr, weight, sums)
    for cols in (np.arange(D), np.arange(0, D, 2)):
        got = column_sums(rows, weight, cols)
        for k in range(3):
            np.testing.assert_array_equal(got[k], sums[cols, k])
    assert (unit_counts(rows, weight) is None) == weighted


def test_decreasing_columns_are_refused():
    rows = RowData(np.array([1.0, 2.0]), np.array([4, 2], dtype=np.int32),
                   np.array([0, 2], dtype=np.int32), 1, D)
    out = np.empty(2 + CENTRED.size), np.empty(2 + CENTRED.size, np.int32), np.empty(2, np.int32)
    assert csr_affine_clip(rows.data, rows.indices, rows.indptr, np.ones(D),
                           np.zeros(0, np.uint8), 1.0, CENTRED, np.ones(CENTRED.size), 0.0,
                           *out) == -1


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_transform_rows_equals_scipys_sum(index_type):
    """transform_rows on CSR rows (the compiled merge) gives the bits and the index types
    of scipy's sum of the scaled rows and the centred offsets, then the clip; rows whose
    columns are not sorted take scipy's path and give the same."""
    rows, _, _ = _rows(n=300, index_type=index_type, seed=1)
    dense = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.n_samples, D))
    dense = dense.toarray()
    dense[:, CENTRED] += 5.0  # non-zero in every row: centred
    X = sp.csr_matrix(dense)
    X.sort_indices()
    rows = RowData(X.data, X.indices.astype(index_type), X.indptr.astype(index_type),
                   X.shape[0], D)
    state = pre.new_transform(D)
    y = np.where(np.arange(rows.n_samples) % 3 == 0, 1.0, -1.0)
    pre.fix_scale(state, rows, y, first=True, usable=True)
    centred = pre.centred_columns(state)
    assert centred.tolist() == CENTRED.tolist() and state[pre.BOUND_KEY][0] > 0
    out = pre.transform_rows(rows, state, centred)
    offset = -(state[pre.SHIFT_KEY][centred] * _inverse(state[pre.SCALE_KEY][centred]))
    expected = affine_reference(rows, state[pre.SCALE_KEY], centred, offset,
                                state[pre.BOUND_KEY][0])
    for got, want in zip((out.data, out.indices, out.indptr), expected):
        np.testing.assert_array_equal(got, want)
    assert out.indices.dtype == out.indptr.dtype == index_type
    shuffled = rows._replace(indices=rows.indices.copy(), data=rows.data.copy())
    a, b = shuffled.indptr[1], shuffled.indptr[2]  # row 1 reversed: not sorted
    shuffled.indices[a:b] = shuffled.indices[a:b][::-1].copy()
    shuffled.data[a:b] = shuffled.data[a:b][::-1].copy()
    again = pre.transform_rows(shuffled, state, centred)
    for got, want in zip((again.data, again.indices, again.indptr), expected):
        np.testing.assert_array_equal(got, want)


def test_kernels_without_numba():
    """Every check above with NUMBA_DISABLE_JIT=1 (the helpers the kernels call too)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "import numpy as np, test_precondition_kernels as t\n"
            "for check in t.CHECKS:\n"
            "    for index_type in (np.int32, np.int64):\n"
            "        check(True, index_type)\n"
            "t.check_affine_clip(True, n=1)\n"
            "print('ok')\n")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code, os.path.dirname(__file__)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
