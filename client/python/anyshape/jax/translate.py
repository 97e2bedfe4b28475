"""A jaxpr traced with symbolic shapes (jax.export.symbolic_shape) as
one wire Graph.

The jaxpr is the source rather than jax.export's StableHLO module: every
value in it carries its symbolic shape (b, 3*s, floordiv(s + 1, 2)),
where the StableHLO module has '?' and recomputes each size with shape
tensors. The lax primitives are the wire's ops almost one for one
(docs/ops.md); JAX's own symbol names are kept, since the user chose
them. A primitive missing here fails naming it and the jaxpr equation.
"""
import math
import threading

import numpy as np
from jax._src.export import shape_poly

from anyshape import polynomial as poly
from anyshape.v1 import graph_pb2

_DTYPES = {np.dtype(np.float32): graph_pb2.DTYPE_F32,
           np.dtype(np.float16): graph_pb2.DTYPE_F16,
           np.dtype(np.int32): graph_pb2.DTYPE_I32,
           np.dtype(np.int64): graph_pb2.DTYPE_I64,
           np.dtype(np.bool_): graph_pb2.DTYPE_BOOL}


class TranslationError(Exception):
    """What the JAX translator cannot express, naming the primitive."""


def wire_dtype(dtype):
    if str(dtype) == "bfloat16":
        return graph_pb2.DTYPE_BF16
    if np.dtype(dtype) not in _DTYPES:
        raise TranslationError(f"anyshape has no dtype for {dtype}")
    return _DTYPES[np.dtype(dtype)]


# ---- sizes: JAX's _DimExpr as the wire's DimExpr --------------------------

def _poly(size):
    """A JAX size as a polynomial (anyshape.polynomial)."""
    if isinstance(size, (int, np.integer)):
        return poly.constant(size)
    total = {}
    for term, coefficient in size._sorted_terms:
        product = poly.constant(coefficient)
        for factor, power in term._factors:
            for _ in range(power):
                product = poly.multiply(product, _factor(factor))
        poly.add_into(total, product)
    return total


# Sizes the translation under way on this thread took to be at least 0
# (a remainder by a size), each checked when the graph runs: _walk has
# the Writer emit them after the equation that met them. Sizes are read
# (dim, dim_expr) far from the Writer, hence a thread's own list.
_pending = threading.local()


def _requirements():
    if not hasattr(_pending, "sizes"):
        _pending.sizes = []
    return _pending.sizes


def _remainder_by_a_size(factor, dividend, divisor):
    """mod(a, n) for a size n (jnp.roll's split point, mod(-3, s)), as
    polynomial.remainder_by_size writes it; its bound is required when the
    graph runs (a narrower axis fails naming the node)."""
    found = poly.remainder_by_size(_poly(dividend), _poly(divisor))
    if found is None:
        raise TranslationError(f"the size {factor} divides by a symbol")
    remainder, slack = found
    _requirements().append(slack)
    return remainder


def _factor(factor):
    if factor.var is not None:
        return poly.symbol(factor.var)
    dividend, divisor = factor.operands
    if isinstance(divisor, shape_poly._DimExpr) and divisor._is_constant:
        divisor = int(shape_poly._DimExpr._to_constant(divisor))
    if factor.operation == "mod" and isinstance(divisor, shape_poly._DimExpr):
        return _remainder_by_a_size(factor, dividend, divisor)
    if not isinstance(divisor, (int, np.integer)) or divisor < 1:
        raise TranslationError(f"the size {factor} divides by a symbol")
    if factor.operation == "floordiv":
        return poly.quotient(_poly(dividend), divisor)
    if factor.operation == "mod":
        return poly.remainder(_poly(dividend), divisor)
    raise TranslationError(f"the size {factor} has no wire form")


def dim(size):
    return poly.to_dim(_poly(size))


def dim_expr(size):
    """A size as a DimExpr (slice bounds)."""
    return poly.to_dim_expr(_poly(size))


def is_symbolic(size):
    return isinstance(size, shape_poly._DimExpr)


def static_size(size):
    """The int of a size, or None while symbolic."""
    return None if is_symbolic(size) else int(size)


def product(sizes):
    return math.prod(sizes, start=1)


# ---- the walk -------------------------------------------------------------

class Value:
    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, np.dtype(dtype), \
            tuple(shape)

    @property
    def rank(self):
        return len(self.shape)


