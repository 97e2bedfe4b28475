"""ATen ops that compute across elements: reductions (and the arg
reductions, as the first position of the extreme), variance and the
norms kept whole, cumsum and the other running folds, matrix products,
convolution, and the tensors made from nothing (full, arange)."""
import math

import torch

from anyshape import compose
from anyshape.torch import dims as wdims
from anyshape.torch.ops import compare, elements, iota, out, rule, \
    shape_of, truth
from anyshape.v1 import graph_pb2

aten = torch.ops.aten
prims = torch.ops.prims


def _axes(a, dims):
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        return list(range(a.rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % max(a.rank, 1) for d in dims})


def _reduce(t, x, axes, kind):
    shape = [s for d, s in enumerate(x.shape) if d not in axes]
    return t.emit("reduce", [x], x.dtype, shape,
                  ("reduce", graph_pb2.ReduceAttrs(kind=kind,
                                                   dimensions=axes)))


def _count(t, a, axes, dtype):
    count = wdims.as_expr(1)
    for d in axes:
        count = count * a.shape[d]
    return t.scalar(count if count.free_symbols else int(count), dtype)


@rule(aten.sum.dim_IntList, aten.sum.default)
def _sum(t, node, a, dims=None, keepdim=False, dtype=None):
    x = t.convert(a, out(node).dtype)
    result = _reduce(t, x, _axes(a, dims), graph_pb2.REDUCE_SUM)
    return t.reshape(result, shape_of(node))


@rule(aten.mean.dim, aten.mean.default)
def _mean(t, node, a, dims=None, keepdim=False, dtype=None):
    dtype = out(node).dtype
    axes = _axes(a, dims)
    total = _reduce(t, t.convert(a, dtype), axes, graph_pb2.REDUCE_SUM)
    count = t.broadcast(_count(t, a, axes, dtype), total.shape)
    return t.reshape(t.emit("div", [total, count], dtype, total.shape),
                     shape_of(node))


def _variance(t, a, axes, correction, dtype):
    """sum((x - mean)^2) / (count - correction), two passes as PyTorch,
    and the mean; both with the reduced dims kept as 1."""
    x = t.convert(a, dtype)
    kept = tuple(wdims.as_expr(1) if d in axes else s
                 for d, s in enumerate(a.shape))
    total = _reduce(t, x, axes, graph_pb2.REDUCE_SUM)
    mean = t.emit("div", [total, t.broadcast(_count(t, a, axes, dtype),
                                             total.shape)],
                  dtype, total.shape)
    mean = t.reshape(mean, kept)
    centred = t.emit("sub", [x, t.broadcast(mean, a.shape)], dtype, a.shape)
    squares = t.emit("mul", [centred, centred], dtype, a.shape)
    folded = _reduce(t, squares, axes, graph_pb2.REDUCE_SUM)
    count = wdims.as_expr(1)
    for d in axes:
        count = count * a.shape[d]
    # PyTorch divides by max(0, count - correction): a correction at or
    # past the count gives inf or NaN, not a negative variance.
    correction = 1 if correction is None else correction
    if float(correction).is_integer():  # std's unbiased arrives as 1.0
        divisor = t.scalar(count - int(correction), dtype)
    else:
        divisor = t.emit("sub", [t.scalar(count, dtype),
                                 t.scalar(float(correction), dtype)],
                         dtype, ())
    if not (count.is_Integer and int(count) > float(correction)):
        divisor = t.emit("max", [divisor, t.scalar(0, dtype)], dtype, ())
    variance = t.emit("div", [folded, t.broadcast(divisor, folded.shape)],
                      dtype, folded.shape)
    return t.reshape(variance, kept), mean


@rule(aten.var_mean.correction)
def _var_mean(t, node, a, dims=None, correction=None, keepdim=False):
    shape = tuple(wdims.as_expr(s) for s in out(node)[0].shape)
    variance, mean = _variance(t, a, _axes(a, dims), correction,
                               out(node)[0].dtype)
    return t.reshape(variance, shape), t.reshape(mean, shape)


@rule(aten.var.correction)
def _var(t, node, a, dims=None, correction=None, keepdim=False):
    variance, _ = _variance(t, a, _axes(a, dims), correction, out(node).dtype)
    return t.reshape(variance, shape_of(node))


