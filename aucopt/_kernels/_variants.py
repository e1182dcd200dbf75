"""Fastmath variants of kernels, each a distinct cached function.

numba's on-disk cache key ignores the compile flags (numba issue #6845): two
dispatchers of one Python function that differ only in ``fastmath`` would share
one cache entry, and the wrong machine code could run. :func:`fastmath_variant`
therefore compiles a *copy* of the function under its own name
(``<name>__fastmath``), so each variant has its own cache file.

The flags ``{'reassoc', 'contract'}`` give most of the speed of
``fastmath=True`` (vectorised reductions, fused multiply-adds) and keep the
meaning of NaN and inf, which the kernels' divergence checks rely on.

Some helpers exist in two forms: a reduction in four partial sums (run as
explicit 4-wide vector code, :mod:`aucopt._kernels._rows`: fast and still
bit-reproducible under the default flags) and a plain running sum (which the
loop vectoriser turns into wide vector code once reassociation is allowed).
:func:`plain_under_fastmath` registers such a pair; the fastmath twin of a
kernel calls the plain form wherever the kernel names the other one.
"""

import types

from numba import njit

__all__ = ["FASTMATH_FLAGS", "fastmath_variant", "plain_under_fastmath"]

FASTMATH_FLAGS = frozenset({"reassoc", "contract"})
_VARIANTS = {}
_PLAIN = {}  # id(unrolled helper) -> (unrolled helper, plain helper)


def plain_under_fastmath(unrolled, plain):
    """Make fastmath twins call ``plain`` where their kernel calls ``unrolled``.

    Parameters
    ----------
    unrolled, plain : callable
        Two implementations of one helper (same signature and meaning).
    """
    _PLAIN[id(unrolled)] = (unrolled, plain)


def _fastmath_globals(namespace):
    swaps = {name: _PLAIN[id(value)][1] for name, value in namespace.items()
             if id(value) in _PLAIN and _PLAIN[id(value)][0] is value}
    return {**namespace, **swaps} if swaps else namespace


def fastmath_variant(kernel):
    """Return the fastmath twin of the njit ``kernel`` (compiled and cached on first use).

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel decorated with ``@njit(cache=True, nogil=True)``. With
        ``NUMBA_DISABLE_JIT=1`` it is a plain function and is returned as is.

    Returns
    -------
    numba dispatcher or function
    """
    py_func = getattr(kernel, "py_func", None)
    if py_func is None:  # NUMBA_DISABLE_JIT=1
        return kernel
    if kernel not in _VARIANTS:
        twin = types.FunctionType(py_func.__code__, _fastmath_globals(py_func.__globals__),
                                  py_func.__name__ + "__fastmath", py_func.__defaults__,
                                  py_func.__closure__)
        twin.__qualname__ = py_func.__qualname__ + "__fastmath"
        twin.__module__ = py_func.__module__
        twin.__doc__ = py_func.__doc__
        _VARIANTS[kernel] = njit(cache=True, nogil=True, fastmath=set(FASTMATH_FLAGS))(twin)
    return _VARIANTS[kernel]
