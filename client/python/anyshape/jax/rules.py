"""The lax primitives the JAX translator takes, each as wire nodes. A
jaxpr's operands already have the result's dtype; elementwise operands
of rank 0 (weak-typed literals) are broadcast to the result's shape."""
import numpy as np

from anyshape import compose
from anyshape import polynomial as poly
from anyshape.jax.translate import dim, dim_expr, product, static_size, \
    wire_dtype
from anyshape.v1 import graph_pb2

RULES = {}


def rule(*names):
    def register(function):
        for name in names:
            RULES[name] = function
        return function
    return register


def _result(eqn):
    aval = eqn.outvars[0].aval
    return aval.dtype, tuple(aval.shape)


def _elementwise(op):
    def translate(w, eqn, *operands):
        dtype, shape = _result(eqn)
        values = [w.broadcast(w.convert(v, dtype), shape) for v in operands]
        return w.emit(op, values, dtype, shape)
    return translate


for _name, _op in [("add", "add"), ("sub", "sub"), ("mul", "mul"),
                   ("div", "div"), ("max", "max"), ("min", "min"),
                   ("pow", "pow"), ("and", "and"), ("or", "or"),
                   ("neg", "neg"), ("exp", "exp"), ("log", "log"),
                   ("tanh", "tanh"), ("logistic", "logistic"),
                   ("sqrt", "sqrt"), ("rsqrt", "rsqrt"), ("erf", "erf"),
                   ("abs", "abs"), ("floor", "floor"), ("ceil", "ceil"),
                   ("sin", "sin"), ("cos", "cos"), ("not", "not")]:
    rule(_name)(_elementwise(_op))


@rule("rem")
def _rem(w, eqn, a, b):
    """C's remainder, with a's sign: a - b * trunc(a / b) (the wire's
    integer div truncates; a float quotient is truncated here)."""
    dtype, shape = _result(eqn)
    a, b = (w.broadcast(w.convert(v, dtype), shape) for v in (a, b))
    q = w.emit("div", [a, b], dtype, shape)
    if np.issubdtype(dtype, np.floating):
        zero = w.broadcast(w.constant(splat=0, dtype=dtype), shape)
        below = w.emit("compare", [q, zero], np.bool_, shape, ("compare",
                       graph_pb2.CompareAttrs(direction=graph_pb2.COMPARE_LT)))
        q = w.emit("select", [below, w.emit("ceil", [q], dtype, shape),
                              w.emit("floor", [q], dtype, shape)],
                   dtype, shape)
    return w.emit("sub", [a, w.emit("mul", [b, q], dtype, shape)], dtype,
                  shape)


def _same(w, a, b):
    """Operands of one dtype and shape, rank-0 ones broadcast."""
    shape = max((a.shape, b.shape), key=len)
    return w.broadcast(a, shape), w.broadcast(w.convert(b, a.dtype), shape)


_DIRECTIONS = {"eq": graph_pb2.COMPARE_EQ, "ne": graph_pb2.COMPARE_NE,
               "lt": graph_pb2.COMPARE_LT, "le": graph_pb2.COMPARE_LE,
               "gt": graph_pb2.COMPARE_GT, "ge": graph_pb2.COMPARE_GE}


def _compare(direction):
    def translate(w, eqn, a, b):
        # To the result's shape: lax stretches size-1 dims too (one_hot
        # compares [b, 1] indices with a [1, n] iota).
        _, shape = _result(eqn)
        a = w.broadcast(a, shape)
        b = w.broadcast(w.convert(b, a.dtype), shape)
        return w.emit("compare", [a, b], np.bool_, shape, ("compare",
                      graph_pb2.CompareAttrs(direction=direction)))
    return translate


for _name, _direction in _DIRECTIONS.items():
    rule(_name)(_compare(_direction))


@rule("select_n")
def _select_n(w, eqn, which, *cases):
    dtype, shape = _result(eqn)
    if len(cases) != 2:
        raise w.error(f"select_n of {len(cases)} cases")
    if which.dtype != np.bool_:
        zero = w.broadcast(w.constant(splat=0, dtype=which.dtype), which.shape)
        which = w.emit("compare", [which, zero], np.bool_, which.shape,
                       ("compare", graph_pb2.CompareAttrs(
                           direction=graph_pb2.COMPARE_NE)))
    which = which if which.rank == 0 else w.broadcast(which, shape)
    # select_n picks cases[1] where true.
    return w.emit("select", [which, w.broadcast(cases[1], shape),
                             w.broadcast(cases[0], shape)], dtype, shape)