@rule(aten.native_group_norm.default)
def _group_norm(t, node, x, weight, bias, n, channels, spatial, groups, eps):
    """Each of the groups' [C / groups, spatial...] rows normalised, then
    scaled and shifted per channel; the statistics stay [N, groups] and
    are broadcast from there (no unit dims between a row and its use)."""
    dtype = out(node)[0].dtype
    per_group = wdims.as_expr(channels // groups)
    for size in x.shape[2:]:
        per_group = per_group * size
    rows = (x.shape[0], wdims.as_expr(groups), per_group)
    flat = t.reshape(t.convert(x, dtype), rows)
    variance, mean = _variance(t, flat, [2], 0, dtype)
    variance = t.reshape(variance, rows[:2])
    mean = t.reshape(mean, rows[:2])
    eps = t.broadcast(t.scalar(eps, dtype), rows[:2])
    rstd = t.emit("rsqrt", [t.emit("add", [variance, eps], dtype, rows[:2])],
                  dtype, rows[:2])

    def spread(v):
        return t.emit("broadcast_in_dim", [v], dtype, rows,
                      ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                          shape=t.dims(rows), broadcast_dimensions=[0, 1])))
    centred = t.emit("sub", [flat, spread(mean)], dtype, rows)
    normal = t.reshape(t.emit("mul", [centred, spread(rstd)], dtype, rows),
                       x.shape)
    for parameter, op in ((weight, "mul"), (bias, "add")):
        if parameter is None:
            continue
        per_channel = t.emit(
            "broadcast_in_dim", [t.convert(parameter, dtype)], dtype,
            x.shape, ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                shape=t.dims(x.shape), broadcast_dimensions=[1])))
        normal = t.emit(op, [normal, per_channel], dtype, x.shape)
    return normal, mean, rstd


@rule(aten._native_batch_norm_legit_no_training.default)
def _batch_norm(t, node, x, weight, bias, mean, variance, momentum, eps):
    """Inference batch norm: per channel (dim 1), (x - mean) * rsqrt(var +
    eps) * weight + bias, the per-channel factors folded first. PyTorch's
    own decomposition of it goes through the training op, which writes
    the running statistics."""
    dtype = out(node)[0].dtype
    channels = (mean.shape[0],)
    scale = t.emit("rsqrt", [t.emit("add", [
        t.convert(variance, dtype),
        t.broadcast(t.scalar(eps, dtype), channels)], dtype, channels)],
        dtype, channels)
    if weight is not None:
        scale = t.emit("mul", [scale, t.convert(weight, dtype)], dtype,
                       channels)
    shift = t.emit("neg", [t.emit("mul", [t.convert(mean, dtype), scale],
                                  dtype, channels)], dtype, channels)
    if bias is not None:
        shift = t.emit("add", [shift, t.convert(bias, dtype)], dtype,
                       channels)

    def per_channel(v):
        return t.emit("broadcast_in_dim", [v], dtype, x.shape,
                      ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                          shape=t.dims(x.shape), broadcast_dimensions=[1])))
    y = t.emit("mul", [t.convert(x, dtype), per_channel(scale)], dtype,
               x.shape)
    y = t.emit("add", [y, per_channel(shift)], dtype, x.shape)
    empty = t.broadcast(t.scalar(0, dtype), (wdims.as_expr(0),))
    return y, empty, empty


def cumulative(t, x, axis, kind, exclusive=False, reverse=False):
    """The wire's running fold of `x` along `axis` (linear)."""
    return t.emit("cumulative", [x], x.dtype, x.shape, ("cumulative",
                  graph_pb2.CumulativeAttrs(axis=axis, kind=kind,
                                            exclusive=exclusive,
                                            reverse=reverse)))


@rule(aten.cumsum.default, aten.cumprod.default)
def _cumsum(t, node, a, dim, dtype=None):
    kind = graph_pb2.REDUCE_PROD if node.target is aten.cumprod.default \
        else graph_pb2.REDUCE_SUM
    if a.rank == 0:
        return t.convert(a, out(node).dtype)
    return cumulative(t, t.convert(a, out(node).dtype), dim % a.rank, kind)


