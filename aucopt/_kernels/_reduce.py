"""Dense reductions over float64 vectors, in two forms with fixed results.

``*_unrolled``: four interleaved partial sums on ``<4 x double>`` lanes
(:mod:`aucopt._kernels._lanes`), fast and fixed by the code, the same result on
every machine. ``*_plain``: one running sum, which the loop vectoriser turns
into wide vector code once reassociation is allowed; the fastmath twins of the
kernels use it (:func:`aucopt._kernels._variants.plain_under_fastmath`).
"""

from numba import njit
from numba.extending import overload

from ._lanes import add4, lane, load4, mul4, splat4, store4
from ._variants import plain_under_fastmath

__all__ = ["combine4", "dot_unrolled", "dot_plain", "dot3_unrolled", "dot3_plain",
           "add_sq_unrolled"]


def combine4(acc, s0):
    """Return ``(s0 + s2) + (s1 + s3)``, ``s_k`` the lanes of ``acc`` for k > 0.

    The final sum of four partial sums (``s0`` replaces lane 0, which may have
    taken the elements past the last multiple of 4).
    """
    return (s0 + lane(acc, 2)) + (lane(acc, 1) + lane(acc, 3))


overload(combine4, inline="always")(lambda acc, s0: combine4)  # the same body under the JIT


@njit(inline="always")
def dot_unrolled(a, b):
    """Return ``a . b`` for float64 vectors, summed in four partial sums.

    ``s_k`` sums ``a[j] b[j]`` for ``j = k (mod 4)`` in order (the elements past
    the last multiple of 4 go to ``s_0``), and the result is ``(s0 + s2) + (s1 + s3)``.
    """
    d = a.shape[0]
    end = d - d % 4
    acc = splat4(0.0)
    for j in range(0, end, 4):
        acc = add4(acc, mul4(load4(a, j), load4(b, j)))
    s0 = lane(acc, 0)
    for j in range(end, d):
        s0 += a[j] * b[j]
    return combine4(acc, s0)


@njit(inline="always")
def dot_plain(a, b):
    """Return ``a . b`` with one running sum (the fastmath form of :func:`dot_unrolled`)."""
    s = 0.0
    for j in range(a.shape[0]):
        s += a[j] * b[j]
    return s


@njit(inline="always")
def dot3_unrolled(w, a, b, x):
    """Return ``(w . x, a . x, b . x)`` in one sweep, each as :func:`dot_unrolled`."""
    d = x.shape[0]
    end = d - d % 4
    s = p = q = splat4(0.0)
    for j in range(0, end, 4):
        xj = load4(x, j)
        s = add4(s, mul4(load4(w, j), xj))
        p = add4(p, mul4(load4(a, j), xj))
        q = add4(q, mul4(load4(b, j), xj))
    s0, p0, q0 = lane(s, 0), lane(p, 0), lane(q, 0)
    for j in range(end, d):
        s0 += w[j] * x[j]
        p0 += a[j] * x[j]
        q0 += b[j] * x[j]
    return combine4(s, s0), combine4(p, p0), combine4(q, q0)


@njit(inline="always")
def dot3_plain(w, a, b, x):
    """Return ``(w . x, a . x, b . x)`` in one sweep, one running sum each."""
    s = p = q = 0.0
    for j in range(x.shape[0]):
        s += w[j] * x[j]
        p += a[j] * x[j]
        q += b[j] * x[j]
    return s, p, q


@njit(inline="always")
def add_sq_unrolled(target, x):
    """Add ``x`` to ``target`` in place and return ``||x||^2`` (as :func:`dot_unrolled`)."""
    d = x.shape[0]
    end = d - d % 4
    acc = splat4(0.0)
    for j in range(0, end, 4):
        xj = load4(x, j)
        store4(target, j, add4(load4(target, j), xj))
        acc = add4(acc, mul4(xj, xj))
    s0 = lane(acc, 0)
    for j in range(end, d):
        target[j] += x[j]
        s0 += x[j] * x[j]
    return combine4(acc, s0)


plain_under_fastmath(dot_unrolled, dot_plain)
