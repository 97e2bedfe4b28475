"""Max and average pooling over the trailing spatial dims, one dim at a
time (_along): a reduction where the windows tile the dim, else strided
slices of the padded input folded with max or add, which the fusion
planner makes one loop. The output sizes are the node's own (ceil_mode
included). A last window that overhangs the input (ceil_mode) reads
nothing past it: tiles are reduced over what they cover, and other
windows read padding past the end, which max ignores (-inf) and the
average's divisor does not count, as PyTorch has it.
"""
import math

import sympy
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


# Windows of more taps than this, overlapping, are combined by doubling.
_MOST_TAPS_ONE_BY_ONE = 16


def _slice(t, x, axis, start, limit, step=1, size=None):
    """x's positions start, start + step, ... below limit along `axis`
    (`size` of them; limit - start where the step is 1)."""
    starts = [wdims.dim_expr(0, t.names)] * x.rank
    limits = [wdims.dim_expr(s, t.names) for s in x.shape]
    steps = [1] * x.rank
    starts[axis] = wdims.dim_expr(start, t.names)
    limits[axis] = wdims.dim_expr(limit, t.names)
    steps[axis] = step
    shape = list(x.shape)
    shape[axis] = size if size is not None else limit - start
    return t.emit("slice", [x], x.dtype, tuple(shape), ("slice",
                  graph_pb2.SliceAttrs(start_indices=starts,
                                       limit_indices=limits, strides=steps)))


def _reduce(t, x, axes, shape, op):
    kind = graph_pb2.REDUCE_MAX if op == "max" else graph_pb2.REDUCE_SUM
    return t.emit("reduce", [x], x.dtype, tuple(shape), ("reduce",
                  graph_pb2.ReduceAttrs(kind=kind, dimensions=axes)))


def _tiles(t, x, axis, out_size, k, op, overhang):
    """`x` pooled along `axis` by windows that tile it (stride = kernel,
    no dilation: PyTorch's default): the extent `out_size` windows cover,
    split [out, k] and reduced over k, whatever k is. With `overhang`
    (ceil_mode) the last window may reach past x's end: it is reduced
    over what it covers, min(out * k, length) - (out - 1) * k positions,
    and nothing is padded (EfficientNet pools 7 x 7 with a 1280 window).
    """
    shape = list(x.shape)
    shape[axis] = out_size

    def whole(windows):
        tiles = _slice(t, x, axis, 0, windows * k)
        split = list(x.shape)
        split[axis:axis + 1] = [windows, k]
        split = t.reshape(tiles, tuple(split))
        return _reduce(t, split, [axis + 1],
                       shape[:axis] + [windows] + shape[axis + 1:], op)

    if not overhang:
        return whole(out_size)
    full = out_size - 1
    end = sympy.Min(out_size * k, x.shape[axis])
    last = _slice(t, x, axis, full * k, end)
    last = t.reshape(_reduce(t, last, [axis], shape[:axis] + shape[axis + 1:],
                             op), shape[:axis] + [1] + shape[axis + 1:])
    if full == 0:
        return last
    return t.emit("concatenate", [whole(full), last], x.dtype, tuple(shape),
                  ("concatenate", graph_pb2.ConcatenateAttrs(dimension=axis)))


def _along(t, x, axis, out_size, k, s, d, op, fill, overhang):
    """`x` (padded by the pool's padding) pooled along `axis` by windows of
    k taps d apart, starting s apart: `out_size` of them, each the max or
    sum (`op`) of its taps. Tiling windows are _tiles'. Otherwise x is
    padded past its end by a whole window of `fill`, so that every window
    lies inside it, and the window is its k taps as strided slices, or,
    past _MOST_TAPS_ONE_BY_ONE, blocks of 1, 2, 4, ... positions, each the
    combination of two halves of the one before, and each window the
    blocks of k's binary digits: about 2 log2(k) slices instead of k.
    Pooling is separable: one axis at a time gives the whole window's."""
    if s == k and d == 1:
        return _tiles(t, x, axis, out_size, k, op, overhang)
    high = [0] * (x.rank - axis - 1)
    x = _padded(t, x, [0], [(k - 1) * d + 1 + s] + high, fill)
    combine = (lambda a, b: t.emit(op, [a, b], a.dtype, a.shape))
    starts = (out_size - 1) * s + 1  # the positions windows start at
    if k <= _MOST_TAPS_ONE_BY_ONE:
        result = None
        for j in range(k):
            tap = _slice(t, x, axis, j * d, j * d + starts, s, out_size)
            result = tap if result is None else combine(result, tap)
        return result
    block, windows, done, m = x, None, 0, 1
    while m <= k:
        if k & m:
            piece = _slice(t, block, axis, done * d, done * d + starts)
            windows = piece if windows is None else combine(windows, piece)
            done += m
        if 2 * m > k:
            break
        length = block.shape[axis]
        block = combine(_slice(t, block, axis, 0, length - m * d),
                        _slice(t, block, axis, m * d, length))
        m *= 2
    return _slice(t, windows, axis, 0, starts, s, out_size)


