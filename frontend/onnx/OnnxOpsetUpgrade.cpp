// Models of opsets 9 to 12, what older exporters and many tutorials write
// (torch.onnx.export(..., opset_version=11); torch 1.x wrote 9 by
// default), are imported as opset 13. ONNX's schema history says what
// differs for the ops imported. Lists that became inputs (Squeeze's,
// Unsqueeze's and ReduceSum's axes and Split's split at 13, Pad's pads at
// 11, Slice's starts, ends and axes and TopK's k at 10) are rewritten in
// the model before any node is translated, each an int64 initializer, so
// that every reader after (the translations, known dims, mask counts) sees
// one form; so are the floats that became inputs of the data's type at 11
// (Clip's min and max, Pad's value), through a CastLike placed before the
// node (so an unnamed node's number in a later message counts the
// CastLikes before it). Scatter, renamed ScatterElements at 11, takes that
// name. Dropout's ratio, an input from 12, is dropped, as inference
// ignores it; Resize of opset 10, whose coordinate rules are its own, is
// refused. The one change of meaning left, Softmax, LogSoftmax and Hardmax
// over the input coerced to 2-D before 13, needs the input's rank and is
// taken where the node is translated (coercedAxisOp). Every other op
// imported means at 9-12 what it means at 13 for the types imported (the
// other changes add types or attributes whose defaults are the old
// meaning).
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

/// Rewrites one graph's nodes: their new inputs are initializers, or the
/// outputs of CastLike nodes placed before the node that reads them.
class Upgrade {
  using Nodes = google::protobuf::RepeatedPtrField<::onnx::NodeProto>;

public:
  Upgrade(::onnx::GraphProto &graph, int64_t opset)
      : graph_(graph), opset_(opset) {
    for (const auto &tensor : graph.initializer())
      taken_.insert(tensor.name());
    for (const auto &input : graph.input())
      taken_.insert(input.name());
    for (const auto &node : graph.node())
      taken_.insert(node.output().begin(), node.output().end());
  }

  Status run() {
    Nodes nodes;
    for (int index = 0; index < graph_.node_size(); ++index) {
      ::onnx::NodeProto &node = *graph_.mutable_node(index);
      if (node.domain().empty() || node.domain() == "ai.onnx")
        ANYSHAPE_RETURN_IF_ERROR(upgrade(node, index, nodes));
      // An If's branches are graphs of the same opset (OnnxImport.cpp
      // imports the one its condition picks).
      for (auto &attribute : *node.mutable_attribute())
        if (attribute.has_g())
          ANYSHAPE_RETURN_IF_ERROR(
              Upgrade(*attribute.mutable_g(), opset_).run());
      *nodes.Add() = std::move(node);
    }
    graph_.mutable_node()->Swap(&nodes);
    return Status::ok();
  }

private:
  /// Rewrites `node` (the graph's `index`th) in place; the nodes it now
  /// reads go to `before`.
  Status upgrade(::onnx::NodeProto &node, int index, Nodes &before) {
    const std::string &op = node.op_type();
    if (op == "Scatter") { // ScatterElements, under its name before 11
      node.set_op_type("ScatterElements");
      return Status::ok();
    }
    if (op == "Dropout") { // ratio: an attribute until 12, unused at inference
      takeAttribute(node, "ratio");
      return Status::ok();
    }
    if (op == "Resize" && opset_ < 11)
      return invalidArgument(describe(node, index) +
                             ": Resize of opset 10 (scales only, with its own "
                             "coordinate rules) is not supported; re-export "
                             "at opset 11 or later");
    std::vector<std::string> inputs = listInputs(node);
    // Clip's bounds and Pad's fill: float attributes until 11, inputs of
    // the data's own type after.
    std::vector<std::pair<std::string, std::optional<float>>> scalars;
    if (op == "Clip" && opset_ < 11)
      scalars = {{"min", std::nullopt}, {"max", std::nullopt}};
    else if (op == "Pad" && opset_ < 11)
      scalars = {{"value", 0.0f}};
    for (const auto &[name, fallback] : scalars) {
      std::optional<::onnx::AttributeProto> given = takeAttribute(node, name);
      if (!given && !fallback) {
        inputs.push_back(""); // omitted
        continue;
      }
      ::onnx::TensorProto tensor;
      tensor.set_data_type(::onnx::TensorProto::FLOAT);
      tensor.add_float_data(given ? given->f() : *fallback);
      std::string value = initializer(node, name, std::move(tensor));
      ::onnx::NodeProto &cast = *before.Add();
      cast.set_op_type("CastLike");
      cast.set_name(node.name() + "/" + name);
      cast.add_input(value);
      cast.add_input(node.input_size() ? node.input(0) : "");
      cast.add_output(fresh(value + "_cast"));
      inputs.push_back(cast.output(0));
    }
    while (!inputs.empty() && inputs.back().empty())
      inputs.pop_back();
    if (inputs.empty())
      return Status::ok();
    if (node.input_size() != 1)
      return invalidArgument(describe(node, index) + ": has " +
                             std::to_string(node.input_size()) +
                             " inputs at opset " + std::to_string(opset_) +
                             ", where it takes one");
    for (const std::string &input : inputs)
      node.add_input(input);
    return Status::ok();
  }

