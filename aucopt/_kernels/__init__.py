"""numba kernels: arrays in, arrays mutated.

This layer imports numpy and numba only (nothing else of aucopt). Every kernel
reads rows through the helpers of :mod:`aucopt._kernels._rows`, so one body
serves dense (``data`` 2-D, ``indices = indptr = None``) and CSR input
(``data, indices, indptr`` of a CSR matrix with sorted int64 indices).
Kernels never validate, never allocate per sample and never draw random
numbers: the caller passes sample orders and random draws in.
"""