@rule(aten.cummax.default, aten.cummin.default)
def _cummax(t, node, a, dim):
    """The running max (min) and the position it was last reached at (a
    NaN, once met, is the extreme, as PyTorch has it)."""
    smallest = node.target is aten.cummin.default
    if a.rank == 0:
        return a, t.convert(t.scalar(0, torch.int64), torch.int64)
    axis = dim % a.rank
    values = cumulative(t, a, axis, graph_pb2.REDUCE_MIN if smallest
                        else graph_pb2.REDUCE_MAX)
    # Element j sets the extreme where it equals the running value (or is
    # NaN): the latest such position up to i.
    hit = compare(t, a, values, graph_pb2.COMPARE_EQ)
    if a.dtype.is_floating_point:
        hit = t.emit("or", [hit, compare(t, a, a, graph_pb2.COMPARE_NE)],
                     torch.bool, a.shape)
    position = iota(t, torch.int64, a.shape, axis)
    none = t.broadcast(t.scalar(-1, torch.int64), a.shape)
    reached = t.emit("select", [hit, position, none], torch.int64, a.shape)
    return values, cumulative(t, reached, axis, graph_pb2.REDUCE_MAX)


def _extreme(kind):
    def translate(t, node, a, dims=None, keepdim=False):
        x = t.convert(a, out(node).dtype)
        return t.reshape(_reduce(t, x, _axes(a, dims), kind), shape_of(node))
    return translate


rule(aten.amax.default)(_extreme(graph_pb2.REDUCE_MAX))
rule(aten.amin.default)(_extreme(graph_pb2.REDUCE_MIN))
rule(aten.prod.dim_int, aten.prod.default)(_extreme(graph_pb2.REDUCE_PROD))


@rule(aten.any.dim, aten.any.dims, aten.any.default, aten.all.dim,
      aten.all.dims, aten.all.default)
def _any_all(t, node, a, dims=None, keepdim=False):
    every = str(node.target).startswith("aten.all")
    axes = _axes(a, dims)
    shape = [s for d, s in enumerate(a.shape) if d not in axes]
    zero = t.broadcast(t.scalar(0, torch.int32), shape)
    result = compose.any_or_all(
        t.emit, zero, torch.bool,
        t.convert(truth(t, a, a.shape), torch.int32), axes, shape, every)
    return t.convert(t.reshape(result, shape_of(node)), out(node).dtype)


def arg_extreme(t, a, axis, smallest, candidate=None):
    """The first position along `axis` of the max (min) of `a` among the
    `candidate` positions (all if None), a NaN counting as the extreme
    (PyTorch's argmax), and that value; both with the axis kept as 1."""
    fold = graph_pb2.REDUCE_MIN if smallest else graph_pb2.REDUCE_MAX
    eligible = a
    if candidate is not None:
        worst = math.inf if smallest else -math.inf
        if not a.dtype.is_floating_point:
            worst = (1 << 62) if smallest else -(1 << 62)
        eligible = t.emit("select", [candidate, a, t.broadcast(
            t.scalar(worst, a.dtype), a.shape)], a.dtype, a.shape)
    kept = a.shape[:axis] + (wdims.as_expr(1),) + a.shape[axis + 1:]
    best = t.reshape(_reduce(t, eligible, [axis], fold), kept)
    hit = t.emit("or", [compare(t, a, t.broadcast(best, a.shape),
                                graph_pb2.COMPARE_EQ),
                        compare(t, a, a, graph_pb2.COMPARE_NE)],
                 torch.bool, a.shape)
    if candidate is not None:
        hit = t.emit("and", [hit, candidate], torch.bool, a.shape)
    position = iota(t, torch.int64, a.shape, axis)
    extent = t.broadcast(t.scalar(a.shape[axis], torch.int64), a.shape)
    index = _reduce(t, t.emit("select", [hit, position, extent], torch.int64,
                              a.shape), [axis], graph_pb2.REDUCE_MIN)
    return t.reshape(index, kept), best


@rule(aten.argmax.default, aten.argmin.default)
def _argmax(t, node, a, dim=None, keepdim=False):
    smallest = node.target is aten.argmin.default
    if dim is None:
        a = t.reshape(a, [elements(a)])
        dim = 0
    index, _ = arg_extreme(t, a, dim % a.rank, smallest)
    return t.reshape(index, shape_of(node))


@rule(aten.max.dim, aten.min.dim)
def _max_dim(t, node, a, dim, keepdim=False):
    axis = dim % a.rank
    smallest = node.target is aten.min.dim
    index, _ = arg_extreme(t, a, axis, smallest)
    values = _reduce(t, a, [axis], graph_pb2.REDUCE_MIN if smallest
                     else graph_pb2.REDUCE_MAX)
    shape = out(node)[0].shape
    return t.reshape(values, shape), t.reshape(index, shape)


# ---- contractions -----------------------------------------------------