  /// The attribute lists of `node` that became its inputs 1, 2, ... (after
  /// the data, each op's only input before), taken off it as int64
  /// initializers; "" for one it does not give (the default).
  std::vector<std::string> listInputs(::onnx::NodeProto &node) {
    const std::string &op = node.op_type();
    std::vector<std::string> lists;
    if (op == "Squeeze" || op == "Unsqueeze" || op == "ReduceSum")
      lists = {"axes"};
    else if (op == "Split")
      lists = {"split"};
    else if (op == "Slice" && opset_ < 10)
      lists = {"starts", "ends", "axes"};
    else if (op == "TopK" && opset_ < 10)
      lists = {"k"};
    else if (op == "Pad" && opset_ < 11)
      lists = {"pads"};
    std::vector<std::string> inputs;
    for (const std::string &name : lists) {
      std::optional<::onnx::AttributeProto> list = takeAttribute(node, name);
      if (!list) {
        inputs.push_back("");
        continue;
      }
      ::onnx::TensorProto tensor;
      tensor.set_data_type(::onnx::TensorProto::INT64);
      if (name == "k") { // one number, a one-element tensor at 10
        tensor.add_dims(1);
        tensor.add_int64_data(list->i());
      } else {
        tensor.add_dims(list->ints_size());
        for (int64_t v : list->ints())
          tensor.add_int64_data(v);
      }
      inputs.push_back(initializer(node, name, std::move(tensor)));
    }
    return inputs;
  }

  /// `tensor` as a new initializer named after the node and `what`.
  std::string initializer(const ::onnx::NodeProto &node,
                          const std::string &what, ::onnx::TensorProto tensor) {
    std::string name =
        fresh((node.output_size() ? node.output(0) : node.name()) + "/" + what);
    tensor.set_name(name);
    *graph_.add_initializer() = std::move(tensor);
    return name;
  }

  /// `base`, or base_1, base_2, ...: a name the graph does not use.
  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int k = 1; taken_.count(name); ++k)
      name = base + "_" + std::to_string(k);
    taken_.insert(name);
    return name;
  }

  ::onnx::GraphProto &graph_;
  int64_t opset_;
  std::set<std::string> taken_;
};

} // namespace

Status upgradeToOpset13(::onnx::ModelProto &model, int64_t opset) {
  if (opset >= 13)
    return Status::ok();
  return Upgrade(*model.mutable_graph(), opset).run();
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
  std::optional<std::string> row =
      dimProduct(std::vector<Dim>(dims.begin() + axis, dims.end()));
  if (!row)
    return n.error("cannot size the rows from axis " + std::to_string(axis) +
                   " of " + n.b.typeString(x));
  std::vector<Dim> matrix(dims.begin(), dims.begin() + axis);
  matrix.push_back(Dim(*row));
  ANYSHAPE_ASSIGN_OR_RETURN(Value y, over(n.b.reshape(x, matrix), axis));
  return n.b.reshape(y, dims);
}

} // namespace anyshape::onnx
