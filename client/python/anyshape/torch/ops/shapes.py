"""ATen ops that move data without computing it: views, permutations,
broadcasts, slices, concatenation, splits, padding and repeats. Result
shapes are the node's FakeTensor's; PyTorch's clamping of slice bounds
is done here, where the sizes are known, or left to the guards Dynamo
and torch.export put on symbolic ones.
"""
import sympy
import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import iota, out, rule, shape_of
from anyshape.v1 import graph_pb2

aten = torch.ops.aten
_END = 1 << 62  # slice(None) reaches ATen as a huge end


@rule(aten.view.default, aten._unsafe_view.default, aten.reshape.default,
      aten.unsqueeze.default, aten.view_copy.default)
def _reshape(t, node, a, *args):
    return t.reshape(a, shape_of(node))


@rule(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims)
def _squeeze(t, node, a, dims=None):
    """The traced shape keeps a symbolic dim it was asked to squeeze (the
    trace took it to be other than 1; the rank cannot follow a size):
    the graph then requires it not to be 1 when it runs, where PyTorch
    would drop it."""
    shape = shape_of(node)
    if dims is None:
        dims = range(a.rank)
    elif isinstance(dims, int):
        dims = [dims]
    if len(shape) == a.rank:
        for d in dims:
            size = wdims.as_expr(a.shape[d % max(a.rank, 1)])
            if not size.is_Integer:
                t.require_not_one(
                    size, f"{node.name}_keeps_dim_{d}_which_must_not_be_1")
    return t.reshape(a, shape)


def _contiguous_strides(shape):
    strides, step = [], wdims.as_expr(1)
    for size in reversed(shape):
        strides.append(step)
        step = step * size
    return strides[::-1]


def _row_major(shape, strides):
    """Whether `strides` lay `shape` out in row-major order: a dim of size
    1 may have any stride (Swin's pooler views [b, c] as [b, c, 1, 1]
    with strides [c, 1, c, c])."""
    return all(size == 1 or wdims.as_expr(stride) == wanted
               for size, stride, wanted in zip(
                   shape, strides, _contiguous_strides(shape)))


@rule(aten.as_strided.default, aten.as_strided_copy.default)
def _as_strided(t, node, a, size, stride, storage_offset=0):
    """A view of a contiguous tensor: where it is row-major (the views
    PyTorch's decompositions make), its elements from `storage_offset` on,
    reshaped; any other (Tensor.unfold's overlapping frames, [.., n, 4]
    with strides [.., 2, 1]) gathers each element at storage_offset plus
    the sum of its coordinates times the strides."""
    shape = shape_of(node)
    source = node.args[0].meta["val"]
    if not _row_major(a.shape, source.stride()):
        raise t.error(f"a strided view with strides {list(stride)} of a "
                      "tensor that is not contiguous")
    count = wdims.as_expr(1)
    for s in a.shape:
        count = count * s
    # The offset counts from the storage's start; `a` starts at its own.
    begin = wdims.as_expr(storage_offset or 0) - \
        wdims.as_expr(source.storage_offset())
    flat = t.reshape(a, [count])
    if not _row_major(shape, stride):
        return _strided_gather(t, flat, shape, stride, begin, count)
    wanted = wdims.as_expr(1)
    for s in shape:
        wanted = wanted * s
    if begin == 0 and wanted == count:
        return t.reshape(a, shape)
    if begin != 0 or wanted != count:
        flat = _slice(t, flat, (wanted,), 0, begin, wanted, 1)
    return t.reshape(flat, shape)


def _strided_gather(t, flat, shape, stride, begin, count):
    """flat[begin + sum(i_d * stride_d)] at each coordinate i of `shape`;
    the last position must fall inside `flat` (of `count` elements), which
    is checked when the graph runs: the wire's gather would clamp it."""
    i64 = torch.int64
    last = wdims.as_expr(begin)
    for size, step in zip(shape, stride):
        last = last + (wdims.as_expr(size) - 1) * wdims.as_expr(step)
    if begin != 0 and wdims.static(begin) is not None and \
            wdims.static(begin) < 0:
        raise t.error(f"a strided view starting {begin} elements before "
                      "its tensor")
    t.require_not_negative(wdims.as_expr(count) - 1 - last)
    position = t.broadcast(t.scalar(begin, i64), shape)
    for d, step in enumerate(stride):
        if wdims.as_expr(shape[d]) == 1 or wdims.as_expr(step) == 0:
            continue
        term = iota(t, i64, shape, d)
        if wdims.as_expr(step) != 1:
            term = t.emit("mul", [term, t.broadcast(t.scalar(step, i64),
                                                    shape)], i64, shape)
        position = t.emit("add", [position, term], i64, shape)
    return t.emit("gather", [flat, position], flat.dtype, shape,
                  ("gather", graph_pb2.GatherAttrs(axis=0)))


@rule(aten.permute.default)
def _permute(t, node, a, permutation):
    return t.transpose(a, [p % max(a.rank, 1) for p in permutation])


