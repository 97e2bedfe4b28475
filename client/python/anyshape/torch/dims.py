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
import fractions

import sympy
from torch.utils._sympy import functions as symfn

from anyshape import polynomial as poly


class TranslationError(Exception):
    """What the translator cannot express: the op or size at fault, and
    where the model's source made it."""


class SymbolNames:
    """PyTorch's symbols to the wire's canonical names, and each symbol's
    first (input name, axis), from which its value is read at run time."""

    def __init__(self):
        self._names = {}
        self.origin = {}
        # Sizes (polynomials) a translation took to be at least 0, each
        # checked when the graph runs (Translator.require_not_negative).
        self.requirements = []

    def bind(self, symbol, input_name, axis):
        """A plain symbol met as `input_name`'s dim `axis`."""
        if symbol not in self._names:
            self._names[symbol] = f"d{len(self._names)}"
            self.origin[symbol] = (input_name, axis)

    def count(self, symbol, name):
        """`symbol`, a size only a run gives (a nonzero's count: PyTorch's
        unbacked u0, u1, ...), as the wire's count symbol `name`. Several
        of PyTorch's symbols may be one count (two reads of one mask)."""
        self._names.setdefault(symbol, name)

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


# sympy's Max and Min, and torch's own (torch.utils._sympy.functions),
# which are not their subclasses: Dynamo writes max(0, n - k) with these.
_MAXIMA = (sympy.Max,) + ((symfn.Max,) if hasattr(symfn, "Max") else ())
_EXTREMA = _MAXIMA + (sympy.Min,) + \
    ((symfn.Min,) if hasattr(symfn, "Min") else ())


def _poly(expr, names):
    """A sympy size as a polynomial (anyshape.polynomial)."""
    if expr.is_Integer:
        return poly.constant(int(expr))
    if expr.is_Symbol:
        return poly.symbol(names.name(expr))
    if isinstance(expr, sympy.Add):
        total = {}
        for arg in expr.args:
            poly.add_into(total, _poly(arg, names))
        return total
    if isinstance(expr, sympy.Mul):
        product = poly.constant(1)
        for arg in expr.args:
            product = poly.multiply(product, _poly(arg, names))
        return product
    if isinstance(expr, (sympy.Pow, symfn.PowByNatural)) and \
            expr.args[1].is_Integer and int(expr.args[1]) >= 1:
        base = _poly(expr.args[0], names)
        product = poly.constant(1)
        for _ in range(int(expr.args[1])):
            product = poly.multiply(product, base)
        return product
    if isinstance(expr, (symfn.FloorDiv, symfn.CleanDiv)):
        dividend = _poly(sympy.expand(expr.args[0]), names)
        if not expr.args[1].is_Integer:
            ratio = _exact_ratio(dividend,
                                 _poly(sympy.expand(expr.args[1]), names))
            if ratio is not None:
                return ratio
        return poly.quotient(dividend, _divisor(expr.args[0], expr.args[1]))
    if isinstance(expr, (symfn.Mod, symfn.PythonMod)):
        if not expr.args[1].is_Integer:
            return _remainder_by_a_size(expr, names)
        return poly.remainder(_poly(sympy.expand(expr.args[0]), names),
                              _divisor(expr.args[0], expr.args[1]))
    if isinstance(expr, symfn.ModularIndexing):
        base, divisor, modulus = expr.args
        return _poly(symfn.Mod(symfn.FloorDiv(base, divisor), modulus),
                     names)
    if isinstance(expr, symfn.CeilDiv):
        dividend, divisor = expr.args
        return poly.quotient(
            _poly(sympy.expand(dividend + divisor - 1), names),
            _divisor(dividend, divisor))
    if isinstance(expr, _EXTREMA) and len(expr.args) >= 2:
        # sym_max / sym_min (a sliding window's length; MPT's
        # max(0, n - key_length); TF-style "same" padding), folded
        # pairwise.
        result = _poly(expr.args[0], names)
        for arg in expr.args[1:]:
            result = poly.extremum(result, _poly(arg, names),
                                   isinstance(expr, _MAXIMA))
        return result
    rounded = _rounded(expr, names)
    if rounded is not None:
        return rounded
    scaled = truncated_scale(expr)
    if scaled is not None:
        numerator, size, denominator = scaled
        product = poly.multiply(poly.constant(numerator), _poly(size, names))
        return product if denominator == 1 else \
            poly.quotient(product, denominator)
    if isinstance(expr, (symfn.TruncToInt, symfn.FloorToInt)):
        raise TranslationError(
            f"the size {expr} has no wire form: a float is rounded to a "
            "size only where it is exact (a size times p / 2^k: 0.5, 1.5, "
            "2, ..., but 0.7 is not; a size over a constant; the root of a "
            "square); an interpolation can pass size=")
    raise TranslationError(f"the size {expr} has no wire form (the wire "
                           "takes +, *, floor division and modulo by a "
                           "constant, max and min)")


_ROUNDINGS = (symfn.TruncToInt, symfn.FloorToInt, symfn.CeilToInt)


