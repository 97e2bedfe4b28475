"""Functions the wire has no op for, composed of its ops once
for both framework translators (anyshape.torch, anyshape.jax), whose
builders share emit(op, operands, dtype, shape, attrs): `splat(v)` is a
number of x's dtype over its shape, `boolean` the framework's bool dtype.
"""
from anyshape.v1 import graph_pb2


def _compare(emit, boolean, a, b, direction, shape):
    return emit("compare", [a, b], boolean, shape,
                ("compare", graph_pb2.CompareAttrs(direction=direction)))


def rounded(emit, splat, boolean, x, dtype, shape, ties_to_even):
    """x to the nearest integer, halves to the even one or (not
    ties_to_even, for x >= 0) up: floor(x), plus one where the fraction
    left, exact, is above a half, or a half and the floor odd (or, not
    ties_to_even, any half)."""
    low = emit("floor", [x], dtype, shape)
    fraction = emit("sub", [x, low], dtype, shape)
    up = _compare(emit, boolean, fraction, splat(0.5),
                  graph_pb2.COMPARE_GT if ties_to_even else
                  graph_pb2.COMPARE_GE, shape)
    if ties_to_even:
        half_low = emit("mul", [low, splat(0.5)], dtype, shape)
        odd = _compare(emit, boolean, emit("floor", [half_low], dtype, shape),
                       half_low, graph_pb2.COMPARE_NE, shape)
        tie = emit("and", [_compare(emit, boolean, fraction, splat(0.5),
                                    graph_pb2.COMPARE_EQ, shape), odd],
                   boolean, shape)
        up = emit("or", [up, tie], boolean, shape)
    return emit("select", [up, emit("add", [low, splat(1.0)], dtype, shape),
                           low], dtype, shape)


def log1p_expm1(emit, splat, boolean, x, dtype, shape, log1p):
    """log(1 + x) or exp(x) - 1 without losing a small x to the 1: for
    |x| < 1/2, with u = 1 + x (or exp(x)), log(u) * (x / (u - 1)) (or
    (u - 1) * (x / log(u))), and x itself where u rounds to 1; elsewhere
    the plain form, which loses nothing there and keeps the extremes
    (log1p(-1) = -inf, expm1(-inf) = -1, an overflow inf)."""
    u = emit("add", [x, splat(1.0)], dtype, shape) if log1p else \
        emit("exp", [x], dtype, shape)
    less = emit("sub", [u, splat(1.0)], dtype, shape)
    log = emit("log", [u], dtype, shape)
    plain = log if log1p else less
    kahan = emit("mul", [plain, emit("div", [x, less if log1p else log],
                                     dtype, shape)], dtype, shape)
    kahan = emit("select", [_compare(emit, boolean, u, splat(1.0),
                                     graph_pb2.COMPARE_EQ, shape), x, kahan],
                 dtype, shape)
    small = _compare(emit, boolean, emit("abs", [x], dtype, shape),
                     splat(0.5), graph_pb2.COMPARE_LT, shape)
    return emit("select", [small, kahan, plain], dtype, shape)


def any_or_all(emit, zero, boolean, bits, axes, shape, every):
    """all (`every`) or any along `axes` of `bits`, the bools as int32 0
    and 1 (`shape` the result's, `zero` an int32 0 over it): their min
    (max) above 0. Over an empty axis the fold is its init, the int32
    maximum (minimum), which reads as all's True and any's False."""
    folded = emit("reduce", [bits], bits.dtype, shape, ("reduce",
                  graph_pb2.ReduceAttrs(
                      kind=graph_pb2.REDUCE_MIN if every else
                      graph_pb2.REDUCE_MAX, dimensions=axes)))
    return _compare(emit, boolean, folded, zero, graph_pb2.COMPARE_GT, shape)
