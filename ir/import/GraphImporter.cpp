//===- GraphImporter.cpp - wire Graph to a dhlo module ----------*- C++ -*-===//
//
// One pass over the nodes in topological order. Attributes translate one to
// one (the inverse of ir/dhlo/IR/WireNodeAdapter.cpp); constants become
// dense elements attributes, splats without materialising a buffer.
//
//===----------------------------------------------------------------------===//
#include "ir/import/GraphImporter.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ShapeCheckAttr.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/DimText.h"
#include "ir/graph/OpRegistry.h"
#include "ir/graph/Validate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <cstring>
#include <optional>
#include <set>

using namespace mlir;

namespace anyshape {
namespace {

ArrayRef<int64_t> ints(const google::protobuf::RepeatedField<int64_t> &field) {
  return ArrayRef<int64_t>(field.data(), field.size());
}

std::optional<SymExpr> toSymExpr(const v1::Dim &dim) {
  if (dim.kind_case() == v1::Dim::kSize)
    return dim.size() == -1
               ? std::nullopt
               : std::optional<SymExpr>(SymExpr::constant(dim.size()));
  if (dim.kind_case() == v1::Dim::kSymbol)
    return SymExpr::symbol(dim.symbol());
  if (dim.kind_case() != v1::Dim::kExpr)
    return std::nullopt;
  return symExprOf(dim.expr());
}

/// A #dhlo.shape for wire dims; -1 stays -1 (reshape), `dynamic` is `?`.
dhlo::ShapeAttr
shapeAttr(MLIRContext *context,
          const google::protobuf::RepeatedPtrField<v1::Dim> &dims) {
  Builder b(context);
  SmallVector<Attribute> entries;
  for (const v1::Dim &dim : dims) {
    if (dim.kind_case() == v1::Dim::kSize && dim.size() == -1)
      entries.push_back(b.getI64IntegerAttr(-1));
    else if (std::optional<SymExpr> e = toSymExpr(dim))
      entries.push_back(
          e->isConstant() ? Attribute(b.getI64IntegerAttr(*e->constantValue()))
                          : Attribute(b.getStringAttr(e->toString())));
    else
      entries.push_back(b.getUnitAttr());
  }
  return dhlo::ShapeAttr::get(context, entries);
}

dhlo::ShapeAttr
exprsAttr(MLIRContext *context,
          const google::protobuf::RepeatedPtrField<v1::DimExpr> &exprs) {
  google::protobuf::RepeatedPtrField<v1::Dim> dims;
  for (const v1::DimExpr &expr : exprs)
    *dims.Add()->mutable_expr() = expr;
  return shapeAttr(context, dims);
}

/// The node's attributes as a dhlo attribute dictionary.
SmallVector<NamedAttribute> attributesOf(const v1::Node &node, Builder &b) {
  MLIRContext *context = b.getContext();
  SmallVector<NamedAttribute> attrs;
  auto add = [&](StringRef name, Attribute value) {
    attrs.push_back(b.getNamedAttr(name, value));
  };
  switch (node.attrs_case()) {
  case v1::Node::kCompare: {
    static const char *names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    add("direction",
        b.getStringAttr(names[node.compare().direction() - v1::COMPARE_EQ]));
    break;
  }
  case v1::Node::kReduce: {
    add("kind", b.getStringAttr(reduceKindName(node.reduce().kind())));
    add("dimensions", b.getDenseI64ArrayAttr(ints(node.reduce().dimensions())));
    break;
  }
  case v1::Node::kBroadcastInDim:
    add("shape", shapeAttr(context, node.broadcast_in_dim().shape()));
    add("broadcast_dimensions",
        b.getDenseI64ArrayAttr(
            ints(node.broadcast_in_dim().broadcast_dimensions())));
    break;
  case v1::Node::kReshape:
    add("shape", shapeAttr(context, node.reshape().shape()));
    break;
  case v1::Node::kTranspose:
    add("permutation",
        b.getDenseI64ArrayAttr(ints(node.transpose().permutation())));
    break;
  case v1::Node::kSlice:
    add("start_indices", exprsAttr(context, node.slice().start_indices()));
    add("limit_indices", exprsAttr(context, node.slice().limit_indices()));
    add("strides", b.getDenseI64ArrayAttr(ints(node.slice().strides())));
    break;
  case v1::Node::kConcatenate:
    add("dimension", b.getI64IntegerAttr(node.concatenate().dimension()));
    break;
  case v1::Node::kPad:
    add("edge_padding_low",
        b.getDenseI64ArrayAttr(ints(node.pad().edge_padding_low())));
    add("edge_padding_high",
        b.getDenseI64ArrayAttr(ints(node.pad().edge_padding_high())));
    add("interior_padding",
        b.getDenseI64ArrayAttr(ints(node.pad().interior_padding())));
    break;
  case v1::Node::kGather:
    add("axis", b.getI64IntegerAttr(node.gather().axis()));
    break;
  case v1::Node::kScatter:
    add("reduction",
        b.getStringAttr(scatterReductionName(node.scatter().reduction())));
    break;
  case v1::Node::kCumulative: {
    const auto &c = node.cumulative();
    add("axis", b.getI64IntegerAttr(c.axis()));
    add("kind", b.getStringAttr(reduceKindName(c.kind())));
    add("exclusive", b.getBoolAttr(c.exclusive()));
    add("reverse", b.getBoolAttr(c.reverse()));
    break;
  }
  case v1::Node::kArgsort:
    add("axis", b.getI64IntegerAttr(node.argsort().axis()));
    add("descending", b.getBoolAttr(node.argsort().descending()));
    break;
  case v1::Node::kConvolution: {
    const auto &c = node.convolution();
    add("strides", b.getDenseI64ArrayAttr(ints(c.strides())));
    add("dilations", b.getDenseI64ArrayAttr(ints(c.dilations())));
    add("padding_low", b.getDenseI64ArrayAttr(ints(c.padding_low())));
    add("padding_high", b.getDenseI64ArrayAttr(ints(c.padding_high())));
    add("groups", b.getI64IntegerAttr(c.groups()));
    break;
  }
  case v1::Node::kDotGeneral: {
    const auto &d = node.dot_general();
    add("lhs_batch_dimensions",
        b.getDenseI64ArrayAttr(ints(d.lhs_batch_dimensions())));
    add("rhs_batch_dimensions",
        b.getDenseI64ArrayAttr(ints(d.rhs_batch_dimensions())));
    add("lhs_contracting_dimensions",
        b.getDenseI64ArrayAttr(ints(d.lhs_contracting_dimensions())));
    add("rhs_contracting_dimensions",
        b.getDenseI64ArrayAttr(ints(d.rhs_contracting_dimensions())));
    break;
  }
  case v1::Node::kDimSize:
    add("dimension", b.getI64IntegerAttr(node.dim_size().dimension()));
    break;
  case v1::Node::kIota:
    add("iota_dimension", b.getI64IntegerAttr(node.iota().iota_dimension()));
    break;
  default: // constant and convert: the value / result type says it all
    break;
  }
  return attrs;
}

/// The constant's value as a dense elements attribute of `type`.
FailureOr<ElementsAttr> constantValue(const v1::ConstantAttrs &attrs,
                                      RankedTensorType type,
                                      const TensorLookup *tensors,
                                      std::string &error) {
  if (attrs.value_case() == v1::ConstantAttrs::kSplat) {
    // Encode one element and splat it: no buffer of the full size.
    v1::ConstantAttrs one = attrs;
    one.clear_shape();
    auto scalar = materializeConstant(one, tensors);
    if (!scalar) {
      error = scalar.status().message();
      return failure();
    }
    auto data = ArrayRef<char>(scalar->data().data(), scalar->data().size());
    if (attrs.dtype() == v1::DTYPE_BOOL)
      return ElementsAttr(DenseElementsAttr::get(type, data[0] != 0));
    auto splat = DenseElementsAttr::getFromRawBuffer(
        RankedTensorType::get({}, type.getElementType()), data);
    return ElementsAttr(
        DenseElementsAttr::get(type, *splat.value_begin<Attribute>()));
  }
  auto tensor = materializeConstant(attrs, tensors);
  if (!tensor) {
    error = tensor.status().message();
    return failure();
  }
  const std::string &bytes = tensor->data();
  if (attrs.dtype() == v1::DTYPE_BOOL) {
    // MLIR packs i1 as bits; go through bools.
    SmallVector<bool> bits;
    for (char c : bytes)
      bits.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, bits));
  }
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size())));
}

