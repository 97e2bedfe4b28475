// The row-independence proof of BatchAxes.h: one walk in topological
// order, each value classed from its type, then each op checked to map
// its operands' rows to its result's.
#include "ir/graph/BatchAxes.h"

#include "ir/graph/DType.h"
#include "ir/graph/DimText.h"

#include <algorithm>
#include <cstring>

namespace anyshape {
namespace {

constexpr int kShared = BatchAxes::kShared;
constexpr int kMixed = -2; // rows of several requests meet: not provable

bool mentions(const SymExpr &expr, const std::string &symbol) {
  std::vector<std::string> leaves = expr.leafSymbols();
  return std::find(leaves.begin(), leaves.end(), symbol) != leaves.end();
}

/// The value's class from its type alone: the one dim that is exactly
/// `symbol` (no other dim mentioning it), kShared, or kMixed.
int classOf(const SymTensorType &type, const std::string &symbol) {
  int axis = kShared;
  for (int d = 0; d < type.rank(); ++d) {
    if (!mentions(type.dims[d], symbol))
      continue;
    if (axis != kShared || type.dims[d].singleSymbol() != symbol)
      return kMixed;
    axis = d;
  }
  return axis;
}

bool exprMentions(const v1::DimExpr &wire, const std::string &symbol,
                  bool *isZero = nullptr) {
  std::optional<SymExpr> expr = symExprOf(wire);
  if (!expr)
    return true; // unreadable: assume the worst
  if (isZero)
    *isZero = expr->constantValue() == 0;
  return mentions(*expr, symbol);
}

class Prover {
public:
  Prover(const v1::Graph &graph, const GraphInfo &info, std::string symbol)
      : graph_(graph), info_(info), symbol_(std::move(symbol)) {}

  std::optional<BatchAxes> run(std::string *why) {
    BatchAxes axes;
    axes.symbol = symbol_;
    for (const SymTensorType &type : info_.inputTypes) {
      int axis = classOf(type, symbol_);
      if (axis == kMixed)
        return fail(why, "an input's type " + type.toString() + " uses '" +
                             symbol_ + "' other than as one dim");
      axes.inputAxes.push_back(axis);
    }
    nodeAxes_.assign(graph_.nodes_size(), kMixed);
    std::vector<bool> live = liveNodes();
    for (int index : info_.topologicalOrder) {
      if (!live[index])
        continue; // an importer's leftover no output reads
      const v1::Node &node = graph_.nodes(index);
      std::string reason;
      int axis = nodeAxis(index, reason);
      if (axis == kMixed)
        return fail(why, nodeLabel(node) + " " + reason);
      nodeAxes_[index] = axis;
    }
    for (const std::string &name : graph_.outputs())
      axes.outputAxes.push_back(axisOf(info_.values.at(name)));
    return axes;
  }

private:
  /// The nodes some output depends on.
  std::vector<bool> liveNodes() const {
    std::vector<bool> live(graph_.nodes_size(), false);
    std::vector<int> work;
    auto reach = [&](ValueRef v) {
      if (!v.isInput && !live[v.index]) {
        live[v.index] = true;
        work.push_back(v.index);
      }
    };
    for (const std::string &name : graph_.outputs())
      reach(info_.values.at(name));
    while (!work.empty()) {
      int index = work.back();
      work.pop_back();
      for (ValueRef v : info_.operandRefs[index])
        reach(v);
    }
    return live;
  }

  std::optional<BatchAxes> fail(std::string *why, const std::string &reason) {
    if (why)
      *why = "rows along '" + symbol_ + "' are not independent: " + reason;
    return std::nullopt;
  }

  int axisOf(ValueRef v) const {
    return v.isInput ? classOf(info_.inputTypes[v.index], symbol_)
                     : nodeAxes_[v.index];
  }

  /// The node's class, checked against how its op moves rows; kMixed with
  /// `reason` when it does not keep them apart.
  int nodeAxis(int index, std::string &reason) {
    const v1::Node &node = graph_.nodes(index);
    int result = classOf(info_.nodeTypes[index], symbol_);
    if (result == kMixed) {
      reason = "has type " + info_.nodeTypes[index].toString();
      return kMixed;
    }
    std::vector<int> operands;
    bool anyRows = false;
    for (ValueRef v : info_.operandRefs[index]) {
      operands.push_back(axisOf(v));
      anyRows |= operands.back() >= 0;
    }
    if (!anyRows) {
      // From shared values only: still shared, or the same row repeated.
      if (result == kShared)
        return kShared;
      if (node.op() == "broadcast_in_dim")
        return result;
      if (node.op() == "iota" && node.iota().iota_dimension() != result)
        return result;
      reason = "makes rows along '" + symbol_ + "' that differ by position";
      return kMixed;
    }
    std::optional<int> expected = mappedAxis(index, operands, result, reason);
    if (!expected)
      return kMixed;
    if (*expected != result) {
      if (reason.empty())
        reason = "moves rows along '" + symbol_ + "' where its type does not";
      return kMixed;
    }
    return result;
  }

