"""Elementwise ATen ops: arithmetic with PyTorch's type promotion,
comparisons, logic, unary math, and copies that only convert."""
import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND

from anyshape import compose
from anyshape.torch.ops import compare, compute_dtype, elementwise_op, \
    operand, out, rule, shape_of, truth
from anyshape.torch.translate import Value
from anyshape.v1 import graph_pb2

aten = torch.ops.aten
prims = torch.ops.prims


# ---- binary arithmetic ----------------------------------------------


@rule(aten.add.Tensor, aten.add.Scalar)
def _add(t, node, a, b, alpha=1):
    if out(node).dtype == torch.bool:  # PyTorch's bool + bool: a logical or
        return elementwise_op(t, node, "or", [a, b])
    return elementwise_op(t, node, "add", [a, _alpha(t, node, b, alpha)])


@rule(aten.sub.Tensor, aten.sub.Scalar)
def _sub(t, node, a, b, alpha=1):
    return elementwise_op(t, node, "sub", [a, _alpha(t, node, b, alpha)])


def _alpha(t, node, b, alpha):
    if alpha == 1 or alpha is None:
        return b
    if not isinstance(b, Value):
        return b * alpha
    compute = compute_dtype(b, alpha)
    scaled = t.emit("mul", [t.convert(b, compute),
                            t.broadcast(t.scalar(alpha, compute), b.shape)],
                    compute, b.shape)
    return scaled


@rule(aten.mul.Tensor, aten.mul.Scalar)
def _mul(t, node, a, b):
    if out(node).dtype == torch.bool:
        return elementwise_op(t, node, "and", [a, b])
    return elementwise_op(t, node, "mul", [a, b])


@rule(aten.div.Tensor, aten.div.Scalar, aten.true_divide.Tensor)
def _div(t, node, a, b):
    compute = compute_dtype(
        a, b, kind=ELEMENTWISE_TYPE_PROMOTION_KIND.INT_TO_FLOAT)
    return elementwise_op(t, node, "div", [a, b], compute=compute)


