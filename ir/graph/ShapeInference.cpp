// Shape and dtype rules for sources, elementwise ops, select, gather,
// scatter, reduce, dot_general, convolution and dim_size; dispatch for
// every op.
#include "ShapeInference.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace anyshape {
namespace {

using v1::Node;

bool isNumeric(DType d) { return isFloatDType(d) || isIntegerDType(d); }

std::string shapeList(const std::vector<const SymTensorType *> &types) {
  std::string out;
  for (const SymTensorType *t : types)
    out += (out.empty() ? "" : ", ") + t->toString();
  return out;
}

StatusOr<SymTensorType> inferConstant(const v1::ConstantAttrs &attrs) {
  if (!isKnownDType(attrs.dtype()))
    return invalidArgument("constant has unknown dtype " +
                           dtypeName(attrs.dtype()));
  SymTensorType type{attrs.dtype(), {}};
  for (int64_t size : attrs.shape()) {
    if (size < 0)
      return invalidArgument("constant has negative dim " +
                             std::to_string(size));
    type.dims.push_back(SymExpr::constant(size));
  }
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t bytes, constantByteSize(attrs));
  switch (attrs.value_case()) {
  case v1::ConstantAttrs::kData:
    if (static_cast<int64_t>(attrs.data().size()) != bytes)
      return invalidArgument(
          "constant data has " + std::to_string(attrs.data().size()) +
          " bytes but " + type.toString() + " needs " + std::to_string(bytes));
    break;
  case v1::ConstantAttrs::kSplat:
    if (std::isnan(attrs.splat()) && !isFloatDType(attrs.dtype()))
      return invalidArgument("NaN splat for non-float dtype");
    break;
  case v1::ConstantAttrs::kTensorId:
    if (attrs.tensor_id().empty())
      return invalidArgument("constant has an empty tensor_id");
    break;
  case v1::ConstantAttrs::kSeededUniform: {
    const auto &su = attrs.seeded_uniform();
    if (!std::isfinite(su.low()) || !std::isfinite(su.high()) ||
        su.low() > su.high())
      return invalidArgument("seeded_uniform needs finite low <= high");
    break;
  }
  case v1::ConstantAttrs::VALUE_NOT_SET:
    return invalidArgument("constant has no value (data, splat, tensor_id or "
                           "seeded_uniform)");
  }
  return type;
}

StatusOr<SymTensorType> inferIota(const v1::IotaAttrs &attrs,
                                  ShapeContext &ctx) {
  if (!isKnownDType(attrs.dtype()) || attrs.dtype() == v1::DTYPE_BOOL)
    return invalidArgument("iota needs a numeric dtype, got " +
                           dtypeName(attrs.dtype()));
  SymTensorType type{attrs.dtype(), {}};
  for (const v1::Dim &dim : attrs.shape()) {
    ANYSHAPE_ASSIGN_OR_RETURN(auto d, ctx.read(dim));
    type.dims.push_back(std::move(*d));
  }
  if (attrs.iota_dimension() < 0 || attrs.iota_dimension() >= type.rank())
    return invalidArgument(
        "iota_dimension " + std::to_string(attrs.iota_dimension()) +
        " is out of range for rank " + std::to_string(type.rank()));
  return type;
}

StatusOr<SymTensorType> inferUnary(const Node &node, const SymTensorType &x) {
  const std::string &op = node.op();
  SymTensorType result = x;
  if (op == "convert") {
    if (!isKnownDType(node.convert().dtype()))
      return invalidArgument("convert to unknown dtype " +
                             dtypeName(node.convert().dtype()));
    result.dtype = node.convert().dtype();
    return result;
  }
  if (op == "not") {
    if (x.dtype != v1::DTYPE_BOOL && !isIntegerDType(x.dtype))
      return invalidArgument("not needs bool or integer, got " + x.toString());
    return result;
  }
  if (op == "abs" || op == "neg") {
    if (!isNumeric(x.dtype))
      return invalidArgument(op + " needs a numeric operand, got " +
                             x.toString());
    return result;
  }
  if (!isFloatDType(x.dtype))
    return invalidArgument(op + " needs a float operand, got " + x.toString());
  return result;
}

