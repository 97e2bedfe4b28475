"""An ATen-level FX graph (after decomposition) as one wire Graph.

The walk reads each node's FakeTensor (`meta["val"]`) for its dtype and
shape, so result shapes come from PyTorch's own shape propagation and the
op table (aten.py) only says how to compute the values. Placeholders are
of three kinds: the user's tensors become graph inputs; weights
(parameters, buffers, lifted constants) become constants that name the
tensor the server already holds by its content id, so a call sends only
the user's tensors; a SymInt placeholder is a size the server binds from
the tensors' dims, and is not sent at all.

The result, a Translation, says how to call the executable: which
arguments are sent under which name, and how each FX output is rebuilt
(a tensor of the graph's outputs, a constant, or a size).
"""
import re
import warnings

import sympy
import torch

from torch.utils._sympy import functions as symfn

from anyshape import polynomial as poly
from anyshape.torch import dims as wdims
from anyshape.torch.dims import TranslationError
from anyshape.v1 import graph_pb2

_WIRE_DTYPES = {
    torch.float32: graph_pb2.DTYPE_F32,
    torch.float64: graph_pb2.DTYPE_F32,  # the service has no f64
    torch.float16: graph_pb2.DTYPE_F16,
    torch.bfloat16: graph_pb2.DTYPE_BF16,
    torch.int32: graph_pb2.DTYPE_I32,
    torch.int64: graph_pb2.DTYPE_I64,
    torch.bool: graph_pb2.DTYPE_BOOL,
}


def wire_dtype(dtype):
    if dtype not in _WIRE_DTYPES:
        raise TranslationError(f"anyshape has no dtype for {dtype}")
    return _WIRE_DTYPES[dtype]


def source_line(node):
    """Where the model's source made `node`: the last frame of FX's
    stack_trace, as 'file:line: code'."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in \S+\n\s*(.*)',
                        trace)
    if not frames:
        return None
    path, line, code = frames[-1]
    return f"{path}:{line}: {code.strip()}"


class Value:
    """A wire value: its node (or input) name, torch dtype and shape (a
    tuple of sympy sizes)."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)

    @property
    def rank(self):
        return len(self.shape)


class Translation:
    """How to run what `translate` made. `inputs`: (argument index, wire
    input name) of the user's tensors; `sizes`: (argument index, wire
    input name) of the sizes no tensor carries, each sent as an empty
    [size, 0] tensor; `outputs`: per FX output, ("tensor", graph output
    name, dtype), ("value", a constant) or ("size", a sympy expression
    over the symbols of `symbol_origin`: (argument, axis), axis None
    where the argument is the size itself)."""

    def __init__(self, graph, inputs, outputs, symbol_origin, sizes=()):
        self.graph = graph
        self.inputs = inputs
        self.outputs = outputs
        self.symbol_origin = symbol_origin
        self.sizes = list(sizes)


