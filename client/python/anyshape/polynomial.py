"""Size polynomials as both framework translators build them, and their
wire form (DimExpr, docs/ops.md section 1).

A polynomial is {(sorted symbol names, sorted atom keys): coefficient};
a quotient's key is its DimExpr.FloorDiv serialised, a max's or a min's
its DimExpr.Extremum after a marker byte, from which each is rebuilt.
Zero coefficients are never stored.
"""
import math

from anyshape.v1 import graph_pb2


def constant(value):
    return {((), ()): int(value)} if int(value) else {}


def symbol(name):
    return {((name,), ()): 1}


def quotient(dividend, divisor):
    """floor(dividend / divisor) for a polynomial dividend, divisor >= 1,
    in the server's canonical form (SymExpr::floorDiv), so that one size
    written two ways is one polynomial: the multiples of the divisor come
    out of the floor (dividend = divisor * whole + rest, each coefficient
    of rest in [0, divisor)), a constant rest leaves none (4*q1 - 4*q2 + 4
    over 4 is q1 - q2 + 1), common factors cancel, and a quotient of a
    quotient is one. Dynamo writes a strided slice's length (h + 1) // 2
    and the view after it (h - 1) // 2 + 1: both are (h + 1) // 2 here."""
    divisor = int(divisor)
    whole, rest = {}, {}
    for key, coefficient in dividend.items():
        if coefficient // divisor:
            whole[key] = coefficient // divisor
        if coefficient % divisor:
            rest[key] = coefficient % divisor
    if all(key == _CONSTANT for key in rest):
        return whole
    common = math.gcd(divisor, *rest.values())
    if common > 1:
        rest = {key: c // common for key, c in rest.items()}
        divisor //= common
        if divisor == 1:
            add_into(whole, rest)
            return whole
    terms = [key for key in rest if key != _CONSTANT]
    if len(terms) == 1 and rest[terms[0]] == 1 and not terms[0][0] and \
            len(terms[0][1]) == 1 and not terms[0][1][0].startswith(_EXTREMUM):
        # floor((floor(x / d1) + r) / d2) = floor((x + r*d1) / (d1*d2)).
        inner = graph_pb2.DimExpr.FloorDiv.FromString(terms[0][1][0])
        shifted = from_dim_expr(inner.dividend)
        add_into(shifted, constant(rest.get(_CONSTANT, 0) * inner.divisor))
        add_into(whole, quotient(shifted, inner.divisor * divisor))
        return whole
    message = graph_pb2.DimExpr.FloorDiv(dividend=to_dim_expr(rest),
                                         divisor=divisor)
    add_into(whole, {((), (message.SerializeToString(deterministic=True),)):
                     1})
    return whole


_CONSTANT = ((), ())


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


def remainder_by_size(dividend, size):
    """dividend mod size for a polynomial size, where the dividend is the
    size or 0 times it plus a constant c (a roll's split point, (n - 3) %
    n): no quotient divides by a size, but the remainder is c where the
    size is larger (c >= 0) and the size plus c where c is negative and no
    longer than the size. Returns (remainder, slack), slack the size less
    that bound, which the caller requires to be at least 0 when the graph
    runs; None for any other dividend."""
    for times in (0, 1):
        rest = dict(dividend)
        add_into(rest, scale(size, -times))
        if set(rest) - {_CONSTANT}:
            continue
        c = rest.get(_CONSTANT, 0)
        slack = dict(size)
        add_into(slack, constant(-c - 1 if c >= 0 else c))
        if c >= 0:
            return constant(c), slack
        result = dict(size)
        add_into(result, constant(c))
        return result, slack
    return None


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


def from_dim_expr(message):
    """The polynomial of a DimExpr (to_dim_expr's inverse)."""
    poly = constant(message.constant)
    for term in message.terms:
        keys = [q.SerializeToString(deterministic=True)
                for q in term.quotients]
        keys += [_EXTREMUM + e.SerializeToString(deterministic=True)
                 for e in term.extrema]
        add_into(poly, {(tuple(sorted(term.symbols)), tuple(sorted(keys))):
                        term.coefficient})
    return poly


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
