"""Shared kernel primitives (spec section P): closed forms, KKT conditions, dense == CSR."""

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
from aucopt._kernels._rows import row_axpy, row_dot, row_nnz, row_sqnorm, row_to_dense
from aucopt._kernels._schedules import SCHEDULE_CODES, step_size
from aucopt._kernels._stats import accumulate_class_sums, welford_update

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


def test_welford_equals_numpy_cov():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * [1, 10, 100, 0.1] + 1000.0  # large offset: stability
    count, mean, cov = np.zeros(1, np.int64), np.zeros(4), np.zeros((4, 4))
    for x in X:
        welford_update(count, mean, cov, x)
    assert count[0] == 50
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