@rule(aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div_mode(t, node, a, b, rounding_mode=None):
    if rounding_mode is None:
        return _div(t, node, a, b)
    shape = shape_of(node)
    compute = compute_dtype(a, b)
    x, y = (operand(t, v, compute, shape) for v in (a, b))
    if compute.is_floating_point:
        q = t.emit("div", [x, y], compute, shape)
        q = _round_toward(t, q, rounding_mode)
    else:
        q = t.emit("div", [x, y], compute, shape)  # truncates
        if rounding_mode == "floor":
            q = _floor_correction(t, x, y, q)
    return t.convert(q, out(node).dtype)


def _round_toward(t, q, mode):
    if mode == "floor":
        return t.emit("floor", [q], q.dtype, q.shape)
    negative = compare(t, q, t.broadcast(t.scalar(0, q.dtype), q.shape),
                        graph_pb2.COMPARE_LT)
    return t.emit("select", [negative, t.emit("ceil", [q], q.dtype, q.shape),
                             t.emit("floor", [q], q.dtype, q.shape)],
                  q.dtype, q.shape)


def _floor_correction(t, x, y, q):
    """Integer q = trunc(x / y) made floor(x / y)."""
    zero = t.broadcast(t.scalar(0, q.dtype), q.shape)
    remainder = t.emit("sub", [x, t.emit("mul", [q, y], q.dtype, q.shape)],
                       q.dtype, q.shape)
    inexact = compare(t, remainder, zero, graph_pb2.COMPARE_NE)
    signs = compare(t, compare(t, x, zero, graph_pb2.COMPARE_LT),
                     compare(t, y, zero, graph_pb2.COMPARE_LT),
                     graph_pb2.COMPARE_NE)
    down = t.emit("and", [inexact, signs], torch.bool, q.shape)
    one = t.broadcast(t.scalar(1, q.dtype), q.shape)
    return t.emit("select", [down, t.emit("sub", [q, one], q.dtype, q.shape),
                             q], q.dtype, q.shape)


@rule(aten.remainder.Tensor, aten.remainder.Scalar, aten.fmod.Tensor,
      aten.fmod.Scalar)
def _remainder(t, node, a, b):
    shape = shape_of(node)
    compute = compute_dtype(a, b)
    x, y = (operand(t, v, compute, shape) for v in (a, b))
    python = node.target in (aten.remainder.Tensor, aten.remainder.Scalar)
    q = t.emit("div", [x, y], compute, shape)
    if compute.is_floating_point:
        q = _round_toward(t, q, "floor" if python else "trunc")
    elif python:
        q = _floor_correction(t, x, y, q)
    r = t.emit("sub", [x, t.emit("mul", [q, y], compute, shape)], compute,
               shape)
    return t.convert(r, out(node).dtype)


@rule(aten.pow.Tensor_Scalar)
def _pow_scalar(t, node, a, exponent):
    if not isinstance(exponent, (int, float)):  # a size: no shortcut
        return elementwise_op(t, node, "pow", [a, exponent])
    if exponent == 1:
        return t.convert(a, out(node).dtype)
    if exponent == 2:
        return elementwise_op(t, node, "mul", [a, a])
    if exponent == 0.5 and out(node).dtype.is_floating_point:
        return elementwise_op(t, node, "sqrt", [a])
    if exponent == -0.5 and out(node).dtype.is_floating_point:
        return elementwise_op(t, node, "rsqrt", [a])
    return elementwise_op(t, node, "pow", [a, exponent])


@rule(aten.pow.Tensor_Tensor, aten.pow.Scalar)
def _pow(t, node, a, b):
    return elementwise_op(t, node, "pow", [a, b])


@rule(aten.maximum.default, aten.clamp_min.default, aten.clamp_min.Tensor)
def _maximum(t, node, a, b):
    return elementwise_op(t, node, "max", [a, b])


@rule(aten.minimum.default, aten.clamp_max.default, aten.clamp_max.Tensor)
def _minimum(t, node, a, b):
    return elementwise_op(t, node, "min", [a, b])


@rule(aten.clamp.default, aten.clamp.Tensor)
def _clamp(t, node, a, low=None, high=None):
    shape, dtype = shape_of(node), out(node).dtype
    x = t.broadcast(t.convert(a, dtype), shape)
    if low is not None:
        x = t.emit("max", [x, operand(t, low, dtype, shape)], dtype, shape)
    if high is not None:
        x = t.emit("min", [x, operand(t, high, dtype, shape)], dtype, shape)
    return x


# ---- logic and comparisons ------------------------------------------

_DIRECTIONS = {"eq": graph_pb2.COMPARE_EQ, "ne": graph_pb2.COMPARE_NE,
               "lt": graph_pb2.COMPARE_LT, "le": graph_pb2.COMPARE_LE,
               "gt": graph_pb2.COMPARE_GT, "ge": graph_pb2.COMPARE_GE}


def _comparison(direction):
    def translate(t, node, a, b):
        shape = shape_of(node)
        compute = compute_dtype(a, b)
        return compare(t, operand(t, a, compute, shape),
                        operand(t, b, compute, shape), direction)
    return translate


for _name, _direction in _DIRECTIONS.items():
    rule(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(
        _comparison(_direction))


@rule(aten.logical_and.default, aten.logical_or.default,
      aten.logical_xor.default)
def _logical(t, node, a, b):
    shape = shape_of(node)
    x, y = truth(t, a, shape), truth(t, b, shape)
    if node.target is aten.logical_xor.default:
        result = compare(t, x, y, graph_pb2.COMPARE_NE)
    else:
        op = "and" if node.target is aten.logical_and.default else "or"
        result = t.emit(op, [x, y], torch.bool, shape)
    return t.convert(result, out(node).dtype)


@rule(aten.logical_not.default)
def _logical_not(t, node, a):
    result = t.emit("not", [truth(t, a, a.shape)], torch.bool, a.shape)
    return t.convert(result, out(node).dtype)


@rule(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar,
      aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)
def _bitwise(t, node, a, b):
    op = "and" if "and" in str(node.target) else "or"
    return elementwise_op(t, node, op, [a, b])


@rule(aten.bitwise_not.default)
def _bitwise_not(t, node, a):
    return elementwise_op(t, node, "not", [a])


@rule(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther,
      aten.where.Scalar)
def _where(t, node, condition, a, b):
    shape, dtype = shape_of(node), out(node).dtype
    return t.emit("select", [truth(t, condition, shape),
                             operand(t, a, dtype, shape),
                             operand(t, b, dtype, shape)], dtype, shape)


# ---- unary ------------------------------------------------------------

def _unary(op, float_only=True):
    def translate(t, node, a):
        compute = out(node).dtype
        if float_only and not compute.is_floating_point:
            compute = torch.float32
        return elementwise_op(t, node, op, [a], compute=compute)
    return translate


for _target, _op in [(aten.exp, "exp"), (aten.log, "log"),
                     (aten.tanh, "tanh"), (aten.sqrt, "sqrt"),
                     (aten.rsqrt, "rsqrt"), (aten.sigmoid, "logistic"),
                     (aten.sin, "sin"), (aten.cos, "cos"),
                     (aten.erf, "erf"), (aten.floor, "floor"),
                     (aten.ceil, "ceil")]:
    rule(_target.default)(_unary(_op))
rule(aten.neg.default)(_unary("neg", float_only=False))
rule(aten.abs.default)(_unary("abs", float_only=False))


@rule(aten.relu.default)
def _relu(t, node, a):
    return elementwise_op(t, node, "max", [a, 0])


@rule(aten.reciprocal.default)
def _reciprocal(t, node, a):
    return elementwise_op(t, node, "div", [1.0, a], compute=out(node).dtype)


@rule(aten.trunc.default)
def _trunc(t, node, a):
    return _round_toward(t, t.convert(a, out(node).dtype), "trunc")


@rule(aten.round.default, aten.round.decimals)
def _round(t, node, a, decimals=0):
    """To the nearest integer, halves to the even one (as PyTorch rounds):
    floor(x), plus one where the fraction is above a half, or a half and
    floor(x) is odd. With decimals, of x scaled by 10^d and scaled back,
    as PyTorch computes it."""
    x = t.convert(a, out(node).dtype)
    if not x.dtype.is_floating_point:
        return x
    shape, dtype = x.shape, x.dtype

    def splat(v):
        return t.broadcast(t.scalar(v, dtype), shape)

    # PyTorch's: nearbyint(x * 10^d) / 10^d, or for d < 0
    # nearbyint(x / 10^-d) * 10^-d.
    scale = float(10 ** abs(decimals)) if decimals else None
    into, back = ("mul", "div") if decimals > 0 else ("div", "mul")
    if scale is not None:
        x = t.emit(into, [x, splat(scale)], dtype, shape)
    y = compose.rounded(t.emit, splat, torch.bool, x, dtype, shape, True)
    if scale is not None:
        y = t.emit(back, [y, splat(scale)], dtype, shape)
    return y


def _log1p_expm1(t, x, log1p):
    return compose.log1p_expm1(
        t.emit, lambda v: t.broadcast(t.scalar(v, x.dtype), x.shape),
        torch.bool, x, x.dtype, x.shape, log1p)


@rule(aten.log1p.default, aten.expm1.default, aten.log2.default,
      aten.exp2.default)
def _log_exp_variants(t, node, a):
    dtype, shape = out(node).dtype, shape_of(node)
    x = t.convert(a, dtype)
    if node.target in (aten.log1p.default, aten.expm1.default):
        return _log1p_expm1(t, x, node.target is aten.log1p.default)
    ln2 = 0.6931471805599453
    if node.target is aten.log2.default:
        return elementwise_op(t, node, "div",
                            [t.emit("log", [x], dtype, shape), ln2])
    return t.emit("exp", [elementwise_op(t, node, "mul", [x, ln2])], dtype,
                  shape)


@rule(aten.isnan.default)
def _isnan(t, node, a):
    return compare(t, a, a, graph_pb2.COMPARE_NE)


@rule(aten.sign.default)
def _sign(t, node, a):
    dtype, shape = out(node).dtype, a.shape
    zero = t.broadcast(t.scalar(0, dtype), shape)
    positive = t.convert(compare(t, a, zero, graph_pb2.COMPARE_GT), dtype)
    negative = t.convert(compare(t, a, zero, graph_pb2.COMPARE_LT), dtype)
    return t.emit("sub", [positive, negative], dtype, shape)


# ---- copies and conversions ------------------------------------------

@rule(aten._to_copy.default, aten.clone.default, aten.alias.default,
      aten.lift_fresh_copy.default, aten.detach.default,
      prims.convert_element_type.default, aten.contiguous.default)
def _copy(t, node, a, *args, **kwargs):
    if not isinstance(a, Value):
        return t.broadcast(t.scalar(a, out(node).dtype), ())
    return t.convert(a, out(node).dtype)


@rule(aten._assert_tensor_metadata.default, aten._assert_async.msg,
      aten._assert_scalar.default, aten.sym_constrain_range_for_size.default)
def _checked_by_the_wire(t, node, *args, **kwargs):
    # Sizes PyTorch asserts are the wire's own shape checks at run time.
    return None

