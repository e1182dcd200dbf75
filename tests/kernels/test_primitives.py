"""Shared kernel primitives (notes.md#projections): closed forms, KKT conditions, dense == CSR."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numba import njit
from numpy.testing import assert_allclose

from aucopt._kernels._prox import (
    clip,
    project_l1_ball,
    project_l2_ball,
    project_l2_ball_centered,
    prox_elastic_net,
    prox_l2,
)
from aucopt._kernels._reduce import add_sq_unrolled, dot3_unrolled, dot_unrolled
from aucopt._kernels._rows import (
    row_axpy,
    row_axpy_dot,
    row_dot,
    row_nnz,
    row_sqnorm,
    row_to_dense,
)
from aucopt._kernels._schedules import SCHEDULE_CODES, step_size
from aucopt._kernels._stats import accumulate_class_sums, welford_deferred

# magnitudes below 1e-100 become exact zeros: their squares underflow (see project_l2_ball)
vectors = arrays(np.float64, st.integers(1, 30),
                 elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False).map(
                     lambda x: 0.0 if abs(x) < 1e-100 else x))
radii = st.floats(0.0, 50.0, allow_nan=False, allow_subnormal=False)
SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(vectors, radii)
def test_l1_ball_projection_kkt(v, radius):
    w = v.copy()
    theta = project_l1_ball(w, radius, np.empty_like(v))
    if np.abs(v).sum() <= radius:
        assert_allclose(w, v)
        return
    assert abs(np.abs(w).sum() - radius) <= 1e-9 * max(1.0, radius)
    nz = w != 0
    # KKT: w = sign(v) (|v| - theta)_+ with one theta, zeros exactly where |v| <= theta
    assert_allclose(np.abs(v[nz]) - np.abs(w[nz]), theta, atol=1e-9 * max(1, np.abs(v).max()))
    assert np.all(np.sign(w[nz]) == np.sign(v[nz]))
    assert np.all(np.abs(v[~nz]) <= theta + 1e-9)
    again = w.copy()
    project_l1_ball(again, radius, np.empty_like(v))  # idempotent
    assert_allclose(again, w, atol=1e-9 * max(1.0, radius))


def test_l1_ball_projection_brute_force():
    """Compare with a generic solver on small problems."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    for _ in range(5):
        v, radius = rng.normal(size=5) * 3, 2.0
        w = v.copy()
        project_l1_ball(w, radius, np.empty(5))
        cons = {"type": "ineq", "fun": lambda z, r=radius: r - np.abs(z).sum()}
        best = minimize(lambda z, v=v: np.sum((z - v) ** 2), np.zeros(5), constraints=[cons],
                        method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
        assert np.sum((w - v) ** 2) <= best.fun + 1e-6


@SETTINGS
@given(vectors, radii)
def test_l2_ball_projection(v, radius):
    w = v.copy()
    norm = project_l2_ball(w, radius)
    assert_allclose(norm, np.linalg.norm(v))
    if norm <= radius:
        assert_allclose(w, v)
    else:
        assert_allclose(w, v * radius / norm)


def test_l2_ball_centered():
    v, c = np.array([3.0, 4.0]), np.array([1.0, 1.0])
    w = v.copy()
    project_l2_ball_centered(w, c, 1.0)
    assert_allclose(np.linalg.norm(w - c), 1.0)
    assert_allclose((w - c) / np.linalg.norm(w - c), (v - c) / np.linalg.norm(v - c))


@SETTINGS
@given(vectors, st.floats(1e-4, 10), st.floats(0, 10), st.floats(0, 5))
def test_elastic_net_prox_optimality(u, eta, beta, beta1):
    w = u.copy()
    prox_elastic_net(w, eta, beta, beta1)
    nz = w != 0
    # stationarity of 1/2||w - u||^2 + eta (beta/2 ||w||^2 + beta1 ||w||_1)
    resid = w[nz] - u[nz] + eta * beta * w[nz] + eta * beta1 * np.sign(w[nz])
    assert_allclose(resid, 0.0, atol=1e-9 * max(1.0, np.abs(u).max()))
    assert np.all(np.abs(u[~nz]) <= eta * beta1 + 1e-12)
    plain = u.copy()
    prox_l2(plain, eta, beta)
    assert_allclose(plain, u / (1 + eta * beta))
    if beta1 == 0:
        assert_allclose(w, plain)


def test_clip():
    assert clip(5.0, -1.0, 2.0) == 2.0 and clip(-5.0, -1.0, 2.0) == -1.0
    assert clip(0.5, -1.0, 2.0) == 0.5


@pytest.mark.parametrize("n", [50, 53])  # a multiple of the buffer, and rows still pending
def test_welford_equals_numpy_cov(n):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4)) * [1, 10, 100, 0.1] + 1000.0  # large offset: stability
    count, mean, scatter = np.zeros(1, np.int64), np.zeros(4), np.zeros((4, 4))
    pending, n_pending = np.zeros((5, 4)), np.zeros(1, np.int64)
    for x in X:
        welford_deferred(count, mean, scatter, pending, n_pending, x)
    assert count[0] == n and n_pending[0] == n % 5
    lower = np.tril(scatter)
    rest = pending[:n_pending[0]]
    cov = (lower + np.tril(lower, -1).T + rest.T @ rest) / n
    assert_allclose(mean, X.mean(0), rtol=1e-13)
    assert_allclose(cov, np.cov(X.T, bias=True), rtol=1e-9, atol=1e-9)


