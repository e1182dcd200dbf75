"""scipy's BLAS routines as LLVM symbols that cacheable numba kernels call by name.

The one module of the kernel layer that imports more than numpy and numba: the
addresses of ``dsymv`` and ``dsyrk`` come from ``scipy.linalg.cython_blas``.
"""

import ctypes

import llvmlite.binding as llvm
import scipy.linalg.cython_blas as cython_blas
from numba.core.extending import get_cython_function_address

__all__ = ["BLAS_SYMBOLS", "register_blas_symbols"]

BLAS_SYMBOLS = ("dsymv", "dsyrk")  # registered as "aucopt_" + name


def register_blas_symbols() -> None:
    """Register scipy's BLAS routines used by the OPAUC kernels as LLVM symbols.

    The kernels of :mod:`aucopt._kernels._stats` call ``aucopt_dsymv`` and
    ``aucopt_dsyrk`` by name, so that they stay cacheable; the addresses come
    from ``scipy.linalg.cython_blas`` in every process. Called on import of this
    module, which ``_stats`` imports, so the symbols exist before any kernel
    that calls them is compiled or loaded from the cache.

    Raises
    ------
    ImportError
        If scipy's BLAS takes 64-bit integers (the kernels pass 32-bit ones).
    """
    name_of = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
        ("PyCapsule_GetName", ctypes.pythonapi))
    for name in BLAS_SYMBOLS:
        signature = name_of(cython_blas.__pyx_capi__[name]).decode()
        if "long" in signature or "int64" in signature:
            raise ImportError(f"scipy.linalg.cython_blas.{name} does not take 32-bit int "
                              f"arguments ({signature}); aucopt needs an LP64 scipy build.")
        llvm.add_symbol("aucopt_" + name,
                        get_cython_function_address("scipy.linalg.cython_blas", name))


register_blas_symbols()