@rule("integer_pow")
def _integer_pow(w, eqn, x):
    y = eqn.params["y"]
    dtype, shape = _result(eqn)
    if y == 0:
        return w.broadcast(w.constant(splat=1, dtype=dtype), shape)
    result, base = None, x
    for bit in bin(abs(y))[:1:-1]:  # square and multiply
        if bit == "1":
            result = base if result is None else w.emit("mul", [result, base],
                                                        dtype, shape)
        base = w.emit("mul", [base, base], dtype, shape)
    if y < 0:
        one = w.broadcast(w.constant(splat=1, dtype=dtype), shape)
        result = w.emit("div", [one, result], dtype, shape)
    return result


@rule("square")
def _square(w, eqn, x):
    return w.emit("mul", [x, x], x.dtype, x.shape)


@rule("sign")
def _sign(w, eqn, x):
    zero = w.broadcast(w.constant(splat=0, dtype=x.dtype), x.shape)

    def side(direction):
        mask = w.emit("compare", [x, zero], np.bool_, x.shape, ("compare",
                      graph_pb2.CompareAttrs(direction=direction)))
        return w.convert(mask, x.dtype)
    return w.emit("sub", [side(graph_pb2.COMPARE_GT),
                          side(graph_pb2.COMPARE_LT)], x.dtype, x.shape)


def _splat(w, dtype, shape):
    return lambda v: w.broadcast(w.constant(splat=v, dtype=dtype), shape)


@rule("round")
def _round(w, eqn, x):
    """To the nearest integer, halves away from zero (rounding_method 0,
    lax.round's default: |x| rounded, the sign put back) or to the even
    one (1, jnp.round's)."""
    dtype, shape = _result(eqn)
    splat = _splat(w, dtype, shape)
    if int(eqn.params.get("rounding_method", 0)) == 1:
        return compose.rounded(w.emit, splat, np.bool_, x, dtype, shape, True)
    magnitude = compose.rounded(w.emit, splat, np.bool_,
                                w.emit("abs", [x], dtype, shape), dtype, shape,
                                False)
    negative = w.emit("compare", [x, splat(0.0)], np.bool_, shape, (
        "compare", graph_pb2.CompareAttrs(direction=graph_pb2.COMPARE_LT)))
    return w.emit("select", [negative, w.emit("neg", [magnitude], dtype,
                                              shape), magnitude], dtype, shape)


@rule("log1p", "expm1")
def _log1p_expm1(w, eqn, x):
    dtype, shape = _result(eqn)
    return compose.log1p_expm1(w.emit, _splat(w, dtype, shape), np.bool_, x,
                               dtype, shape, eqn.primitive.name == "log1p")


@rule("is_finite")
def _is_finite(w, eqn, x):
    """|x| < inf: false for both infinities and NaN."""
    inf = w.broadcast(w.constant(splat=float("inf"), dtype=x.dtype), x.shape)
    return w.emit("compare", [w.emit("abs", [x], x.dtype, x.shape), inf],
                  np.bool_, x.shape, ("compare", graph_pb2.CompareAttrs(
                      direction=graph_pb2.COMPARE_LT)))


@rule("tile")
def _tile(w, eqn, x):
    """Each dim d repeated reps[d] times whole: x broadcast to [r, size]
    pairs, merged."""
    dtype, shape = _result(eqn)
    reps = eqn.params["reps"]
    spread = []
    dims = []
    for d, (r, size) in enumerate(zip(reps, x.shape)):
        spread += [r, size]
        dims.append(2 * d + 1)
    wide = w.broadcast(x, spread, dims)
    return w.reshape(wide, shape)


@rule("clamp")
def _clamp(w, eqn, low, x, high):
    x = w.emit("max", [x, w.broadcast(low, x.shape)], x.dtype, x.shape)
    return w.emit("min", [x, w.broadcast(high, x.shape)], x.dtype, x.shape)


@rule("convert_element_type")
def _convert(w, eqn, x):
    return w.convert(x, eqn.params["new_dtype"])


@rule("stop_gradient", "copy", "copy_p", "optimization_barrier",
      "reduce_precision")
def _identity(w, eqn, *xs):
    return list(xs) if eqn.primitive.multiple_results else xs[0]


# ---- shapes -------------------------------------------------------------

