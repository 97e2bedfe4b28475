// The op table. Order follows docs/ops.md.
#include "OpRegistry.h"

#include <unordered_map>

namespace anyshape {

using A = v1::Node::AttrsCase;

const std::vector<OpInfo> &allOps() {
  static const std::vector<OpInfo> ops = {
      {"constant", OpClass::Source, 0, 0, A::kConstant},
      {"iota", OpClass::Source, 0, 0, A::kIota},
      {"abs", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"neg", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"exp", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"log", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"tanh", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"logistic", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"sqrt", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"rsqrt", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"erf", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"sin", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"cos", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"floor", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"ceil", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"not", OpClass::Unary, 1, 1, A::ATTRS_NOT_SET},
      {"convert", OpClass::Unary, 1, 1, A::kConvert},
      {"add", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"sub", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"mul", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"div", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"pow", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"max", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"min", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"and", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"or", OpClass::Binary, 2, 2, A::ATTRS_NOT_SET},
      {"compare", OpClass::Binary, 2, 2, A::kCompare},
      {"select", OpClass::Select, 3, 3, A::ATTRS_NOT_SET},
      {"broadcast_in_dim", OpClass::ShapeChanging, 1, 1, A::kBroadcastInDim},
      {"reshape", OpClass::ShapeChanging, 1, 1, A::kReshape},
      {"transpose", OpClass::ShapeChanging, 1, 1, A::kTranspose},
      {"slice", OpClass::ShapeChanging, 1, 1, A::kSlice},
      {"concatenate", OpClass::ShapeChanging, 1, -1, A::kConcatenate},
      {"pad", OpClass::ShapeChanging, 2, 2, A::kPad},
      {"gather", OpClass::Gather, 2, 2, A::kGather},
      {"reduce", OpClass::Reduce, 1, 1, A::kReduce},
      {"dot_general", OpClass::DotGeneral, 2, 2, A::kDotGeneral},
      {"dim_size", OpClass::DimSize, 1, 1, A::kDimSize},
      {"check_index", OpClass::CheckIndex, 2, 2, A::kCheckIndex},
      {"nonzero", OpClass::NonZero, 1, 1, A::kNonzero},
      {"scatter", OpClass::Scatter, 3, 3, A::kScatter},
      {"convolution", OpClass::Convolution, 2, 2, A::kConvolution},
      {"argsort", OpClass::Argsort, 1, 1, A::kArgsort},
      {"cumulative", OpClass::Cumulative, 1, 1, A::kCumulative},
  };
  return ops;
}

const OpInfo *lookupOp(std::string_view name) {
  // Looked up for every node of every run-time shape check.
  static const auto *byName = [] {
    auto *map = new std::unordered_map<std::string_view, const OpInfo *>;
    for (const OpInfo &op : allOps())
      map->emplace(op.name, &op);
    return map;
  }();
  auto it = byName->find(name);
  return it == byName->end() ? nullptr : it->second;
}

std::string_view reduceKindName(v1::ReduceKind kind) {
  static constexpr std::string_view names[] = {"", "sum", "max", "min", "prod"};
  return kind >= v1::REDUCE_SUM && kind <= v1::REDUCE_PROD ? names[kind] : "";
}

std::string_view scatterReductionName(v1::ScatterReduction reduction) {
  static constexpr std::string_view names[] = {"",    "replace", "add",
                                               "mul", "max",     "min"};
  return reduction >= v1::SCATTER_REPLACE && reduction <= v1::SCATTER_MIN
             ? names[reduction]
             : "";
}

std::string_view attrsName(v1::Node::AttrsCase attrs) {
  switch (attrs) {
  case A::kConstant:
    return "constant";
  case A::kIota:
    return "iota";
  case A::kConvert:
    return "convert";
  case A::kCompare:
    return "compare";
  case A::kBroadcastInDim:
    return "broadcast_in_dim";
  case A::kReshape:
    return "reshape";
  case A::kTranspose:
    return "transpose";
  case A::kSlice:
    return "slice";
  case A::kConcatenate:
    return "concatenate";
  case A::kPad:
    return "pad";
  case A::kGather:
    return "gather";
  case A::kReduce:
    return "reduce";
  case A::kDotGeneral:
    return "dot_general";
  case A::kDimSize:
    return "dim_size";
  case A::kCheckIndex:
    return "check_index";
  case A::kNonzero:
    return "nonzero";
  case A::kScatter:
    return "scatter";
  case A::kConvolution:
    return "convolution";
  case A::kArgsort:
    return "argsort";
  case A::kCumulative:
    return "cumulative";
  case A::ATTRS_NOT_SET:
    break;
  }
  return "none";
}

} // namespace anyshape
