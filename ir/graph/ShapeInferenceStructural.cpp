// Shape rules for the shape-changing ops: broadcast_in_dim, reshape,
// transpose, slice, concatenate, pad.
//
// A strided slice's extent is a floor quotient (SymExpr::floorDiv). Where a
// rule needs a runtime fact that no expression can say (a reshape's -1
// that does not divide as polynomials, an interior pad of a dim that may
// be 0), the result dim is a fresh symbol; in concrete mode every such
// case is a plain number instead.
#include "ShapeInference.h"

#include <algorithm>

namespace anyshape::detail {
namespace {
std::string str(int64_t v) { return std::to_string(v); }
} // namespace

StatusOr<SymTensorType>
inferBroadcastInDim(const v1::BroadcastInDimAttrs &attrs,
                    const SymTensorType &x, ShapeContext &ctx) {
  const auto &mapping = attrs.broadcast_dimensions();
  if (mapping.size() != x.rank())
    return invalidArgument("broadcast_dimensions has " + str(mapping.size()) +
                           " entries for an operand of rank " + str(x.rank()));
  int64_t rank = attrs.shape_size();
  ANYSHAPE_RETURN_IF_ERROR(
      checkAxes(mapping, rank, "broadcast_dimensions entry"));
  std::vector<int64_t> sourceOf(rank, -1);
  for (int64_t i = 0; i < x.rank(); ++i)
    sourceOf[mapping[i]] = i;

  SymTensorType result{x.dtype, {}};
  result.dims.reserve(static_cast<size_t>(rank));
  for (int64_t r = 0; r < rank; ++r) {
    const v1::Dim &dim = attrs.shape(r);
    int64_t src = sourceOf[r];
    if (dim.kind_case() == v1::Dim::kDynamic) {
      // An anonymous result dim is only meaningful as "the operand's dim".
      if (src < 0)
        return invalidArgument("result dim " + str(r) +
                               " is anonymous but no operand dim maps to it");
      result.dims.push_back(x.dims[src]);
      continue;
    }
    ANYSHAPE_ASSIGN_OR_RETURN(auto target, ctx.read(dim));
    if (src >= 0 && x.dims[src] != SymExpr::constant(1)) {
      // The result dim is the target unless the operand's is static: an
      // operand symbol may still be 1 at run time and stretch to the target.
      auto unified = unifyDims(*target, x.dims[src]);
      if (!unified)
        return invalidArgument("operand dim " + str(src) + " (" +
                               x.dims[src].toString() +
                               ") is neither 1 nor result dim " + str(r) +
                               " (" + target->toString() + ")");
      if (*target != x.dims[src]) {
        ShapeCheck check{ShapeCheck::Kind::OneOrEqual};
        check.a = x.dims[src];
        check.b = *target;
        check.what = "operand dim " + str(src) + " (" + x.dims[src].toString() +
                     ") must be 1 or result dim " + str(r) + " (" +
                     target->toString() + ")";
        ctx.require(std::move(check));
      }
      target = std::move(*unified);
    }
    result.dims.push_back(std::move(*target));
  }
  return result;
}

namespace {

/// The inferred dim of a reshape from `in` to `out` (whose dim `inferred`
/// is the -1) with the dims on both sides cancelled first: [b, t, 32] ->
/// [b, t, -1, 8] infers 4 even where t is a sum (a convolution's output
/// size), which no division by a single term could take.
std::optional<SymExpr> quotientOfUnmatchedDims(const std::vector<SymExpr> &in,
                                               const std::vector<SymExpr> &out,
                                               int64_t inferred) {
  std::vector<SymExpr> unmatched = in;
  std::optional<SymExpr> divisor = SymExpr::constant(1);
  for (size_t k = 0; k < out.size() && divisor; ++k) {
    if (static_cast<int64_t>(k) == inferred)
      continue;
    auto same = std::find(unmatched.begin(), unmatched.end(), out[k]);
    if (same != unmatched.end())
      unmatched.erase(same);
    else
      divisor = SymExpr::mul(*divisor, out[k]);
  }
  std::optional<SymExpr> dividend = SymExpr::constant(1);
  for (const SymExpr &d : unmatched)
    if (dividend)
      dividend = SymExpr::mul(*dividend, d);
  return dividend && divisor ? dividend->divideExact(*divisor) : std::nullopt;
}

} // namespace

StatusOr<SymTensorType> inferReshape(const v1::ReshapeAttrs &attrs,
                                     const SymTensorType &x,
                                     ShapeContext &ctx) {
  auto inputCount = x.numElements();
  if (!inputCount)
    return invalidArgument(std::string("element count ") +
                           SymExpr::kBeyondBounds);
  SymTensorType result{x.dtype, {}};
  result.dims.reserve(attrs.shape_size());
  SymExpr known = SymExpr::constant(1);
  int64_t inferredAt = -1;
  for (int64_t r = 0; r < attrs.shape_size(); ++r) {
    auto read = ctx.read(attrs.shape(r), /*allowInferred=*/true);
    if (!read)
      return read.status().withContext("reshape dim " + str(r));
    std::optional<SymExpr> dim = std::move(*read);
    if (!dim) {
      if (inferredAt >= 0)
        return invalidArgument("reshape has more than one -1 dim");
      inferredAt = r;
      result.dims.emplace_back();
      continue;
    }
    auto next = SymExpr::mul(known, *dim);
    if (!next)
      return invalidArgument(std::string("reshape element count ") +
                             SymExpr::kBeyondBounds);
    known = std::move(*next);
    result.dims.push_back(std::move(*dim));
  }
  if (inferredAt < 0) {
    auto in = inputCount->constantValue(), out = known.constantValue();
    if (in && out && *in != *out)
      return invalidArgument("reshape changes the element count from " +
                             str(*in) + " to " + str(*out));
    if (*inputCount != known) {
      ShapeCheck check{ShapeCheck::Kind::Equal};
      check.a = *inputCount;
      check.b = known;
      check.what = "reshape must keep the element count (" +
                   inputCount->toString() + " to " + known.toString() + ")";
      ctx.require(std::move(check));
    }
    return result;
  }
  if (known.isConstant() && *known.constantValue() == 0)
    return invalidArgument("reshape cannot infer a -1 dim next to a 0 dim");
  if (inputCount->isConstant() && known.isConstant() &&
      *inputCount->constantValue() % *known.constantValue() != 0)
    return invalidArgument("reshape cannot split " + inputCount->toString() +
                           " elements into " + known.toString() +
                           " times an integer");
  ShapeCheck divides{ShapeCheck::Kind::Divides};
  divides.a = known;
  divides.b = *inputCount;
  divides.what = "reshape must split " + inputCount->toString() +
                 " elements into " + known.toString() +
                 " (not 0) times an integer";
  std::optional<SymExpr> quotient = inputCount->divideExact(known);
  if (!quotient)
    quotient = quotientOfUnmatchedDims(x.dims, result.dims, inferredAt);
  if (quotient) {
    // Divisible as polynomials, so only a zero divisor can fail.
    if (!known.isConstant())
      ctx.require(std::move(divides));
    result.dims[inferredAt] = std::move(*quotient);
    return result;
  }
  // Not provably divisible symbolically, by a number: the floor of the
  // quotient, which the run-time check makes exact. An expression of the
  // graph's symbols, unlike a fresh one, can be named by later ops (a
  // broadcast over it, a reshape of it: LeViT's [-1, 4, C]).
  std::optional<int64_t> by = known.constantValue();
  if (by && *by > 0 && inputCount->isNonNegative())
    if (std::optional<SymExpr> floor = SymExpr::floorDiv(*inputCount, *by)) {
      ctx.require(std::move(divides));
      result.dims[inferredAt] = std::move(*floor);
      return result;
    }
  // Else known at run time only.
  SymExpr fresh = ctx.fresh();
  ShapeCheck define{ShapeCheck::Kind::DefineQuotient};
  define.symbol = *fresh.singleSymbol();
  define.a = *inputCount;
  define.b = known;
  define.what = divides.what;
  ctx.require(std::move(divides));
  ctx.require(std::move(define));
  result.dims[inferredAt] = std::move(fresh);
  return result;
}

StatusOr<SymTensorType> inferTranspose(const v1::TransposeAttrs &attrs,
                                       const SymTensorType &x) {
  const auto &perm = attrs.permutation();
  if (perm.size() != x.rank())
    return invalidArgument("permutation has " + str(perm.size()) +
                           " entries for rank " + str(x.rank()));
  ANYSHAPE_RETURN_IF_ERROR(checkAxes(perm, x.rank(), "permutation entry"));
  SymTensorType result{x.dtype, {}};
  result.dims.reserve(x.dims.size());
  for (int64_t p : perm)
    result.dims.push_back(x.dims[p]);
  return result;
}

StatusOr<SymTensorType> inferSlice(const v1::SliceAttrs &attrs,
                                   const SymTensorType &x, ShapeContext &ctx) {
  if (attrs.start_indices_size() != x.rank() ||
      attrs.limit_indices_size() != x.rank())
    return invalidArgument("slice needs one start and one limit per dim of " +
                           x.toString());
  if (attrs.strides_size() != 0 && attrs.strides_size() != x.rank())
    return invalidArgument("slice strides must be empty or one per dim");
  SymTensorType result{x.dtype, {}};
  result.dims.reserve(x.dims.size());
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t stride = attrs.strides_size() ? attrs.strides(i) : 1;
    if (stride < 1)
      return invalidArgument("slice stride " + str(stride) + " at dim " +
                             str(i) + " must be >= 1");
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr start, ctx.read(attrs.start_indices(i)));
    ANYSHAPE_ASSIGN_OR_RETURN(SymExpr limit, ctx.read(attrs.limit_indices(i)));
    auto s = start.constantValue(), l = limit.constantValue(),
         d = x.dims[i].constantValue();
    std::string where = " at dim " + str(i) + " of " + x.toString();
    if (s && *s < 0)
      return invalidArgument("slice start " + str(*s) + " is negative" + where);
    if (s && l && *s > *l)
      return invalidArgument("slice start " + str(*s) + " exceeds limit " +
                             str(*l) + where);
    if (l && d && *l > *d)
      return invalidArgument("slice limit " + str(*l) + " exceeds the dim" +
                             where);
    auto extent = SymExpr::sub(limit, start);
    if (!extent)
      return invalidArgument(std::string("slice extent ") +
                             SymExpr::kBeyondBounds + where);
    // Symbolic bounds can still have a static difference ("n + 1" to n).
    if (auto e = extent->constantValue(); e && *e < 0)
      return invalidArgument("slice start " + start.toString() +
                             " exceeds limit " + limit.toString() + where);
    auto requireLessEqual = [&](const SymExpr &a, const SymExpr &b,
                                const std::string &what) {
      auto difference = SymExpr::sub(b, a);
      if (difference && difference->isNonNegative())
        return; // holds for all sizes
      ShapeCheck check{ShapeCheck::Kind::LessEqual};
      check.a = a;
      check.b = b;
      check.what = what + where;
      ctx.require(std::move(check));
    };
    requireLessEqual(SymExpr(), start,
                     "slice start " + start.toString() + " must be >= 0");
    requireLessEqual(start, limit,
                     "slice start " + start.toString() +
                         " must not exceed limit " + limit.toString());
    requireLessEqual(limit, x.dims[i],
                     "slice limit " + limit.toString() +
                         " must not exceed the dim");
    // ceil(extent / stride), a quotient: equal strided slices of equal
    // dims have equal extents.
    auto bumped = SymExpr::add(*extent, SymExpr::constant(stride - 1));
    auto strided = bumped ? SymExpr::floorDiv(*bumped, stride) : std::nullopt;
    if (!strided)
      return invalidArgument("strided slice extent " +
                             std::string(SymExpr::kBeyondBounds) + where);
    result.dims.push_back(std::move(*strided));
  }
  return result;
}