class Translator:
    """Writes wire nodes; the op table (aten.py) calls its helpers."""

    def __init__(self, name):
        self.graph = graph_pb2.Graph(name=name)
        self.names = wdims.SymbolNames()
        self.node = None  # the FX node being translated, for errors
        self._taken = set()
        self.inputs = {}  # wire input name -> Value
        # Wire values that are transposes, so a matmul can contract the
        # transposed operand directly: name -> (source Value, permutation).
        self.transposes = {}
        # Reshape results: name -> the value reshaped, so that a bmm over
        # heads merged into its batch runs over them unmerged.
        self.reshapes = {}
        # Each mask's nonzero, once: name -> (coordinates [rank, count],
        # the count's symbol), so that every read of one mask (x[mask],
        # then out[mask] = y) shares its count and shapes agree.
        self._nonzeros = {}

    # ---- naming and errors -------------------------------------------

    def fresh(self, hint):
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "v"
        name, k = base, 1
        while name in self._taken:
            name, k = f"{base}_{k}", k + 1
        self._taken.add(name)
        return name

    def error(self, message):
        where = ""
        if self.node is not None:
            where = f"{self.node.target} (node '{self.node.name}'"
            line = source_line(self.node)
            where += f", {line})" if line else ")"
            where += ": "
        error = TranslationError(where + message)
        error.located = True
        return error

    def what(self):
        """A check's name in its run-time error."""
        if self.node is None:
            return "a tensor"
        line = source_line(self.node)
        return f"{self.node.target} '{self.node.name}'" + \
            (f" at {line}" if line else "")

    # ---- emission ----------------------------------------------------

    def emit(self, op, operands, dtype, shape, attrs=None, hint=None):
        name = self.fresh(hint or (self.node.name if self.node else op))
        node = self.graph.nodes.add(name=name, op=op,
                                    operands=[v.name for v in operands])
        if attrs is not None:
            field, message = attrs
            getattr(node, field).CopyFrom(message)
        return Value(name, dtype, shape)

    def dim(self, size):
        return wdims.dim(size, self.names)

    def dims(self, shape):
        return [self.dim(s) for s in shape]

    def input(self, name, dtype, shape):
        """A graph input named `name` (already fresh)."""
        self.graph.inputs.add(name=name, type=graph_pb2.TensorType(
            dtype=wire_dtype(dtype), dims=self.dims(shape)))
        self.inputs[name] = Value(name, dtype, shape)
        return self.inputs[name]

    def constant(self, tensor=None, *, splat=None, dtype=None, tensor_id=None,
                 shape=()):
        """A scalar splat, a small tensor's bytes, or a stored tensor."""
        attrs = graph_pb2.ConstantAttrs(
            dtype=wire_dtype(dtype if tensor is None else tensor.dtype),
            shape=list(shape if tensor is None else tensor.shape))
        if splat is not None:
            attrs.splat = float(splat)
        elif tensor_id is not None:
            attrs.tensor_id = tensor_id
        else:
            attrs.data = tensor_bytes(tensor)
        if tensor is not None:
            dtype, shape = tensor.dtype, tuple(tensor.shape)
        return self.emit("constant", [], dtype,
                         [wdims.as_expr(s) for s in shape],
                         ("constant", attrs), hint="c")

    def scalar(self, value, dtype):
        """A Python number or SymInt as a rank-0 wire value."""
        if isinstance(value, torch.SymInt) or isinstance(value,
                                                          sympy.Basic):
            expr = wdims.as_expr(value)
            if expr.free_symbols:
                return self.convert(self.size_value(expr), dtype)
            value = int(expr)
        if isinstance(value, torch.SymFloat):
            expr = value.node.expr
            if expr.free_symbols:
                return self.convert(self.float_value(expr), dtype)
            value = float(expr)
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, (int, float)):
            raise self.error(f"a scalar of type {type(value).__name__}")
        return self.constant(splat=value, dtype=dtype)

    def float_value(self, expr):
        """A SymFloat's expression over sizes (an interpolation's scale,
        ToFloat(in) / ToFloat(out)) as an f32 scalar computed at run time
        from the sizes it reads."""
        f32 = torch.float32
        if expr.is_Number:
            return self.constant(splat=float(expr), dtype=f32)
        if isinstance(expr, symfn.ToFloat):
            return self.convert(self.size_value(expr.args[0]), f32)
        if isinstance(expr, (symfn.FloatTrueDiv, symfn.IntTrueDiv)):
            return self.emit("div", [self.float_value(expr.args[0]),
                                     self.float_value(expr.args[1])], f32, ())
        if isinstance(expr, (sympy.Add, sympy.Mul)):
            op = "add" if isinstance(expr, sympy.Add) else "mul"
            parts = [self.float_value(a) for a in expr.args]
            result = parts[0]
            for part in parts[1:]:
                result = self.emit(op, [result, part], f32, ())
            return result
        if isinstance(expr, sympy.Pow) and expr.args[1] == -1:
            return self.emit("div", [self.constant(splat=1.0, dtype=f32),
                                     self.float_value(expr.args[0])], f32, ())
        if expr.is_integer:
            return self.convert(self.size_value(expr), f32)
        raise self.error(f"the scalar {expr} as a value")

    def size_value(self, size):
        """A symbolic size as an i64 scalar computed at run time from the
        dims of the inputs that bind its symbols."""
        expr = wdims.as_expr(size)
        if expr.is_Integer:
            return self.constant(splat=int(expr), dtype=torch.int64)
        if expr.is_Symbol:
            name, axis = self.names.origin.get(expr, (None, None))
            if name is None:
                raise self.error(f"the size {expr} is no input's dim")
            source = self.inputs[name]
            return self.emit("dim_size", [source], torch.int64, (),
                             ("dim_size", graph_pb2.DimSizeAttrs(
                                 dimension=axis)))
        if isinstance(expr, (sympy.Add, sympy.Mul)):
            op = "add" if isinstance(expr, sympy.Add) else "mul"
            parts = [self.size_value(a) for a in expr.args]
            result = parts[0]
            for part in parts[1:]:
                result = self.emit(op, [result, part], torch.int64, ())
            return result
        if isinstance(expr, (sympy.Pow, symfn.PowByNatural)) and \
                expr.args[1].is_Integer and int(expr.args[1]) >= 1:
            base = self.size_value(expr.args[0])
            result = base
            for _ in range(int(expr.args[1]) - 1):
                result = self.emit("mul", [result, base], torch.int64, ())
            return result
        if isinstance(expr, symfn.FloorDiv):  # sizes: both non-negative
            return self.emit("div", [self.size_value(expr.args[0]),
                                     self.size_value(expr.args[1])],
                             torch.int64, ())
        if isinstance(expr, (symfn.Mod, symfn.PythonMod)):
            # Python's remainder, the divisor's sign, for a dividend of any
            # sign (torch.roll's (n - 3) % n): the wire's div truncates.
            i64 = torch.int64
            a, n = self.size_value(expr.args[0]), self.size_value(expr.args[1])
            r = self.emit("sub", [a, self.emit("mul", [n, self.emit(
                "div", [a, n], i64, ())], i64, ())], i64, ())
            negative = self.emit("compare", [r, self.scalar(0, i64)],
                                 torch.bool, (), ("compare",
                                                  graph_pb2.CompareAttrs(
                                                      direction=graph_pb2.
                                                      COMPARE_LT)))
            return self.emit("select", [negative, self.emit(
                "add", [r, n], i64, ()), r], i64, ())
        scaled = wdims.truncated_scale(expr)
        if scaled is not None:  # (p * n) floordiv q, all non-negative
            numerator, size, denominator = scaled
            return self.size_value(
                symfn.FloorDiv(numerator * size, denominator))
        raise self.error(f"the size {expr} as a value")

    def nonzero(self, mask, symbol):
        """`mask`'s nonzero coordinates, i64 [rank, count], emitted once
        per mask; `symbol` is PyTorch's size of the count where this read
        of it is met, named as the count (it is the first read's symbol
        when the mask was read before)."""
        symbol = wdims.as_expr(symbol)
        if mask.name in self._nonzeros:
            coordinates, count = self._nonzeros[mask.name]
            self.names.count(symbol, self.names.name(count))
            return coordinates, count
        if not symbol.is_Symbol:
            raise self.error(f"a nonzero whose count is {symbol}")
        name = f"count{len(self._nonzeros)}"
        self.names.count(symbol, name)
        coordinates = self.emit(
            "nonzero", [mask], torch.int64, (mask.rank, symbol),
            ("nonzero", graph_pb2.NonZeroAttrs(count_symbol=name)))
        self._nonzeros[mask.name] = (coordinates, symbol)
        return coordinates, symbol

    def count_of(self, mask):
        """The count symbol of `mask`'s nonzero, if it was emitted."""
        return self._nonzeros.get(mask.name, (None, None))[1]

    def convert(self, value, dtype):
        if wire_dtype(value.dtype) == wire_dtype(dtype):
            return Value(value.name, dtype, value.shape)
        return self.emit("convert", [value], dtype, value.shape,
                         ("convert", graph_pb2.ConvertAttrs(
                             dtype=wire_dtype(dtype))))

    def require_not_negative(self, size):
        """Checks, when the graph runs, that `size` (a size or a size
        polynomial) is not negative: a broadcast to [size] that nothing
        reads, whose shape the server checks before any kernel."""
        dim = poly.to_dim(size) if isinstance(size, dict) else \
            self.dim(size)
        self.emit("broadcast_in_dim", [self.scalar(0, torch.int64)],
                  torch.int64, (None,),
                  ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                      shape=[dim], broadcast_dimensions=[])))

    def require_not_one(self, size, why):
        """Checks, when the graph runs, that the size `size` is not 1: no
        elements reshaped to [(size - 1)^2, -1], which needs the square,
        never negative, to be nonzero. `why` names the check's node (its
        run-time error names it)."""
        none = self.emit("broadcast_in_dim", [self.scalar(0, torch.int64)],
                         torch.int64, (0,),
                         ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                             shape=[self.dim(0)], broadcast_dimensions=[])))
        square = (wdims.as_expr(size) - 1) ** 2
        self.emit("reshape", [none], torch.int64, (square, None),
                  ("reshape", graph_pb2.ReshapeAttrs(
                      shape=[self.dim(square), graph_pb2.Dim(size=-1)])),
                  hint=why)

    def broadcast(self, value, shape):
        """numpy broadcasting of `value` to `shape` (ranks aligned right)."""
        shape = tuple(wdims.as_expr(s) for s in shape)
        if value.shape == shape:
            return value
        offset = len(shape) - value.rank
        if offset < 0:
            raise self.error(f"cannot broadcast rank {value.rank} to "
                             f"{len(shape)}")
        return self.emit("broadcast_in_dim", [value], value.dtype, shape,
                         ("broadcast_in_dim", graph_pb2.BroadcastInDimAttrs(
                             shape=self.dims(shape),
                             broadcast_dimensions=range(offset,
                                                        len(shape)))))

    def reshape(self, value, shape):
        shape = tuple(wdims.as_expr(s) for s in shape)
        if value.shape == shape:
            return value
        result = self.emit("reshape", [value], value.dtype, shape,
                           ("reshape", graph_pb2.ReshapeAttrs(
                               shape=self.dims(shape))))
        self.reshapes[result.name] = value
        return result

    def transpose(self, value, permutation):
        permutation = list(permutation)
        if permutation == list(range(value.rank)):
            return value
        result = self.emit("transpose", [value], value.dtype,
                           [value.shape[p] for p in permutation],
                           ("transpose", graph_pb2.TransposeAttrs(
                               permutation=permutation)))
        self.transposes[result.name] = (value, permutation)
        return result


