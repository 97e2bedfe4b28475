"""What mixture-of-experts layers run beside routing (sorting.py's topk):
torch.histc, which counts the rows each expert got, and the grouped
matrix product over rows sorted by expert (aten._grouped_mm, and
transformers' grouped_mm_fallback, which its MoE layers call under
torch.compile for f32 weights)."""
import torch

from anyshape.torch import dims as wdims
from anyshape.torch.ops import compare, elements, iota, out, rule
from anyshape.torch.ops.compute import _reduce
from anyshape.v1 import graph_pb2

aten = torch.ops.aten


def _arith(t, op, a, b):
    return t.emit(op, [a, b], a.dtype, a.shape)


def _bin_thresholds(lo, hi, bins, dtype):
    """For each bin k in 1..bins-1, the least n with n / (hi - lo) >= k,
    rounded as `dtype` rounds: PyTorch's bin of x is then the number of
    thresholds n = (x - lo) * bins reaches, whatever the division's
    rounding here (the CPU backend may divide by a reciprocal)."""
    dt = {torch.float16: torch.float16, torch.bfloat16: torch.bfloat16}.get(
        dtype, torch.float32)
    edges = torch.tensor([lo, hi], dtype=dt)
    span = edges[1] - edges[0]
    thresholds = []
    for k in range(1, bins):
        n = torch.tensor(k, dtype=dt) * span
        below = torch.tensor(-float("inf"), dtype=dt)
        while n / span >= k:
            n = torch.nextafter(n, below)
        while n / span < k:
            n = torch.nextafter(n, -below)
        thresholds.append(n.item())
    return torch.tensor(thresholds, dtype=dt)


@rule(aten.histc.default)
def _histc(t, node, a, bins=100, min=0, max=0):
    """Counts of a's elements in `bins` equal bins over [min, max], max in
    the last bin, elements outside and NaN not counted. PyTorch puts x in
    bin trunc((x - min) * bins / (max - min)) computed in x's dtype (no
    search among the edges): matched exactly, the division's rounding
    included, by comparing (x - min) * bins with constant thresholds."""
    dtype = out(node).dtype
    bins, lo, hi = wdims.static(bins), float(min), float(max)
    if bins is None or bins < 1:
        raise t.error("needs a constant number of bins, at least 1")
    if lo > hi:
        raise t.error(f"max ({hi}) is below min ({lo})")
    if lo == hi:
        raise t.error("with min == max the range is the data's own; pass "
                      "the range (as mixture-of-experts layers do)")
    x = t.reshape(t.convert(a, dtype), [elements(a)])
    n = x.shape[0]

    def splat(value, shape=(n,)):
        return t.broadcast(t.scalar(value, dtype), shape)
    low = t.scalar(torch.tensor(lo, dtype=dtype).item(), dtype)
    high = t.scalar(torch.tensor(hi, dtype=dtype).item(), dtype)
    inside = t.emit("and", [
        compare(t, x, t.broadcast(low, (n,)), graph_pb2.COMPARE_GE),
        compare(t, x, t.broadcast(high, (n,)), graph_pb2.COMPARE_LE)],
        torch.bool, (n,))
    grid = (n, wdims.as_expr(bins))
    position = iota(t, torch.int64, grid, 1)
    if bins == 1:  # one bin: every element inside is in it
        which = t.broadcast(t.scalar(0, torch.int64), grid)
    else:
        scaled = _arith(t, "mul", _arith(t, "sub", x, t.broadcast(low, (n,))),
                        splat(bins))
        steps = (n, wdims.as_expr(bins - 1))
        reached = compare(
            t, t.broadcast(t.reshape(scaled, (n, 1)), steps),
            t.broadcast(t.convert(t.constant(_bin_thresholds(lo, hi, bins,
                                                             dtype)), dtype),
                        steps),
            graph_pb2.COMPARE_GE)
        bin_of = _reduce(t, t.convert(reached, torch.int64), [1],
                         graph_pb2.REDUCE_SUM)
        which = t.broadcast(t.reshape(bin_of, (n, 1)), grid)
    hit = t.emit("and", [
        compare(t, which, position, graph_pb2.COMPARE_EQ),
        t.broadcast(t.reshape(inside, (n, 1)), grid)], torch.bool, grid)
    return _reduce(t, t.convert(hit, dtype), [0], graph_pb2.REDUCE_SUM)


def _grouped(t, node, x, weight, offsets):
    """x [S, K] rows sorted by group, weight [G, K, N], offsets [G] the
    groups' cumulative row counts: row r times weight[g] for the group g
    it falls in (offsets[g - 1] <= r < offsets[g]); rows past the last
    offset are zeros. Every row is multiplied by every group's weight and
    the one of its group kept: G times the work of the grouped product,
    but kernels only (no trip to the host for the offsets)."""
    dtype = out(node).dtype
    if x.rank != 2 or weight.rank != 3 or offsets is None or \
            offsets.rank != 1:
        raise t.error("is translated for 2-D rows, 3-D weights and 1-D "
                      "offsets (the mixture-of-experts form) only")
    rows, groups, n = x.shape[0], weight.shape[0], weight.shape[2]
    x, weight = t.convert(x, dtype), t.convert(weight, dtype)
    products = t.emit("dot_general", [x, weight], dtype, (rows, groups, n),
                      ("dot_general", graph_pb2.DotGeneralAttrs(
                          lhs_contracting_dimensions=[1],
                          rhs_contracting_dimensions=[1])))
    # The group of row r: how many offsets are <= r.
    grid = (rows, groups)
    ends = t.broadcast(t.convert(offsets, torch.int64), grid)
    passed = compare(t, ends, iota(t, torch.int64, grid, 0),
                     graph_pb2.COMPARE_LE)
    group = _reduce(t, t.convert(passed, torch.int64), [1],
                    graph_pb2.REDUCE_SUM)
    mine = compare(t, t.broadcast(t.reshape(group, (rows, 1)), grid),
                   iota(t, torch.int64, grid, 1), graph_pb2.COMPARE_EQ)
    # A select, not a product with the mask: another group's inf or NaN
    # must not reach the row.
    kept = t.emit("select", [
        t.broadcast(t.reshape(mine, (rows, groups, 1)), products.shape),
        products,
        t.broadcast(t.scalar(0, dtype), products.shape)],
        dtype, products.shape)
    return _reduce(t, kept, [1], graph_pb2.REDUCE_SUM)


if hasattr(aten, "_grouped_mm"):
    @rule(aten._grouped_mm.default)
    def _grouped_mm(t, node, x, weight, offs=None, bias=None,
                    out_dtype=None):
        if bias is not None:
            raise t.error("with a bias is not translated")
        return _grouped(t, node, x, weight, offs)


# transformers' custom op exists once transformers' MoE integration is
# imported: looked up by name (translate.py).
@rule("transformers.grouped_mm_fallback.default")
def _grouped_mm_fallback(t, node, x, weight, offs):
    return _grouped(t, node, x, weight, offs)