StatusOr<SymTensorType> inferBinary(const Node &node, const SymTensorType &a,
                                    const SymTensorType &b,
                                    const ShapeContext &ctx) {
  const std::string &op = node.op();
  if (a.dtype != b.dtype)
    return invalidArgument("operand dtypes differ: " + a.toString() + " vs " +
                           b.toString());
  if (a.rank() != b.rank())
    return invalidArgument("operand ranks differ: " + a.toString() + " vs " +
                           b.toString() +
                           " (broadcast explicitly with broadcast_in_dim)");
  if (op == "and" || op == "or") {
    if (a.dtype != v1::DTYPE_BOOL && !isIntegerDType(a.dtype))
      return invalidArgument(op + " needs bool or integer operands, got " +
                             a.toString());
  } else if (op == "compare") {
    if (node.compare().direction() < v1::COMPARE_EQ ||
        node.compare().direction() > v1::COMPARE_GE)
      return invalidArgument("compare has no valid direction");
  } else if (!isNumeric(a.dtype)) {
    return invalidArgument(op + " needs numeric operands, got " + a.toString());
  }
  SymTensorType result{op == "compare" ? v1::DTYPE_BOOL : a.dtype, {}};
  result.dims.reserve(a.dims.size());
  for (int64_t i = 0; i < a.rank(); ++i) {
    auto d =
        ctx.unify(a.dims[i], b.dims[i], "operand dims " + std::to_string(i));
    if (!d)
      return invalidArgument("operand shapes differ at dim " +
                             std::to_string(i) + ": " + a.toString() + " vs " +
                             b.toString());
    result.dims.push_back(std::move(*d));
  }
  return result;
}

StatusOr<SymTensorType> inferSelect(const SymTensorType &pred,
                                    const SymTensorType &onTrue,
                                    const SymTensorType &onFalse,
                                    const ShapeContext &ctx) {
  if (pred.dtype != v1::DTYPE_BOOL)
    return invalidArgument("select predicate must be bool, got " +
                           pred.toString());
  if (onTrue.dtype != onFalse.dtype || onTrue.rank() != onFalse.rank())
    return invalidArgument("select branches differ: " + onTrue.toString() +
                           " vs " + onFalse.toString());
  if (pred.rank() != 0 && pred.rank() != onTrue.rank())
    return invalidArgument("select predicate " + pred.toString() +
                           " must be a scalar or match " + onTrue.toString());
  SymTensorType result{onTrue.dtype, {}};
  result.dims.reserve(onTrue.dims.size());
  for (int64_t i = 0; i < onTrue.rank(); ++i) {
    std::string dim = std::to_string(i);
    auto d = ctx.unify(onTrue.dims[i], onFalse.dims[i], "branch dims " + dim);
    if (d && pred.rank() != 0)
      d = ctx.unify(*d, pred.dims[i], "branch and predicate dims " + dim);
    if (!d)
      return invalidArgument("select operand shapes differ at dim " +
                             std::to_string(i));
    result.dims.push_back(std::move(*d));
  }
  return result;
}

StatusOr<SymTensorType> inferCheckIndex(const v1::CheckIndexAttrs &attrs,
                                        const SymTensorType &indices,
                                        const SymTensorType &operand) {
  if (!isIntegerDType(indices.dtype))
    return invalidArgument("check_index indices must be i32 or i64, got " +
                           indices.toString());
  if (attrs.axis() < 0 || attrs.axis() >= operand.rank())
    return invalidArgument("check_index axis " + std::to_string(attrs.axis()) +
                           " is out of range for " + operand.toString());
  if (attrs.what().size() > 1024)
    return invalidArgument("check_index what is longer than 1024 bytes");
  return indices;
}

