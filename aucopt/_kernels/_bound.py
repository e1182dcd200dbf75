"""Arrays handed to a kernel by address, for calls too short to pay for typing them.

numba unboxes every array argument of a call (about 40 ns each) and types named tuples
of arrays in Python; a stream learnt row by row calls its kernel once per row with
a dozen state arrays that do not change between rows. :func:`addresses` gives the
addresses of those arrays once; a kernel rebuilds them with :func:`f64_at` /
:func:`i64_at` (views without a reference count) and passes one int64 array instead.

The caller must keep the arrays alive and in place while it uses the addresses, and
the kernel must rebuild each with the dtype and shape it was given:
:class:`aucopt.algorithms._rowpath.RowPath` holds the arrays, and the estimator drops
the path whenever its state may have changed arrays.
"""

import numpy as np
from numba import carray, config, njit, types
from numba.extending import intrinsic

__all__ = ["addresses", "f64_at", "i64_at"]


@intrinsic
def _voidptr(typingctx, address):
    """The integer ``address`` as a ``void*``."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return types.voidptr(types.int64), codegen


@njit(inline="always")
def f64_at(address, shape):
    """The C-ordered float64 array of ``shape`` at ``address``."""
    return carray(_voidptr(address), shape, np.float64)


@njit(inline="always")
def i64_at(address, shape):
    """The C-ordered int64 array of ``shape`` at ``address``."""
    return carray(_voidptr(address), shape, np.int64)


def addresses(arrays, dtypes) -> np.ndarray | None:
    """Return the addresses of ``arrays`` (None unless each is C-ordered with its dtype).

    Parameters
    ----------
    arrays : sequence of ndarray
    dtypes : sequence of numpy dtype
        The dtype the kernel reads each array with.

    Returns
    -------
    ndarray of int64 or None
        None also without numba (``NUMBA_DISABLE_JIT=1``): addresses are for compiled code.
    """
    if config.DISABLE_JIT:
        return None
    for array, dtype in zip(arrays, dtypes, strict=True):
        if array.dtype != dtype or not array.flags.c_contiguous or not array.flags.writeable:
            return None
    return np.array([array.ctypes.data for array in arrays], dtype=np.int64)