@rule("broadcast_in_dim")
def _broadcast_in_dim(w, eqn, x, *dynamic):
    if dynamic:
        raise w.error("a broadcast to sizes computed as values")
    return w.broadcast(x, eqn.params["shape"],
                       eqn.params["broadcast_dimensions"])


@rule("reshape", "squeeze", "expand_dims")
def _reshape(w, eqn, x, *dynamic):
    if dynamic:
        raise w.error("a reshape to sizes computed as values")
    return w.reshape(x, _result(eqn)[1])


@rule("transpose")
def _transpose(w, eqn, x):
    permutation = list(eqn.params["permutation"])
    return w.emit("transpose", [x], x.dtype, [x.shape[p] for p in permutation],
                  ("transpose", graph_pb2.TransposeAttrs(
                      permutation=permutation)))


@rule("concatenate")
def _concatenate(w, eqn, *xs):
    dtype, shape = _result(eqn)
    return w.emit("concatenate", list(xs), dtype, shape, ("concatenate",
                  graph_pb2.ConcatenateAttrs(
                      dimension=eqn.params["dimension"])))


@rule("slice")
def _slice(w, eqn, x):
    dtype, shape = _result(eqn)
    strides = eqn.params["strides"] or [1] * x.rank
    starts = [dim_expr(s) for s in eqn.params["start_indices"]]
    limits = [dim_expr(s) for s in eqn.params["limit_indices"]]
    return w.emit("slice", [x], dtype, shape, ("slice", graph_pb2.SliceAttrs(
        start_indices=starts, limit_indices=limits, strides=list(strides))))


@rule("iota")
def _iota(w, eqn):
    dtype, shape = _result(eqn)
    return w.emit("iota", [], dtype, shape, ("iota", graph_pb2.IotaAttrs(
        dtype=wire_dtype(dtype), shape=[dim(s) for s in shape],
        iota_dimension=eqn.params["dimension"])))


# ---- reductions and contractions ------------------------------------------

def _reduce(kind):
    def translate(w, eqn, x):
        dtype, shape = _result(eqn)
        return w.emit("reduce", [x], dtype, shape, ("reduce",
                      graph_pb2.ReduceAttrs(kind=kind,
                                            dimensions=eqn.params["axes"])))
    return translate


rule("reduce_sum")(_reduce(graph_pb2.REDUCE_SUM))
rule("reduce_max")(_reduce(graph_pb2.REDUCE_MAX))
rule("reduce_min")(_reduce(graph_pb2.REDUCE_MIN))
rule("reduce_prod")(_reduce(graph_pb2.REDUCE_PROD))


@rule("reduce_and", "reduce_or")
def _reduce_logical(w, eqn, x):
    """jnp.all and jnp.any of bools (compose.any_or_all)."""
    if x.dtype != np.bool_:
        raise w.error(f"{eqn.primitive.name} of {x.dtype} (bitwise)")
    _, shape = _result(eqn)
    zero = w.broadcast(w.constant(splat=0, dtype=np.int32), shape)
    return compose.any_or_all(w.emit, zero, np.bool_,
                              w.convert(x, np.int32), eqn.params["axes"],
                              shape, eqn.primitive.name == "reduce_and")


@rule("argmax", "argmin")
def _argmax(w, eqn, x):
    """The first position of the extreme along the axis, NaN counting as
    the extreme (as jnp.argmax)."""
    dtype, shape = _result(eqn)
    axis = eqn.params["axes"][0]
    smallest = eqn.primitive.name == "argmin"
    kept = [d for d in range(x.rank) if d != axis]
    best = w.emit("reduce", [x], x.dtype, shape, ("reduce",
                  graph_pb2.ReduceAttrs(kind=graph_pb2.REDUCE_MIN if smallest
                                        else graph_pb2.REDUCE_MAX,
                                        dimensions=[axis])))
    best = w.broadcast(best, x.shape, kept)

    def compare(a, b, direction):
        return w.emit("compare", [a, b], np.bool_, x.shape, ("compare",
                      graph_pb2.CompareAttrs(direction=direction)))
    hit = w.emit("or", [compare(x, best, graph_pb2.COMPARE_EQ),
                        compare(x, x, graph_pb2.COMPARE_NE)], np.bool_,
                 x.shape)
    position = w.emit("iota", [], dtype, x.shape, ("iota", graph_pb2.IotaAttrs(
        dtype=wire_dtype(dtype), shape=[dim(s) for s in x.shape],
        iota_dimension=axis)))
    extent = x.shape[axis]
    if static_size(extent) is not None:
        extent = w.constant(splat=extent, dtype=dtype)
    else:
        extent = w.convert(w.emit("dim_size", [x], np.int64, (), (
            "dim_size", graph_pb2.DimSizeAttrs(dimension=axis))), dtype)
    none = w.broadcast(extent, x.shape)
    chosen = w.emit("select", [hit, position, none], dtype, x.shape)
    return w.emit("reduce", [chosen], dtype, shape, ("reduce",
                  graph_pb2.ReduceAttrs(kind=graph_pb2.REDUCE_MIN,
                                        dimensions=[axis])))