@njit(cache=True)
def _exercise_rows(w, data, indices, indptr, n, out):
    total = 0.0
    for i in range(n):
        total += row_dot(w, data, indices, indptr, i) + row_sqnorm(data, indices, indptr, i)
        total += row_nnz(data, indices, indptr, i) * 0.0
        row_axpy(0.5, w, data, indices, indptr, i)
        row_to_dense(out[i], data, indices, indptr, i)
    return total


@pytest.mark.parametrize("jit", [True, False])
def test_rows_dense_and_csr_agree(jit):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 7))
    X[X < 0.5] = 0.0
    S = sp.csr_matrix(X)
    fn = _exercise_rows if jit else _exercise_rows.py_func
    w1, w2 = rng.normal(size=7), None
    w2 = w1.copy()
    out1, out2 = np.empty_like(X), np.empty_like(X)
    t1 = fn(w1, X, None, None, 20, out1)
    t2 = fn(w2, S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64), 20, out2)
    assert_allclose(t1, t2, rtol=1e-12)
    assert_allclose(w1, w2, rtol=1e-12)
    assert_allclose(out1, X)
    assert_allclose(out2, X)


def test_class_sums():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    y = np.where(rng.random(30) < 0.3, 1.0, -1.0)
    counts, sums, sqmax = np.zeros(2, np.int64), np.zeros((2, 3)), np.zeros(1)
    accumulate_class_sums(counts, sums, sqmax, X, None, None, y)
    assert counts.tolist() == [(y < 0).sum(), (y > 0).sum()]
    assert_allclose(sums[1], X[y > 0].sum(0))
    assert_allclose(sums[0], X[y < 0].sum(0))
    assert_allclose(sqmax[0], (X**2).sum(1).max())


def test_class_sums_of_csr_rows_are_their_column_sums_in_stored_order():
    # the compiled pass prefetches the entries of sums of rows ahead: the sums stay those of
    # numpy.bincount over each class's stored entries, bit for bit
    rng = np.random.default_rng(3)
    X = sp.random(60, 9, density=0.4, format="csr", random_state=rng)
    y = np.where(rng.random(60) < 0.3, 1.0, -1.0)
    counts, sums, sqmax = np.zeros(2), np.zeros((2, 9)), np.zeros(1)
    assert accumulate_class_sums(counts, sums, sqmax, X.data, X.indices, X.indptr, y) == -1
    for c, mask in ((1, y > 0), (0, y < 0)):
        part = X[np.flatnonzero(mask)]
        np.testing.assert_array_equal(sums[c], np.bincount(part.indices, weights=part.data,
                                                           minlength=9))
    assert counts.tolist() == [(y < 0).sum(), (y > 0).sum()]


def test_step_sizes():
    assert step_size(SCHEDULE_CODES["constant"], 0.3, 0.5, 7) == 0.3
    assert_allclose(step_size(SCHEDULE_CODES["inv_sqrt"], 2.0, 0.5, 4), 1.0)
    assert_allclose(step_size(SCHEDULE_CODES["inv_power"], 1.0, 0.75, 16), 16**-0.75)
    assert_allclose(step_size(SCHEDULE_CODES["inv_linear"], 3.0, 0.5, 2), 1.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e200])
