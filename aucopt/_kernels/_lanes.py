"""Four-lane ``<4 x double>`` vectors for the dense reductions of the kernels.

A single running sum is a chain of dependent additions that the compiler may not
reorder without fastmath, and numba disables LLVM's SLP vectoriser, so even four
interleaved partial sums compile to scalar code. The lanes below are a numba
type whose LLVM value is ``<4 x double>``: lane k of a reduction sums the
elements j = k (mod 4) in order, exactly like a scalar partial sum, so the
vector code gives the scalar result bit for bit (no reassociation and no fused
multiply-add under the default flags) on every machine. Each operation is a
Python function on 4-tuples (what runs with ``NUMBA_DISABLE_JIT=1``, with the
same floating-point operations) overloaded by an LLVM intrinsic; LLVM inlines
the calls.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, overload, register_model

__all__ = ["load4", "store4", "splat4", "add4", "sub4", "mul4", "abs4", "lane", "prefetch"]


class _Lanes(types.Type):
    def __init__(self):
        super().__init__(name="Lanes4xf64")


ir = cgutils.ir  # llvmlite's IR module, through numba (kernels import only numpy and numba)
_LANES = _Lanes()
_LL_LANES = ir.VectorType(ir.DoubleType(), 4)


@register_model(_Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _LL_LANES)


def _contiguous_vector(arr):
    return (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and arr.dtype == types.float64)


def _contiguous_numbers(arr):
    return (isinstance(arr, types.Array) and arr.ndim == 1 and arr.layout == "C"
            and isinstance(arr.dtype, types.Number))


def _float_vector(arr):
    return isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.float64


def _lanes_pointer(context, builder, arrty, arr, j):
    array = context.make_array(arrty)(context, builder, arr)
    return builder.bitcast(builder.gep(array.data, [j]), _LL_LANES.as_pointer())


def load4(arr, j):
    """Return ``arr[j:j + 4]`` as lanes (``arr`` a float64 vector; no bounds check).

    One vector load for a C-contiguous ``arr``, four element loads otherwise.
    """
    return (arr[j], arr[j + 1], arr[j + 2], arr[j + 3])


def store4(arr, j, value):
    """Write the lanes ``value`` into ``arr[j:j + 4]`` (no bounds check)."""
    arr[j], arr[j + 1], arr[j + 2], arr[j + 3] = value


def splat4(x):
    """Return four copies of the float ``x``."""
    return (x, x, x, x)


def add4(a, b):
    """Return ``a + b`` lane by lane."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def sub4(a, b):
    """Return ``a - b`` lane by lane."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])


def mul4(a, b):
    """Return ``a * b`` lane by lane."""
    return (a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3])


def abs4(a):
    """Return ``|a|`` lane by lane."""
    return (abs(a[0]), abs(a[1]), abs(a[2]), abs(a[3]))


def lane(value, k):
    """Return lane ``k`` of ``value``."""
    return value[k]


def prefetch(arr, j):
    """Ask the CPU to fetch the cache line of ``arr[j]`` (a hint; a no-op without the JIT).

    ``arr`` is a numeric vector (a no-op unless C-contiguous); ``j`` need not be
    a valid index (a prefetch never faults).
    """


@intrinsic
def _load4(typingctx, arr, j):
    if not _contiguous_vector(arr) or not isinstance(j, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.load(_lanes_pointer(context, builder, arr, args[0], args[1]), align=8)

    return _LANES(arr, j), codegen


@intrinsic
def _store4(typingctx, arr, j, value):
    if not _contiguous_vector(arr) or not isinstance(j, types.Integer) or value != _LANES:
        return None

    def codegen(context, builder, signature, args):
        builder.store(args[2], _lanes_pointer(context, builder, arr, args[0], args[1]), align=8)
        return context.get_dummy_value()

    return types.none(arr, j, _LANES), codegen


@intrinsic
def _splat4(typingctx, x):
    if not isinstance(x, types.Float | types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.float64)
        lanes = cgutils.get_null_value(_LL_LANES)
        for k in range(4):
            lanes = builder.insert_element(lanes, value, ir.Constant(ir.IntType(32), k))
        return lanes

    return _LANES(x), codegen


def _lanes_binary(instruction):
    @intrinsic
    def operation(typingctx, a, b):
        if a != _LANES or b != _LANES:
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], args[1])

        return _LANES(_LANES, _LANES), codegen

    return operation


_add4, _sub4, _mul4 = _lanes_binary("fadd"), _lanes_binary("fsub"), _lanes_binary("fmul")


@intrinsic
def _abs4(typingctx, a):
    if a != _LANES:
        return None

    def codegen(context, builder, signature, args):
        fabs = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_LL_LANES, [_LL_LANES]), "llvm.fabs.v4f64")
        return builder.call(fabs, [args[0]])

    return _LANES(_LANES), codegen


@intrinsic
def _lane(typingctx, value, k):
    if value != _LANES or not isinstance(k, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.extract_element(args[0], args[1])

    return types.float64(_LANES, k), codegen


@intrinsic
def _prefetch(typingctx, arr, j):
    if not _contiguous_numbers(arr) or not isinstance(j, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(arr)(context, builder, args[0])
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        address = builder.bitcast(builder.gep(array.data, [args[1]]), byte)
        # read, highest temporal locality, data cache
        builder.call(function, [address, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.none(arr, j), codegen


@overload(prefetch)
def _prefetch_jit(arr, j):
    if _contiguous_numbers(arr):
        return lambda arr, j: _prefetch(arr, j)
    return lambda arr, j: None


@intrinsic
def _pack4(typingctx, a, b, c, d):
    if not all(isinstance(v, types.Float) for v in (a, b, c, d)):
        return None

    def codegen(context, builder, signature, args):
        lanes = cgutils.get_null_value(_LL_LANES)
        for k, (value, ty) in enumerate(zip(args, signature.args)):
            value = context.cast(builder, value, ty, types.float64)
            lanes = builder.insert_element(lanes, value, ir.Constant(ir.IntType(32), k))
        return lanes

    return _LANES(a, b, c, d), codegen


@overload(load4)
def _load4_jit(arr, j):
    if _contiguous_vector(arr):
        return lambda arr, j: _load4(arr, j)
    if _float_vector(arr):  # strided: element by element
        return lambda arr, j: _pack4(arr[j], arr[j + 1], arr[j + 2], arr[j + 3])
    return None


@overload(store4)
def _store4_jit(arr, j, value):
    if _contiguous_vector(arr):
        return lambda arr, j, value: _store4(arr, j, value)
    if _float_vector(arr):
        def impl(arr, j, value):
            for k in range(4):
                arr[j + k] = _lane(value, k)
        return impl
    return None


def _jit_form(jit):
    """Overload typer: compile a call of the Python lane operation as a call of ``jit``."""
    def typer(*args):
        return lambda *args: jit(*args)

    return typer


for _python, _jit in ((splat4, _splat4), (add4, _add4), (sub4, _sub4), (mul4, _mul4),
                      (abs4, _abs4), (lane, _lane)):
    overload(_python)(_jit_form(_jit))