  /// Where the op puts the rows of its operands (kShared: the result reads
  /// none of them); nullopt with `reason` where it mixes them.
  std::optional<int> mappedAxis(int index, const std::vector<int> &operands,
                                int result, std::string &reason) {
    const v1::Node &node = graph_.nodes(index);
    const std::vector<ValueRef> &refs = info_.operandRefs[index];
    auto mixes = [&](std::string text) -> std::optional<int> {
      reason = std::move(text);
      return std::nullopt;
    };
    // Ops that keep every dim where it is: each operand with rows has them
    // at the result's axis; a scalar select predicate is shared.
    auto inPlace = [&]() -> std::optional<int> {
      for (size_t k = 0; k < operands.size(); ++k) {
        bool scalar = info_.typeOf(refs[k]).rank() == 0;
        if (operands[k] != result && !(scalar && operands[k] == kShared))
          return mixes("combines values with rows along '" + symbol_ +
                       "' at different dims");
      }
      return result;
    };
    int x = operands[0];
    switch (info_.ops[index]->opClass) {
    case OpClass::Unary:
    case OpClass::Binary:
    case OpClass::Select:
      return inPlace();
    case OpClass::Cumulative:
      if (node.cumulative().axis() == x)
        return mixes("folds along '" + symbol_ + "'");
      return inPlace();
    case OpClass::Argsort:
      if (node.argsort().axis() == x)
        return mixes("sorts along '" + symbol_ + "'");
      return inPlace();
    case OpClass::CheckIndex: {
      // check_index(indices, operand): operand's dims bound the indices.
      int indices = operands[0], operand = operands[1];
      if (operand >= 0 && node.check_index().axis() == operand)
        return mixes("checks indices against '" + symbol_ + "'");
      return indices;
    }
    case OpClass::DimSize:
      if (node.dim_size().dimension() == x)
        return mixes("reads the size of '" + symbol_ + "'");
      return kShared;
    case OpClass::ShapeChanging:
      return shapeChanging(node, index, operands, result, reason);
    case OpClass::Gather: {
      int data = operands[0], indices = operands[1];
      int64_t axis = node.gather().axis();
      if (data >= 0 && indices >= 0)
        return mixes("gathers rows along '" + symbol_ +
                     "' by indices that "
                     "have rows along it too");
      if (data == axis)
        return mixes("gathers along '" + symbol_ + "'");
      if (indices >= 0)
        return static_cast<int>(axis) + indices;
      int64_t indexRank = info_.typeOf(refs[1]).rank();
      return data < axis ? data : static_cast<int>(data - 1 + indexRank);
    }
    case OpClass::Reduce: {
      const auto &dims = node.reduce().dimensions();
      if (std::find(dims.begin(), dims.end(), x) != dims.end())
        return mixes("reduces along '" + symbol_ + "'");
      return x -
             static_cast<int>(std::count_if(dims.begin(), dims.end(),
                                            [&](int64_t d) { return d < x; }));
    }
    case OpClass::DotGeneral:
      return dotGeneral(node.dot_general(), operands, refs, reason);
    case OpClass::Convolution:
      if (operands[0] != 0 || operands[1] != kShared)
        return mixes("convolves across '" + symbol_ + "'");
      return 0;
    case OpClass::Scatter: {
      int operand = operands[0], indices = operands[1], updates = operands[2];
      if (operand >= 1 && updates == operand && indices == kShared)
        return operand;
      return mixes("scatters across '" + symbol_ + "'");
    }
    case OpClass::Source:
    case OpClass::NonZero:
      break;
    }
    return mixes("mixes rows along '" + symbol_ + "'");
  }