@rule("dot_general")
def _dot_general(w, eqn, a, b):
    dtype, shape = _result(eqn)
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    a, b = w.convert(a, dtype), w.convert(b, dtype)
    return w.emit("dot_general", [a, b], dtype, shape, ("dot_general",
                  graph_pb2.DotGeneralAttrs(
                      lhs_batch_dimensions=lb, rhs_batch_dimensions=rb,
                      lhs_contracting_dimensions=lc,
                      rhs_contracting_dimensions=rc)))


def _cumulative(kind):
    def translate(w, eqn, x):
        return w.emit("cumulative", [x], x.dtype, x.shape, ("cumulative",
                      graph_pb2.CumulativeAttrs(
                          axis=eqn.params["axis"], kind=kind,
                          reverse=bool(eqn.params.get("reverse")))))
    return translate


rule("cumsum")(_cumulative(graph_pb2.REDUCE_SUM))
rule("cumprod")(_cumulative(graph_pb2.REDUCE_PROD))
rule("cummax")(_cumulative(graph_pb2.REDUCE_MAX))
rule("cummin")(_cumulative(graph_pb2.REDUCE_MIN))


# ---- slices at run-time offsets (a KV cache's reads and writes) ---------

def _start(w, index, size, extent, dtype=np.int64):
    """lax's clamped start: max(0, min(index, extent - size)), i64."""
    index = w.convert(index, dtype)
    if static_size(extent) is not None and static_size(size) is not None:
        room = w.constant(splat=int(extent) - int(size), dtype=dtype)
    else:
        raise w.error("a run-time offset into a symbolic dim")
    low = w.constant(splat=0, dtype=dtype)
    index = w.emit("min", [index, room], dtype, ())
    return w.emit("max", [index, low], dtype, ())


def _rows(w, start, count):
    """start, start + 1, ..., start + count - 1 as i64 [count]."""
    positions = w.emit("iota", [], np.int64, (count,), ("iota",
                       graph_pb2.IotaAttrs(dtype=graph_pb2.DTYPE_I64,
                                           shape=[dim(count)],
                                           iota_dimension=0)))
    return w.emit("add", [positions, w.broadcast(start, (count,))], np.int64,
                  (count,))


@rule("dynamic_slice")
def _dynamic_slice(w, eqn, x, *starts):
    sizes = eqn.params["slice_sizes"]
    for d, (start, size) in enumerate(zip(starts, sizes)):
        if size == x.shape[d]:
            continue  # the start clamps to 0
        index = _rows(w, _start(w, start, size, x.shape[d]), size)
        shape = x.shape[:d] + (size,) + x.shape[d + 1:]
        x = w.emit("gather", [x, index], x.dtype, shape,
                   ("gather", graph_pb2.GatherAttrs(axis=d)))
    return x


@rule("dynamic_update_slice")
def _dynamic_update_slice(w, eqn, x, update, *starts):
    """x with `update` written at the (clamped) starts: one scatter along
    the one dim the update does not span."""
    partial = [d for d in range(x.rank) if update.shape[d] != x.shape[d]]
    if not partial:
        return update
    if len(partial) > 1:
        raise w.error("an update that spans fewer than all dims but one")
    d = partial[0]
    count = update.shape[d]
    index = _rows(w, _start(w, starts[d], count, x.shape[d]), count)
    order = [d] + [k for k in range(x.rank) if k != d]
    back = sorted(range(x.rank), key=lambda k: order[k])

    def move(v, permutation):
        return w.emit("transpose", [v], v.dtype,
                      [v.shape[p] for p in permutation], ("transpose",
                      graph_pb2.TransposeAttrs(permutation=permutation)))
    front = move(x, order)
    result = w.emit("scatter", [front, index, move(update, order)], x.dtype,
                    front.shape, ("scatter", graph_pb2.ScatterAttrs(
                        reduction=graph_pb2.SCATTER_REPLACE)))
    return move(result, back)


