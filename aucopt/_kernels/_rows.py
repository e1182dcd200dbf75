"""Row access shared by every kernel: one kernel body for dense and CSR input.

A data set reaches a kernel as three arguments ``(data, indices, indptr)``:

* dense ``X``: ``(X, None, None)`` with ``X`` C-contiguous float64 of shape (n, d);
* CSR ``X``: ``(X.data, X.indices, X.indptr)`` with sorted int64 indices.

Each helper below is a plain Python function (used as it is when
``NUMBA_DISABLE_JIT=1``) with a numba ``overload`` that picks the dense or the
CSR body at compile time from the type of ``indices``. A kernel written with
these helpers compiles to exactly two cached specialisations.

Dense reductions come in two forms (see the section comments below): four
interleaved partial sums (:func:`row_dot` and the ``*_unrolled`` helpers, run as
4-wide vector code under the default flags, with the same result bit for bit)
and a plain running sum (``*_plain``: the form the fastmath twins of the kernels
use, see :func:`aucopt._kernels._variants.plain_under_fastmath`).
"""

import inspect

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, models, overload, register_model

from ._variants import plain_under_fastmath

__all__ = [
    "row_dot", "row_axpy", "row_add_sq", "row_sqnorm", "row_to_dense", "row_nnz",
    "inline_row_function", "dot_unrolled", "dot_plain", "dot3_unrolled", "dot3_plain",
    "add_sq_unrolled", "row_dot_plain", "row_dot3_unrolled", "row_dot3", "row_axpy_dot",
    "row_add_sq_unrolled", "load4", "store4", "splat4", "add4", "sub4", "mul4", "abs4", "lane",
    "prefetch", "combine4",
]


def _row_function(dense_impl, csr_impl, name=None, inline=False):
    """Return one function that runs ``dense_impl`` or ``csr_impl``.

    Parameters
    ----------
    dense_impl, csr_impl : callable
        Implementations with the same signature, whose last four arguments are
        ``data, indices, indptr, i``.
    name : str, optional
        Name of the returned function (default: ``dense_impl``'s with ``_dense_``
        replaced by ``row_``).
    inline : bool
        Inline the implementation into the calling kernel (numba IR inlining).

    Returns
    -------
    callable
        A Python function dispatching on ``indices is None``, with a numba
        overload that makes the same choice at compile time.
    """
    signature = inspect.signature(dense_impl)

    def dispatch(*args):
        impl = dense_impl if args[-3] is None else csr_impl
        return impl(*args)

    def typer(*args):
        return dense_impl if isinstance(args[-3], types.NoneType) else csr_impl

    typer.__signature__ = signature
    dispatch.__signature__ = signature
    dispatch.__name__ = name or dense_impl.__name__.replace("_dense_", "row_")
    dispatch.__doc__ = dense_impl.__doc__
    overload(dispatch, inline="always" if inline else "never")(typer)
    return dispatch


def inline_row_function(dense_impl, csr_impl, name):
    """Return a row helper like :func:`_row_function`, inlined where numba calls it.

    Inlining matters for helpers called once per row with many array
    arguments (the class-sums pass ran 1.4x faster than with a call per row).

    Parameters
    ----------
    dense_impl, csr_impl : callable
        Implementations with the same signature ending in ``data, indices, indptr, i``.
    name : str
        Name of the returned function.

    Returns
    -------
    callable
    """
    return _row_function(dense_impl, csr_impl, name, inline=True)


def _dense_dot(w, data, indices, indptr, i):
    """Return ``w . x_i`` (dense rows: four partial sums, :func:`dot_unrolled`)."""
    return dot_unrolled(w, data[i])


def _dense_dot_plain(w, data, indices, indptr, i):
    """Return ``w . x_i`` (dense rows: one running sum, the fastmath form)."""
    return dot_plain(w, data[i])


def _csr_dot(w, data, indices, indptr, i):
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += w[indices[k]] * data[k]
    return s


def _dense_axpy(a, w, data, indices, indptr, i):
    """Add ``a * x_i`` to ``w`` in place."""
    for j in range(w.shape[0]):
        w[j] += a * data[i, j]


def _csr_axpy(a, w, data, indices, indptr, i):
    for k in range(indptr[i], indptr[i + 1]):
        w[indices[k]] += a * data[k]


def _dense_add_sq(out, r, data, indices, indptr, i):
    """Add ``x_i`` to row ``r`` of ``out`` in place and return ``||x_i||^2`` (one sweep)."""
    sq = 0.0
    for j in range(data.shape[1]):
        x = data[i, j]
        out[r, j] += x
        sq += x * x
    return sq


def _csr_add_sq(out, r, data, indices, indptr, i):
    sq = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        x = data[k]
        out[r, indices[k]] += x
        sq += x * x
    return sq


def _dense_sqnorm(data, indices, indptr, i):
    """Return ``||x_i||^2``."""
    s = 0.0
    for j in range(data.shape[1]):
        s += data[i, j] * data[i, j]
    return s


def _csr_sqnorm(data, indices, indptr, i):
    s = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        s += data[k] * data[k]
    return s


def _dense_to_dense(out, data, indices, indptr, i):
    """Write ``x_i`` into the dense buffer ``out`` (length d)."""
    for j in range(out.shape[0]):
        out[j] = data[i, j]