  std::optional<int> shapeChanging(const v1::Node &node, int index,
                                   const std::vector<int> &operands, int result,
                                   std::string &reason) {
    int x = operands[0];
    const std::vector<ValueRef> &refs = info_.operandRefs[index];
    auto mixes = [&](std::string text) -> std::optional<int> {
      reason = std::move(text);
      return std::nullopt;
    };
    if (node.op() == "broadcast_in_dim") {
      return static_cast<int>(node.broadcast_in_dim().broadcast_dimensions(x));
    }
    if (node.op() == "transpose") {
      const auto &perm = node.transpose().permutation();
      auto at = std::find(perm.begin(), perm.end(), x);
      return static_cast<int>(at - perm.begin());
    }
    if (node.op() == "reshape") {
      // Rows stay rows when what comes before them is the same size.
      if (result < 0)
        return mixes("reshapes '" + symbol_ + "' into other dims");
      if (!samePrefix(info_.typeOf(refs[0]), x, info_.nodeTypes[index], result))
        return mixes("reshapes the dims before '" + symbol_ + "'");
      return result;
    }
    if (node.op() == "slice") {
      const v1::SliceAttrs &slice = node.slice();
      for (int d = 0; d < slice.start_indices_size(); ++d) {
        bool startIsZero = false;
        bool startMentions =
            exprMentions(slice.start_indices(d), symbol_, &startIsZero);
        bool limitMentions = exprMentions(slice.limit_indices(d), symbol_);
        int64_t stride = d < slice.strides_size() ? slice.strides(d) : 1;
        if (d == x ? !startIsZero || stride != 1
                   : startMentions || limitMentions)
          return mixes("slices by '" + symbol_ + "'");
      }
    }
    if (node.op() == "pad") {
      const v1::PadAttrs &pad = node.pad();
      auto at = [&](const auto &list) {
        return x < list.size() ? list.Get(x) : 0;
      };
      if (at(pad.edge_padding_low()) || at(pad.edge_padding_high()) ||
          at(pad.interior_padding()))
        return mixes("pads along '" + symbol_ + "'");
      if (operands[1] != kShared)
        return mixes("pads with a value that has rows");
      return x;
    }
    if (node.op() == "concatenate" && node.concatenate().dimension() == x)
      return mixes("concatenates along '" + symbol_ + "'");
    // slice and concatenate keep every dim in place.
    for (int operand : operands)
      if (operand != x)
        return mixes("combines values with rows along '" + symbol_ +
                     "' at different dims");
    return x;
  }

  /// True when the dims before `a` in `from` and before `b` in `to` have
  /// the same product (provably, as expressions).
  static bool samePrefix(const SymTensorType &from, int a,
                         const SymTensorType &to, int b) {
    auto product = [](const SymTensorType &t, int end) {
      std::optional<SymExpr> p = SymExpr::constant(1);
      for (int d = 0; d < end && p; ++d)
        p = SymExpr::mul(*p, t.dims[d]);
      return p;
    };
    std::optional<SymExpr> left = product(from, a), right = product(to, b);
    return left && right && *left == *right;
  }

  std::optional<int> dotGeneral(const v1::DotGeneralAttrs &dot,
                                const std::vector<int> &operands,
                                const std::vector<ValueRef> &refs,
                                std::string &reason) {
    int lhs = operands[0], rhs = operands[1];
    auto contains = [](const auto &list, int64_t v) {
      return std::find(list.begin(), list.end(), v) != list.end();
    };
    auto position = [](const auto &list, int64_t v) {
      return static_cast<int>(std::find(list.begin(), list.end(), v) -
                              list.begin());
    };
    int batch = dot.lhs_batch_dimensions_size();
    // Free dims of the result: batch dims, then lhs's, then rhs's.
    auto freeIndex = [&](const auto &batchDims, const auto &contracting,
                         int64_t dim) {
      int k = 0;
      for (int64_t d = 0; d < dim; ++d)
        if (!contains(batchDims, d) && !contains(contracting, d))
          ++k;
      return k;
    };
    if (lhs >= 0 && contains(dot.lhs_contracting_dimensions(), lhs)) {
      reason = "contracts along '" + symbol_ + "'";
      return std::nullopt;
    }
    if (rhs >= 0 && contains(dot.rhs_contracting_dimensions(), rhs)) {
      reason = "contracts along '" + symbol_ + "'";
      return std::nullopt;
    }
    bool lhsBatch = lhs >= 0 && contains(dot.lhs_batch_dimensions(), lhs);
    bool rhsBatch = rhs >= 0 && contains(dot.rhs_batch_dimensions(), rhs);
    if (lhsBatch || rhsBatch) {
      // Both sides' rows must meet pairwise at the same batch position.
      if (!lhsBatch || !rhsBatch ||
          position(dot.lhs_batch_dimensions(), lhs) !=
              position(dot.rhs_batch_dimensions(), rhs)) {
        reason = "pairs rows along '" + symbol_ + "' with other rows";
        return std::nullopt;
      }
      return position(dot.lhs_batch_dimensions(), lhs);
    }
    if (lhs >= 0 && rhs >= 0) {
      reason = "multiplies every row along '" + symbol_ + "' by every other";
      return std::nullopt;
    }
    if (lhs >= 0)
      return batch + freeIndex(dot.lhs_batch_dimensions(),
                               dot.lhs_contracting_dimensions(), lhs);
    int64_t lhsRank = info_.typeOf(refs[0]).rank();
    int lhsFree = static_cast<int>(lhsRank) - batch -
                  dot.lhs_contracting_dimensions_size();
    return batch + lhsFree +
           freeIndex(dot.rhs_batch_dimensions(),
                     dot.rhs_contracting_dimensions(), rhs);
  }