@rule("dim_as_value")
def _dim_as_value(w, eqn):
    """A symbolic size as a value, computed from the dims of the inputs
    that bind its symbols (2*s: an image resized to twice its width)."""
    dtype, _ = _result(eqn)
    size = dim(eqn.params["dim"])
    if size.HasField("size"):
        return w.constant(splat=size.size, dtype=dtype)
    return w.convert(_poly_value(w, poly.from_dim_expr(dim_expr(
        eqn.params["dim"]))), dtype)


def _poly_value(w, p):
    """A size polynomial as an i64 scalar: each symbol the dim of the input
    that binds it, a quotient the wire's div (sizes are not negative, so
    it is the floor), a max or min the wire's."""
    i64 = np.int64

    def number(n):
        return w.constant(splat=n, dtype=i64)

    def atom(key):
        if key.startswith(poly._EXTREMUM):
            e = graph_pb2.DimExpr.Extremum.FromString(
                key[len(poly._EXTREMUM):])
            return w.emit("max" if e.larger else "min", [
                _poly_value(w, poly.from_dim_expr(e.a)),
                _poly_value(w, poly.from_dim_expr(e.b))], i64, ())
        q = graph_pb2.DimExpr.FloorDiv.FromString(key)
        return w.emit("div", [_poly_value(w, poly.from_dim_expr(q.dividend)),
                              number(q.divisor)], i64, ())

    def symbol(name):
        if name not in w.symbols:
            raise w.error(f"the size {name} as a value (no input binds it)")
        source, axis = w.symbols[name]
        return w.emit("dim_size", [source], i64, (), ("dim_size",
                      graph_pb2.DimSizeAttrs(dimension=axis)))

    total = None
    for (symbols, atoms), coefficient in sorted(p.items()):
        factors = [symbol(s) for s in symbols] + [atom(a) for a in atoms]
        term = number(coefficient)
        for factor in factors:
            term = w.emit("mul", [term, factor], i64, ())
        total = term if total is None else w.emit("add", [total, term], i64,
                                                  ())
    return number(0) if total is None else total


# ---- sorting ---------------------------------------------------------------

def _size_value(w, x, axis):
    """Dim `axis` of x as an i64 scalar value."""
    if static_size(x.shape[axis]) is not None:
        return w.constant(splat=int(x.shape[axis]), dtype=np.int64)
    return w.emit("dim_size", [x], np.int64, (), ("dim_size",
                  graph_pb2.DimSizeAttrs(dimension=axis)))


def _take_along(w, x, positions, axis):
    """x's elements at i64 `positions` along `axis` (take_along_axis): a
    gather from x flattened at each element's row-major position."""
    shape = positions.shape
    flat, stride = None, None
    for d in reversed(range(x.rank)):
        at = positions if d == axis else w.emit(
            "iota", [], np.int64, shape, ("iota", graph_pb2.IotaAttrs(
                dtype=graph_pb2.DTYPE_I64, shape=[dim(s) for s in shape],
                iota_dimension=d)))
        term = at if stride is None else w.emit(
            "mul", [at, w.broadcast(stride, shape)], np.int64, shape)
        flat = term if flat is None else w.emit("add", [flat, term],
                                                np.int64, shape)
        size = _size_value(w, x, d)
        stride = size if stride is None else w.emit("mul", [stride, size],
                                                    np.int64, ())
    whole = w.reshape(x, (product(x.shape),))
    return w.emit("gather", [whole, flat], x.dtype, shape,
                  ("gather", graph_pb2.GatherAttrs(axis=0)))


def _order(w, x, axis, descending=False):
    return w.emit("argsort", [x], np.int64, x.shape, ("argsort",
                  graph_pb2.ArgsortAttrs(axis=axis, descending=descending)))


@rule("sort")
def _sort(w, eqn, *operands):
    """lax.sort by the first operand (jnp.sort, and jnp.argsort's sort of
    (x, iota)): every operand permuted by x's stable order, NaN last, as
    lax orders it."""
    if eqn.params["num_keys"] != 1:
        raise w.error(f"a sort by {eqn.params['num_keys']} keys")
    axis = eqn.params["dimension"]
    positions = _order(w, operands[0], axis)
    return [_take_along(w, v, positions, axis) for v in operands]