def test_class_sums_report_the_first_non_finite_row(bad):
    X = np.ones((6, 3))
    X[4, 1] = bad
    X[5, 0] = np.nan
    counts, sums, sqmax = np.zeros(2, np.int64), np.zeros((2, 3)), np.zeros(1)
    assert accumulate_class_sums(counts, sums, sqmax, X, None, None, np.ones(6)) == 4
    counts, sums, sqmax = np.zeros(2, np.int64), np.zeros((2, 3)), np.zeros(1)
    assert accumulate_class_sums(counts, sums, sqmax, np.ones((6, 3)), None, None,
                                 np.ones(6)) == -1


def _partial_sums(a, b):
    """Four interleaved partial sums in plain Python (the documented order of the lanes)."""
    s = [0.0, 0.0, 0.0, 0.0]
    end = len(a) - len(a) % 4
    for j in range(end):
        s[j % 4] += float(a[j]) * float(b[j])
    for j in range(end, len(a)):
        s[0] += float(a[j]) * float(b[j])
    return (s[0] + s[2]) + (s[1] + s[3])


def _lanes(w, a, b, x, target, strided):
    return (dot_unrolled(w, x), dot3_unrolled(w, a, b, x), add_sq_unrolled(target, x),
            dot_unrolled(strided, x))


def _axpy_fused(w, data, indices, indptr):
    return row_axpy_dot(0.3, 1, w, 3, data, indices, indptr, 2)


def _axpy_separate(w, data, indices, indptr):
    row_axpy(0.3, w, data, indices, indptr, 1)
    return row_dot(w, data, indices, indptr, 2)


# one numba dispatcher per helper, compiled once for the module (not once per case)
_jitted = functools.cache(njit)


@pytest.mark.parametrize("d", [0, 1, 3, 4, 5, 8, 13, 100])
@pytest.mark.parametrize("jit", [True, False])
def test_lane_reductions_equal_four_scalar_partial_sums_bit_for_bit(d, jit):
    """The 4-wide vector code adds in exactly the order of four scalar partial sums."""
    fn = _jitted(_lanes) if jit else _lanes
    rng = np.random.default_rng(d)
    w, a, b, x = rng.normal(size=(4, d)) * [[1.0], [1e3], [1e-3], [7.0]]
    target = rng.normal(size=d)
    wide = rng.normal(size=2 * d)
    before = target.copy()
    dot, (s, p, q), sq, strided = fn(w, a, b, x, target, wide[::2])  # strided: element loads
    expected = [_partial_sums(w, x), _partial_sums(w, x), _partial_sums(a, x),
                _partial_sums(b, x), _partial_sums(x, x), _partial_sums(wide[::2], x)]
    np.testing.assert_array_equal([dot, s, p, q, sq, strided], expected)
    np.testing.assert_array_equal(target, before + x)


@pytest.mark.parametrize("jit", [True, False])
def test_pipelined_axpy_dot_equals_axpy_then_dot(jit):
    """row_axpy_dot (the update of one row done in the sweep of the next) changes no bit."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, 11))
    X[X < -0.5] = 0.0
    S = sp.csr_matrix(X)
    f, s = (_jitted(_axpy_fused), _jitted(_axpy_separate)) if jit else (_axpy_fused,
                                                                        _axpy_separate)
    for rows in ((X, None, None), (S.data, S.indices, S.indptr)):
        w1, w2 = rng.normal(size=(2, 11))
        w2[:] = w1
        assert f(w1, *rows) == s(w2, *rows)
        np.testing.assert_array_equal(w1, w2)


def test_lane_abs_and_prefetch():
    from aucopt._kernels._lanes import abs4, add4, lane, load4, prefetch, splat4

    @njit
    def run(x):
        prefetch(x, 0)
        prefetch(x, 10**6)  # a hint: never faults
        v = add4(abs4(load4(x, 0)), splat4(1))
        return lane(v, 0), lane(v, 1), lane(v, 2), lane(v, 3)

    assert run(np.array([-1.5, 2.0, -0.0, 3.0])) == (2.5, 3.0, 1.0, 4.0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_prefetch_asks_for_the_lines_of_any_numeric_vector(dtype):
    # the CSR columns and row starts are prefetched as well as float64 values: the intrinsic
    # is emitted for them (a strided vector gets the no-op, a hint being optional)
    from aucopt._kernels._lanes import prefetch

    @njit
    def run(x, j):
        prefetch(x, j)
        return x[0]

    x = np.arange(20, dtype=dtype)
    assert run(x, 10**6) == 0  # a hint: never faults
    assert any("llvm.prefetch" in ir for ir in run.inspect_llvm().values())
    run(x[::2], 3)
    assert not any("llvm.prefetch" in ir for sig, ir in run.inspect_llvm().items()
                   if sig[0].layout != "C")
