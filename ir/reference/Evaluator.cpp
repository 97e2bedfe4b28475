// The evaluator's driver: symbol binding, concrete shape inference per node
// (the same rules the validator and compiler use), dispatch to EvalOps, and
// freeing each intermediate after its last use.
#include "Evaluator.h"

#include "EvalOps.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/IndexCheck.h"
#include "ir/graph/ShapeInference.h"
#include "ir/graph/Validate.h"

namespace anyshape {
namespace {

using reference::ResultType;

/// A slice bound; concrete shape inference has already read and checked it.
int64_t readBound(const v1::DimExpr &expr, const ShapeContext &ctx) {
  auto v = ctx.read(expr);
  return v ? v->constantValue().value_or(0) : 0;
}

StatusOr<Literal> evalNode(const v1::Node &node,
                           const std::vector<const Literal *> &in,
                           const ResultType &type, ShapeContext &ctx,
                           const EvalOptions &options) {
  using namespace reference;
  const std::string &op = node.op();
  const OpInfo &info = *lookupOp(op);
  switch (info.opClass) {
  case OpClass::Source: {
    if (op == "iota")
      return evalIota(node.iota(), type);
    ANYSHAPE_ASSIGN_OR_RETURN(
        v1::Tensor tensor,
        materializeConstant(node.constant(), options.tensors));
    return literalFromTensor(tensor, options.limits);
  }
  case OpClass::Unary:
    return evalUnary(node, *in[0], type);
  case OpClass::Binary:
    return evalBinary(node, *in[0], *in[1], type);
  case OpClass::Select:
    return evalSelect(*in[0], *in[1], *in[2], type);
  case OpClass::Gather:
    return evalGather(node.gather().axis(), *in[0], *in[1], type);
  case OpClass::Scatter:
    return evalScatter(node.scatter(), *in[0], *in[1], *in[2]);
  case OpClass::Argsort:
    return evalArgsort(node.argsort(), *in[0]);
  case OpClass::Cumulative:
    return evalCumulative(node.cumulative(), *in[0]);
  case OpClass::Reduce:
    return evalReduce(node.reduce(), *in[0], type);
  case OpClass::DotGeneral:
    return evalDotGeneral(node.dot_general(), *in[0], *in[1], type);
  case OpClass::Convolution:
    return evalConvolution(node.convolution(), *in[0], *in[1], type);
  case OpClass::DimSize: {
    Literal out = Literal::zeros(v1::DTYPE_I64, {});
    out.i[0] = in[0]->shape[node.dim_size().dimension()];
    return out;
  }
  case OpClass::CheckIndex: {
    const v1::CheckIndexAttrs &attrs = node.check_index();
    int64_t extent = in[1]->shape[attrs.axis()];
    for (int64_t index : in[0]->i)
      if (!indexInRange(attrs.allow_negative(), index, extent))
        return indexOutOfRange(attrs, index, extent);
    return *in[0];
  }
  case OpClass::NonZero: {
    // Coordinates of the nonzero elements in row-major order, one column
    // each (NaN is nonzero, -0.0 is zero).
    const Literal &x = *in[0];
    std::vector<int64_t> hits;
    for (int64_t k = 0; k < x.numElements(); ++k)
      if (x.getDouble(k) != 0)
        hits.push_back(k);
    int64_t count = static_cast<int64_t>(hits.size());
    Literal out = Literal::zeros(v1::DTYPE_I64, {x.rank(), count});
    std::vector<int64_t> strides = stridesOf(x.shape);
    for (int64_t n = 0; n < count; ++n)
      for (int64_t d = 0; d < x.rank(); ++d)
        out.i[d * count + n] = hits[n] / strides[d] % x.shape[d];
    return out;
  }
  case OpClass::ShapeChanging:
    break;
  }
  if (op == "broadcast_in_dim")
    return evalBroadcastInDim(node.broadcast_in_dim(), *in[0], type);
  if (op == "reshape") {
    Literal out = *in[0]; // row-major data is unchanged
    out.shape = type.shape;
    return out;
  }
  if (op == "transpose")
    return evalTranspose(
        std::vector<int64_t>(node.transpose().permutation().begin(),
                             node.transpose().permutation().end()),
        *in[0]);
  if (op == "slice") {
    const v1::SliceAttrs &attrs = node.slice();
    std::vector<int64_t> starts, strides;
    for (int64_t d = 0; d < in[0]->rank(); ++d) {
      starts.push_back(readBound(attrs.start_indices(d), ctx));
      strides.push_back(attrs.strides_size() ? attrs.strides(d) : 1);
    }
    return evalSlice(starts, strides, *in[0], type);
  }
  if (op == "concatenate")
    return evalConcatenate(in, node.concatenate().dimension(), type);
  return evalPad(node.pad(), *in[0], *in[1], type);
}

/// The shape rule of `node` on its operands' concrete sizes.
StatusOr<std::vector<int64_t>>
shapeFromValues(const v1::Node &node, const OpInfo &op,
                const std::vector<const Literal *> &operands,
                ShapeContext &ctx) {
  std::vector<SymTensorType> types;
  for (const Literal *operand : operands) {
    SymTensorType type{operand->dtype, {}};
    for (int64_t d : operand->shape)
      type.dims.push_back(SymExpr::constant(d));
    types.push_back(std::move(type));
  }
  std::vector<const SymTensorType *> pointers;
  for (const SymTensorType &type : types)
    pointers.push_back(&type);
  ANYSHAPE_ASSIGN_OR_RETURN(SymTensorType type,
                            inferNodeType(node, op, pointers, ctx));
  std::optional<std::vector<int64_t>> shape = type.staticShape();
  if (!shape)
    return internalError("concrete shape inference left symbols");
  return *shape;
}

} // namespace

StatusOr<std::vector<Literal>> evaluateGraph(const v1::Graph &graph,
                                             const std::vector<Literal> &inputs,
                                             const EvalOptions &options) {
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(graph, options.limits));
  std::vector<std::vector<int64_t>> shapes;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (k < static_cast<size_t>(graph.inputs_size()) &&
        inputs[k].dtype != graph.inputs(k).type().dtype())
      return invalidArgument("input '" + graph.inputs(k).name() + "' is " +
                             dtypeName(inputs[k].dtype) + ", expected " +
                             dtypeName(graph.inputs(k).type().dtype()));
    // Literals built in C++ (not decoded from the wire) are checked too.
    const Literal &in = inputs[k];
    int64_t count = 1;
    for (int64_t d : in.shape)
      if (d < 0 || __builtin_mul_overflow(count, d, &count))
        return invalidArgument("input " + std::to_string(k) +
                               " has an invalid shape");
    if (count != static_cast<int64_t>(in.isFloat() ? in.f.size() : in.i.size()))
      return invalidArgument(
          "input " + std::to_string(k) + " holds " +
          std::to_string(in.isFloat() ? in.f.size() : in.i.size()) +
          " values for " + std::to_string(count) + " elements");
    shapes.push_back(in.shape);
  }
  // All shape rules first, with the compiler's own function: the values
  // below are then computed for shapes known to be consistent.
  ANYSHAPE_ASSIGN_OR_RETURN(
      ConcreteShapes sizes,
      concreteShapes(graph, info, shapes, options.limits));
  ShapeContext ctx = ShapeContext::concrete(options.limits, sizes.symbols);

  // Remaining uses of each node's value, so it can be freed after the last.
  std::vector<int> usesLeft(graph.nodes_size(), 0);
  for (const v1::Node &node : graph.nodes())
    for (const std::string &name : node.operands())
      if (ValueRef v = info.values.at(name); !v.isInput)
        ++usesLeft[v.index];
  for (const std::string &name : graph.outputs())
    if (ValueRef v = info.values.at(name); !v.isInput)
      ++usesLeft[v.index];

  std::vector<Literal> nodeValues(graph.nodes_size());
  auto valueOf = [&](ValueRef v) -> const Literal & {
    return v.isInput ? inputs[v.index] : nodeValues[v.index];
  };
  for (int i : info.topologicalOrder) {
    const v1::Node &node = graph.nodes(i);
    std::vector<const Literal *> operands;
    for (const std::string &name : node.operands())
      operands.push_back(&valueOf(info.values.at(name)));
    std::string label = nodeLabel(node);
    ResultType type{info.nodeTypes[i].dtype, sizes.nodes[i]};
    if (sizes.fromData[i] && info.ops[i]->opClass != OpClass::NonZero) {
      // Shaped by a nonzero's count: the rules run on the operands' sizes
      // now that their values exist.
      auto shape = shapeFromValues(node, *info.ops[i], operands, ctx);
      if (!shape)
        return shape.status().withContext(label);
      type.shape = std::move(*shape);
    }
    auto value = evalNode(node, operands, type, ctx, options);
    if (!value)
      return value.status().withContext(label);
    if (info.ops[i]->opClass == OpClass::NonZero &&
        !node.nonzero().count_symbol().empty()) // read by later attributes
      ctx.bindSize(node.nonzero().count_symbol(), value->shape[1]);
    nodeValues[i] = std::move(*value);
    for (const std::string &name : node.operands())
      if (ValueRef v = info.values.at(name);
          !v.isInput && --usesLeft[v.index] == 0)
        nodeValues[v.index] = Literal();
  }
  std::vector<Literal> outputs;
  for (const std::string &name : graph.outputs())
    outputs.push_back(valueOf(info.values.at(name)));
  return outputs;
}

} // namespace anyshape