/// nonzero(x): i64[rank, count], the coordinates of x's nonzero elements;
/// count is a data-dependent size, at most x's element count.
StatusOr<SymTensorType> inferNonZero(const v1::NonZeroAttrs &attrs,
                                     const SymTensorType &operand,
                                     ShapeContext &ctx) {
  if (operand.rank() == 0)
    return invalidArgument("nonzero of a scalar: its operand needs rank >= 1");
  SymTensorType result{v1::DTYPE_I64, {SymExpr::constant(operand.rank())}};
  ANYSHAPE_ASSIGN_OR_RETURN(
      SymExpr count,
      ctx.dataDependent(operand.numElements(), attrs.count_symbol()));
  result.dims.push_back(std::move(count));
  return result;
}

StatusOr<SymTensorType> inferGather(const v1::GatherAttrs &attrs,
                                    const SymTensorType &operand,
                                    const SymTensorType &indices,
                                    const ShapeContext &ctx) {
  if (!isIntegerDType(indices.dtype))
    return invalidArgument("gather indices must be i32 or i64, got " +
                           indices.toString());
  int64_t axis = attrs.axis();
  if (axis < 0 || axis >= operand.rank())
    return invalidArgument("gather axis " + std::to_string(axis) +
                           " is out of range for " + operand.toString());
  auto count = indices.numElements();
  if (operand.dims[axis] == SymExpr::constant(0) && count &&
      count->constantValue().value_or(0) > 0)
    return invalidArgument("gather from an empty axis " + std::to_string(axis) +
                           " of " + operand.toString());
  // An axis of at least 1 for every size (a constant term >= 1, no
  // negative coefficient: "count + 1", a padded table) is never empty.
  const SymExpr &extent = operand.dims[axis];
  bool neverEmpty = extent.isNonNegative() && extent.terms()[{}] >= 1;
  if (count && !neverEmpty && !(count->constantValue() == 0)) {
    ShapeCheck check{ShapeCheck::Kind::NonEmptyUnlessUnused};
    check.a = operand.dims[axis];
    check.b = *count;
    check.what = "gather from axis " + std::to_string(axis) + " of " +
                 operand.toString() + " must not be empty";
    ctx.require(std::move(check));
  }
  SymTensorType result{operand.dtype, {}};
  result.dims.insert(result.dims.end(), operand.dims.begin(),
                     operand.dims.begin() + axis);
  result.dims.insert(result.dims.end(), indices.dims.begin(),
                     indices.dims.end());
  result.dims.insert(result.dims.end(), operand.dims.begin() + axis + 1,
                     operand.dims.end());
  return result;
}

/// scatter(operand [N, R...], indices [M], updates [M, R...]): operand's
/// type; the updates' rows must be the operand's, one per index.
StatusOr<SymTensorType> inferScatter(const v1::ScatterAttrs &attrs,
                                     const SymTensorType &operand,
                                     const SymTensorType &indices,
                                     const SymTensorType &updates,
                                     ShapeContext &ctx) {
  if (attrs.reduction() < v1::SCATTER_REPLACE ||
      attrs.reduction() > v1::SCATTER_MIN)
    return invalidArgument("scatter has no valid reduction");
  if (attrs.reduction() != v1::SCATTER_REPLACE && !isNumeric(operand.dtype))
    return invalidArgument("scatter with a reduction needs a numeric operand, "
                           "got " +
                           operand.toString());
  if (!isIntegerDType(indices.dtype) || indices.rank() != 1)
    return invalidArgument("scatter indices must be i32 or i64 of rank 1, "
                           "got " +
                           indices.toString());
  if (operand.rank() == 0)
    return invalidArgument("scatter into a scalar: its operand needs rank "
                           ">= 1");
  if (updates.dtype != operand.dtype || updates.rank() != operand.rank())
    return invalidArgument("scatter updates " + updates.toString() +
                           " must have the dtype and rank of " +
                           operand.toString());
  auto rows = ctx.unify(updates.dims[0], indices.dims[0],
                        "updates dim 0 and the indices' count");
  if (!rows)
    return invalidArgument("scatter needs one update row per index: " +
                           rows.status().message());
  for (int64_t d = 1; d < operand.rank(); ++d)
    if (auto dim = ctx.unify(updates.dims[d], operand.dims[d],
                             "updates and operand dims " + std::to_string(d));
        !dim)
      return invalidArgument("scatter updates' rows must be the operand's: " +
                             dim.status().message());
  return operand;
}

