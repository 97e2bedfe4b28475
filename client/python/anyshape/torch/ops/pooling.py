"""Max and average pooling over the trailing spatial dims, as one strided
slice per window tap of the padded input, folded with max or add: k*k
slices of the output's size, which the fusion planner makes one loop.
The output sizes are the node's own (ceil_mode included); the input is
padded past its end by a whole window so the last window's overhang
reads padding, which max ignores (-inf) and the average's divisor does
not count, as PyTorch has it.
"""
import math

import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import out, rule
from anyshape.v1 import graph_pb2

aten = torch.ops.aten


def _per_dim(values, spatial, default):
    values = list(values) if values else list(default)
    return values * spatial if len(values) == 1 else values


def _padded(t, x, low, high, value):
    rank = x.rank
    lo = [0] * (rank - len(low)) + low
    hi = [0] * (rank - len(high)) + high
    shape = tuple(s + a + b for s, a, b in zip(x.shape, lo, hi))
    return t.emit("pad", [x, t.scalar(value, x.dtype)], x.dtype, shape,
                  ("pad", graph_pb2.PadAttrs(edge_padding_low=lo,
                                             edge_padding_high=hi)))


def _taps(t, x, shape, kernel, stride, dilation):
    """Each window tap's strided slice of `x` (padded), of `shape`."""
    spatial = len(kernel)
    lead = x.rank - spatial
    for offsets in _offsets(kernel):
        starts = [wdims.dim_expr(0, t.names)] * lead
        limits = [wdims.dim_expr(s, t.names) for s in x.shape[:lead]]
        for d, k in enumerate(offsets):
            start = k * dilation[d]
            size = shape[lead + d]
            starts.append(wdims.dim_expr(start, t.names))
            limits.append(wdims.dim_expr(start + (size - 1) * stride[d] + 1,
                                         t.names))
        yield t.emit("slice", [x], x.dtype, shape, ("slice",
                     graph_pb2.SliceAttrs(start_indices=starts,
                                          limit_indices=limits,
                                          strides=[1] * lead + stride)))


def _offsets(kernel):
    if not kernel:
        yield ()
        return
    for k in range(kernel[0]):
        for rest in _offsets(kernel[1:]):
            yield (k,) + rest


def _fold(t, op, values):
    result = values[0]
    for v in values[1:]:
        result = t.emit(op, [result, v], result.dtype, result.shape)
    return result


@rule(aten.max_pool2d_with_indices.default,
      aten.max_pool3d_with_indices.default)
def _max_pool(t, node, x, kernel, stride=(), padding=(0,), dilation=(1,),
              ceil_mode=False):
    if any(user.args[1] == 1 and user.users for user in node.users):
        raise t.error("max pooling's indices (only its values are "
                      "translated)")
    spatial = len(kernel)
    stride = _per_dim(stride, spatial, kernel)
    padding = _per_dim(padding, spatial, (0,))
    dilation = _per_dim(dilation, spatial, (1,))
    kernel = _per_dim(kernel, spatial, kernel)
    shape = tuple(wdims.as_expr(s) for s in out(node)[0].shape)
    reach = [(k - 1) * d + 1 + s for k, d, s in zip(kernel, dilation, stride)]
    lowest = -math.inf if x.dtype.is_floating_point else -(1 << 62)
    padded = _padded(t, x, padding, [p + r for p, r in zip(padding, reach)],
                     lowest)
    values = _fold(t, "max", list(_taps(t, padded, shape, kernel, stride,
                                         dilation)))
    return values, None


@rule(aten.avg_pool2d.default, aten.avg_pool3d.default)
def _avg_pool(t, node, x, kernel, stride=(), padding=(0,), ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    spatial = len(kernel)
    stride = _per_dim(stride, spatial, kernel)
    padding = _per_dim(padding, spatial, (0,))
    kernel = _per_dim(kernel, spatial, kernel)
    dilation = [1] * spatial
    dtype = out(node).dtype
    shape = tuple(wdims.as_expr(s) for s in out(node).shape)
    reach = [k + s for k, s in zip(kernel, stride)]
    x = t.convert(x, dtype)
    padded = _padded(t, _padded(t, x, padding, padding, 0), [0] * spatial,
                     reach, 0)
    total = _fold(t, "add", list(_taps(t, padded, shape, kernel, stride,
                                        dilation)))
    if divisor_override:
        divisor = t.broadcast(t.scalar(divisor_override, dtype), shape)
    else:
        # The taps that fall on the input (and, counted, its padding).
        ones = t.broadcast(t.scalar(1, dtype), x.shape)
        inner = _padded(t, ones, padding, padding,
                        1 if count_include_pad else 0)
        counted = _padded(t, inner, [0] * spatial, reach, 0)
        divisor = _fold(t, "add", list(_taps(t, counted, shape, kernel,
                                              stride, dilation)))
    return t.emit("div", [total, divisor], dtype, shape)


@rule(aten._adaptive_avg_pool2d.default, aten._adaptive_avg_pool3d.default)
def _adaptive_avg_pool(t, node, x, output_size):
    """Global pooling (output 1 per dim) as a mean; other sizes where each
    output cell's window is the same, as a plain average pool."""
    dtype = out(node).dtype
    spatial = len(output_size)
    shape = tuple(wdims.as_expr(s) for s in out(node).shape)
    sizes = x.shape[-spatial:]
    if all(o == 1 for o in output_size):
        axes = list(range(x.rank - spatial, x.rank))
        kept = x.shape[:x.rank - spatial]
        total = t.emit("reduce", [t.convert(x, dtype)], dtype, kept,
                       ("reduce", graph_pb2.ReduceAttrs(
                           kind=graph_pb2.REDUCE_SUM, dimensions=axes)))
        count = wdims.as_expr(1)
        for s in sizes:
            count = count * s
        mean = t.emit("div", [total, t.broadcast(t.scalar(count, dtype),
                                                 kept)], dtype, kept)
        return t.reshape(mean, shape)
    windows = [wdims.static(s) for s in sizes]
    if None in windows or any(w % o for w, o in zip(windows, output_size)):
        raise t.error(f"adaptive pooling of {list(sizes)} to "
                      f"{list(output_size)} (windows of unequal sizes)")
    kernel = [w // o for w, o in zip(windows, output_size)]
    total = _fold(t, "add", list(_taps(t, t.convert(x, dtype), shape, kernel,
                                        kernel, [1] * spatial)))
    return t.emit("div", [total, t.broadcast(
        t.scalar(math.prod(kernel), dtype), shape)], dtype, shape)