def _dot(t, a, b, dtype, shape, batch):
    """a [B.., M, K] times b [B.., K, N]. A b that is a transpose of its
    last two dims is contracted in place, as a Linear's weight is."""
    a, b = t.convert(a, dtype), t.convert(b, dtype)
    rhs_contract = batch
    swap = list(range(batch)) + [batch + 1, batch]
    if b.name in t.transposes and t.transposes[b.name][1] == swap:
        b, rhs_contract = t.transposes[b.name][0], batch + 1
    dims = graph_pb2.DotGeneralAttrs(
        lhs_batch_dimensions=range(batch), rhs_batch_dimensions=range(batch),
        lhs_contracting_dimensions=[batch + 1],
        rhs_contracting_dimensions=[rhs_contract])
    return t.emit("dot_general", [a, b], dtype, shape, ("dot_general", dims))


@rule(aten.mm.default)
def _mm(t, node, a, b):
    return _dot(t, a, b, out(node).dtype, shape_of(node), 0)


def _unmerged(t, x):
    """x [B*H, L, E] as the [B, H, L, E] value it is a reshape of, if it
    is one (attention's heads merged into the batch for bmm)."""
    source = t.reshapes.get(x.name)
    if source is None or source.rank != 4 or \
            source.shape[0] * source.shape[1] != x.shape[0] or \
            source.shape[2:] != x.shape[1:]:
        return None
    return source


@rule(aten.bmm.default)
def _bmm(t, node, a, b):
    """A product over merged heads is done over the heads unmerged, two
    batch dims, so that no transpose is copied to merge them."""
    dtype, shape = out(node).dtype, shape_of(node)
    wide_a, wide_b = _unmerged(t, a), _unmerged(t, b)
    if wide_a is None or wide_b is None or \
            wide_a.shape[:2] != wide_b.shape[:2]:
        return _dot(t, a, b, dtype, shape, 1)
    wide = wide_a.shape[:3] + (wide_b.shape[3],)
    return t.reshape(_dot(t, wide_a, wide_b, dtype, wide, 2), shape)


@rule(aten.addmm.default)
def _addmm(t, node, bias, a, b, beta=1, alpha=1):
    dtype, shape = out(node).dtype, shape_of(node)
    product = _dot(t, a, b, dtype, shape, 0)
    if alpha != 1:
        product = t.emit("mul", [product, t.broadcast(
            t.scalar(alpha, dtype), shape)], dtype, shape)
    if beta == 0:
        return product
    bias = t.broadcast(t.convert(bias, dtype), shape)
    if beta != 1:
        bias = t.emit("mul", [bias, t.broadcast(t.scalar(beta, dtype),
                                                shape)], dtype, shape)
    return t.emit("add", [product, bias], dtype, shape)


@rule(aten.convolution.default)
def _convolution(t, node, x, weight, bias, stride, padding, dilation,
                 transposed, output_padding, groups):
    dtype, shape = out(node).dtype, shape_of(node)
    spatial = x.rank - 2

    def per_dim(values):
        values = list(values)
        values = values * spatial if len(values) == 1 else values
        if any(wdims.static(v) is None for v in values):
            raise t.error(f"a symbolic convolution parameter {values}")
        return [wdims.static(v) for v in values]

    pads, strides, dilations = per_dim(padding), per_dim(stride), \
        per_dim(dilation)
    x, weight = t.convert(x, torch.float32), t.convert(weight, torch.float32)
    result = None
    if transposed and max(strides) > 1 and max(dilations) == 1:
        result = _transposed_in_phases(t, x, weight, strides, pads,
                                       per_dim(output_padding), groups, shape)
    if result is None:
        if transposed:
            x, weight, attrs = _as_direct(t, x, weight, strides, pads,
                                          dilations, per_dim(output_padding),
                                          groups)
        else:
            attrs = graph_pb2.ConvolutionAttrs(
                strides=strides, dilations=dilations, padding_low=pads,
                padding_high=pads, groups=groups)
        result = t.emit("convolution", [x, weight], torch.float32, shape,
                        ("convolution", attrs))
    if bias is not None:
        spread = t.emit("broadcast_in_dim", [t.convert(bias, torch.float32)],
                        torch.float32, shape,
                        ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                            shape=t.dims(shape), broadcast_dimensions=[1])))
        result = t.emit("add", [result, spread], torch.float32, shape)
    return t.convert(result, dtype)