/// Bounds that keep a convolution's sizes and the runtime's index
/// arithmetic far from overflow.
constexpr int64_t kMaxConvolutionAttr = int64_t{1} << 20;

/// argsort(x): i64 positions of x's shape, along an axis of x.
StatusOr<SymTensorType> inferArgsort(const v1::ArgsortAttrs &attrs,
                                     const SymTensorType &x) {
  if (x.rank() == 0)
    return invalidArgument("argsort of a scalar: its operand needs rank >= 1");
  if (attrs.axis() < 0 || attrs.axis() >= x.rank())
    return invalidArgument("argsort axis " + std::to_string(attrs.axis()) +
                           " is out of range for " + x.toString());
  return SymTensorType{v1::DTYPE_I64, x.dims};
}

/// cumulative(x): x's type, numeric, along an axis of x.
StatusOr<SymTensorType> inferCumulative(const v1::CumulativeAttrs &attrs,
                                        const SymTensorType &x) {
  if (attrs.kind() < v1::REDUCE_SUM || attrs.kind() > v1::REDUCE_PROD)
    return invalidArgument("cumulative has no valid kind");
  if (!isNumeric(x.dtype))
    return invalidArgument("cumulative needs a numeric operand, got " +
                           x.toString());
  if (x.rank() == 0)
    return invalidArgument(
        "cumulative of a scalar: its operand needs rank >= 1");
  if (attrs.axis() < 0 || attrs.axis() >= x.rank())
    return invalidArgument("cumulative axis " + std::to_string(attrs.axis()) +
                           " is out of range for " + x.toString());
  return x;
}