def tensor_bytes(tensor):
    """A CPU tensor's little-endian row-major bytes as the wire has them
    (f64 narrowed to f32, bf16 as its bits)."""
    tensor = tensor.detach().to("cpu").contiguous()
    if tensor.dtype == torch.float64:
        tensor = tensor.to(torch.float32)
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def _is_size(val):
    return isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool,
                            int, float)) and not isinstance(val, bool)


def translate(gm, kinds, weight_id, name="torch"):
    """`gm`'s graph as wire. `kinds[i]` is "user" or "weight" for the i-th
    placeholder ("size" for a SymInt one); `weight_id(i)` uploads weight
    placeholder i and returns its content id."""
    from anyshape.torch.ops import OPS

    t = Translator(name)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(kinds) != len(placeholders):
        raise TranslationError(f"{len(placeholders)} placeholders but "
                               f"{len(kinds)} arguments")
    # Symbols are named by first use in the user's tensors, in order.
    inputs, symbol_origin, env = [], {}, {}
    for index, node in enumerate(placeholders):
        val = node.meta.get("val")
        if kinds[index] != "user":
            continue
        if not isinstance(val, torch.Tensor):
            raise TranslationError(f"input '{node.name}' is not a tensor")
        # The placeholder's name (torch.export's is the argument's), so
        # that a server error about an input names it.
        wire = t.fresh(node.name)
        for axis, size in enumerate(val.shape):
            expr = wdims.as_expr(size)
            if expr.is_Symbol:
                t.names.bind(expr, wire, axis)
                symbol_origin.setdefault(expr, (index, axis))
        env[node] = t.input(wire, val.dtype, val.shape)
        inputs.append((index, wire))
    # A size no tensor carries (a Python int Dynamo made dynamic: a
    # closure's k in topk(x, k)) is sent as the first dim of an empty
    # [k, 0] tensor, so that the server binds it as it binds any dim.
    sizes = []
    for index, node in enumerate(placeholders):
        val = node.meta.get("val")
        if kinds[index] != "size" or not isinstance(val, torch.SymInt):
            continue
        expr = wdims.as_expr(val)
        if not expr.is_Symbol or expr in symbol_origin:
            continue
        wire = t.fresh(node.name)
        t.names.bind(expr, wire, 0)
        t.input(wire, torch.bool, (expr, 0))
        symbol_origin[expr] = (index, None)
        sizes.append((index, wire))
    for index, node in enumerate(placeholders):
        t.node = node
        val = node.meta.get("val")
        if kinds[index] == "weight":
            env[node] = t.constant(tensor_id=weight_id(index),
                                   dtype=val.dtype, shape=val.shape)
        elif kinds[index] == "size":
            env[node] = val
    outputs = []
    for node in gm.graph.nodes:
        t.node = node
        if node.op == "get_attr":
            tensor = gm
            for part in node.target.split("."):
                tensor = getattr(tensor, part)
            env[node] = t.constant(tensor)
        elif node.op == "call_function":
            val = node.meta.get("val")
            args, kwargs = torch.fx.node.map_arg(
                (node.args, node.kwargs), lambda n: env[n])
            if node.target is __import__("operator").getitem:
                env[node] = args[0][args[1]]
            elif _is_size(val):
                env[node] = val  # size arithmetic: read from the meta
            else:
                # By overload, or by name for a library's custom op.
                translation = OPS.get(node.target) or OPS.get(
                    str(node.target))
                if translation is None:
                    raise t.error("has no anyshape translation")
                try:
                    env[node] = translation(t, node, *args, **kwargs)
                except TranslationError as error:
                    # A size with no wire form is met deep in a
                    # translation: it names the node and line too.
                    if getattr(error, "located", False):
                        raise
                    raise t.error(str(error)) from None
                # What the sizes it wrote took for granted, checked as
                # this node's.
                while t.names.requirements:
                    t.require_not_negative(t.names.requirements.pop(0))
        elif node.op == "output":
            results = node.args[0]
            if not isinstance(results, (tuple, list)):
                results = (results,)
            for result in results:
                value = env[result] if isinstance(result,
                                                  torch.fx.Node) else result
                if isinstance(value, Value):
                    if value.name not in t.graph.outputs:
                        t.graph.outputs.append(value.name)
                    outputs.append(("tensor", value.name,
                                    result.meta["val"].dtype))
                elif isinstance(value, torch.SymInt):
                    outputs.append(("size", wdims.as_expr(value)))
                else:
                    outputs.append(("value", value))
        elif node.op not in ("placeholder",):
            raise t.error(f"an FX '{node.op}' node")
    if not t.graph.outputs:
        raise TranslationError("the graph computes no tensor")
    narrowed = [n.name for n in gm.graph.nodes
                if isinstance(n.meta.get("val"), torch.Tensor) and
                n.meta["val"].dtype == torch.float64]
    if narrowed:
        # Not silent: the results keep float64's dtype, not its precision.
        warnings.warn(f"anyshape: {name} computes float64 in float32 (the "
                      f"service has no f64), from '{narrowed[0]}' on",
                      stacklevel=2)
    return Translation(t.graph, inputs, outputs, symbol_origin, sizes)