def _csr_to_dense(out, data, indices, indptr, i):
    for j in range(out.shape[0]):
        out[j] = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        out[indices[k]] = data[k]


def _dense_nnz(data, indices, indptr, i):
    """Return the number of stored entries of row ``i`` (d for dense rows)."""
    return data.shape[1]


def _csr_nnz(data, indices, indptr, i):
    return indptr[i + 1] - indptr[i]


row_dot = _row_function(_dense_dot, _csr_dot)
row_dot_plain = _row_function(_dense_dot_plain, _csr_dot, "row_dot_plain")
row_axpy = _row_function(_dense_axpy, _csr_axpy)
row_sqnorm = _row_function(_dense_sqnorm, _csr_sqnorm)
row_add_sq = _row_function(_dense_add_sq, _csr_add_sq)
row_to_dense = _row_function(_dense_to_dense, _csr_to_dense)
row_nnz = _row_function(_dense_nnz, _csr_nnz)


# ---------------------------------------------------------------------------------------------
# Four-lane vectors. A single running sum is a chain of dependent additions that the compiler
# may not reorder without fastmath, and numba disables LLVM's SLP vectoriser, so even four
# interleaved partial sums compile to scalar code. The lanes below are a numba type whose LLVM
# value is ``<4 x double>``: lane k of a reduction sums the elements j = k (mod 4) in order,
# exactly like a scalar partial sum, so the vector code gives the scalar result bit for bit (no
# reassociation and no fused multiply-add under the default flags) on every machine. Each
# operation is a Python function on 4-tuples (what runs with NUMBA_DISABLE_JIT=1, with the
# same floating-point operations) overloaded by an LLVM intrinsic; LLVM inlines the calls.

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

    ``arr`` is a float64 vector (a no-op unless C-contiguous); ``j`` need not be
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
    if not _contiguous_vector(arr) or not isinstance(j, types.Integer):
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
    if _contiguous_vector(arr):
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


# ---------------------------------------------------------------------------------------------
# Dense reductions: four interleaved partial sums (``*_unrolled``: lanes, fast and fixed by the
# code, the same on every machine) or one running sum (``*_plain``, which the loop vectoriser
# turns into wide vector code once reassociation is allowed; the fastmath twins use it).

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


def _dense_dot3_unrolled(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep (dense rows: :func:`dot3_unrolled`)."""
    return dot3_unrolled(w, a, b, data[i])


def _dense_dot3(w, a, b, data, indices, indptr, i):
    """Return ``(w . x_i, a . x_i, b . x_i)`` in one sweep, one running sum each."""
    return dot3_plain(w, a, b, data[i])


def _csr_dot3(w, a, b, data, indices, indptr, i):
    s = p = q = 0.0
    for k in range(indptr[i], indptr[i + 1]):
        j = indices[k]
        s += w[j] * data[k]
        p += a[j] * data[k]
        q += b[j] * data[k]
    return s, p, q


def _dense_add_sq_unrolled(out, r, data, indices, indptr, i):
    """Add ``x_i`` to row ``r`` of ``out`` in place and return ``||x_i||^2``
    (dense rows: :func:`add_sq_unrolled`)."""
    return add_sq_unrolled(out[r], data[i])


def _dense_axpy_dot(a, prev, w, nxt, data, indices, indptr, i):
    """Add ``a x_prev`` to ``w`` and return ``w . x_i`` (the new ``w``) in one sweep.

    The dot product is summed as :func:`dot_unrolled`, so the result equals
    :func:`row_axpy` followed by :func:`row_dot` bit for bit; the cache lines of
    row ``nxt`` are prefetched on the way (a kernel pipelines its update into
    the next row's sweep: one pass over ``w`` per step).
    """
    x, xp, ahead = data[i], data[prev], data[nxt]
    d = x.shape[0]
    end = d - d % 4
    a4 = splat4(a)
    acc = splat4(0.0)
    for j in range(0, end, 4):
        if j % 8 == 0:  # one 64-byte line per 8 doubles
            prefetch(ahead, j)
        u = add4(load4(w, j), mul4(a4, load4(xp, j)))
        store4(w, j, u)
        acc = add4(acc, mul4(u, load4(x, j)))
    s0 = lane(acc, 0)
    for j in range(end, d):
        w[j] += a * xp[j]
        s0 += w[j] * x[j]
    return combine4(acc, s0)


def _csr_axpy_dot(a, prev, w, nxt, data, indices, indptr, i):
    row_axpy(a, w, data, indices, indptr, prev)
    return row_dot(w, data, indices, indptr, i)


row_dot3_unrolled = inline_row_function(_dense_dot3_unrolled, _csr_dot3, "row_dot3_unrolled")
row_axpy_dot = inline_row_function(_dense_axpy_dot, _csr_axpy_dot, "row_axpy_dot")
row_dot3 = inline_row_function(_dense_dot3, _csr_dot3, "row_dot3")
row_add_sq_unrolled = inline_row_function(_dense_add_sq_unrolled, _csr_add_sq,
                                          "row_add_sq_unrolled")
plain_under_fastmath(dot_unrolled, dot_plain)
plain_under_fastmath(row_dot, row_dot_plain)
plain_under_fastmath(row_dot3_unrolled, row_dot3)