/// A seeded constant too large to embed (ConstantData.h): imported as
/// dhlo.seeded_uniform, whose elements the executable generates.
bool isGeneratedAtLoad(const v1::Node &node) {
  return node.op() == "constant" && node.constant().has_seeded_uniform() &&
         isGeneratedConstant(node.constant());
}

} // namespace

void loadImportDialects(MLIRContext &context) {
  // arith and tensor: the sizes a rule on a count reads.
  context.loadDialect<dhlo::DhloDialect, func::FuncDialect, arith::ArithDialect,
                      tensor::TensorDialect>();
}

OwningOpRef<ModuleOp> importGraph(MLIRContext &context, const v1::Graph &graph,
                                  const ImportOptions &options) {
  loadImportDialects(context);
  Location graphLoc = NameLoc::get(
      StringAttr::get(&context, graph.name().empty() ? "graph" : graph.name()));
  std::optional<GraphInfo> ownInfo;
  const GraphInfo *info = options.validated;
  if (!info) {
    StatusOr<GraphInfo> validated = validateGraph(graph, options.limits);
    if (!validated) {
      emitError(graphLoc) << validated.status().message();
      return nullptr;
    }
    info = &ownInfo.emplace(std::move(*validated));
  }
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(graphLoc);
  if (!graph.name().empty())
    module->setSymName(graph.name());
  // What validation left to run time, for anyshape-shape-check-function.
  (*module)->setAttr(dhlo::kShapeChecksAttr,
                     dhlo::shapeChecksAttr(&context, info->shapeChecks));

  SmallVector<Type> argTypes;
  for (const SymTensorType &type : info->inputTypes)
    argTypes.push_back(dhlo::tensorTypeOf(&context, type));
  SmallVector<Type> resultTypes;
  for (const std::string &name : graph.outputs())
    resultTypes.push_back(
        dhlo::tensorTypeOf(&context, info->typeOf(info->values.at(name))));

  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(graphLoc, "main",
                                     b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (int k = 0; k < graph.inputs_size(); ++k) {
    func.setArgAttr(k, "dhlo.name", b.getStringAttr(graph.inputs(k).name()));
    entry->getArgument(k).setLoc(
        NameLoc::get(b.getStringAttr(graph.inputs(k).name())));
  }
  b.setInsertionPointToEnd(entry);

  std::vector<Value> nodeValues(graph.nodes_size());
  auto valueOf = [&](const std::string &name) {
    ValueRef ref = info->values.at(name);
    return ref.isInput ? Value(entry->getArgument(ref.index))
                       : nodeValues[ref.index];
  };
  // The rules on counts (GraphInfo::countChecks), each checked right after
  // the nonzero that defines the last count it reads: before anything
  // shaped by those counts runs.
  std::set<std::string> counts, countsKnown;
  for (int i = 0; i < graph.nodes_size(); ++i)
    if (graph.nodes(i).op() == "nonzero")
      if (auto count = info->nodeTypes[i].dims.at(1).singleSymbol())
        counts.insert(*count);
  std::vector<bool> checked(info->countChecks.size(), false);
  auto emitCountChecks = [&](Location loc) -> LogicalResult {
    for (size_t k = 0; k < info->countChecks.size(); ++k) {
      const ShapeCheck &check = info->countChecks[k];
      bool ready = !checked[k];
      for (const SymExpr *side : {&check.a, &check.b})
        for (const std::string &symbol : side->leafSymbols())
          ready = ready && (!counts.count(symbol) || countsKnown.count(symbol));
      if (!ready)
        continue;
      checked[k] = true;
      Operation *anchor = &entry->back();
      Value a = dhlo::materializeSymExpr(anchor, b, check.a);
      Value c = dhlo::materializeSymExpr(anchor, b, check.b);
      if (!a || !c)
        return emitError(loc)
               << "node '" << graph.nodes(check.node).name()
               << "': cannot compute " << check.what << " mid-run";
      b.create<dhlo::CheckSizesOp>(
          loc, a, c, b.getStringAttr(dhlo::shapeCheckKindName(check.kind)),
          b.getI64IntegerAttr(static_cast<int64_t>(k)));
    }
    return success();
  };
  for (int i : info->topologicalOrder) {
    const v1::Node &node = graph.nodes(i);
    Location loc = NameLoc::get(b.getStringAttr(node.name()));
    RankedTensorType type = dhlo::tensorTypeOf(&context, info->nodeTypes[i]);
    if (isGeneratedAtLoad(node)) {
      const v1::SeededUniform &su = node.constant().seeded_uniform();
      nodeValues[i] = b.create<dhlo::SeededUniformOp>(
          loc, type,
          b.getIntegerAttr(b.getIntegerType(64, /*isSigned=*/false),
                           APInt(64, su.seed())),
          b.getF64FloatAttr(su.low()), b.getF64FloatAttr(su.high()),
          /*transposed=*/nullptr);
      continue;
    }
    if (node.op() == "check_index") {
      // An assertion: the node's value is its indices, unchanged.
      const v1::CheckIndexAttrs &check = node.check_index();
      b.create<dhlo::CheckIndexOp>(
          loc, valueOf(node.operands(0)), valueOf(node.operands(1)),
          b.getI64IntegerAttr(check.axis()),
          b.getBoolAttr(check.allow_negative()), b.getI64IntegerAttr(i));
      nodeValues[i] = valueOf(node.operands(0));
      continue;
    }
    OperationState state(loc, "dhlo." + node.op());
    for (const std::string &operand : node.operands())
      state.addOperands(valueOf(operand));
    state.addTypes(type);
    state.addAttributes(attributesOf(node, b));
    if (node.op() == "constant") {
      std::string error;
      FailureOr<ElementsAttr> value =
          constantValue(node.constant(), type, options.tensors, error);
      if (failed(value)) {
        emitError(loc) << "node '" << node.name() << "' (constant): " << error;
        return nullptr;
      }
      state.addAttribute("value", *value);
    }
    nodeValues[i] = b.create(state)->getResult(0);
    if (node.op() == "nonzero") {
      if (auto count = info->nodeTypes[i].dims.at(1).singleSymbol())
        countsKnown.insert(*count);
      if (failed(emitCountChecks(loc)))
        return nullptr;
    }
  }
  if (llvm::is_contained(checked, false)) {
    emitError(graphLoc) << "a rule on a nonzero's count reads a count no "
                           "nonzero defines";
    return nullptr;
  }
  SmallVector<Value> results;
  for (const std::string &name : graph.outputs())
    results.push_back(valueOf(name));
  b.create<func::ReturnOp>(graphLoc, results);
  for (int k = 0; k < graph.outputs_size(); ++k)
    func.setResultAttr(k, "dhlo.name", b.getStringAttr(graph.outputs(k)));
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace anyshape
