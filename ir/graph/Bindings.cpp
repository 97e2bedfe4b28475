// Symbol binding from input shapes and input shapes from symbols.
#include "Bindings.h"

#include "ShapeInference.h"
#include "TensorType.h"

namespace anyshape {
namespace {

std::string dimLabel(const v1::Input &input, int d) {
  return "input '" + input.name() + "' dim " + std::to_string(d);
}

} // namespace

StatusOr<std::map<std::string, int64_t>>
bindSymbols(const v1::Graph &graph,
            const std::vector<std::vector<int64_t>> &inputShapes) {
  if (static_cast<int>(inputShapes.size()) != graph.inputs_size())
    return invalidArgument("graph has " + std::to_string(graph.inputs_size()) +
                           " inputs, got " +
                           std::to_string(inputShapes.size()));
  std::map<std::string, int64_t> bindings;
  std::map<std::string, std::string> boundBy;
  // Plain symbols bind (and must agree); expressions are checked after.
  for (int k = 0; k < graph.inputs_size(); ++k) {
    const v1::Input &input = graph.inputs(k);
    const auto &shape = inputShapes[k];
    if (static_cast<int>(shape.size()) != input.type().dims_size())
      return invalidArgument("input '" + input.name() + "' has rank " +
                             std::to_string(shape.size()) + ", expected " +
                             std::to_string(input.type().dims_size()));
    for (int d = 0; d < input.type().dims_size(); ++d) {
      const v1::Dim &dim = input.type().dims(d);
      if (shape[d] < 0)
        return invalidArgument(dimLabel(input, d) + " is negative");
      if (dim.kind_case() == v1::Dim::kSize && dim.size() != shape[d])
        return invalidArgument(dimLabel(input, d) + " is " +
                               std::to_string(shape[d]) + ", expected " +
                               std::to_string(dim.size()));
      if (dim.kind_case() != v1::Dim::kSymbol)
        continue;
      auto [it, inserted] = bindings.emplace(dim.symbol(), shape[d]);
      if (inserted) {
        boundBy[dim.symbol()] = dimLabel(input, d);
      } else if (it->second != shape[d]) {
        return invalidArgument(
            dimLabel(input, d) + " is " + std::to_string(shape[d]) +
            " but symbol '" + dim.symbol() + "' is " +
            std::to_string(it->second) + " from " + boundBy[dim.symbol()]);
      }
    }
  }
  GraphLimits limits;
  ShapeContext ctx = ShapeContext::concrete(limits, bindings);
  for (int k = 0; k < graph.inputs_size(); ++k) {
    const v1::Input &input = graph.inputs(k);
    for (int d = 0; d < input.type().dims_size(); ++d) {
      const v1::Dim &dim = input.type().dims(d);
      if (dim.kind_case() != v1::Dim::kExpr)
        continue;
      auto value = ctx.read(dim.expr());
      if (!value)
        return value.status().withContext(dimLabel(input, d));
      if (value->constantValue() != inputShapes[k][d])
        return invalidArgument(dimLabel(input, d) + " is " +
                               std::to_string(inputShapes[k][d]) +
                               ", expected " + value->toString());
    }
  }
  return bindings;
}

StatusOr<std::vector<std::vector<int64_t>>>
inputShapesFor(const v1::Graph &graph,
               const std::map<std::string, int64_t> &symbols,
               const GraphLimits &limits) {
  ShapeContext ctx = ShapeContext::concrete(limits, symbols);
  std::vector<std::vector<int64_t>> shapes;
  for (const v1::Input &input : graph.inputs()) {
    std::vector<int64_t> shape;
    for (int d = 0; d < input.type().dims_size(); ++d) {
      const v1::Dim &dim = input.type().dims(d);
      if (dim.kind_case() == v1::Dim::kDynamic)
        return invalidArgument(dimLabel(input, d) +
                               " is anonymous; name it to size it");
      auto value = ctx.read(dim);
      if (!value)
        return value.status().withContext(dimLabel(input, d));
      shape.push_back(*(*value)->constantValue());
    }
    SymTensorType type{input.type().dtype(), {}};
    for (int64_t d : shape)
      type.dims.push_back(SymExpr::constant(d));
    ANYSHAPE_RETURN_IF_ERROR(
        ctx.checkLimits(type).withContext("input '" + input.name() + "'"));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

namespace {

/// Binds the symbols and runs every node's shape rule on concrete sizes
/// (concreteShapes); keeps each node's shape in `nodes` when given.
StatusOr<std::map<std::string, int64_t>>
walkConcreteShapes(const v1::Graph &graph, const GraphInfo &info,
                   const std::vector<std::vector<int64_t>> &inputShapes,
                   const GraphLimits &limits,
                   std::vector<std::vector<int64_t>> *nodes,
                   std::vector<bool> *fromData) {
  ANYSHAPE_ASSIGN_OR_RETURN(auto symbols, bindSymbols(graph, inputShapes));
  ShapeContext ctx = ShapeContext::concrete(limits, symbols);
  auto typeOf = [&](const std::vector<int64_t> &shape, DType dtype) {
    SymTensorType t{dtype, {}};
    for (int64_t d : shape)
      t.dims.push_back(SymExpr::constant(d));
    return t;
  };
  std::vector<SymTensorType> inputTypes;
  for (int k = 0; k < graph.inputs_size(); ++k)
    inputTypes.push_back(
        typeOf(inputShapes[k], graph.inputs(k).type().dtype()));
  std::vector<SymTensorType> nodeTypes(graph.nodes_size());
  if (nodes)
    nodes->resize(graph.nodes_size());
  std::vector<bool> dependent(graph.nodes_size(), false);
  std::vector<const SymTensorType *> operands; // reused: no allocation
  for (int i : info.topologicalOrder) {
    const v1::Node &node = graph.nodes(i);
    operands.clear();
    bool readsData =
        info.ops[i]->opClass == OpClass::NonZero || !info.countsRead[i].empty();
    for (ValueRef v : info.operandRefs[i]) {
      readsData |= !v.isInput && dependent[v.index];
      operands.push_back(v.isInput ? &inputTypes[v.index]
                                   : &nodeTypes[v.index]);
    }
    if (readsData) { // its shape needs values: the evaluator's to infer
      dependent[i] = true;
      continue;
    }
    auto type = inferNodeType(node, *info.ops[i], operands, ctx);
    if (!type)
      return type.status().withContext(nodeLabel(node));
    for (const SymExpr &dim : type->dims)
      if (!dim.isConstant())
        return internalError(nodeLabel(node) +
                             ": concrete shape inference left symbols");
    if (nodes)
      (*nodes)[i] = *type->staticShape();
    nodeTypes[i] = std::move(*type);
  }
  if (fromData)
    *fromData = std::move(dependent);
  return symbols;
}

} // namespace

StatusOr<ConcreteShapes>
concreteShapes(const v1::Graph &graph, const GraphInfo &info,
               const std::vector<std::vector<int64_t>> &inputShapes,
               const GraphLimits &limits) {
  ConcreteShapes result;
  ANYSHAPE_ASSIGN_OR_RETURN(
      result.symbols, walkConcreteShapes(graph, info, inputShapes, limits,
                                         &result.nodes, &result.fromData));
  return result;
}

Status checkConcreteShapes(const v1::Graph &graph, const GraphInfo &info,
                           const std::vector<std::vector<int64_t>> &inputShapes,
                           const GraphLimits &limits) {
  return walkConcreteShapes(graph, info, inputShapes, limits, nullptr, nullptr)
      .status();
}

std::string describeShapeCheck(const v1::Graph &graph,
                               const ShapeCheck &check) {
  using Kind = ShapeCheck::Kind;
  std::string text;
  if (check.node >= 0)
    text = nodeLabel(graph.nodes(check.node)) + ": ";
  switch (check.kind) {
  case Kind::BindInputDim:
    return check.symbol +
           " := " + dimLabel(graph.inputs(check.input), check.dim);
  case Kind::InputDimEquals:
    return check.what + " == " + check.a.toString();
  case Kind::ElementLimit: {
    std::string dims;
    for (const SymExpr &d : check.dims)
      dims += (dims.empty() ? "" : ", ") + d.toString();
    return text + "element count of [" + dims +
           "] <= " + std::to_string(check.limit);
  }
  case Kind::DefineQuotient:
    text += check.symbol + " := (" + check.a.toString() + ") / (" +
            check.b.toString() + "): ";
    break;
  case Kind::DefinePadded:
    text += check.symbol + " := " + check.a.toString() + " padded (interior " +
            std::to_string(check.interior) + ", edges " +
            std::to_string(check.edges) + "): ";
    break;
  default:
    break;
  }
  return text + check.what;
}

Status shapeCheckError(const v1::Graph &graph, const GraphInfo &info,
                       size_t index,
                       const std::vector<std::vector<int64_t>> &inputShapes) {
  if (index >= info.shapeChecks.size())
    return internalError("shape check " + std::to_string(index) +
                         " failed, but the graph has only " +
                         std::to_string(info.shapeChecks.size()));
  const ShapeCheck &failed = info.shapeChecks[index];
  auto size = [&](int input, int dim) {
    return std::to_string(inputShapes[input][dim]);
  };
  std::string message = describeShapeCheck(graph, failed);
  if (failed.kind == ShapeCheck::Kind::InputDimEquals)
    message = failed.what + " is " + size(failed.input, failed.dim) +
              ", expected " + failed.a.toString();
  std::string sizes;
  for (const std::string &symbol : failed.symbolsRead())
    for (const ShapeCheck &bind : info.shapeChecks) {
      if (bind.kind != ShapeCheck::Kind::BindInputDim || bind.symbol != symbol)
        continue;
      std::string dim = dimLabel(graph.inputs(bind.input), bind.dim);
      sizes +=
          (sizes.empty() ? "" : ", ") +
          (isFreshSymbolName(symbol)
               ? dim + " is " + size(bind.input, bind.dim)
               : symbol + " = " + size(bind.input, bind.dim) + " from " + dim);
    }
  if (!sizes.empty())
    message += " (" + sizes + ")";
  if (failed.kind == ShapeCheck::Kind::ElementLimit)
    return resourceExhausted(message);
  return invalidArgument(message);
}

Status countCheckError(const v1::Graph &graph, const GraphInfo &info,
                       size_t index, int64_t a, int64_t b) {
  if (index >= info.countChecks.size())
    return internalError("count rule " + std::to_string(index) +
                         " failed, but the graph has only " +
                         std::to_string(info.countChecks.size()));
  const ShapeCheck &failed = info.countChecks[index];
  std::string sizes;
  for (const auto &[side, value] : {std::pair{&failed.a, a}, {&failed.b, b}})
    if (!side->constantValue())
      sizes += (sizes.empty() ? "" : " and ") + side->toString() + " is " +
               std::to_string(value);
  return invalidArgument(describeShapeCheck(graph, failed) +
                         (sizes.empty() ? "" : ", where " + sizes) +
                         " in this run");
}

} // namespace anyshape