def _transposed_in_phases(t, x, weight, stride, pads, extra, groups, shape):
    """A transposed convolution with strides above 1 (dilation 1) in the
    phases of its output: position o = m*s + p meets only taps p, p + s,
    ..., so each phase is a direct convolution of the undilated input with
    every s-th tap, flipped. With the kernel padded by zero taps to J*s,
    every phase has J taps; the prod(s) phases are the output channels of
    one convolution (the input padded by J - 1 on each side), interleaved
    back and cropped by the padding: the transposed convolution's own
    work, where _as_direct's is prod(s) times that. None where the
    weights' rearrangement would pass the wire's rank limit of 8 (3-D with
    groups and every stride above 1)."""
    from anyshape.torch.ops.indexing import reverse
    spatial = x.rank - 2
    kernel = [wdims.static(k) for k in weight.shape[2:]]
    cin, cout_g = wdims.static(weight.shape[0]), wdims.static(weight.shape[1])
    taps = [-(-k // s) for k, s in zip(kernel, stride)]
    # The interleaved (L + J - 1) * s reaches the crop's end unless the
    # output padding passes the zero taps: one more phase row then.
    more = [1 if k - p + e > j * s else 0
            for k, p, e, j, s in zip(kernel, pads, extra, taps, stride)]
    # [Cin, Cout/g, K...] -> zero taps to J*s -> [g, Cin/g, Cout/g, (J, s)...]
    # -> each J reversed -> [g, Cout/g, s..., Cin/g, J...], size-1 axes
    # left out -> [Cout * prod(s), Cin/g, J...].
    axes = [("g", groups), ("c", cin // groups), ("m", cout_g)]
    for i in range(spatial):
        axes += [(f"J{i}", taps[i]), (f"s{i}", stride[i])]
    axes = [(name, size) for name, size in axes if size != 1]
    if len(axes) > 8:
        return None
    names = [name for name, _ in axes]
    wide = tuple(weight.shape[:2]) + tuple(j * s for j, s in zip(taps, stride))
    if wide != tuple(weight.shape):
        weight = t.emit("pad", [weight, t.scalar(0, torch.float32)],
                        torch.float32, wide, ("pad", graph_pb2.PadAttrs(
                            edge_padding_low=[0] * (2 + spatial),
                            edge_padding_high=[0, 0] + [
                                j * s - k for j, s, k in zip(taps, stride,
                                                             kernel)],
                            interior_padding=[0] * (2 + spatial))))
    weight = t.reshape(weight, [size for _, size in axes])
    for i in range(spatial):
        if f"J{i}" in names:
            weight = reverse(t, weight, names.index(f"J{i}"))
    order = ["g", "m"] + [f"s{i}" for i in range(spatial)] + ["c"] + \
        [f"J{i}" for i in range(spatial)]
    weight = t.transpose(weight, [names.index(n) for n in order
                                  if n in names])
    phases = math.prod(stride)
    weight = t.reshape(weight, (groups * cout_g * phases, cin // groups) +
                       tuple(taps))
    rows = tuple(length + j - 1 + m
                 for length, j, m in zip(x.shape[2:], taps, more))
    y = t.emit("convolution", [x, weight], torch.float32,
               (x.shape[0], groups * cout_g * phases) + rows,
               ("convolution", graph_pb2.ConvolutionAttrs(
                   strides=[1] * spatial, dilations=[1] * spatial,
                   padding_low=[j - 1 for j in taps],
                   padding_high=[j - 1 + m for j, m in zip(taps, more)],
                   groups=groups)))
    # [N, Cout, s..., rows...] -> [N, Cout, (rows, s)...] -> [N, Cout,
    # rows*s...], cropped to [pad, pad + out) along each spatial dim.
    strided = [i for i in range(spatial) if stride[i] > 1]
    y = t.reshape(y, (x.shape[0], groups * cout_g) +
                  tuple(stride[i] for i in strided) + rows)
    back = [0, 1]
    for i in range(spatial):
        back.append(2 + len(strided) + i)
        if stride[i] > 1:
            back.append(2 + strided.index(i))
    y = t.transpose(y, back)
    y = t.reshape(y, (x.shape[0], groups * cout_g) +
                  tuple(r * s for r, s in zip(rows, stride)))
    starts = [wdims.dim_expr(0, t.names)] * 2 + \
        [wdims.dim_expr(p, t.names) for p in pads]
    limits = [wdims.dim_expr(s, t.names) for s in shape[:2]] + \
        [wdims.dim_expr(p + o, t.names) for p, o in zip(pads, shape[2:])]
    return t.emit("slice", [y], torch.float32, shape, ("slice",
                  graph_pb2.SliceAttrs(start_indices=starts,
                                       limit_indices=limits,
                                       strides=[1] * x.rank)))


def _as_direct(t, x, weight, stride, pads, dilation, extra, groups):
    """A transposed convolution as the direct one it is: the input with
    stride - 1 zeros between its elements and (K - 1) * dilation - pad at
    its edges (plus output_padding at the end), convolved at stride 1
    with each filter flipped and its in and out channels swapped per
    group. Its work is the dilated input's, stride^r the direct one's."""
    from anyshape.torch.ops.indexing import reverse
    spatial = x.rank - 2
    kernel = [wdims.static(k) for k in weight.shape[2:]]
    low = [(k - 1) * d - p for k, d, p in zip(kernel, dilation, pads)]
    high = [lo + e for lo, e in zip(low, extra)]
    if min(low) < 0:
        raise t.error("a transposed convolution padded by more than its "
                      "window")
    dilated_shape = tuple(
        x.shape[:2]) + tuple((s - 1) * st + 1 + lo + hi for s, st, lo, hi
                             in zip(x.shape[2:], stride, low, high))
    x = t.emit("pad", [x, t.scalar(0, torch.float32)], torch.float32,
               dilated_shape, ("pad", graph_pb2.PadAttrs(
                   edge_padding_low=[0, 0] + low,
                   edge_padding_high=[0, 0] + high,
                   interior_padding=[0, 0] + [s - 1 for s in stride])))
    for d in range(2, 2 + spatial):
        weight = reverse(t, weight, d)
    # [Cin, Cout/g, K...] -> [g, Cin/g, Cout/g, K...] -> [Cout, Cin/g, K...]
    cin, cout_g = weight.shape[0], weight.shape[1]
    grouped = (wdims.as_expr(groups), cin // groups, cout_g) + \
        weight.shape[2:]
    weight = t.reshape(weight, grouped)
    weight = t.transpose(weight, [0, 2, 1] + list(range(3, 3 + spatial)))
    weight = t.reshape(weight, (cout_g * groups, cin // groups) +
                       weight.shape[3:])
    attrs = graph_pb2.ConvolutionAttrs(
        strides=[1] * spatial, dilations=dilation,
        padding_low=[0] * spatial, padding_high=[0] * spatial, groups=groups)
    return x, weight, attrs


# ---- sources ----------------------------------------------------------

@rule(aten.full.default, aten.full_like.default, aten.new_full.default)
def _full(t, node, *args, **kwargs):
    value = args[1] if len(args) > 1 else kwargs["fill_value"]
    return t.broadcast(t.scalar(value, out(node).dtype), shape_of(node))


@rule(aten.zeros.default, aten.zeros_like.default, aten.new_zeros.default,
      aten.empty.memory_format, aten.empty_like.default,
      aten.new_empty.default, aten.empty_strided.default,
      aten.empty_permuted.default)
def _zeros(t, node, *args, **kwargs):
    return t.broadcast(t.scalar(0, out(node).dtype), shape_of(node))


@rule(aten.ones.default, aten.ones_like.default, aten.new_ones.default)
def _ones(t, node, *args, **kwargs):
    return t.broadcast(t.scalar(1, out(node).dtype), shape_of(node))


@rule(aten.scalar_tensor.default)
def _scalar_tensor(t, node, value, **kwargs):
    return t.scalar(value, out(node).dtype)


@rule(aten.arange.default, aten.arange.start, aten.arange.start_step)
def _arange(t, node, *args, **kwargs):
    numbers = [a for a in args if not isinstance(a, torch.dtype)]
    start, step = 0, 1
    if len(numbers) >= 2:
        start = numbers[0]
    if len(numbers) >= 3:
        step = numbers[2]
    step = kwargs.get("step", step)
    dtype, shape = out(node).dtype, shape_of(node)
    compute = dtype if dtype.is_floating_point else torch.int64
    values = iota(t, compute, shape, 0)
    if step != 1:
        values = t.emit("mul", [values, t.broadcast(t.scalar(step, compute),
                                                    shape)], compute, shape)
    if not (isinstance(start, int) and start == 0):
        values = t.emit("add", [values, t.broadcast(t.scalar(start, compute),
                                                    shape)], compute, shape)
    return t.convert(values, dtype)