StatusOr<SymTensorType>
inferConcatenate(const v1::ConcatenateAttrs &attrs,
                 const std::vector<const SymTensorType *> &xs,
                 const ShapeContext &ctx) {
  const SymTensorType &first = *xs[0];
  int64_t axis = attrs.dimension();
  if (axis < 0 || axis >= first.rank())
    return invalidArgument("concatenate dimension " + str(axis) +
                           " is out of range for " + first.toString());
  SymTensorType result = first;
  for (size_t k = 1; k < xs.size(); ++k) {
    const SymTensorType &x = *xs[k];
    if (x.dtype != first.dtype || x.rank() != first.rank())
      return invalidArgument("concatenate operand " + str(k) + " is " +
                             x.toString() + ", operand 0 is " +
                             first.toString());
    for (int64_t i = 0; i < x.rank(); ++i) {
      if (i == axis) {
        auto sum = SymExpr::add(result.dims[i], x.dims[i]);
        if (!sum)
          return invalidArgument(std::string("concatenated dim ") +
                                 SymExpr::kBeyondBounds);
        result.dims[i] = std::move(*sum);
        continue;
      }
      auto d = ctx.unify(result.dims[i], x.dims[i],
                         "concatenate operand " + str(k) + " dim " + str(i));
      if (!d)
        return invalidArgument("concatenate operand " + str(k) +
                               " differs at dim " + str(i) + ": " +
                               d.status().message());
      result.dims[i] = std::move(*d);
    }
  }
  return result;
}