@rule(aten.transpose.int)
def _transpose(t, node, a, d0, d1):
    permutation = list(range(a.rank))
    d0, d1 = d0 % a.rank, d1 % a.rank
    permutation[d0], permutation[d1] = permutation[d1], permutation[d0]
    return t.transpose(a, permutation)


@rule(aten.t.default)
def _t(t, node, a):
    return t.transpose(a, list(range(a.rank))[::-1])


@rule(aten.expand.default, aten.expand_copy.default)
def _expand(t, node, a, *args, **kwargs):
    return t.broadcast(a, shape_of(node))


@rule(torch.ops.prims.broadcast_in_dim.default)
def _broadcast_in_dim(t, node, a, shape, broadcast_dimensions):
    shape = shape_of(node)
    return t.emit("broadcast_in_dim", [a], a.dtype, shape,
                  ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                      shape=t.dims(shape),
                      broadcast_dimensions=broadcast_dimensions)))


def _bound(size, index, default):
    """A slice bound as PyTorch normalises it: None is `default`, a
    negative one counts from the end, and static ones clamp to [0, size]."""
    if index is None:
        return default
    expr = wdims.as_expr(index)
    extent = wdims.as_expr(size)
    if expr.is_Integer:
        value = int(expr)
        if value >= _END:
            return extent
        if value < 0:
            expr = extent + value
            if expr.is_Integer and int(expr) < 0:
                return wdims.as_expr(0)
        if extent.is_Integer and expr.is_Integer:
            return wdims.as_expr(min(int(expr), int(extent)))
    return expr


def _slice(t, a, shape, axis, start, length, step):
    """Elements start, start + step, ... of `axis`: `length` of them (none
    is the empty [start, start), whatever the step: x[:, 1::2] of 1)."""
    empty = wdims.as_expr(length) == 0
    limit = start + length if step == 1 or empty else \
        start + (length - 1) * step + 1
    return slice_to(t, a, shape, axis, start, limit, step)


def slice_to(t, a, shape, axis, start, limit, step):
    starts = [wdims.dim_expr(0, t.names) for _ in a.shape]
    limits = [wdims.dim_expr(s, t.names) for s in a.shape]
    starts[axis] = wdims.dim_expr(start, t.names)
    limits[axis] = wdims.dim_expr(limit, t.names)
    return t.emit("slice", [a], a.dtype, shape,
                  ("slice", graph_pb2.SliceAttrs(
                      start_indices=starts, limit_indices=limits,
                      strides=[step if d == axis else 1
                               for d in range(a.rank)])))


@rule(aten.slice.Tensor, aten.slice_copy.Tensor)
def _slice_tensor(t, node, a, dim=0, start=None, end=None, step=1):
    shape = shape_of(node)
    axis = dim % a.rank
    length = shape[axis]
    if shape == a.shape:
        return a
    begin = _bound(a.shape[axis], start, wdims.as_expr(0))
    if step > 1 and not length.is_Integer:
        # The length is a quotient; the wire's slice computes the same
        # from the bounds.
        end = _bound(a.shape[axis], end, a.shape[axis])
        extent = wdims.as_expr(a.shape[axis])
        if not extent.is_Integer:
            # PyTorch clamps bounds past the size (x[:, 2:7:2] of 5
            # columns); a symbolic size is at least 2, so bounds up to 2
            # stay numbers, and an end the clamped start passes is it.
            clamped = False
            if begin.is_Integer and int(begin) > 2:
                begin, clamped = sympy.Min(begin, extent), True
            if end.is_Integer and int(end) > 2:
                end, clamped = sympy.Min(end, extent), True
            if clamped:
                end = sympy.Max(begin, end)
        return slice_to(t, a, shape, axis, begin, end, step)
    if length.is_Integer and int(length) == 0:
        begin = wdims.as_expr(0)
    return _slice(t, a, shape, axis, begin, length, step)


@rule(aten.select.int, aten.select_copy.int)
def _select(t, node, a, dim, index):
    axis = dim % a.rank
    begin = _bound(a.shape[axis], index, 0)
    kept = a.shape[:axis] + (wdims.as_expr(1),) + a.shape[axis + 1:]
    row = _slice(t, a, kept, axis, begin, wdims.as_expr(1), 1)
    return t.reshape(row, shape_of(node))


@rule(aten.cat.default)
def _cat(t, node, tensors, dim=0):
    shape = shape_of(node)
    axis = dim % len(shape)
    dtype = out(node).dtype
    # PyTorch skips 1-D empty tensors of any other rank.
    parts = [t.convert(v, dtype) for v in tensors
             if not (v.rank == 1 and v.rank != len(shape)
                     and wdims.static(v.shape[0]) == 0)]
    if len(parts) == 1:
        return parts[0]
    return t.emit("concatenate", parts, dtype, shape,
                  ("concatenate", graph_pb2.ConcatenateAttrs(
                      dimension=axis)))


def _pieces(t, node, a, axis):
    results, begin = [], wdims.as_expr(0)
    for meta in out(node):
        shape = tuple(wdims.as_expr(s) for s in meta.shape)
        results.append(_slice(t, a, shape, axis, begin, shape[axis], 1))
        begin = begin + shape[axis]
    return results


