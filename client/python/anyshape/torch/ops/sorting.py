"""ATen ops that order elements: sort, argsort, topk and kthvalue, on the
wire's stable argsort (positions in sorted order, NaN above every number,
as PyTorch orders it) with the values gathered at the positions. topk of
the largest with a small constant k (routing's top-2) is k rounds of the
extreme instead: kernels only, which a GPU runs without a trip to the
host for the sort."""
import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import compare, elements, iota, out, rule
from anyshape.torch.ops.compute import arg_extreme
from anyshape.torch.ops.indexing import linear_positions
from anyshape.torch.ops.shapes import slice_to
from anyshape.v1 import graph_pb2

aten = torch.ops.aten

# The largest k that topk unrolls into rounds of the extreme.
_MAX_UNROLLED_TOPK = 4


def _order(t, a, axis, descending):
    """The stable order of `a` along `axis`: i64 positions, a's shape."""
    return t.emit("argsort", [a], torch.int64, a.shape,
                  ("argsort", graph_pb2.ArgsortAttrs(
                      axis=axis, descending=bool(descending))))


def _first(t, positions, axis, start, limit):
    """positions[start:limit] along `axis` (a slice's shape check fails
    the run when limit is above the dim)."""
    shape = list(positions.shape)
    shape[axis] = wdims.as_expr(limit) - wdims.as_expr(start)
    return slice_to(t, positions, tuple(shape), axis, start, limit, 1)


def _values_at(t, a, positions, axis):
    """a's elements at `positions` along `axis` (take_along_axis)."""
    flat = t.reshape(a, [elements(a)])
    at = linear_positions(t, a, positions, axis, positions.shape)
    return t.emit("gather", [flat, at], a.dtype, positions.shape,
                  ("gather", graph_pb2.GatherAttrs(axis=0)))


@rule(aten.sort.default, aten.sort.stable)
def _sort(t, node, a, dim=-1, descending=False, stable=None):
    """sort(self, dim, descending) and sort.stable(self, *, stable, dim,
    descending): stable either way (an unstable sort may give any order
    of equal elements; this is one of them)."""
    if a.rank == 0:
        return a, t.convert(t.scalar(0, torch.int64), torch.int64)
    axis = dim % a.rank
    positions = _order(t, a, axis, descending)
    return _values_at(t, a, positions, axis), positions


@rule(aten.argsort.default, aten.argsort.stable)
def _argsort(t, node, a, dim=-1, descending=False, stable=None):
    return _sort(t, node, a, dim, descending)[1]


@rule(aten.topk.default)
def _topk(t, node, a, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest) along `dim`, sorted, ties to the lower
    position: the first k of the order, or k rounds of the extreme."""
    axis = dim % a.rank if a.rank else 0
    if a.rank == 0:
        raise t.error("topk of a scalar")
    known = wdims.static(k)
    if largest and known is not None and 0 < known <= _MAX_UNROLLED_TOPK:
        return _topk_rounds(t, node, a, known, axis)
    positions = _first(t, _order(t, a, axis, largest), axis, 0, k)
    return _values_at(t, a, positions, axis), positions


def _topk_rounds(t, node, a, k, axis):
    """k rounds of the max among the positions not yet taken (a NaN is the
    max, as PyTorch orders it)."""
    values, indices, taken = [], [], None
    position = iota(t, torch.int64, a.shape, axis)
    for _ in range(k):
        untaken = None if taken is None else t.emit(
            "not", [taken], torch.bool, a.shape)
        index, value = arg_extreme(t, a, axis, False, untaken)
        hit = compare(t, position, t.broadcast(index, a.shape),
                      graph_pb2.COMPARE_EQ)
        taken = hit if taken is None else t.emit("or", [taken, hit],
                                                 torch.bool, a.shape)
        values.append(value)
        indices.append(index)
    shape = tuple(wdims.as_expr(s) for s in out(node)[0].shape)

    def join(parts, dtype):
        if len(parts) == 1:
            return parts[0]
        return t.emit("concatenate", parts, dtype, shape, ("concatenate",
                      graph_pb2.ConcatenateAttrs(dimension=axis)))
    index = t.emit("check_index", [join(indices, torch.int64), a],
                   torch.int64, shape, ("check_index",
                   graph_pb2.CheckIndexAttrs(axis=axis, allow_negative=False,
                                             what=t.what() + " (k above the "
                                             "dim's size)")))
    return join(values, a.dtype), index


@rule(aten.kthvalue.default)
def _kthvalue(t, node, a, k, dim=-1, keepdim=False):
    """The k-th smallest along `dim` (1-based) and its position."""
    axis = dim % a.rank if a.rank else 0
    positions = _first(t, _order(t, a, axis, False), axis,
                       wdims.as_expr(k) - 1, k)
    values = _values_at(t, a, positions, axis)
    shape = tuple(wdims.as_expr(s) for s in out(node)[0].shape)
    return t.reshape(values, shape), t.reshape(positions, shape)
