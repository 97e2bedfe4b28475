"""Size polynomials as both framework translators build them, and their
wire form (DimExpr, docs/ops.md section 1).

A polynomial is {(sorted symbol names, sorted atom keys): coefficient};
a quotient's key is its DimExpr.FloorDiv serialised, a max's or a min's
its DimExpr.Extremum after a marker byte, from which each is rebuilt.
Zero coefficients are never stored.
"""
from anyshape.v1 import graph_pb2


def constant(value):
    return {((), ()): int(value)} if int(value) else {}


def symbol(name):
    return {((name,), ()): 1}


def quotient(dividend, divisor):
    """floor(dividend / divisor) for a polynomial dividend, divisor >= 1;
    exact (a polynomial, no floor) where the divisor divides every
    coefficient: 4*q1 - 4*q2 + 4 over 4 (a length padded to a multiple of
    4) is q1 - q2 + 1, whatever the atoms' values."""
    if all(c % int(divisor) == 0 for c in dividend.values()):
        return {key: c // int(divisor) for key, c in dividend.items()}
    message = graph_pb2.DimExpr.FloorDiv(dividend=to_dim_expr(dividend),
                                         divisor=int(divisor))
    return {((), (message.SerializeToString(deterministic=True),)): 1}


# An extremum's key: this byte (which no serialised FloorDiv starts with),
# then its DimExpr.Extremum serialised.
_EXTREMUM = b"\xff"


def extremum(a, b, larger):
    """max(a, b) (min where not larger) of two polynomials; the server
    keeps the operand that is larger for every size, or an atom where
    neither is (and refuses one that may be negative)."""
    if a == b:
        return dict(a)
    message = graph_pb2.DimExpr.Extremum(larger=bool(larger),
                                         a=to_dim_expr(a), b=to_dim_expr(b))
    return {((), (_EXTREMUM + message.SerializeToString(deterministic=True),)):
            1}


def remainder(dividend, divisor):
    """dividend mod divisor, written through the quotient as the wire has
    it: dividend - divisor * (dividend floordiv divisor)."""
    result = dict(dividend)
    add_into(result, scale(quotient(dividend, divisor), -int(divisor)))
    return result


def scale(poly, factor):
    return {key: coefficient * factor for key, coefficient in poly.items()}


def add_into(total, poly):
    for key, coefficient in poly.items():
        total[key] = total.get(key, 0) + coefficient
        if not total[key]:
            del total[key]


def multiply(a, b):
    product = {}
    for (sa, qa), ca in a.items():
        for (sb, qb), cb in b.items():
            add_into(product, {(tuple(sorted(sa + sb)),
                                tuple(sorted(qa + qb))): ca * cb})
    return product


def to_dim_expr(poly):
    message = graph_pb2.DimExpr()
    for (symbols, keys), coefficient in sorted(poly.items()):
        if not symbols and not keys:
            message.constant = coefficient
            continue
        term = message.terms.add(coefficient=coefficient, symbols=symbols)
        for key in keys:
            if key.startswith(_EXTREMUM):
                term.extrema.add().CopyFrom(
                    graph_pb2.DimExpr.Extremum.FromString(key[1:]))
            else:
                term.quotients.add().CopyFrom(
                    graph_pb2.DimExpr.FloorDiv.FromString(key))
    return message


def to_dim(poly):
    """A static size, a plain symbol, or an expression."""
    if not poly:
        return graph_pb2.Dim(size=0)
    if len(poly) == 1:
        (symbols, keys), coefficient = next(iter(poly.items()))
        if not symbols and not keys:
            return graph_pb2.Dim(size=coefficient)
        if len(symbols) == 1 and not keys and coefficient == 1:
            return graph_pb2.Dim(symbol=symbols[0])
    return graph_pb2.Dim(expr=to_dim_expr(poly))