StatusOr<SymTensorType> inferConvolution(const v1::ConvolutionAttrs &attrs,
                                         const SymTensorType &input,
                                         const SymTensorType &weights,
                                         ShapeContext &ctx) {
  if (input.dtype != v1::DTYPE_F32 || weights.dtype != v1::DTYPE_F32)
    return invalidArgument("convolution takes f32 input and weights, got " +
                           input.toString() + " and " + weights.toString());
  int64_t r = input.rank() - 2;
  if (r < 1 || r > 3 || weights.rank() != input.rank())
    return invalidArgument("convolution needs an input [N, C, S...] with 1 "
                           "to 3 spatial dims and weights of its rank, got " +
                           input.toString() + " and " + weights.toString());
  std::optional<std::vector<int64_t>> w = weights.staticShape();
  std::optional<int64_t> channels = input.dims[1].constantValue();
  if (!w || !channels)
    return invalidArgument("convolution needs static weights and input "
                           "channels, got " +
                           input.toString() + " and " + weights.toString());
  auto perDim = [&](const google::protobuf::RepeatedField<int64_t> &values,
                    const char *name, int64_t least) -> Status {
    if (values.size() != r)
      return invalidArgument(std::string("convolution ") + name + " has " +
                             std::to_string(values.size()) + " entries for " +
                             std::to_string(r) + " spatial dims");
    for (int64_t v : values)
      if (v < least || v > kMaxConvolutionAttr)
        return invalidArgument(std::string("convolution ") + name + " " +
                               std::to_string(v) + " is not in [" +
                               std::to_string(least) + ", 2^20]");
    return Status::ok();
  };
  ANYSHAPE_RETURN_IF_ERROR(perDim(attrs.strides(), "strides", 1));
  ANYSHAPE_RETURN_IF_ERROR(perDim(attrs.dilations(), "dilations", 1));
  ANYSHAPE_RETURN_IF_ERROR(perDim(attrs.padding_low(), "padding_low", 0));
  ANYSHAPE_RETURN_IF_ERROR(perDim(attrs.padding_high(), "padding_high", 0));
  int64_t groups = attrs.groups(), filters = (*w)[0];
  if (groups < 1 || filters % groups != 0 || *channels != (*w)[1] * groups)
    return invalidArgument(
        "convolution groups " + std::to_string(groups) +
        " must divide the weights' " + std::to_string(filters) +
        " filters, and the input's " + std::to_string(*channels) +
        " channels must be the weights' " + std::to_string((*w)[1]) +
        " per group times the groups");
  SymTensorType result{input.dtype,
                       {input.dims[0], SymExpr::constant(filters)}};
  for (int64_t i = 0; i < r; ++i) {
    int64_t k = (*w)[2 + i];
    if (k < 1 || k > kMaxConvolutionAttr)
      return invalidArgument("convolution kernel size " + std::to_string(k) +
                             " is not in [1, 2^20]");
    int64_t extent = (k - 1) * attrs.dilations(i) + 1,
            pads = attrs.padding_low(i) + attrs.padding_high(i);
    std::optional<SymExpr> padded =
        SymExpr::add(input.dims[2 + i], SymExpr::constant(pads));
    std::optional<SymExpr> room =
        padded ? SymExpr::sub(*padded, SymExpr::constant(extent))
               : std::nullopt;
    std::optional<SymExpr> steps =
        room ? SymExpr::floorDiv(*room, attrs.strides(i)) : std::nullopt;
    std::optional<SymExpr> out =
        steps ? SymExpr::add(*steps, SymExpr::constant(1)) : std::nullopt;
    if (!out)
      return invalidArgument("convolution output size of spatial dim " +
                             std::to_string(i) + " " + SymExpr::kBeyondBounds);
    if (auto v = room->constantValue(); v && *v < 0)
      return invalidArgument("convolution window of " + std::to_string(extent) +
                             " is longer than spatial dim " +
                             std::to_string(i) + " padded (" +
                             padded->toString() + ")");
    if (!room->isNonNegative()) {
      ShapeCheck check{ShapeCheck::Kind::LessEqual};
      check.a = SymExpr::constant(extent);
      check.b = *padded;
      check.what = "convolution window of " + std::to_string(extent) +
                   " must fit spatial dim " + std::to_string(i) + " padded (" +
                   padded->toString() + ")";
      ctx.require(std::move(check));
    }
    result.dims.push_back(std::move(*out));
  }
  return result;
}

StatusOr<SymTensorType> inferReduce(const v1::ReduceAttrs &attrs,
                                    const SymTensorType &x) {
  if (attrs.kind() < v1::REDUCE_SUM || attrs.kind() > v1::REDUCE_PROD)
    return invalidArgument("reduce has no valid kind");
  if (!isNumeric(x.dtype))
    return invalidArgument("reduce needs a numeric operand, got " +
                           x.toString());
  ANYSHAPE_RETURN_IF_ERROR(
      detail::checkAxes(attrs.dimensions(), x.rank(), "reduce dimension"));
  std::set<int64_t> reduced(attrs.dimensions().begin(),
                            attrs.dimensions().end());
  SymTensorType result{x.dtype, {}};
  result.dims.reserve(x.dims.size());
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!reduced.count(i))
      result.dims.push_back(x.dims[i]);
  return result;
}