def _rounded(expr, names):
    """A size rounded from a float that is exact: math.ceil(n / c),
    math.floor(n / c) and int(n / c) for a size n and a constant c (the
    quotient of two ints is correctly rounded, so its rounding is the
    exact one for any n below 2^53: MobileViT's patch grid), and
    int(n ** 0.5) or int(math.sqrt(n)) where n is p**2 for a size p (a
    square's sqrt is exact: DPT's and ViT's grid side from a patch count
    written that way). None for any other form."""
    if not isinstance(expr, _ROUNDINGS):
        return None
    inner = expr.args[0]
    if isinstance(inner, symfn.IntTrueDiv) and inner.args[1].is_Integer \
            and int(inner.args[1]) >= 1:
        dividend, divisor = inner.args[0], int(inner.args[1])
        if isinstance(expr, symfn.CeilToInt):
            dividend = dividend + divisor - 1
        return poly.quotient(_poly(sympy.expand(dividend), names), divisor)
    root = None
    if isinstance(inner, symfn.FloatPow) and inner.args[1] == 0.5:
        root = inner.args[0]
    elif isinstance(inner, symfn.OpaqueUnaryFn_sqrt):
        root = inner.args[0]
    if not isinstance(root, symfn.ToFloat):
        return None
    square = root.args[0]
    if isinstance(square, (sympy.Pow, symfn.PowByNatural)) and \
            square.args[1] == 2:
        side = _poly(sympy.expand(square.args[0]), names)
        # Only a side that is a size (no negative term) is the root.
        if all(coefficient > 0 for coefficient in side.values()):
            return side
    return None


def truncated_scale(expr):
    """trunc(c * float(n)) (or floor) for a size n and a constant c >= 0
    that is p / 2^k exactly (interpolation's scale_factor 2, 0.5, 1.5,
    ...) as (p, n, 2^k): it is (p * n) floordiv 2^k, which is what the
    float product gives for every n below 2^53 / p (p < 2^13 keeps that
    for any size the wire holds). None for any other form: c = 0.7 is not
    exactly 7/10, its float product rounds, and no quotient follows it."""
    if not isinstance(expr, (symfn.TruncToInt, symfn.FloorToInt)):
        return None
    product = expr.args[0]
    if not isinstance(product, sympy.Mul) or len(product.args) != 2:
        return None
    factor, size = product.args
    if isinstance(size, sympy.Number):
        factor, size = size, factor
    if not isinstance(factor, sympy.Number) or \
            not isinstance(size, symfn.ToFloat):
        return None
    exact = fractions.Fraction(float(factor))
    if exact < 0 or exact.numerator >= 1 << 13:
        return None
    return exact.numerator, sympy.expand(size.args[0]), exact.denominator


def _exact_ratio(dividend, divisor):
    """The polynomial m with dividend == m * divisor, both polynomials,
    where the divisor is a size (so not 0 where the program divided by
    it): any m for a monomial divisor, a monomial m (a constant, or a
    product of symbols and quotients) otherwise. Swin's padded length L
    over L // 4 (Dynamo writes the window, 4, that way), ConvNeXt's
    (s // 4)**2 over s // 4 at a square image. None where there is none.
    """
    if not divisor or not dividend:
        return None
    (symbols, atoms), coefficient = next(iter(divisor.items()))
    if len(divisor) == 1:
        # A monomial divisor divides term by term (Swin's batch times its
        # padded width over 4, over the batch: a - (3*a) // 4 per image).
        ratio = {}
        for (top_symbols, top_atoms), top in dividend.items():
            rest_symbols, rest_atoms = _without(top_symbols, symbols), \
                _without(top_atoms, atoms)
            if rest_symbols is None or rest_atoms is None or \
                    top % coefficient:
                return None
            ratio[(rest_symbols, rest_atoms)] = top // coefficient
        return ratio if poly.multiply(divisor, ratio) == dividend else None
    for (top_symbols, top_atoms), top in dividend.items():
        rest_symbols, rest_atoms = _without(top_symbols, symbols), \
            _without(top_atoms, atoms)
        if rest_symbols is None or rest_atoms is None or top % coefficient:
            continue
        ratio = {(rest_symbols, rest_atoms): top // coefficient}
        if top // coefficient > 0 and poly.multiply(divisor, ratio) == \
                dividend:
            return ratio
    return None


def _remainder_by_a_size(expr, names):
    """a % n for a size n (torch.roll's split point as a size, (n - 3) %
    n), as polynomial.remainder_by_size writes it; its bound is required
    when the graph runs (a narrower n fails naming the node; PyTorch would
    wrap the shift around)."""
    found = poly.remainder_by_size(_poly(sympy.expand(expr.args[0]), names),
                                   _poly(sympy.expand(expr.args[1]), names))
    if found is None:
        raise TranslationError(f"the size {expr} takes a remainder by a size "
                               "(the wire's modulo is by a constant; a size "
                               "plus a constant modulo that size is taken)")
    remainder, slack = found
    names.requirements.append(slack)
    return remainder


def _without(items, taken):
    """Sorted `items` less each of `taken` once, or None if one is not
    there."""
    rest = list(items)
    for item in taken:
        if item not in rest:
            return None
        rest.remove(item)
    return tuple(rest)


def _divisor(dividend, divisor):
    if not divisor.is_Integer or int(divisor) < 1:
        raise TranslationError(f"the size {dividend} // {divisor} divides "
                               "by a non-constant or a non-positive number")
    return int(divisor)


def dim_expr(size, names):
    """A size as a wire DimExpr (slice bounds)."""
    return poly.to_dim_expr(_poly(as_expr(size), names))


def dim(size, names):
    """A size as a wire Dim: static, a symbol, or an expression."""
    return poly.to_dim(_poly(as_expr(size), names))
