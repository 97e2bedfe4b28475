"""The ATen ops the translator takes, each as wire nodes (docs/ops.md):
the registry, and the helpers the rules share. The rules are by kind:
elementwise.py, shapes.py, compute.py (reductions, contractions,
sources), indexing.py, attention.py, pooling.py, sorting.py, experts.py.
A rule is keyed by its OpOverload, or by its name for a custom op that
exists only once its library is imported.

Result dtypes and shapes come from the node's FakeTensor (`out`), so a
rule only computes values: operands are converted to the dtype PyTorch
computes in and broadcast to the result's shape. What PyTorch decomposes
for us (softmax, layer and group norm, GELU, SiLU, var_mean, ...) is in
`decompositions()` and never reaches this table. An op missing here fails
the translation naming it and its source line.
"""

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, \
    elementwise_dtypes

from anyshape.torch import dims as wdims
from anyshape.torch.translate import Value, wire_dtype
from anyshape.v1 import graph_pb2

aten = torch.ops.aten
prims = torch.ops.prims
OPS = {}

# PyTorch's core ATen decompositions, and these composite ops beyond them.
_DECOMPOSED = [
    aten._softmax, aten._log_softmax, aten.native_layer_norm, aten.gelu,
    aten.silu, aten.mish, aten.hardswish, aten.hardsigmoid, aten.hardtanh,
    aten.leaky_relu, aten.elu, aten.softplus, aten.std, aten.addcmul,
    aten.addcdiv, aten.lerp, aten.logsumexp,
    aten.linalg_vector_norm, aten.norm, aten.frac, aten.log_sigmoid_forward,
    aten.glu, aten.tril, aten.triu, aten.masked_fill, aten.unfold,
    aten.rsub, aten.stack, aten.flatten, aten.unflatten, aten.narrow,
    aten.chunk, aten.roll, aten.baddbmm, aten.diagonal,
]


def decompositions():
    from torch._decomp import core_aten_decompositions, get_decompositions
    table = dict(core_aten_decompositions())
    table.update(get_decompositions(_DECOMPOSED))
    # Kept whole: what compute.py translates more directly than PyTorch's
    # decompositions (which go down to prims).
    for kept in (aten.addmm.default, aten.convolution.default,
                 aten.var_mean.correction, aten.var.correction,
                 aten.native_group_norm.default,
                 aten.scaled_dot_product_attention.default):
        table.pop(kept, None)
    return table


def rule(*targets):
    def register(function):
        for target in targets:
            OPS[target] = function
        return function
    return register


def out(node):
    return node.meta["val"]


def shape_of(node):
    return tuple(wdims.as_expr(s) for s in out(node).shape)


def compute_dtype(*args, kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT):
    """The dtype PyTorch computes an elementwise op in."""
    metas = []
    for a in args:
        if isinstance(a, Value):
            # elementwise_dtypes reads dtype and rank only.
            metas.append(torch.empty((1,) * a.rank if a.rank else (),
                                     dtype=a.dtype, device="meta"))
        elif isinstance(a, torch.SymInt):
            metas.append(1)
        elif isinstance(a, torch.SymFloat):
            metas.append(1.0)
        else:
            metas.append(a)
    return elementwise_dtypes(*metas, type_promotion_kind=kind)[0]


def operand(t, a, dtype, shape):
    if isinstance(a, Value):
        return t.broadcast(t.convert(a, dtype), shape)
    return t.broadcast(t.scalar(a, dtype), shape)


def elementwise_op(t, node, op, args, compute=None, result=None):
    shape = shape_of(node)
    compute = compute or compute_dtype(*args)
    values = [operand(t, a, compute, shape) for a in args]
    value = t.emit(op, values, compute, shape)
    return t.convert(value, result or out(node).dtype)


def compare(t, a, b, direction):
    return t.emit("compare", [a, b], torch.bool, a.shape,
                  ("compare", graph_pb2.CompareAttrs(direction=direction)))


def truth(t, value, shape):
    """A value as bool (nonzero is true), broadcast to `shape`."""
    if isinstance(value, Value) and value.dtype == torch.bool:
        return t.broadcast(value, shape)
    if not isinstance(value, Value):
        return t.broadcast(t.scalar(bool(value), torch.bool), shape)
    zero = t.broadcast(t.scalar(0, value.dtype), value.shape)
    return t.broadcast(compare(t, value, zero, graph_pb2.COMPARE_NE), shape)


def elements(value):
    """A value's element count, as a size."""
    count = wdims.as_expr(1)
    for size in value.shape:
        count = count * size
    return count


def iota(t, dtype, shape, axis):
    return t.emit("iota", [], dtype, shape,
                  ("iota", graph_pb2.IotaAttrs(dtype=wire_dtype(dtype),
                                               shape=t.dims(shape),
                                               iota_dimension=axis)))


def _load_rules():
    from anyshape.torch.ops import attention, compute, elementwise, \
        experts, indexing, pooling, shapes, sorting  # noqa: F401


_load_rules()