StatusOr<SymTensorType> inferDotGeneral(const v1::DotGeneralAttrs &attrs,
                                        const SymTensorType &lhs,
                                        const SymTensorType &rhs,
                                        const ShapeContext &ctx) {
  if (lhs.dtype != rhs.dtype || !isNumeric(lhs.dtype))
    return invalidArgument("dot_general needs numeric operands of one dtype, "
                           "got " +
                           lhs.toString() + " and " + rhs.toString());
  const auto &lb = attrs.lhs_batch_dimensions();
  const auto &rb = attrs.rhs_batch_dimensions();
  const auto &lc = attrs.lhs_contracting_dimensions();
  const auto &rc = attrs.rhs_contracting_dimensions();
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return invalidArgument("dot_general lhs and rhs list different numbers "
                           "of batch or contracting dimensions");
  // Batch and contracting dims of one side are distinct axes together.
  google::protobuf::RepeatedField<int64_t> lhsAll = lb, rhsAll = rb;
  lhsAll.MergeFrom(lc);
  rhsAll.MergeFrom(rc);
  ANYSHAPE_RETURN_IF_ERROR(
      detail::checkAxes(lhsAll, lhs.rank(), "dot_general lhs dimension"));
  ANYSHAPE_RETURN_IF_ERROR(
      detail::checkAxes(rhsAll, rhs.rank(), "dot_general rhs dimension"));
  SymTensorType result{lhs.dtype, {}};
  result.dims.reserve(lhs.dims.size() + rhs.dims.size());
  for (int i = 0; i < lb.size(); ++i) {
    auto d = ctx.unify(lhs.dims[lb[i]], rhs.dims[rb[i]],
                       "batch dims " + std::to_string(i));
    if (!d)
      return invalidArgument("dot_general batch dims differ: " +
                             d.status().message());
    result.dims.push_back(std::move(*d));
  }
  for (int i = 0; i < lc.size(); ++i) {
    auto d = ctx.unify(lhs.dims[lc[i]], rhs.dims[rc[i]],
                       "contracting dims " + std::to_string(i));
    if (!d)
      return invalidArgument("dot_general contracting dims differ: " +
                             d.status().message());
  }
  auto appendFree = [&](const SymTensorType &t,
                        const google::protobuf::RepeatedField<int64_t> &used) {
    std::set<int64_t> skip(used.begin(), used.end());
    for (int64_t i = 0; i < t.rank(); ++i)
      if (!skip.count(i))
        result.dims.push_back(t.dims[i]);
  };
  appendFree(lhs, lhsAll);
  appendFree(rhs, rhsAll);
  return result;
}

StatusOr<SymTensorType> dispatch(const Node &node, const OpInfo &info,
                                 const std::vector<const SymTensorType *> &in,
                                 ShapeContext &ctx) {
  switch (info.opClass) {
  case OpClass::Source:
    if (node.op() == "constant")
      return inferConstant(node.constant());
    return inferIota(node.iota(), ctx);
  case OpClass::Unary:
    return inferUnary(node, *in[0]);
  case OpClass::Binary:
    return inferBinary(node, *in[0], *in[1], ctx);
  case OpClass::Select:
    return inferSelect(*in[0], *in[1], *in[2], ctx);
  case OpClass::Gather:
    return inferGather(node.gather(), *in[0], *in[1], ctx);
  case OpClass::Reduce:
    return inferReduce(node.reduce(), *in[0]);
  case OpClass::DotGeneral:
    return inferDotGeneral(node.dot_general(), *in[0], *in[1], ctx);
  case OpClass::DimSize:
    if (node.dim_size().dimension() < 0 ||
        node.dim_size().dimension() >= in[0]->rank())
      return invalidArgument("dim_size dimension " +
                             std::to_string(node.dim_size().dimension()) +
                             " is out of range for " + in[0]->toString());
    return SymTensorType{v1::DTYPE_I64, {}};
  case OpClass::CheckIndex:
    return inferCheckIndex(node.check_index(), *in[0], *in[1]);
  case OpClass::NonZero:
    return inferNonZero(node.nonzero(), *in[0], ctx);
  case OpClass::Scatter:
    return inferScatter(node.scatter(), *in[0], *in[1], *in[2], ctx);
  case OpClass::Convolution:
    return inferConvolution(node.convolution(), *in[0], *in[1], ctx);
  case OpClass::Argsort:
    return inferArgsort(node.argsort(), *in[0]);
  case OpClass::Cumulative:
    return inferCumulative(node.cumulative(), *in[0]);
  case OpClass::ShapeChanging:
    break;
  }
  const std::string &op = node.op();
  if (op == "broadcast_in_dim")
    return detail::inferBroadcastInDim(node.broadcast_in_dim(), *in[0], ctx);
  if (op == "reshape")
    return detail::inferReshape(node.reshape(), *in[0], ctx);
  if (op == "transpose")
    return detail::inferTranspose(node.transpose(), *in[0]);
  if (op == "slice")
    return detail::inferSlice(node.slice(), *in[0], ctx);
  if (op == "concatenate")
    return detail::inferConcatenate(node.concatenate(), in, ctx);
  return detail::inferPad(node.pad(), *in[0], *in[1], ctx);
}

} // namespace

