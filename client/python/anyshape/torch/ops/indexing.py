"""ATen ops that read or write by index: embedding, index_select,
advanced indexing and torch.gather as wire gathers, and index_put,
index_copy, index_add and the torch.scatter family as wire scatters.

Indices keep PyTorch's meaning: an index out of range is a run-time
error naming the op and its source line (the wire's gather and scatter
clamp, so each is checked first), and a negative one counts from the end
where PyTorch allows it.
"""
import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import compare, elements, iota, out, rule, \
    shape_of, truth
from anyshape.torch.ops.shapes import slice_to
from anyshape.torch.translate import Value
from anyshape.v1 import graph_pb2

aten = torch.ops.aten


def checked_index(t, index, a, axis, negative):
    """`index` checked against dim `axis` of `a` (PyTorch's error on an
    index out of range), negative ones counted from the end if allowed."""
    index = t.emit("check_index", [index, a], index.dtype, index.shape,
                   ("check_index", graph_pb2.CheckIndexAttrs(
                       axis=axis, allow_negative=negative, what=t.what())))
    if not negative:
        return index
    zero = t.broadcast(t.scalar(0, index.dtype), index.shape)
    extent = t.broadcast(t.scalar(a.shape[axis], index.dtype), index.shape)
    wrapped = t.emit("add", [index, extent], index.dtype, index.shape)
    return t.emit("select", [compare(t, index, zero, graph_pb2.COMPARE_LT),
                             wrapped, index], index.dtype, index.shape)


def _gather(t, a, index, axis, shape):
    return t.emit("gather", [a, index], a.dtype, shape,
                  ("gather", graph_pb2.GatherAttrs(axis=axis)))


@rule(aten.embedding.default)
def _embedding(t, node, weight, indices, *args):
    index = checked_index(t, indices, weight, 0, negative=False)
    return _gather(t, weight, index, 0, shape_of(node))


@rule(aten.index_select.default)
def _index_select(t, node, a, dim, index):
    axis = dim % a.rank
    index = checked_index(t, index, a, axis, negative=True)
    return _gather(t, a, index, axis, shape_of(node))


def _without_masks(t, indices, count):
    """`indices` with a boolean mask (over k dims) replaced by the k
    columns of its nonzero coordinates, each [count]: x[mask] is x indexed
    at them. `count` is PyTorch's size of the picked rows."""
    masks = [d for d, i in enumerate(indices)
             if i is not None and i.dtype == torch.bool]
    if not masks:
        return list(indices)
    if len(masks) > 1:
        raise t.error("two boolean mask indices")
    d = masks[0]
    mask = indices[d]
    coordinates, symbol = t.nonzero(mask, count)
    columns = []
    for k in range(mask.rank):
        row = slice_to(t, coordinates, (1, symbol), 0, k, k + 1, 1)
        columns.append(t.reshape(row, (symbol,)))
    return list(indices[:d]) + columns + list(indices[d + 1:])


@rule(aten.nonzero.default)
def _nonzero(t, node, a):
    """The coordinates of a's nonzero elements, [count, rank]: a size only
    the run gives (Dynamo captures it with capture_dynamic_output_shape_ops;
    torch.export always)."""
    if a.rank == 0:
        raise t.error("nonzero of a scalar")
    coordinates, _ = t.nonzero(truth(t, a, a.shape), out(node).shape[0])
    return t.transpose(coordinates, [1, 0])


@rule(aten._assert_scalar.default, aten.sym_constrain_range_for_size.default,
      aten.sym_constrain_range.default)
def _size_assertion(t, node, *args, **kwargs):
    """PyTorch's checks on a data-dependent size (u0 >= 0): the wire's
    count is one by construction."""
    return None


@rule(aten.index.Tensor)
def _index(t, node, a, indices):
    """a[..., i, j, ...] with index tensors on adjacent dims (None for a
    whole dim): the indexed dims merged into one and gathered once; a
    boolean mask is its nonzero's coordinates."""
    used = [d for d, i in enumerate(indices) if i is not None]
    if used and any(indices[d].dtype == torch.bool for d in used):
        indices = _without_masks(t, indices, out(node).shape[used[0]])
        return _index(t, node, a, indices)
    if used != list(range(used[0], used[-1] + 1)):
        raise t.error("index tensors on dims that are not adjacent")
    first, last = used[0], used[-1]
    shape = shape_of(node)
    index_shape = shape[first:len(shape) - (a.rank - last - 1)]
    flat = None
    for d in used:
        index = checked_index(t, t.convert(indices[d], torch.int64), a, d,
                              negative=True)
        index = t.broadcast(index, index_shape)
        if flat is None:
            flat = index
            continue
        extent = t.broadcast(t.scalar(a.shape[d], torch.int64), index_shape)
        flat = t.emit("add", [t.emit("mul", [flat, extent], torch.int64,
                                     index_shape), index], torch.int64,
                      index_shape)
    merged = wdims.as_expr(1)
    for d in used:
        merged = merged * a.shape[d]
    source = t.reshape(a, a.shape[:first] + (merged,) + a.shape[last + 1:])
    return _gather(t, source, flat, first, shape)


