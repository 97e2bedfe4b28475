// Graph validation in five passes: names, input types, operand references,
// topological order (cycle detection), per-node shape rules (a rule left to
// run time that no sizes can satisfy is an error here); then outputs.
// Iterative throughout, so a deep or hostile graph cannot overflow the stack.
#include "Validate.h"

#include "ConstantData.h"
#include "ShapeInference.h"

#include <atomic>
#include <deque>
#include <set>

namespace anyshape {
std::string quoted(const std::string &text) {
  static const char kHex[] = "0123456789abcdef";
  constexpr size_t kMaxQuoted = 1024; // GraphLimits' default name length
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMaxQuoted)
    out += "...";
  return out;
}

std::string nodeLabel(const v1::Node &node) {
  return "node '" + quoted(node.name()) + "' (" +
         (node.op().empty() ? std::string("no op") : quoted(node.op())) + ")";
}

namespace {

/// Adds every symbol `expr` names, inside quotients and extrema too, to
/// `out`.
void collectSymbols(const v1::DimExpr &expr, std::set<std::string> &out,
                    int depth = 0) {
  if (depth > 16) // deeper nesting fails validation anyway
    return;
  for (const auto &term : expr.terms()) {
    out.insert(term.symbols().begin(), term.symbols().end());
    for (const auto &quotient : term.quotients())
      collectSymbols(quotient.dividend(), out, depth + 1);
    for (const auto &extreme : term.extrema()) {
      collectSymbols(extreme.a(), out, depth + 1);
      collectSymbols(extreme.b(), out, depth + 1);
    }
  }
}

/// The symbols a node's shape attributes name (broadcast, reshape and
/// iota shapes, slice bounds).
std::set<std::string> attributeSymbols(const v1::Node &node) {
  std::set<std::string> symbols;
  const google::protobuf::RepeatedPtrField<v1::Dim> *dims =
      node.has_broadcast_in_dim() ? &node.broadcast_in_dim().shape()
      : node.has_reshape()        ? &node.reshape().shape()
      : node.has_iota()           ? &node.iota().shape()
                                  : nullptr;
  for (int d = 0; dims && d < dims->size(); ++d) {
    if ((*dims)[d].kind_case() == v1::Dim::kSymbol)
      symbols.insert((*dims)[d].symbol());
    else if ((*dims)[d].kind_case() == v1::Dim::kExpr)
      collectSymbols((*dims)[d].expr(), symbols);
  }
  if (node.has_slice()) {
    for (const v1::DimExpr &e : node.slice().start_indices())
      collectSymbols(e, symbols);
    for (const v1::DimExpr &e : node.slice().limit_indices())
      collectSymbols(e, symbols);
  }
  return symbols;
}

Status checkName(const std::string &name, const GraphLimits &limits,
                 const std::string &what) {
  if (name.empty())
    return invalidArgument(what + " has an empty name");
  if (static_cast<int64_t>(name.size()) > limits.maxNameLength)
    return invalidArgument(what + " name is longer than " +
                           std::to_string(limits.maxNameLength) + " bytes");
  // Names go into logs, error texts and JSON: no control bytes.
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f)
      return invalidArgument(what + " name '" + quoted(name) +
                             "' has a control byte at offset " +
                             std::to_string(i));
  }
  return Status::ok();
}

/// The run-time checks of the input dims: each dim that is a symbol's
/// first appearance binds it; every other dim must equal its declared size,
/// symbol or expression. Binds come first, as an expression may name a
/// symbol that a later input binds.
void recordInputChecks(const v1::Graph &graph, GraphInfo &info) {
  std::set<std::string> bound;
  for (int k = 0; k < graph.inputs_size(); ++k)
    for (int d = 0; d < info.inputTypes[k].rank(); ++d) {
      auto symbol = info.inputTypes[k].dims[d].singleSymbol();
      if (!symbol || !bound.insert(*symbol).second)
        continue;
      ShapeCheck bind{ShapeCheck::Kind::BindInputDim};
      bind.symbol = *symbol;
      bind.input = k;
      bind.dim = d;
      info.shapeChecks.push_back(std::move(bind));
    }
  for (int k = 0; k < graph.inputs_size(); ++k)
    for (int d = 0; d < info.inputTypes[k].rank(); ++d) {
      const SymExpr &declared = info.inputTypes[k].dims[d];
      auto symbol = declared.singleSymbol();
      if (symbol && bound.erase(*symbol))
        continue; // the binding dim itself
      ShapeCheck check{ShapeCheck::Kind::InputDimEquals};
      check.a = declared;
      check.input = k;
      check.dim = d;
      check.what =
          "input '" + graph.inputs(k).name() + "' dim " + std::to_string(d);
      info.shapeChecks.push_back(std::move(check));
    }
}

} // namespace

