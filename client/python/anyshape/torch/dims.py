"""PyTorch's symbolic sizes (SymInt, sympy expressions over s0, s1, ...)
as the wire's dims (docs/ops.md section 1).

A size is a polynomial over symbols and floor quotients, which is what
the wire's DimExpr holds; modulo is written through the quotient, as the
wire has it. Symbols get canonical names, "d0", "d1", ..., in the order
the graph's inputs first use them, so that the same model traced twice
(Dynamo numbers its symbols per process) gives the same wire graph and so
the same compile cache key. An expression with no wire form (Max, a true
division, a shift) is a TranslationError naming it.
"""
import sympy
from torch.utils._sympy import functions as symfn

from anyshape.v1 import graph_pb2


class TranslationError(Exception):
    """What the translator cannot express: the op or size at fault, and
    where the model's source made it."""


class SymbolNames:
    """PyTorch's symbols to the wire's canonical names, and each symbol's
    first (input name, axis), from which its value is read at run time."""

    def __init__(self):
        self._names = {}
        self.origin = {}

    def bind(self, symbol, input_name, axis):
        """A plain symbol met as `input_name`'s dim `axis`."""
        if symbol not in self._names:
            self._names[symbol] = f"d{len(self._names)}"
            self.origin[symbol] = (input_name, axis)

    def name(self, symbol):
        if symbol not in self._names:
            raise TranslationError(
                f"size symbol {symbol} is no dim of any tensor input "
                "(a size passed as a Python int, or data-dependent)")
        return self._names[symbol]


def as_expr(size):
    """A torch size (int, SymInt or sympy expression) as sympy."""
    if isinstance(size, int):
        return sympy.Integer(size)
    node = getattr(size, "node", None)
    if node is not None:
        return sympy.expand(node.expr)
    return sympy.expand(sympy.sympify(size))


def static(size):
    """The int value of a size, or None if it is symbolic."""
    expr = as_expr(size)
    return int(expr) if expr.is_Integer else None


# A polynomial: {(sorted symbol names, quotient keys): coefficient}; a
# quotient's key is its FloorDiv serialised, from which it is rebuilt.
def _poly(expr, names):
    if expr.is_Integer:
        return {((), ()): int(expr)} if int(expr) else {}
    if expr.is_Symbol:
        return {((names.name(expr),), ()): 1}
    if isinstance(expr, sympy.Add):
        total = {}
        for arg in expr.args:
            _add_into(total, _poly(arg, names))
        return total
    if isinstance(expr, sympy.Mul):
        product = {((), ()): 1}
        for arg in expr.args:
            product = _multiply(product, _poly(arg, names))
        return product
    if isinstance(expr, (sympy.Pow, symfn.PowByNatural)) and \
            expr.args[1].is_Integer and int(expr.args[1]) >= 1:
        base = _poly(expr.args[0], names)
        product = {((), ()): 1}
        for _ in range(int(expr.args[1])):
            product = _multiply(product, base)
        return product
    if isinstance(expr, (symfn.FloorDiv, symfn.CleanDiv)):
        return _quotient(expr.args[0], expr.args[1], names)
    if isinstance(expr, (symfn.Mod, symfn.PythonMod)):
        dividend, divisor = expr.args
        whole = _poly(dividend, names)
        quotient = _quotient(dividend, divisor, names)
        _add_into(whole, {k: -int(divisor) * v for k, v in quotient.items()})
        return whole
    if isinstance(expr, symfn.ModularIndexing):
        base, divisor, modulus = expr.args
        return _poly(symfn.Mod(symfn.FloorDiv(base, divisor), modulus),
                     names)
    if isinstance(expr, symfn.CeilDiv):
        dividend, divisor = expr.args
        return _quotient(dividend + divisor - 1, divisor, names)
    raise TranslationError(f"the size {expr} has no wire form (the wire "
                           "takes +, *, floor division and modulo by a "
                           "constant)")


def _quotient(dividend, divisor, names):
    if not divisor.is_Integer or int(divisor) < 1:
        raise TranslationError(f"the size {dividend} // {divisor} divides "
                               "by a non-constant or a non-positive number")
    message = graph_pb2.DimExpr.FloorDiv(
        dividend=_to_dim_expr(_poly(sympy.expand(dividend), names)),
        divisor=int(divisor))
    return {((), (message.SerializeToString(deterministic=True),)): 1}


def _add_into(total, poly):
    for key, coefficient in poly.items():
        total[key] = total.get(key, 0) + coefficient
        if not total[key]:
            del total[key]


def _multiply(a, b):
    product = {}
    for (sa, qa), ca in a.items():
        for (sb, qb), cb in b.items():
            _add_into(product, {(tuple(sorted(sa + sb)),
                                 tuple(sorted(qa + qb))): ca * cb})
    return product


def _to_dim_expr(poly):
    message = graph_pb2.DimExpr()
    for (symbols, keys), coefficient in sorted(poly.items()):
        if not symbols and not keys:
            message.constant = coefficient
            continue
        term = message.terms.add(coefficient=coefficient)
        term.symbols.extend(symbols)
        for key in keys:
            term.quotients.add().CopyFrom(
                graph_pb2.DimExpr.FloorDiv.FromString(key))
    return message


def dim_expr(size, names):
    """A size as a wire DimExpr (slice bounds)."""
    return _to_dim_expr(_poly(as_expr(size), names))


def dim(size, names):
    """A size as a wire Dim: static, a symbol, or an expression."""
    expr = as_expr(size)
    if expr.is_Integer:
        return graph_pb2.Dim(size=int(expr))
    if expr.is_Symbol:
        return graph_pb2.Dim(symbol=names.name(expr))
    return graph_pb2.Dim(expr=dim_expr(expr, names))