@rule(aten.gather.default)
def _take_along(t, node, a, dim, index, sparse_grad=False):
    """torch.gather: out[i][j] = a[i][index[i][j]] along `dim`, as one
    gather from `a` flattened at the linear position of each element."""
    axis = dim % a.rank
    shape = shape_of(node)
    index = checked_index(t, t.convert(index, torch.int64), a, axis,
                          negative=True)
    flat = linear_positions(t, a, index, axis, shape)
    return _gather(t, t.reshape(a, [elements(a)]), flat, 0, shape)


def linear_positions(t, x, index, axis, shape):
    """For each element of `index` (of `shape`), its row-major position in
    x where its own coordinates are kept and the one along `axis` is the
    index's value: torch.gather's and torch.scatter's addressing."""
    flat, stride = None, wdims.as_expr(1)
    for d in reversed(range(x.rank)):
        coordinate = index if d == axis else iota(t, torch.int64, shape, d)
        term = coordinate if stride == 1 else t.emit(
            "mul", [coordinate, t.broadcast(t.scalar(stride, torch.int64),
                                            shape)], torch.int64, shape)
        flat = term if flat is None else t.emit("add", [flat, term],
                                                torch.int64, shape)
        stride = stride * x.shape[d]
    return flat


# ---- scatter: indexed writes --------------------------------------------

def _scatter_rows(t, x, index, rows, axis, mode):
    """x with row index[m] along `axis` combined with rows[m] (rows has
    x's shape with `axis` of len(index)), index 1-D and checked."""
    order = [axis] + [d for d in range(x.rank) if d != axis]
    back = sorted(range(x.rank), key=lambda d: order[d])
    front, updates = t.transpose(x, order), t.transpose(rows, order)
    result = t.emit("scatter", [front, index, updates], x.dtype, front.shape,
                    ("scatter", graph_pb2.ScatterAttrs(reduction=mode)))
    return t.transpose(result, back)


def _broadcast_shape(t, shapes):
    """The shape index tensors broadcast to, as PyTorch broadcasts them
    (ranks aligned right, a 1 stretched): F.fold's rows [b, h, 1, 1] and
    columns [b, w] index [b, h, b, w] positions."""
    rank = max(len(s) for s in shapes)
    result = []
    for k in range(rank):
        sizes = {wdims.as_expr(s[len(s) - rank + k]) for s in shapes
                 if len(s) - rank + k >= 0} - {wdims.as_expr(1)}
        if len(sizes) > 1:
            raise t.error("index tensors of shapes "
                          f"{[list(s) for s in shapes]} that do not "
                          "broadcast together")
        result.append(sizes.pop() if sizes else wdims.as_expr(1))
    return tuple(result)


def _write(t, node, x, indices, values, mode):
    """x[..., i, j, ...] = values (or +=) for index tensors on adjacent
    dims: the indexed dims merged into one, the writes one scatter."""
    used = [d for d, i in enumerate(indices) if i is not None]
    if not used:
        raise t.error("an assignment without index tensors")
    mask = next((indices[d] for d in used if indices[d].dtype == torch.bool),
                None)
    if mask is not None and len(used) == 1 and elements(values) == 1:
        return _masked_write(t, node, x, used[0], mask, values, mode)
    if mask is not None:
        count = t.count_of(mask)
        if count is None:  # out[mask] = y before any x[mask]
            raise t.error("a boolean mask assignment whose mask was not read "
                          "first (its count would be a second size)")
        indices = _without_masks(t, indices, count)
        used = [d for d, i in enumerate(indices) if i is not None]
    if used != list(range(used[0], used[-1] + 1)):
        raise t.error("index tensors on dims that are not adjacent")
    first, last = used[0], used[-1]
    dtype = out(node).dtype
    merged = wdims.as_expr(1)
    for d in used:
        merged = merged * x.shape[d]
    shape = _broadcast_shape(t, [indices[d].shape for d in used])
    flat = None
    for d in used:
        index = t.broadcast(checked_index(
            t, t.convert(indices[d], torch.int64), x, d, negative=True),
            shape)
        flat = index if flat is None else t.emit(
            "add", [t.emit("mul", [flat, t.broadcast(
                t.scalar(x.shape[d], torch.int64), shape)],
                torch.int64, shape), index], torch.int64, shape)
    count = elements(flat)
    flat = t.reshape(flat, (count,))
    wide = t.reshape(t.convert(x, dtype), x.shape[:first] + (merged,) +
                     x.shape[last + 1:])
    rows = wide.shape[:first] + (count,) + wide.shape[first + 1:]
    lead, trail = x.shape[:first], x.shape[last + 1:]
    values = t.broadcast(t.convert(values, dtype), lead + shape + trail)
    values = t.reshape(values, rows)
    return t.reshape(_scatter_rows(t, wide, flat, values, first, mode),
                     x.shape)