StatusOr<SymTensorType> inputType(const v1::Input &input, ShapeContext &ctx) {
  const v1::TensorType &declared = input.type();
  if (!isKnownDType(declared.dtype()))
    return invalidArgument("unknown dtype " + dtypeName(declared.dtype()));
  if (declared.dims_size() > ctx.limits().maxRank)
    return resourceExhausted("rank " + std::to_string(declared.dims_size()) +
                             " exceeds the limit of " +
                             std::to_string(ctx.limits().maxRank));
  SymTensorType type{declared.dtype(), {}};
  for (int i = 0; i < declared.dims_size(); ++i) {
    const v1::Dim &dim = declared.dims(i);
    if (dim.kind_case() == v1::Dim::kDynamic) {
      if (!dim.dynamic())
        return invalidArgument("dim " + std::to_string(i) +
                               ": 'dynamic' must be true when set");
      type.dims.push_back(ctx.fresh());
      continue;
    }
    auto read = ctx.read(dim);
    if (!read)
      return read.status().withContext("dim " + std::to_string(i));
    type.dims.push_back(std::move(**read));
  }
  ANYSHAPE_RETURN_IF_ERROR(ctx.checkLimits(type));
  return type;
}

namespace {
std::atomic<int64_t> validations{0};
} // namespace

int64_t validationCount() { return validations.load(); }