StatusOr<int64_t> constantByteSize(const v1::ConstantAttrs &attrs) {
  int64_t bytes = dtypeByteSize(attrs.dtype());
  for (int64_t size : attrs.shape())
    if (size < 0 || __builtin_mul_overflow(bytes, size, &bytes))
      return invalidArgument("constant size overflows int64");
  return bytes;
}

StatusOr<SymTensorType>
inferNodeType(const Node &node,
              const std::vector<const SymTensorType *> &operands,
              ShapeContext &ctx) {
  const OpInfo *info = lookupOp(node.op());
  if (!info)
    return invalidArgument("unknown op '" + node.op() + "'");
  return inferNodeType(node, *info, operands, ctx);
}

StatusOr<SymTensorType>
inferNodeType(const Node &node, const OpInfo &op,
              const std::vector<const SymTensorType *> &operands,
              ShapeContext &ctx) {
  const OpInfo *info = &op;
  int count = static_cast<int>(operands.size());
  if (count < info->minOperands ||
      (info->maxOperands >= 0 && count > info->maxOperands)) {
    std::string expected =
        info->minOperands == info->maxOperands
            ? std::to_string(info->minOperands)
            : "at least " + std::to_string(info->minOperands);
    return invalidArgument(node.op() + " takes " + expected +
                           " operand(s), got " + std::to_string(count));
  }
  if (node.attrs_case() != info->attrs) {
    if (info->attrs == Node::ATTRS_NOT_SET)
      return invalidArgument(node.op() + " takes no attributes, got '" +
                             std::string(attrsName(node.attrs_case())) + "'");
    return invalidArgument(node.op() + " needs '" +
                           std::string(attrsName(info->attrs)) +
                           "' attributes, got '" +
                           std::string(attrsName(node.attrs_case())) + "'");
  }
  auto result = dispatch(node, *info, operands, ctx);
  if (!result)
    return result.status().withContext(
        operands.empty() ? node.op()
                         : node.op() + "(" + shapeList(operands) + ")");
  // A result shaped like an operand adds no element-limit check of its own
  // (the operand's covers it): most results of a graph are.
  bool likeAnOperand = std::any_of(
      operands.begin(), operands.end(),
      [&](const SymTensorType *o) { return o->dims == result->dims; });
  ANYSHAPE_RETURN_IF_ERROR(ctx.checkLimits(*result, !likeAnOperand));
  return result;
}

namespace detail {
Status checkAxes(const google::protobuf::RepeatedField<int64_t> &axes,
                 int64_t rank, const char *what, bool unique) {
  std::set<int64_t> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return invalidArgument(std::string(what) + " " + std::to_string(axis) +
                             " is out of range for rank " +
                             std::to_string(rank));
    if (unique && !seen.insert(axis).second)
      return invalidArgument(std::string(what) + " " + std::to_string(axis) +
                             " appears twice");
  }
  return Status::ok();
}
} // namespace detail

} // namespace anyshape