def _masked_write(t, node, x, first, mask, value, mode):
    """x[mask] = v (or +=) for one value: where the mask holds, v (x + v);
    a select, no data-dependent size at all."""
    dtype = out(node).dtype
    x = t.convert(x, dtype)
    value = t.broadcast(t.reshape(t.convert(value, dtype), ()), x.shape)
    spread = t.emit("broadcast_in_dim", [mask], torch.bool, x.shape,
                    ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                        shape=t.dims(x.shape),
                        broadcast_dimensions=range(first,
                                                   first + mask.rank))))
    if mode == graph_pb2.SCATTER_ADD:
        value = t.emit("add", [x, value], dtype, x.shape)
    return t.emit("select", [spread, value, x], dtype, x.shape)


@rule(aten.index_put.default)
def _index_put(t, node, x, indices, values, accumulate=False):
    mode = graph_pb2.SCATTER_ADD if accumulate else graph_pb2.SCATTER_REPLACE
    return _write(t, node, x, list(indices), values, mode)


@rule(aten.index_copy.default, aten.index_add.default)
def _index_copy(t, node, x, dim, index, source, alpha=1):
    adding = node.target is aten.index_add.default
    if adding and alpha != 1:
        source = t.emit("mul", [source, t.broadcast(
            t.scalar(alpha, source.dtype), source.shape)], source.dtype,
            source.shape)
    axis = dim % max(x.rank, 1)
    indices = [None] * axis + [index]
    mode = graph_pb2.SCATTER_ADD if adding else graph_pb2.SCATTER_REPLACE
    return _write(t, node, x, indices, source, mode)


@rule(aten.scatter_add.default, aten.scatter.src, aten.scatter.value,
      aten.scatter_reduce.two)
def _scatter_along(t, node, x, dim, index, source, reduce=None,
                   include_self=True):
    """torch.scatter family: out[..., index[i, j], ...] (op)= src[i, j]
    along `dim`, as one scatter of single elements into x flattened."""
    modes = {None: graph_pb2.SCATTER_REPLACE, "sum": graph_pb2.SCATTER_ADD,
             "prod": graph_pb2.SCATTER_MUL, "amax": graph_pb2.SCATTER_MAX,
             "amin": graph_pb2.SCATTER_MIN}
    if node.target is aten.scatter_add.default:
        reduce = "sum"
    if reduce not in modes or not include_self:
        raise t.error(f"scatter with reduce={reduce!r}, "
                      f"include_self={include_self}")
    axis = dim % x.rank
    dtype = out(node).dtype
    shape = index.shape
    index = checked_index(t, t.convert(index, torch.int64), x, axis,
                          negative=True)
    flat = linear_positions(t, x, index, axis, shape)
    count = elements(flat)
    if isinstance(source, Value):
        source = _slice_to_shape(t, t.convert(source, dtype), shape)
    else:
        source = t.broadcast(t.scalar(source, dtype), shape)
    result = t.emit("scatter", [t.reshape(t.convert(x, dtype),
                                          (elements(x),)),
                                t.reshape(flat, (count,)),
                                t.reshape(source, (count,))],
                    dtype, (elements(x),),
                    ("scatter", graph_pb2.ScatterAttrs(
                        reduction=modes[reduce])))
    return t.reshape(result, x.shape)


def _slice_to_shape(t, x, shape):
    """x's leading block of `shape` (torch.scatter reads src only where
    index has elements)."""
    if x.shape == tuple(shape):
        return x
    starts = [wdims.dim_expr(0, t.names)] * x.rank
    limits = [wdims.dim_expr(s, t.names) for s in shape]
    return t.emit("slice", [x], x.dtype, shape, ("slice", graph_pb2.SliceAttrs(
        start_indices=starts, limit_indices=limits)))


@rule(aten.flip.default)
def _flip(t, node, x, dims):
    """Each flipped dim read backwards: a gather at n - 1 - i."""
    for d in sorted({d % x.rank for d in dims}):
        x = reverse(t, x, d)
    return x


def reverse(t, x, axis):
    n = x.shape[axis]
    positions = iota(t, torch.int64, (n,), 0)
    last = t.broadcast(t.scalar(n - 1, torch.int64), (n,))
    backwards = t.emit("sub", [last, positions], torch.int64, (n,))
    return t.emit("gather", [x, backwards], x.dtype, x.shape,
                  ("gather", graph_pb2.GatherAttrs(axis=axis)))
