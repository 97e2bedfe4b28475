// Models of opsets 11 and 12, what older exporters and many tutorials write
// (torch.onnx.export(..., opset_version=11)), are imported as opset 13.
// ONNX's schema history says what differs: the ops whose lists became
// inputs at 13 (Squeeze's, Unsqueeze's and ReduceSum's axes, Split's
// split) are rewritten in the model before any node is translated, each
// list an int64 initializer, so that every reader after (the translations,
// known dims, mask counts) sees the one form; Dropout's ratio, an input
// from 12, is dropped, as inference ignores it. The one change of meaning,
// Softmax, LogSoftmax and Hardmax over the input coerced to 2-D before 13,
// needs the input's rank and is taken where the node is translated
// (coercedAxisOp). Every other op imported means at 11 and 12 what it
// means at 13 for the types imported (the other changes add types).
#include "frontend/onnx/OnnxOpsetUpgrade.h"

#include <set>

namespace anyshape::onnx {
namespace {

/// The attribute named `name` of `node`, removed from it; nullopt where it
/// has none.
std::optional<::onnx::AttributeProto> takeAttribute(::onnx::NodeProto &node,
                                                    const std::string &name) {
  auto *attributes = node.mutable_attribute();
  for (auto it = attributes->begin(); it != attributes->end(); ++it)
    if (it->name() == name) {
      ::onnx::AttributeProto found = *it;
      attributes->erase(it);
      return found;
    }
  return std::nullopt;
}

} // namespace

Status upgradeToOpset13(::onnx::ModelProto &model, int64_t opset) {
  if (opset >= 13)
    return Status::ok();
  ::onnx::GraphProto &graph = *model.mutable_graph();
  // Every name the graph uses, so that a new initializer takes none.
  std::set<std::string> taken;
  for (const auto &tensor : graph.initializer())
    taken.insert(tensor.name());
  for (const auto &input : graph.input())
    taken.insert(input.name());
  for (const auto &node : graph.node())
    taken.insert(node.output().begin(), node.output().end());
  // The attribute lists that become input 1 (each op's only input
  // before 13 is its data).
  static const std::map<std::string, std::string> listInputs = {
      {"Squeeze", "axes"},
      {"Unsqueeze", "axes"},
      {"ReduceSum", "axes"},
      {"Split", "split"}};
  for (::onnx::NodeProto &node : *graph.mutable_node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    if (node.op_type() == "Dropout") {
      takeAttribute(node, "ratio");
      continue;
    }
    auto list = listInputs.find(node.op_type());
    if (list == listInputs.end())
      continue;
    std::optional<::onnx::AttributeProto> attribute =
        takeAttribute(node, list->second);
    if (!attribute)
      continue; // the default: every axis, or equal parts
    if (node.input_size() != 1)
      return invalidArgument(
          "node '" + node.name() + "' (" + node.op_type() + ", opset " +
          std::to_string(opset) + ") has " + std::to_string(node.input_size()) +
          " inputs and the attribute '" + list->second + "'; it takes one");
    std::string base = (node.output_size() ? node.output(0) : node.name()) +
                       "/" + list->second;
    std::string name = base;
    for (int k = 1; taken.count(name); ++k)
      name = base + "_" + std::to_string(k);
    taken.insert(name);
    ::onnx::TensorProto &tensor = *graph.add_initializer();
    tensor.set_name(name);
    tensor.set_data_type(::onnx::TensorProto::INT64);
    tensor.add_dims(attribute->ints_size());
    for (int64_t v : attribute->ints())
      tensor.add_int64_data(v);
    node.add_input(name);
  }
  return Status::ok();
}

StatusOr<Value>
coercedAxisOp(Node &n, Value x,
              const std::function<StatusOr<Value>(Value, int64_t)> &over) {
  int64_t r = n.rank(x);
  if (n.state.opset >= 13) {
    ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(n.attrInt("axis", -1), r));
    return over(x, axis);
  }
  // Before 13: the input as a matrix whose rows are the dims from the axis
  // on (default axis 1), the op over each row; the dims before the axis
  // are kept as they are, which is the same.
  ANYSHAPE_ASSIGN_OR_RETURN(int64_t axis, n.axis(n.attrInt("axis", 1), r));
  if (axis == r - 1)
    return over(x, axis);
  std::vector<Dim> dims = n.dims(x);
  std::string row = "1";
  for (int64_t d = axis; d < r; ++d) {
    std::optional<std::string> product = arithmetic("Mul", row, dims[d].text());
    if (!product)
      return n.error("cannot size the rows from axis " + std::to_string(axis) +
                     " of " + n.b.typeString(x));
    row = *product;
  }
  std::vector<Dim> matrix(dims.begin(), dims.begin() + axis);
  matrix.push_back(Dim(row));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, over(n.b.reshape(x, matrix), axis));
  return n.b.reshape(y, dims);
}

} // namespace anyshape::onnx