def _pool(t, x, shape, window, op, fill, overhang):
    """`x` (padded by the pool's padding) pooled over its trailing spatial
    dims to `shape`; `window` is (kernel, stride, dilation)."""
    kernel, stride, dilation = window
    lead = x.rank - len(kernel)
    for i, (k, s, d) in enumerate(zip(kernel, stride, dilation)):
        x = _along(t, x, lead + i, shape[lead + i], k, s, d, op, fill,
                   overhang)
    return x


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
    lowest = -math.inf if x.dtype.is_floating_point else -(1 << 62)
    padded = _padded(t, x, padding, padding, lowest)
    return _pool(t, padded, shape, (kernel, stride, dilation), "max", lowest,
                 ceil_mode), None


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
    window = (kernel, stride, dilation)
    x = t.convert(x, dtype)
    total = _pool(t, _padded(t, x, padding, padding, 0), shape, window, "add",
                  0, ceil_mode)
    if divisor_override:
        divisor = t.broadcast(t.scalar(divisor_override, dtype), shape)
    else:
        # The taps that fall on the input (and, counted, its padding).
        ones = t.broadcast(t.scalar(1, dtype), x.shape)
        counted = _padded(t, ones, padding, padding,
                          1 if count_include_pad else 0)
        divisor = _pool(t, counted, shape, window, "add", 0, ceil_mode)
    return t.emit("div", [total, divisor], dtype, shape)


def _adaptive_windows(t, x, output_size):
    """The one window every output cell of an adaptive pooling of `x` to
    `output_size` has (each spatial size a multiple of its output), or
    None for a global pooling (an output of 1 per dim)."""
    sizes = x.shape[-len(output_size):]
    if all(o == 1 for o in output_size):
        return None
    windows = [wdims.static(s) for s in sizes]
    if None in windows or any(w % o for w, o in zip(windows, output_size)):
        raise t.error(f"adaptive pooling of {list(sizes)} to "
                      f"{list(output_size)} (windows of unequal sizes)")
    return [w // o for w, o in zip(windows, output_size)]


def _global_reduce(t, x, spatial, kind, dtype):
    axes = list(range(x.rank - spatial, x.rank))
    return t.emit("reduce", [t.convert(x, dtype)], dtype,
                  x.shape[:x.rank - spatial],
                  ("reduce", graph_pb2.ReduceAttrs(kind=kind,
                                                   dimensions=axes)))


@rule(aten._adaptive_avg_pool2d.default, aten._adaptive_avg_pool3d.default)
def _adaptive_avg_pool(t, node, x, output_size):
    """Global pooling (output 1 per dim) as a mean; other sizes where each
    output cell's window is the same, as a plain average pool."""
    dtype = out(node).dtype
    spatial = len(output_size)
    shape = tuple(wdims.as_expr(s) for s in out(node).shape)
    kernel = _adaptive_windows(t, x, output_size)
    if kernel is None:
        total = _global_reduce(t, x, spatial, graph_pb2.REDUCE_SUM, dtype)
        count = wdims.as_expr(1)
        for s in x.shape[-spatial:]:
            count = count * s
        mean = t.emit("div", [total, t.broadcast(t.scalar(count, dtype),
                                                 total.shape)],
                      dtype, total.shape)
        return t.reshape(mean, shape)
    total = _pool(t, t.convert(x, dtype), shape,
                  (kernel, kernel, [1] * spatial), "add", 0, False)
    return t.emit("div", [total, t.broadcast(
        t.scalar(math.prod(kernel), dtype), shape)], dtype, shape)


@rule(aten.adaptive_max_pool2d.default, aten.adaptive_max_pool3d.default)
def _adaptive_max_pool(t, node, x, output_size):
    """Global max pooling as a max reduction; other sizes where each output
    cell's window is the same, as a plain max pool. Its values only, as
    max pooling's."""
    if any(user.args[1] == 1 and user.users for user in node.users):
        raise t.error("max pooling's indices (only its values are "
                      "translated)")
    spatial = len(output_size)
    shape = tuple(wdims.as_expr(s) for s in out(node)[0].shape)
    kernel = _adaptive_windows(t, x, output_size)
    if kernel is None:
        return t.reshape(_global_reduce(t, x, spatial, graph_pb2.REDUCE_MAX,
                                        x.dtype), shape), None
    lowest = -math.inf if x.dtype.is_floating_point else -(1 << 62)
    return _pool(t, x, shape, (kernel, kernel, [1] * spatial), "max", lowest,
                 False), None