  const v1::Graph &graph_;
  const GraphInfo &info_;
  std::string symbol_;
  std::vector<int> nodeAxes_;
};

} // namespace

std::optional<BatchAxes> batchAxesAlong(const v1::Graph &graph,
                                        const GraphInfo &info,
                                        const std::string &symbol,
                                        std::string *why) {
  return Prover(graph, info, symbol).run(why);
}

std::optional<BatchAxes>
findBatchAxes(const v1::Graph &graph, const GraphInfo &info, std::string *why) {
  std::string first;
  for (const std::string &symbol : info.symbols) {
    std::string reason;
    std::optional<BatchAxes> axes =
        batchAxesAlong(graph, info, symbol, &reason);
    if (axes && std::none_of(axes->inputAxes.begin(), axes->inputAxes.end(),
                             [](int a) { return a == BatchAxes::kShared; }))
      return axes;
    if (axes)
      reason = "not every input has '" + symbol + "'";
    if (first.empty())
      first = reason;
  }
  if (why)
    *why = info.symbols.empty() ? "the graph has no named symbol" : first;
  return std::nullopt;
}

namespace {

/// A row-major tensor seen as [outer, rows, inner] around `axis`, in bytes
/// for inner.
struct RowBlocks {
  int64_t outer = 1, rows = 1, innerBytes = 1;
  RowBlocks(const v1::Tensor &t, int axis) {
    innerBytes = dtypeByteSize(t.dtype());
    for (int d = 0; d < t.shape_size(); ++d) {
      if (d < axis)
        outer *= t.shape(d);
      else if (d == axis)
        rows = t.shape(d);
      else
        innerBytes *= t.shape(d);
    }
  }
};

} // namespace

v1::Tensor joinRows(const std::vector<const v1::Tensor *> &parts, int axis) {
  v1::Tensor joined;
  joined.set_dtype(parts.front()->dtype());
  *joined.mutable_shape() = parts.front()->shape();
  int64_t total = 0;
  for (const v1::Tensor *part : parts)
    total += part->shape(axis);
  joined.set_shape(axis, total);
  RowBlocks whole(joined, axis);
  std::string &data = *joined.mutable_data();
  data.resize(static_cast<size_t>(whole.outer * whole.rows * whole.innerBytes));
  int64_t rowsBefore = 0;
  for (const v1::Tensor *part : parts) {
    RowBlocks block(*part, axis);
    int64_t bytes = block.rows * block.innerBytes;
    for (int64_t o = 0; o < block.outer; ++o)
      std::memcpy(&data[(o * whole.rows + rowsBefore) * whole.innerBytes],
                  part->data().data() + o * bytes, bytes);
    rowsBefore += block.rows;
  }
  return joined;
}

std::vector<v1::Tensor> splitRows(const v1::Tensor &joined, int axis,
                                  const std::vector<int64_t> &rows) {
  if (axis == BatchAxes::kShared)
    return std::vector<v1::Tensor>(rows.size(), joined);
  RowBlocks whole(joined, axis);
  std::vector<v1::Tensor> parts;
  int64_t rowsBefore = 0;
  for (int64_t count : rows) {
    v1::Tensor &part = parts.emplace_back();
    part.set_dtype(joined.dtype());
    *part.mutable_shape() = joined.shape();
    part.set_shape(axis, count);
    int64_t bytes = count * whole.innerBytes;
    std::string &data = *part.mutable_data();
    data.resize(static_cast<size_t>(whole.outer * bytes));
    for (int64_t o = 0; o < whole.outer; ++o)
      std::memcpy(&data[o * bytes],
                  joined.data().data() +
                      (o * whole.rows + rowsBefore) * whole.innerBytes,
                  bytes);
    rowsBefore += count;
  }
  return parts;
}

} // namespace anyshape