StatusOr<SymTensorType> inferPad(const v1::PadAttrs &attrs,
                                 const SymTensorType &x,
                                 const SymTensorType &paddingValue,
                                 ShapeContext &ctx) {
  if (paddingValue.rank() != 0 || paddingValue.dtype != x.dtype)
    return invalidArgument("pad value must be a " + dtypeName(x.dtype) +
                           " scalar, got " + paddingValue.toString());
  if (attrs.edge_padding_low_size() != x.rank() ||
      attrs.edge_padding_high_size() != x.rank())
    return invalidArgument("pad needs one low and one high padding per dim");
  if (attrs.interior_padding_size() != 0 &&
      attrs.interior_padding_size() != x.rank())
    return invalidArgument("interior_padding must be empty or one per dim");
  SymTensorType result{x.dtype, {}};
  result.dims.reserve(x.dims.size());
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t lo = attrs.edge_padding_low(i), hi = attrs.edge_padding_high(i);
    int64_t interior =
        attrs.interior_padding_size() ? attrs.interior_padding(i) : 0;
    if (interior < 0)
      return invalidArgument("interior padding " + str(interior) +
                             " must be >= 0");
    const SymExpr &d = x.dims[i];
    auto dv = d.constantValue();
    int64_t edges, grown = 0;
    if (__builtin_add_overflow(lo, hi, &edges) ||
        (dv && *dv > 0 && __builtin_mul_overflow(interior, *dv - 1, &grown)))
      return invalidArgument("padding overflows int64");
    if (interior > 0 && !dv) {
      // d + interior*(d-1) holds only for d >= 1; d may be 0 at run time.
      SymExpr padded = ctx.fresh();
      ShapeCheck define{ShapeCheck::Kind::DefinePadded};
      define.symbol = *padded.singleSymbol();
      define.a = d;
      define.interior = interior;
      define.edges = edges;
      define.what = "padded dim " + str(i) +
                    " must fit int64 and not be "
                    "negative";
      ctx.require(std::move(define));
      result.dims.push_back(std::move(padded));
      continue;
    }
    auto size = SymExpr::add(d, SymExpr::constant(grown));
    if (size)
      size = SymExpr::add(*size, SymExpr::constant(edges));
    if (!size)
      return invalidArgument(std::string("padded dim ") +
                             SymExpr::kBeyondBounds);
    if (auto v = size->constantValue(); v && *v < 0)
      return invalidArgument("padding makes dim " + str(i) + " negative (" +
                             str(*v) + ")");
    if (!size->isNonNegative()) {
      ShapeCheck check{ShapeCheck::Kind::LessEqual};
      check.b = *size;
      check.what = "padding must not make dim " + str(i) + " (" +
                   size->toString() + ") negative";
      ctx.require(std::move(check));
    }
    result.dims.push_back(std::move(*size));
  }
  return result;
}

} // namespace anyshape::detail