@rule(aten.split_with_sizes.default, aten.split.Tensor,
      aten.split_with_sizes_copy.default, aten.split_copy.Tensor)
def _split(t, node, a, sizes, dim=0):
    return _pieces(t, node, a, dim % a.rank)


@rule(aten.unbind.int)
def _unbind(t, node, a, dim=0):
    axis = dim % a.rank
    results = []
    for k, meta in enumerate(out(node)):
        kept = a.shape[:axis] + (wdims.as_expr(1),) + a.shape[axis + 1:]
        row = _slice(t, a, kept, axis, wdims.as_expr(k), wdims.as_expr(1), 1)
        results.append(t.reshape(row, meta.shape))
    return results


@rule(aten.copy.default)
def _copy_into(t, node, destination, source, non_blocking=False):
    """The functional form of dst.copy_(src): src in dst's dtype, broadcast
    to its shape."""
    return t.broadcast(t.convert(source, out(node).dtype), shape_of(node))


@rule(aten.slice_scatter.default)
def _slice_scatter(t, node, a, source, dim=0, start=None, end=None, step=1):
    """a with a[start:end] along `dim` replaced by `source` (x[:, 1:] = y
    functionalised): the parts before and after, and source, joined."""
    axis = dim % a.rank
    if step != 1:
        raise t.error("a strided slice assignment")
    begin = _bound(a.shape[axis], start, wdims.as_expr(0))
    finish = begin + source.shape[axis]
    return _replace_rows(t, a, t.convert(source, a.dtype), axis, begin, finish)


@rule(aten.select_scatter.default)
def _select_scatter(t, node, a, source, dim, index):
    axis = dim % a.rank
    begin = _bound(a.shape[axis], index, wdims.as_expr(0))
    row = t.reshape(t.convert(source, a.dtype),
                    a.shape[:axis] + (wdims.as_expr(1),) + a.shape[axis + 1:])
    return _replace_rows(t, a, row, axis, begin, begin + 1)


def _replace_rows(t, a, rows, axis, begin, finish):
    parts = []
    if begin != 0:
        head = a.shape[:axis] + (begin,) + a.shape[axis + 1:]
        parts.append(slice_to(t, a, head, axis, wdims.as_expr(0), begin, 1))
    parts.append(rows)
    if finish != a.shape[axis]:
        rest = a.shape[axis] - finish
        tail = a.shape[:axis] + (rest,) + a.shape[axis + 1:]
        parts.append(slice_to(t, a, tail, axis, finish, a.shape[axis], 1))
    if len(parts) == 1:
        return parts[0]
    return t.emit("concatenate", parts, a.dtype, a.shape,
                  ("concatenate", graph_pb2.ConcatenateAttrs(dimension=axis)))


@rule(aten.constant_pad_nd.default)
def _pad(t, node, a, pad, value=0):
    """Static amounts (negative ones crop) are one pad; a symbolic amount
    (a window's remainder, (4 - w % 4) % 4, as Swin and LongT5 pad) is a
    block of the fill concatenated on its side, its size that expression
    (never negative: a size)."""
    low, high = [0] * a.rank, [0] * a.rank
    symbolic = []  # (axis, amount, before)
    for k in range(len(pad) // 2):
        axis = a.rank - 1 - k
        for bound, amount, before in ((low, pad[2 * k], True),
                                      (high, pad[2 * k + 1], False)):
            if wdims.static(amount) is None:
                symbolic.append((axis, wdims.as_expr(amount), before))
            else:
                bound[axis] = wdims.static(amount)
    fill = t.scalar(value, a.dtype)
    x = a
    if any(low) or any(high):
        shape = tuple(n + lo + hi for n, lo, hi in zip(a.shape, low, high))
        x = t.emit("pad", [a, fill], a.dtype, shape,
                   ("pad", graph_pb2.PadAttrs(edge_padding_low=low,
                                              edge_padding_high=high)))
    for axis, amount, before in symbolic:
        block = t.broadcast(fill, x.shape[:axis] + (amount,) +
                            x.shape[axis + 1:])
        shape = x.shape[:axis] + (x.shape[axis] + amount,) + \
            x.shape[axis + 1:]
        x = t.emit("concatenate", [block, x] if before else [x, block],
                   a.dtype, shape,
                   ("concatenate", graph_pb2.ConcatenateAttrs(
                       dimension=axis)))
    return x


@rule(aten.repeat.default)
def _repeat(t, node, a, repeats):
    """Each dim d of size n repeated r times: [r, n] broadcast, merged."""
    lead = len(repeats) - a.rank
    sizes = (wdims.as_expr(1),) * lead + a.shape
    spread, target = [], []
    for r, n in zip(repeats, sizes):
        spread += [wdims.as_expr(1), n]
        target += [wdims.as_expr(r), n]
    x = t.reshape(a, spread)
    x = t.emit("broadcast_in_dim", [x], a.dtype, target,
               ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                   shape=t.dims(target),
                   broadcast_dimensions=range(len(target)))))
    return t.reshape(x, shape_of(node))

