"""Projection onto (l1 ball x box) cap l2 ball: exact, Dykstra, alternating."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from aucopt._kernels._prox_l1l2 import (
    ALTERNATING,
    DYKSTRA,
    EXACT,
    project_l1l2,
    project_l1l2_exact,
    project_omega1,
)

from ..reference import fsauc as ref

SETTINGS = settings(max_examples=120, deadline=None)


def _problem(seed, k):
    """A random point v, a centre c in C, radii (R, box, r) that make both sets matter."""
    rng = np.random.default_rng(seed)
    n_l1 = k - 2
    radius = rng.uniform(0.5, 5.0)
    box = rng.uniform(0.2, 3.0)
    c = rng.normal(size=k) * rng.uniform(0.1, 3.0)
    project_omega1(c, n_l1, radius, box, np.empty(k))
    v = c + rng.normal(size=k) * rng.uniform(0.5, 10.0)
    r = rng.uniform(0.01, 1.0) * np.linalg.norm(v - c)
    return v, c, r, n_l1, radius, box


def _project(code, v, c, r, n_l1, radius, box, rounds=100000):
    x = v.copy()
    info = project_l1l2(code, x, c, r, n_l1, radius, box, rounds, np.empty((4, len(v))),
                        np.empty(len(v)))
    return x, info


def _feasible(x, c, r, n_l1, radius, box, tol=1e-10):
    return (np.abs(x[:n_l1]).sum() <= radius * (1 + tol) + tol
            and np.all(np.abs(x[n_l1:]) <= box * (1 + tol))
            and np.linalg.norm(x - c) <= r * (1 + tol) + tol)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(3, 25))
def test_exact_is_feasible_optimal_and_idempotent(seed, k):
    v, c, r, n_l1, radius, box = _problem(seed, k)
    x, mu = _project(EXACT, v, c, r, n_l1, radius, box)
    assert _feasible(x, c, r, n_l1, radius, box)
    # KKT: x = Pi_C((v + mu c)/(1 + mu)) with mu >= 0 and mu (||x - c|| - r) = 0
    assert mu >= 0
    x_mu = ((v + mu * c) / (1 + mu))
    project_omega1(x_mu, n_l1, radius, box, np.empty(k))
    assert_allclose(x, x_mu, atol=1e-12 * (1 + np.abs(v).max()))
    if mu > 0:
        assert abs(np.linalg.norm(x - c) - r) <= 1e-9 * (1 + r)
    # optimality: <v - x, z - x> <= 0 for feasible z (the centre, alternating points)
    rng = np.random.default_rng(seed + 1)
    zs = [c] + [_project(ALTERNATING, c + rng.normal(size=k) * 3, c, r, n_l1, radius, box)[0]
                for _ in range(20)]
    scale = np.linalg.norm(v - x) * (1 + np.linalg.norm(x))
    for z in zs:
        assert (v - x) @ (z - x) <= 1e-9 * scale
    again, _ = _project(EXACT, x, c, r, n_l1, radius, box)
    assert_allclose(again, x, atol=1e-10 * (1 + np.abs(x).max()))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(3, 25))
def test_exact_equals_dykstra_limit(seed, k):
    v, c, r, n_l1, radius, box = _problem(seed, k)
    x, _ = _project(EXACT, v, c, r, n_l1, radius, box)
    y, rounds = _project(DYKSTRA, v, c, r, n_l1, radius, box)
    assert rounds < 100000  # Dykstra converged
    assert_allclose(x, y, atol=1e-8 * (1 + np.abs(v).max()))


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(3, 25))
def test_alternating_gives_a_feasible_point_no_closer_than_the_projection(seed, k):
    v, c, r, n_l1, radius, box = _problem(seed, k)
    z, rounds = _project(ALTERNATING, v, c, r, n_l1, radius, box, rounds=50)
    assert _feasible(z, c, r, n_l1, radius, box)
    assert rounds <= 5  # c in C: Pi_B of a point of C stays in C (up to rounding)
    x, _ = _project(EXACT, v, c, r, n_l1, radius, box)
    assert np.linalg.norm(v - z) >= np.linalg.norm(v - x) * (1 - 1e-12)


def test_alternating_is_not_the_projection():
    """Spec notes.md#exact-projection: plain alternating projections stop at a different point."""
    gaps = []
    for seed in range(50):
        v, c, r, n_l1, radius, box = _problem(seed, 8)
        x, _ = _project(EXACT, v, c, r, n_l1, radius, box)
        z, _ = _project(ALTERNATING, v, c, r, n_l1, radius, box)
        gaps.append(np.linalg.norm(x - z))
    assert max(gaps) > 1e-3


def test_inside_the_ball_is_the_projection_onto_c():
    v, c, r, n_l1, radius, box = _problem(3, 10)
    x, mu = _project(EXACT, v, c, 1e6, n_l1, radius, box)
    expected = v.copy()
    project_omega1(expected, n_l1, radius, box, np.empty(10))
    assert mu == 0.0
    assert_allclose(x, expected, rtol=0, atol=0)


def test_exact_matches_the_reference_bisection():
    for seed in range(30):
        v, c, r, n_l1, radius, box = _problem(seed, 12)
        x, _ = _project(EXACT, v, c, r, n_l1, radius, box)
        assert_allclose(x, ref.project_exact(v, c, r, radius, box), rtol=1e-12, atol=1e-13)


def test_zero_radius_returns_the_centre():
    v, c, _, n_l1, radius, box = _problem(5, 6)
    x = v.copy()
    project_l1l2_exact(x, c, 0.0, n_l1, radius, box, np.empty(6), np.empty(6))
    assert_allclose(x, c, atol=1e-12)