class Writer:
    """Wire nodes for the rules below."""

    def __init__(self, name):
        self.graph = graph_pb2.Graph(name=name)
        self.eqn = None
        self._count = 0
        self.symbols = {}  # symbol -> (input Value, axis) that binds it

    def error(self, message):
        where = f"{self.eqn.primitive.name}: " if self.eqn else ""
        return TranslationError(where + message)

    def emit(self, op, operands, dtype, shape, attrs=None):
        self._count += 1
        hint = self.eqn.primitive.name if self.eqn else op
        name = f"{hint}_{self._count}"
        node = self.graph.nodes.add(name=name, op=op,
                                    operands=[v.name for v in operands])
        if attrs is not None:
            getattr(node, attrs[0]).CopyFrom(attrs[1])
        return Value(name, dtype, shape)

    def constant(self, array=None, *, splat=None, dtype=None, tensor_id=None,
                 shape=()):
        if array is not None:
            array = np.asarray(array)
            dtype, shape = array.dtype, array.shape
        attrs = graph_pb2.ConstantAttrs(dtype=wire_dtype(dtype),
                                        shape=list(shape))
        if splat is not None:
            attrs.splat = float(splat)
        elif tensor_id is not None:
            attrs.tensor_id = tensor_id
        else:
            data = np.ascontiguousarray(array)
            if str(data.dtype) == "bfloat16":
                data = data.view(np.uint16)
            attrs.data = data.astype(data.dtype.newbyteorder("<")).tobytes()
        return self.emit("constant", [], dtype, shape, ("constant", attrs))

    def convert(self, v, dtype):
        if wire_dtype(v.dtype) == wire_dtype(dtype):
            return v
        return self.emit("convert", [v], dtype, v.shape, ("convert",
                         graph_pb2.ConvertAttrs(dtype=wire_dtype(dtype))))

    def broadcast(self, v, shape, dims=None):
        shape = tuple(shape)
        if v.shape == shape and dims is None:
            return v
        if dims is None:
            dims = range(len(shape) - v.rank, len(shape))
        return self.emit("broadcast_in_dim", [v], v.dtype, shape,
                         ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                             shape=[dim(s) for s in shape],
                             broadcast_dimensions=list(dims))))

    def require_not_negative(self, size):
        """Checks, when the graph runs, that `size` (a polynomial) is not
        negative: a broadcast to [size] that nothing reads, whose shape
        the server checks before any kernel."""
        zero = self.constant(splat=0, dtype=np.int64)
        self.emit("broadcast_in_dim", [zero], np.int64, (None,),
                  ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                      shape=[poly.to_dim(size)], broadcast_dimensions=[])))

    def reshape(self, v, shape):
        shape = tuple(shape)
        if v.shape == shape:
            return v
        attrs = graph_pb2.ReshapeAttrs(shape=[dim(s) for s in shape])
        return self.emit("reshape", [v], v.dtype, shape, ("reshape", attrs))


def translate(closed, kinds, constant_id, name="jax"):
    """`closed` (a ClosedJaxpr) as wire: invars whose kind is "user" are
    inputs; "weight" ones, and the jaxpr's own constants, are constants
    (constant_id uploads one and returns its content id). Returns the
    graph and, per output, its wire name."""
    from anyshape.jax.rules import RULES

    _requirements().clear()  # what a failed translation left
    w = Writer(name)
    env = {}
    jaxpr = closed.jaxpr
    for k, (var, kind) in enumerate(zip(jaxpr.invars, kinds)):
        aval = var.aval
        if kind == "user":
            w.graph.inputs.add(name=f"input{k}", type=graph_pb2.TensorType(
                dtype=wire_dtype(aval.dtype),
                dims=[dim(s) for s in aval.shape]))
            env[var] = Value(f"input{k}", aval.dtype, aval.shape)
            for axis, size in enumerate(aval.shape):
                named = dim(size)
                if named.HasField("symbol"):
                    w.symbols.setdefault(named.symbol, (env[var], axis))
        else:
            env[var] = w.constant(tensor_id=constant_id(k), dtype=aval.dtype,
                                  shape=aval.shape)
    # A size the server binds is an input's whole dim: one only written
    # inside an expression ((2*a, b)) has no value when the graph runs.
    for k, (var, kind) in enumerate(zip(jaxpr.invars, kinds)):
        for axis, size in enumerate(var.aval.shape if kind == "user" else ()):
            unbound = sorted(set(size.get_vars()) - set(w.symbols)) \
                if is_symbolic(size) else []
            if unbound:
                raise TranslationError(
                    f"input {k} dim {axis} is {size}, and no input dim is "
                    f"{unbound[0]} itself: give each input dim a symbol "
                    f"of its own (jax.export.symbolic_shape)")
    for var, value in zip(jaxpr.constvars, closed.consts):
        env[var] = w.constant(np.asarray(value))
    outputs = _walk(w, jaxpr, env, RULES)
    w.graph.outputs.extend(dict.fromkeys(v.name for v in outputs))
    return w.graph, [v.name for v in outputs]


def _walk(w, jaxpr, env, rules):
    def read(atom):
        if hasattr(atom, "val"):  # a Literal
            # Of its aval's dtype: a Python float literal (clip's bounds,
            # a weak-typed 0.5) is f32 there, f64 to numpy.
            value = np.asarray(atom.val, dtype=atom.aval.dtype)
            return w.constant(value) if value.ndim else w.constant(
                splat=value.item(), dtype=value.dtype)
        return env[atom]

    for eqn in jaxpr.eqns:
        w.eqn = eqn
        name = eqn.primitive.name
        operands = [read(v) for v in eqn.invars]
        if name in ("pjit", "jit", "closed_call", "core_call",
                    "custom_jvp_call", "custom_vjp_call",
                    "custom_vjp_call_jaxpr", "remat", "checkpoint"):
            inner = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr") \
                or eqn.params.get("fun_jaxpr")
            inner_env = {}
            inner_jaxpr = getattr(inner, "jaxpr", inner)
            for var, const in zip(inner_jaxpr.constvars,
                                  getattr(inner, "consts", [])):
                inner_env[var] = w.constant(np.asarray(const))
            for var, value in zip(inner_jaxpr.invars, operands):
                inner_env[var] = value
            results = _walk(w, inner_jaxpr, inner_env, rules)
            w.eqn = eqn
        elif name in rules:
            results = rules[name](w, eqn, *operands)
            if not eqn.primitive.multiple_results:
                results = [results]
        else:
            raise w.error(f"has no anyshape translation (in {eqn})")
        while _requirements():
            w.require_not_negative(_requirements().pop(0))
        for var, value in zip(eqn.outvars, results):
            env[var] = value
    return [read(v) for v in jaxpr.outvars]
