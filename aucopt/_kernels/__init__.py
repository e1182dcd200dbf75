"""numba kernels: arrays in, arrays mutated.

This layer imports numpy and numba only (and typing for the state declarations). Every kernel
reads rows through the helpers of :mod:`aucopt._kernels._rows`, so one body
serves dense and CSR input; where a specialised twin is faster for one of them,
it is declared with its generic kernel (:mod:`aucopt._kernels._twins`).
Kernels never validate, never allocate per sample and never draw random
numbers: the caller passes sample orders and random draws in.

The arguments most kernels share:

``data, indices, indptr``
    The rows: a dense ``(n, d)`` array with ``indices = indptr = None``, or the three
    arrays of a CSR matrix (sorted int64 indices); read through :mod:`._rows`.
``y``
    Labels in {-1, +1}, shape ``(n,)``.
``order``
    The rows to visit, in this order (int64; the caller draws any shuffling).
``st``
    The family's typed state (:mod:`._state`): a named tuple of the estimator's arrays.
``hp``
    The kernel scalars built from the hyperparameter declarations
    (:mod:`aucopt.algorithms._params`).
``t``
    Number of updates before the call; kernels return the new count and a status
    (``OK``, ``DIVERGED``, ...).

The cached machine code of a kernel is stamped with its file and every file of this package
that it imports (:mod:`._cache`), so that a change to a helper compiles its callers again.
"""

from ._cache import install as _install_cache

_install_cache()  # before any kernel is declared: they are declared by their modules' import