@rule("top_k")
def _top_k(w, eqn, x):
    """lax.top_k: the k largest along the last axis (or `axis`), sorted,
    ties to the lower position, NaN first; positions as int32."""
    axis = eqn.params.get("axis", x.rank - 1) % x.rank
    dtype, shape = eqn.outvars[1].aval.dtype, tuple(eqn.outvars[1].aval.shape)
    order = _order(w, x, axis, descending=True)
    starts = [dim_expr(0) for _ in x.shape]
    limits = [dim_expr(s) for s in x.shape]
    limits[axis] = dim_expr(eqn.params["k"])
    first = w.emit("slice", [order], np.int64, shape, ("slice",
                   graph_pb2.SliceAttrs(start_indices=starts,
                                        limit_indices=limits)))
    return [_take_along(w, x, first, axis), w.convert(first, dtype)]


@rule("rev")
def _rev(w, eqn, x):
    """Each reversed dim read backwards: a gather at n - 1 - i."""
    for axis in eqn.params["dimensions"]:
        n = x.shape[axis]
        positions = w.emit("iota", [], np.int64, (n,), ("iota",
                           graph_pb2.IotaAttrs(dtype=graph_pb2.DTYPE_I64,
                                               shape=[dim(n)],
                                               iota_dimension=0)))
        last = w.emit("sub", [_size_value(w, x, axis),
                              w.constant(splat=1, dtype=np.int64)],
                      np.int64, ())
        backwards = w.emit("sub", [w.broadcast(last, (n,)), positions],
                           np.int64, (n,))
        x = w.emit("gather", [x, backwards], x.dtype, x.shape,
                   ("gather", graph_pb2.GatherAttrs(axis=axis)))
    return x


# ---- convolutions ------------------------------------------------------------

def _transpose(w, v, permutation):
    permutation = list(permutation)
    if permutation == list(range(v.rank)):
        return v
    return w.emit("transpose", [v], v.dtype, [v.shape[p] for p in permutation],
                  ("transpose", graph_pb2.TransposeAttrs(
                      permutation=permutation)))


@rule("conv_general_dilated")
def _conv(w, eqn, lhs, rhs):
    """lax.conv_general_dilated (flax's Conv, any layout) as the wire's
    convolution: the operands transposed to [N, C, S...] and [O, I, K...]
    by the dimension numbers, the result back to the output's layout. An
    input dilation (a transposed convolution) is interior padding first."""
    p = eqn.params
    numbers = p["dimension_numbers"]
    if p["batch_group_count"] != 1:
        raise w.error("batch_group_count above 1")
    if lhs.dtype != np.float32 or rhs.dtype != np.float32:
        raise w.error("a convolution of other than f32")
    pads = [(static_size(lo), static_size(hi)) for lo, hi in p["padding"]]
    if any(lo is None or hi is None for lo, hi in pads):
        raise w.error(f"padding {p['padding']} that depends on a size "
                      "(SAME with a stride over a symbolic dim: pad "
                      "explicitly)")
    x = _transpose(w, lhs, numbers.lhs_spec)
    kernel = _transpose(w, rhs, numbers.rhs_spec)
    if any(d != 1 for d in p["lhs_dilation"]):
        zero = w.constant(splat=0, dtype=x.dtype)
        interior = [0, 0] + [d - 1 for d in p["lhs_dilation"]]
        dilated = tuple(x.shape[:2]) + tuple(
            (s - 1) * d + 1 for s, d in zip(x.shape[2:], p["lhs_dilation"]))
        x = w.emit("pad", [x, zero], x.dtype, dilated, ("pad",
                   graph_pb2.PadAttrs(edge_padding_low=[0] * x.rank,
                                      edge_padding_high=[0] * x.rank,
                                      interior_padding=interior)))
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        raise w.error(f"negative padding {p['padding']}")
    out = eqn.outvars[0].aval
    logical = [out.shape[d] for d in numbers.out_spec]
    y = w.emit("convolution", [x, kernel], lhs.dtype, tuple(logical),
               ("convolution", graph_pb2.ConvolutionAttrs(
                   strides=list(p["window_strides"]),
                   dilations=list(p["rhs_dilation"]),
                   padding_low=[lo for lo, _ in pads],
                   padding_high=[hi for _, hi in pads],
                   groups=p["feature_group_count"])))
    back = sorted(range(len(numbers.out_spec)),
                  key=lambda i: numbers.out_spec[i])
    return _transpose(w, y, back)


# The gathers and scatters, in a module of their own.
import anyshape.jax.indexing  # noqa: E402,F401
