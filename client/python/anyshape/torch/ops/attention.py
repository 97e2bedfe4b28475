"""scaled_dot_product_attention kept whole by the decomposition table and
translated here: two batched products around a row softmax, which the
compiler stitches as it does an ONNX model's attention. torch.export
keeps the op, and PyTorch's own decomposition of it leaves views of
non-contiguous strides that its later reshapes refuse (GPT-2).

Semantics are PyTorch's math path: scale 1/sqrt(E) unless given; a bool
mask keeps where true, a float mask adds; is_causal keeps the lower
triangle aligned at the top left; a row that keeps nothing is zeros (the
_safe_softmax PyTorch uses), not NaN; enable_gqa repeats each key and
value head for its group of query heads.
"""
import math

import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import compare, iota, out, rule, shape_of
from anyshape.v1 import graph_pb2

aten = torch.ops.aten


def _product(t, a, b, batch, contract_b, shape, dtype):
    dims = graph_pb2.DotGeneralAttrs(
        lhs_batch_dimensions=range(batch), rhs_batch_dimensions=range(batch),
        lhs_contracting_dimensions=[batch + 1],
        rhs_contracting_dimensions=[contract_b])
    return t.emit("dot_general", [a, b], dtype, shape, ("dot_general", dims))


def _repeat_heads(t, x, heads):
    """[B, Hk, S, E] -> [B, heads, S, E], each head repeated heads / Hk
    times in place (repeat_interleave)."""
    b, hk, s, e = x.shape
    group = wdims.as_expr(heads) // hk
    spread = (b, hk, group, s, e)
    x = t.emit("broadcast_in_dim", [x], x.dtype, spread,
               ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                   shape=t.dims(spread), broadcast_dimensions=[0, 1, 3, 4])))
    return t.reshape(x, (b, wdims.as_expr(heads), s, e))


@rule(aten.scaled_dot_product_attention.default)
def _attention(t, node, q, k, v, attn_mask=None, dropout_p=0.0,
               is_causal=False, scale=None, enable_gqa=False):
    if dropout_p:
        raise t.error("attention dropout (anyshape serves inference)")
    dtype = out(node).dtype
    q, k, v = (t.convert(x, dtype) for x in (q, k, v))
    if enable_gqa and k.shape[-3] != q.shape[-3]:
        k, v = (_repeat_heads(t, x, q.shape[-3]) for x in (k, v))
    batch = q.rank - 2
    rows, keys, width = q.shape[-2], k.shape[-2], q.shape[-1]
    scores_shape = q.shape[:-1] + (keys,)
    scores = _product(t, q, k, batch, batch + 1, scores_shape, dtype)
    if scale is None:
        if wdims.static(width) is None:
            raise t.error("attention over a symbolic head size")
        scale = 1 / math.sqrt(wdims.static(width))
    scores = t.emit("mul", [scores, t.broadcast(t.scalar(scale, dtype),
                                                scores_shape)],
                    dtype, scores_shape)
    keep = None
    if is_causal:
        square = (rows, keys)
        row = iota(t, torch.int64, square, 0)
        column = iota(t, torch.int64, square, 1)
        keep = t.broadcast(compare(t, column, row, graph_pb2.COMPARE_LE),
                           scores_shape)
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        mask = t.broadcast(attn_mask, scores_shape)
        keep = mask if keep is None else t.emit(
            "and", [keep, mask], torch.bool, scores_shape)
    elif attn_mask is not None:
        scores = t.emit("add", [scores, t.broadcast(
            t.convert(attn_mask, dtype), scores_shape)], dtype, scores_shape)
    if keep is not None:
        lowest = t.broadcast(t.scalar(-math.inf, dtype), scores_shape)
        scores = t.emit("select", [keep, scores, lowest], dtype,
                        scores_shape)
    probabilities = _safe_softmax(t, scores, dtype)
    return _product(t, probabilities, v, batch, batch,
                    shape_of(node), dtype)


def _safe_softmax(t, scores, dtype):
    """Softmax over the last dim; a row that is all -inf gives zeros."""
    shape = scores.shape
    row = shape[:-1]
    last = len(shape) - 1

    def fold(x, kind):
        return t.emit("reduce", [x], dtype, row, ("reduce",
                      graph_pb2.ReduceAttrs(kind=kind, dimensions=[last])))

    def spread(x):
        return t.emit("broadcast_in_dim", [x], dtype, shape,
                      ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                          shape=t.dims(shape),
                          broadcast_dimensions=range(last))))
    top = fold(scores, graph_pb2.REDUCE_MAX)
    empty = compare(t, top, t.broadcast(t.scalar(-math.inf, dtype), row),
                    graph_pb2.COMPARE_EQ)
    safe_top = t.emit("select", [empty, t.broadcast(t.scalar(0, dtype), row),
                                 top], dtype, row)
    e = t.emit("exp", [t.emit("sub", [scores, spread(safe_top)], dtype,
                              shape)], dtype, shape)
    total = fold(e, graph_pb2.REDUCE_SUM)
    # An empty row sums to 0: divide by 1 instead, its exps being 0.
    total = t.emit("select", [empty, t.broadcast(t.scalar(1, dtype), row),
                              total], dtype, row)
    return t.emit("div", [e, spread(total)], dtype, shape)