StatusOr<GraphInfo> validateGraph(const v1::Graph &graph,
                                  const GraphLimits &limits) {
  ++validations;
  GraphInfo info;
  if (graph.inputs_size() > limits.maxInputs)
    return resourceExhausted(
        "graph has " + std::to_string(graph.inputs_size()) +
        " inputs; the limit is " + std::to_string(limits.maxInputs));
  if (graph.nodes_size() > limits.maxNodes)
    return resourceExhausted("graph has " + std::to_string(graph.nodes_size()) +
                             " nodes; the limit is " +
                             std::to_string(limits.maxNodes));

  // 1. Names are non-empty and unique across inputs and nodes.
  for (int i = 0; i < graph.inputs_size(); ++i) {
    const std::string &name = graph.inputs(i).name();
    ANYSHAPE_RETURN_IF_ERROR(
        checkName(name, limits, "input " + std::to_string(i)));
    if (!info.values.emplace(name, ValueRef{true, i}).second)
      return invalidArgument("input '" + quoted(name) + "': duplicate name");
  }
  for (int i = 0; i < graph.nodes_size(); ++i) {
    const std::string &name = graph.nodes(i).name();
    ANYSHAPE_RETURN_IF_ERROR(
        checkName(name, limits, "node " + std::to_string(i)));
    auto [it, inserted] = info.values.emplace(name, ValueRef{false, i});
    if (!inserted)
      return invalidArgument(
          nodeLabel(graph.nodes(i)) + ": duplicate name (also " +
          (it->second.isInput ? "an input"
                              : "node " + std::to_string(it->second.index)) +
          ")");
  }

  // 2. Input types. Symbols bound by plain-symbol dims may appear in
  // expressions anywhere else; collect them first.
  std::set<std::string> bound;
  for (const v1::Input &input : graph.inputs())
    for (const v1::Dim &dim : input.type().dims())
      if (dim.kind_case() == v1::Dim::kSymbol &&
          bound.insert(dim.symbol()).second)
        if (isValidSymbolName(dim.symbol()))
          info.symbols.push_back(dim.symbol());
  ShapeContext ctx = ShapeContext::symbolic(limits, bound);
  for (const v1::Input &input : graph.inputs()) {
    auto type = inputType(input, ctx);
    if (!type)
      return type.status().withContext("input '" + input.name() + "'");
    info.inputTypes.push_back(std::move(*type));
  }
  recordInputChecks(graph, info);

  // 3. Ops are known and operands resolve.
  std::vector<int> pendingOperands(graph.nodes_size(), 0);
  std::vector<std::vector<int>> users(graph.nodes_size());
  info.operandRefs.resize(graph.nodes_size());
  for (int i = 0; i < graph.nodes_size(); ++i) {
    const v1::Node &node = graph.nodes(i);
    const OpInfo *op = lookupOp(node.op());
    if (!op)
      return invalidArgument(nodeLabel(node) + ": unknown op '" +
                             quoted(node.op()) + "'");
    info.ops.push_back(op);
    if (node.operands_size() > limits.maxOperandsPerNode)
      return resourceExhausted(nodeLabel(node) + ": " +
                               std::to_string(node.operands_size()) +
                               " operands; the limit is " +
                               std::to_string(limits.maxOperandsPerNode));
    for (int k = 0; k < node.operands_size(); ++k) {
      auto it = info.values.find(node.operands(k));
      if (it == info.values.end())
        return invalidArgument(
            nodeLabel(node) + ": operand " + std::to_string(k) + " '" +
            quoted(node.operands(k)) + "' is not an input or node");
      info.operandRefs[i].push_back(it->second);
      if (!it->second.isInput) {
        ++pendingOperands[i];
        users[it->second.index].push_back(i);
      }
    }
  }

  // 3b. A node whose attributes name a nonzero's count comes after that
  // nonzero, as if it were an operand: the count is known only then.
  std::map<std::string, int> countNodes;
  for (int i = 0; i < graph.nodes_size(); ++i)
    if (graph.nodes(i).op() == "nonzero" && graph.nodes(i).has_nonzero() &&
        !graph.nodes(i).nonzero().count_symbol().empty())
      countNodes.emplace(graph.nodes(i).nonzero().count_symbol(), i);
  info.countsRead.resize(graph.nodes_size());
  for (int i = 0; !countNodes.empty() && i < graph.nodes_size(); ++i)
    for (const std::string &symbol : attributeSymbols(graph.nodes(i)))
      if (auto it = countNodes.find(symbol);
          it != countNodes.end() && it->second != i) {
        info.countsRead[i].push_back(it->second);
        ++pendingOperands[i];
        users[it->second].push_back(i);
      }

  // 4. Topological order (Kahn); whatever remains lies on or behind a cycle.
  std::deque<int> ready;
  for (int i = 0; i < graph.nodes_size(); ++i)
    if (pendingOperands[i] == 0)
      ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    info.topologicalOrder.push_back(i);
    for (int user : users[i])
      if (--pendingOperands[user] == 0)
        ready.push_back(user);
  }
  if (static_cast<int>(info.topologicalOrder.size()) != graph.nodes_size()) {
    for (int i = 0; i < graph.nodes_size(); ++i)
      if (pendingOperands[i] > 0)
        return invalidArgument(nodeLabel(graph.nodes(i)) +
                               ": is part of or depends on a cycle");
  }

  // 5. Types, in topological order.
  info.nodeTypes.resize(graph.nodes_size());
  ctx.recordChecksInto(&info.shapeChecks);
  for (int i : info.topologicalOrder) {
    const v1::Node &node = graph.nodes(i);
    ctx.setCheckNode(i);
    std::vector<const SymTensorType *> operands;
    for (ValueRef ref : info.operandRefs[i])
      operands.push_back(&info.typeOf(ref));
    size_t firstCheck = info.shapeChecks.size();
    auto type = inferNodeType(node, *info.ops[i], operands, ctx);
    if (!type)
      return type.status().withContext(nodeLabel(node));
    // A rule that no sizes satisfy would fail every call: an error now.
    for (size_t c = firstCheck; c < info.shapeChecks.size(); ++c)
      if (auto why = neverHolds(info.shapeChecks[c]))
        return invalidArgument(nodeLabel(node) + ": " +
                               info.shapeChecks[c].what +
                               ", which no sizes satisfy (" + *why + ")");
    info.nodeTypes[i] = std::move(*type);
    if (node.op() == "constant") {
      // Adds `bytes` to `total`, or says which limit the sum passes.
      auto within = [&](int64_t &total, int64_t bytes, int64_t limit,
                        const std::string &what) -> Status {
        if (__builtin_add_overflow(total, bytes, &total) || total > limit)
          return resourceExhausted(nodeLabel(node) + ": " + what +
                                   " exceed the limit of " +
                                   std::to_string(limit) + " bytes in total");
        return Status::ok();
      };
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t bytes,
                                constantByteSize(node.constant()));
      ANYSHAPE_RETURN_IF_ERROR(within(info.constantBytes, bytes,
                                      limits.maxConstantBytes, "constants"));
      ANYSHAPE_ASSIGN_OR_RETURN(int64_t embedded,
                                embeddedConstantBytes(node.constant()));
      ANYSHAPE_RETURN_IF_ERROR(within(
          info.embeddedConstantBytes, embedded, limits.maxEmbeddedConstantBytes,
          "constants compiled into the code (data, stored tensors, splats "
          "and seeded uniforms of up to " +
              std::to_string(kLargestEmbeddedGeneratedConstant) +
              " elements)"));
    }
  }

  // 5b. A data-dependent size (nonzero's count) is known only once its
  // kernel has run, and the shape checks run before the first kernel: a
  // check that only gets stricter as the size grows takes its bound
  // instead (a run the bound fails is refused, naming the check). Any
  // other condition on such a size is checked mid-run, where its node
  // runs (countChecks); one that defines a size is refused.
  const std::map<std::string, SymExpr> &counts = ctx.dataDependentBounds();
  if (!counts.empty()) {
    std::vector<ShapeCheck> beforeTheRun;
    for (ShapeCheck &check : info.shapeChecks) {
      if (std::optional<ShapeCheck> bounded =
              boundDataDependentSizes(check, counts)) {
        beforeTheRun.push_back(std::move(*bounded));
      } else if (isCondition(check.kind) && check.node >= 0) {
        info.countChecks.push_back(std::move(check));
      } else {
        return invalidArgument(
            (check.node >= 0 ? nodeLabel(graph.nodes(check.node)) + ": " : "") +
            (check.what.empty() ? "a shape condition" : check.what) +
            " defines a size from one known only at run time (the count "
            "of a nonzero), which is not supported");
      }
    }
    info.shapeChecks = std::move(beforeTheRun);
  }

  // 6. Outputs.
  if (graph.outputs_size() == 0)
    return invalidArgument("graph has no outputs");
  for (int k = 0; k < graph.outputs_size(); ++k)
    if (!info.values.count(graph.outputs(k)))
      return invalidArgument("output " + std::to_string(k) + " '" +
                             quoted(graph.outputs(k)) +
                             "' is not an input or node");
  return info;
}

} // namespace anyshape
