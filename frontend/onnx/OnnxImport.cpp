// The model around the nodes: the opset, the graph inputs (dim_param ->
// symbol), the initializers (-> constants, their data checked against
// their shape), then every node in order (OnnxOps.cpp; an If as the
// branch its known condition picks, or, on sizes it cannot decide, the
// one the declared output ranks call for: OnnxSizeConditions.h), then
// the outputs.
#include "frontend/onnx/OnnxImport.h"
#include "frontend/onnx/OnnxOpsetUpgrade.h"
#include "frontend/onnx/OnnxSizeConditions.h"
#include "frontend/onnx/OnnxState.h"
#include "ir/graph/DType.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/Limits.h"
#include "runtime/support/Half.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace anyshape::onnx {
namespace {

/// A symbol name for `dimParam` ([A-Za-z_][A-Za-z0-9_]*): other
/// characters become '_' (PyTorch writes names like "batch_size" but also
/// "Addoutput_dim_1" or "s0 + 1").
std::string symbolFor(const std::string &dimParam) {
  std::string name;
  for (char c : dimParam)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "d_" + name;
  return name;
}

StatusOr<std::string> externalBytes(const ::onnx::TensorProto &tensor,
                                    const std::string &dataDir) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
      continue;
    }
    if (entry.key() != "offset" && entry.key() != "length")
      continue;
    // Checked, not std::stoll: a malformed number is an error, not a throw.
    std::optional<int64_t> value = dimNumber(entry.value());
    if (!value || *value < 0)
      return invalidArgument("initializer '" + tensor.name() +
                             "': external "
                             "data " +
                             entry.key() + " '" + entry.value() +
                             "' is not a byte count");
    (entry.key() == "offset" ? offset : length) = *value;
  }
  if (dataDir.empty())
    return invalidArgument("initializer '" + tensor.name() +
                           "' is stored outside the model: import the "
                           "model file, with its data beside it");
  if (location.empty() || location.find("..") != std::string::npos ||
      location[0] == '/')
    return invalidArgument("initializer '" + tensor.name() +
                           "': external data location '" + location +
                           "' is not a file name beside the model");
  std::ifstream in(dataDir + "/" + location, std::ios::binary);
  if (!in)
    return invalidArgument("initializer '" + tensor.name() +
                           "': cannot read external data file '" + location +
                           "'");
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (length < 0)
    length = size - offset;
  if (length < 0 || offset > size || length > size - offset)
    return invalidArgument("initializer '" + tensor.name() +
                           "': external data range is outside '" + location +
                           "'");
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

template <typename T, typename Field> std::string bytesOf(const Field &field) {
  std::string bytes(field.size() * sizeof(T), '\0');
  for (int i = 0; i < field.size(); ++i) {
    T value = static_cast<T>(field.Get(i));
    std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
  }
  return bytes;
}

Status importInput(ImportState &state, const ::onnx::ValueInfoProto &input) {
  const std::string what = "graph input '" + input.name() + "'";
  const auto &type = input.type();
  if (!type.has_tensor_type())
    return invalidArgument(what + " is not a tensor");
  std::optional<v1::DType> dtype = wireDType(type.tensor_type().elem_type());
  if (!dtype)
    return invalidArgument(what + ": element type " +
                           std::to_string(type.tensor_type().elem_type()) +
                           " is not supported");
  if (!type.tensor_type().has_shape())
    return invalidArgument(what + " has no shape (its rank is needed)");
  // Checked here, before a dim is built, so that the error names the
  // input rather than the first node that would read it.
  const GraphLimits limits;
  const auto &shape = type.tensor_type().shape();
  if (shape.dim_size() > limits.maxRank)
    return invalidArgument(what + " has rank " +
                           std::to_string(shape.dim_size()) + " (at most " +
                           std::to_string(limits.maxRank) + ")");
  std::vector<client::Dim> dims;
  int unnamed = 0;
  for (int d = 0; d < shape.dim_size(); ++d) {
    const auto &dim = shape.dim(d);
    std::string at = what + " dim " + std::to_string(d);
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return invalidArgument(at + " is " + std::to_string(dim.dim_value()) +
                               ": a size must be non-negative");
      dims.emplace_back(dim.dim_value());
    } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
      if (static_cast<int64_t>(dim.dim_param().size()) > limits.maxNameLength)
        return invalidArgument(at + ": dim_param of " +
                               std::to_string(dim.dim_param().size()) +
                               " characters (at most " +
                               std::to_string(limits.maxNameLength) + ")");
      dims.emplace_back(symbolFor(dim.dim_param()));
    } else { // an unnamed dynamic dim: a symbol of its own
      dims.emplace_back(symbolFor(input.name()) + "_dim" +
                        std::to_string(unnamed++));
    }
  }
  state.values[input.name()] =
      state.builder.parameter(input.name(), *dtype, dims);
  if (!state.builder.status().isOk())
    return invalidArgument(what + ": " + state.builder.status().message());
  return Status::ok();
}

/// Who defines each value so far ("graph input 'x'", "node #3 (Relu)"):
/// ONNX graphs are SSA, so a second definition of a name is an error
/// naming both, never a silent overwrite.
class Definitions {
public:
  Status define(const std::string &name, const std::string &by) {
    auto [it, fresh] = by_.emplace(name, by);
    if (!fresh)
      return invalidArgument(by + " defines '" + name + "', which " +
                             it->second +
                             " already defines (ONNX graphs define each "
                             "value once)");
    return Status::ok();
  }

private:
  std::map<std::string, std::string> by_;
};

} // namespace

std::string describe(const ::onnx::NodeProto &node, int index) {
  std::string op = " (" + node.op_type() + ")";
  if (node.name().empty())
    return "node #" + std::to_string(index) + op;
  return "node '" + node.name() + "'" + op;
}

std::string nodeNamePrefix(const ::onnx::NodeProto &node) {
  return !node.name().empty() ? node.name()
         : node.output_size() ? node.output(0)
                              : "";
}

std::optional<v1::DType> wireDType(int32_t onnxElementType) {
  switch (onnxElementType) {
  case ::onnx::TensorProto::FLOAT:
    return v1::DTYPE_F32;
  case ::onnx::TensorProto::INT32:
    return v1::DTYPE_I32;
  case ::onnx::TensorProto::INT64:
    return v1::DTYPE_I64;
  case ::onnx::TensorProto::BOOL:
    return v1::DTYPE_BOOL;
  case ::onnx::TensorProto::FLOAT16:
    return v1::DTYPE_F16;
  case ::onnx::TensorProto::BFLOAT16:
    return v1::DTYPE_BF16;
  default:
    return std::nullopt;
  }
}

StatusOr<client::Value> importTensor(ImportState &state,
                                     const ::onnx::TensorProto &tensor,
                                     const std::string &dataDir) {
  std::optional<v1::DType> dtype = wireDType(tensor.data_type());
  if (!dtype)
    return invalidArgument("tensor '" + tensor.name() + "': element type " +
                           std::to_string(tensor.data_type()) +
                           " is not supported");
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d))
      return invalidArgument("tensor '" + tensor.name() +
                             "': shape is negative or too large");
    count *= d;
  }
  std::string bytes;
  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL) {
    ANYSHAPE_ASSIGN_OR_RETURN(bytes, externalBytes(tensor, dataDir));
  } else if (tensor.has_raw_data()) {
    bytes = tensor.raw_data();
  } else if (*dtype == v1::DTYPE_F32) {
    bytes = bytesOf<float>(tensor.float_data());
  } else if (*dtype == v1::DTYPE_I64) {
    bytes = bytesOf<int64_t>(tensor.int64_data());
  } else if (*dtype == v1::DTYPE_F16 || *dtype == v1::DTYPE_BF16) {
    bytes = bytesOf<uint16_t>(tensor.int32_data()); // the bits, one each
  } else { // int32 and bool are stored in int32_data
    bytes = *dtype == v1::DTYPE_I32 ? bytesOf<int32_t>(tensor.int32_data())
                                    : bytesOf<int8_t>(tensor.int32_data());
  }
  int64_t expected = count * dtypeByteSize(*dtype);
  if (static_cast<int64_t>(bytes.size()) != expected)
    return invalidArgument(
        "tensor '" + tensor.name() + "': " + std::to_string(bytes.size()) +
        " bytes of data for " + std::to_string(count) + " elements (expected " +
        std::to_string(expected) + ")");
  if (*dtype == v1::DTYPE_I64 && count <= 64) {
    std::vector<int64_t> ints(static_cast<size_t>(count));
    if (count > 0) // an empty vector's data() may be null (UBSan, memcpy)
      std::memcpy(ints.data(), bytes.data(), bytes.size());
    state.knownInts[tensor.name()] = ints;
  }
  // int32 where ONNX allows it (CumSum's axis, as the TorchScript exporter
  // writes it): known as the same numbers.
  if (*dtype == v1::DTYPE_I32 && count <= 64) {
    std::vector<int32_t> narrow(static_cast<size_t>(count));
    if (count > 0)
      std::memcpy(narrow.data(), bytes.data(), bytes.size());
    state.knownInts[tensor.name()] =
        std::vector<int64_t>(narrow.begin(), narrow.end());
  }
  // A small bool constant is known as conditions ("1", "0"), as Equal's of
  // known dims are: an If on a constant (TorchScript writes some) picks
  // its branch at import.
  if (*dtype == v1::DTYPE_BOOL && count <= 64 && shape.size() <= 1) {
    ImportState::KnownDims conditions{{}, shape.empty()};
    for (char byte : bytes)
      conditions.dims.push_back(byte ? "1" : "0");
    state.knownDims[tensor.name()] = conditions;
  }
  // Integral float values are known too: a float Range's bounds and step
  // (knownDimsInput refuses them to the readers that need integers).
  bool half = *dtype == v1::DTYPE_F16 || *dtype == v1::DTYPE_BF16;
  if ((*dtype == v1::DTYPE_F32 || half) && count <= 64) {
    std::vector<float> floats(static_cast<size_t>(count));
    if (count > 0 && !half)
      std::memcpy(floats.data(), bytes.data(), bytes.size());
    for (int64_t k = 0; half && k < count; ++k) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * k, 2);
      floats[k] =
          *dtype == v1::DTYPE_F16 ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    std::vector<int64_t> ints;
    for (float f : floats)
      if (std::nearbyint(f) == f && std::fabs(f) < 9.0e15f)
        ints.push_back(static_cast<int64_t>(f));
    if (ints.size() == floats.size())
      state.knownInts[tensor.name()] = ints;
    state.knownFloats[tensor.name()] = std::move(floats);
  }
  return state.builder.constant(*dtype, shape, std::move(bytes));
}

namespace {

Status importNodes(ImportState &state, Definitions &definitions,
                   const ::onnx::GraphProto &graph, const std::string &dataDir);

/// `tensor` as the constant its name defines, the model's or a branch's.
Status importInitializer(ImportState &state, Definitions &definitions,
                         const ::onnx::TensorProto &tensor,
                         const std::string &dataDir) {
  ANYSHAPE_RETURN_IF_ERROR(
      definitions.define(tensor.name(), "initializer '" + tensor.name() + "'"));
  ANYSHAPE_ASSIGN_OR_RETURN(client::Value value,
                            importTensor(state, tensor, dataDir));
  state.values[tensor.name()] = value;
  return Status::ok();
}

/// An If whose condition follows from shapes, as the branch it picks: the
/// TorchScript exporter writes x.squeeze(d) of a dim it cannot see as
/// If(size(x, d) == 1, Squeeze, Identity), and the two branches differ in
/// rank, which no one graph can hold. A condition known only at run time
/// is refused, naming it.
Status importIf(ImportState &state, Definitions &definitions,
                const ::onnx::NodeProto &node, int index,
                const std::vector<client::Value> &inputs,
                const std::string &dataDir) {
  std::string self = describe(node, index);
  if (node.input_size() != 1 || !inputs[0].isValid())
    return invalidArgument(self + ": takes exactly one input, the condition");
  std::optional<ImportState::KnownDims> known =
      knownDimsOf(state, node.input(0), inputs[0]);
  bool decided = known && known->dims.size() == 1 &&
                 (known->dims[0] == "0" || known->dims[0] == "1");
  bool taken = decided && known->dims[0] == "1";
  if (!decided) {
    // Sizes the import cannot compare: one branch, the condition
    // required to pick it when the graph runs.
    std::optional<SizeCondition> condition =
        sizeConditionOf(state, node.input(0));
    if (condition && state.undecidedBranch) {
      taken = *state.undecidedBranch;
      std::string why = nodeNamePrefix(node) + " (If taken as " +
                        (taken ? "true" : "false") + " at import: its " +
                        (taken ? "then" : "else") + " branch)";
      decided = requireSizeCondition(state.builder, *condition, taken, why);
      state.builder.setNodeNamePrefix(nodeNamePrefix(node));
      state.speculated = decided;
    }
  }
  if (!decided)
    return invalidArgument(
        self + ": its condition '" + node.input(0) +
        "' is not known at import time; anyshape imports an If whose "
        "condition is a constant or follows from the shapes (sizes "
        "compared with each other or a number), as the branch it picks");
  std::string picked = taken ? "then_branch" : "else_branch";
  const ::onnx::GraphProto *branch = nullptr;
  for (const auto &attribute : node.attribute())
    if (attribute.name() == picked && attribute.has_g())
      branch = &attribute.g();
  if (!branch)
    return invalidArgument(self + ": has no " + picked);
  if (branch->output_size() != node.output_size())
    return invalidArgument(self + ": its " + picked + " has " +
                           std::to_string(branch->output_size()) +
                           " outputs for the node's " +
                           std::to_string(node.output_size()));
  if (branch->input_size() != 0)
    return invalidArgument(self + ": its " + picked +
                           " declares inputs (an If's branches take none)");
  for (const auto &tensor : branch->initializer())
    ANYSHAPE_RETURN_IF_ERROR(
        importInitializer(state, definitions, tensor, dataDir));
  ANYSHAPE_RETURN_IF_ERROR(importNodes(state, definitions, *branch, dataDir));
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string &from = branch->output(k).name();
    const std::string &to = node.output(k);
    auto value = state.values.find(from);
    if (value == state.values.end())
      return invalidArgument(self + ": " + picked + " output '" + from +
                             "' is not computed by any node");
    if (to.empty())
      continue;
    state.values[to] = value->second;
    // What shape code downstream reads of the output is what it reads
    // of the branch's.
    if (auto dims = state.knownDims.find(from); dims != state.knownDims.end())
      state.knownDims[to] = dims->second;
    if (auto ints = state.knownInts.find(from); ints != state.knownInts.end())
      state.knownInts[to] = ints->second;
    if (auto floats = state.knownFloats.find(from);
        floats != state.knownFloats.end())
      state.knownFloats[to] = floats->second;
  }
  return Status::ok();
}

/// `graph`'s initializers and nodes, in order, into `state`: the model's
/// graph, or the branch an If picks (whose nodes may read any value
/// defined before the If).
Status importNodes(ImportState &state, Definitions &definitions,
                   const ::onnx::GraphProto &graph,
                   const std::string &dataDir) {
  for (int index = 0; index < graph.node_size(); ++index) {
    const ::onnx::NodeProto &node = graph.node(index);
    std::string self = describe(node, index);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return invalidArgument(self + ": domain '" + node.domain() +
                             "' is not supported");
    std::vector<client::Value> inputs;
    for (const std::string &name : node.input()) {
      if (name.empty()) { // an omitted optional input
        inputs.emplace_back();
        continue;
      }
      auto found = state.values.find(name);
      if (found == state.values.end())
        return invalidArgument(self + ": input '" + name +
                               "' is not defined before the node (the graph "
                               "is out of order, cyclic, or names an "
                               "unknown value)");
      inputs.push_back(found->second);
    }
    for (const std::string &name : node.output())
      if (!name.empty()) { // an omitted optional output
        ANYSHAPE_RETURN_IF_ERROR(definitions.define(name, self));
        state.producers[name] = &node;
      }
    // What the node becomes is named after it (its first output where it
    // has no name), so a run-time error names the ONNX node.
    state.builder.setNodeNamePrefix(nodeNamePrefix(node));
    Status imported =
        node.op_type() == "If"
            ? importIf(state, definitions, node, index, inputs, dataDir)
            : importNode(state, node, index, inputs);
    // A builder op that failed is the cause: what the rule said after it
    // was said of placeholders (an "<invalid>" type, a rank of -1).
    if (!state.builder.status().isOk())
      return invalidArgument(self + ": " + state.builder.status().message());
    ANYSHAPE_RETURN_IF_ERROR(imported);
  }
  return Status::ok();
}

/// A model's graph as imported, and whether its outputs have the ranks
/// the model declares for them.
struct ImportedGraph {
  v1::Graph graph;
  bool ranksAsDeclared = true;
};

/// The graph of `model` (opset `opset`, upgraded), an If on sizes the
/// import cannot decide taking `undecidedBranch`; `speculated` is set if
/// one did.
StatusOr<ImportedGraph> importGraph(const ::onnx::ModelProto &model,
                                    int64_t opset,
                                    const std::string &externalDataDir,
                                    bool undecidedBranch, bool *speculated);

} // namespace

StatusOr<v1::Graph> importOnnx(const std::string &bytes,
                               const std::string &externalDataDir) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    return invalidArgument("not an ONNX model: the bytes do not parse as a "
                           "ModelProto (truncated or another format?)");
  if (!model.has_graph())
    return invalidArgument("the ONNX model has no graph");
  int64_t opset = -1;
  for (const auto &import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx")
      opset = import.version();
  if (opset < 0) {
    std::string domains;
    for (const auto &import : model.opset_import())
      domains += (domains.empty() ? "" : ", ") + import.domain() + " " +
                 std::to_string(import.version());
    return invalidArgument(
        "the ONNX model imports no opset of the default domain (ai.onnx, "
        "whose ops anyshape runs)" +
        (domains.empty() ? std::string() : "; it imports " + domains));
  }
  if (opset < kMinOpset || opset > kMaxOpset)
    return invalidArgument(
        "ONNX opset " + std::to_string(opset) + " is not supported (" +
        std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset) +
        "; re-export with e.g. torch.onnx.export(..., opset_version=17))");
  ANYSHAPE_RETURN_IF_ERROR(upgradeToOpset13(model, opset));
  // An If on sizes the import cannot decide takes its then branch, or,
  // where that gives outputs of other ranks than the graph declares (the
  // exporter traced the else branch), its else branch.
  bool speculated = false;
  StatusOr<ImportedGraph> thenBranch =
      importGraph(model, opset, externalDataDir, true, &speculated);
  if (!speculated || (thenBranch.isOk() && thenBranch->ranksAsDeclared))
    return thenBranch.isOk() ? StatusOr<v1::Graph>(std::move(thenBranch->graph))
                             : StatusOr<v1::Graph>(thenBranch.status());
  StatusOr<ImportedGraph> elseBranch =
      importGraph(model, opset, externalDataDir, false, &speculated);
  if (elseBranch.isOk() && (elseBranch->ranksAsDeclared || !thenBranch.isOk()))
    return std::move(elseBranch->graph);
  return thenBranch.isOk() ? StatusOr<v1::Graph>(std::move(thenBranch->graph))
                           : StatusOr<v1::Graph>(thenBranch.status());
}

namespace {

StatusOr<ImportedGraph> importGraph(const ::onnx::ModelProto &model,
                                    int64_t opset,
                                    const std::string &externalDataDir,
                                    bool undecidedBranch, bool *speculated) {
  const ::onnx::GraphProto &graph = model.graph();
  ImportState state(graph.name().empty() ? "onnx_model" : graph.name());
  state.opset = opset;
  state.undecidedBranch = undecidedBranch;
  // Set whatever the import comes to: a refusal after the If still took
  // a branch, and the other one may import.
  struct Report {
    const ImportState &state;
    bool *speculated;
    ~Report() { *speculated = state.speculated; }
  } report{state, speculated};

  Definitions definitions;
  std::set<std::string> initialized;
  for (const auto &tensor : graph.initializer()) {
    ANYSHAPE_RETURN_IF_ERROR(
        importInitializer(state, definitions, tensor, externalDataDir));
    initialized.insert(tensor.name());
  }
  for (const auto &input : graph.input()) {
    if (initialized.count(input.name())) // older exporters list both
      continue;
    ANYSHAPE_RETURN_IF_ERROR(
        definitions.define(input.name(), "graph input '" + input.name() + "'"));
    ANYSHAPE_RETURN_IF_ERROR(importInput(state, input));
  }

  ANYSHAPE_RETURN_IF_ERROR(
      importNodes(state, definitions, graph, externalDataDir));
  // A graph names each value once and never renames an input: an output
  // that is an input under another name, or a value an earlier output is
  // (an Identity, a Dropout at inference, a Sum of one input), is a copy,
  // a reshape to its own shape.
  std::map<int, std::string> inputs; // by value id
  std::set<int> outputs;
  bool ranksAsDeclared = true;
  for (const auto &input : graph.input())
    if (!initialized.count(input.name()))
      inputs[state.values.at(input.name()).id()] = input.name();
  for (const auto &output : graph.output()) {
    auto found = state.values.find(output.name());
    if (found == state.values.end())
      return invalidArgument("graph output '" + output.name() +
                             "' is not computed by any node");
    client::Value value = found->second;
    auto input = inputs.find(value.id());
    bool renamedInput = input != inputs.end() && input->second != output.name();
    if (renamedInput || !outputs.insert(value.id()).second)
      value = state.builder.reshape(value, state.builder.dims(value));
    outputs.insert(value.id());
    state.builder.output(value, output.name());
    const auto &declared = output.type().tensor_type();
    if (declared.has_shape() &&
        declared.shape().dim_size() != state.builder.rank(value))
      ranksAsDeclared = false;
  }
  ANYSHAPE_ASSIGN_OR_RETURN(v1::Graph built, state.builder.build());
  return ImportedGraph{std::move(built), ranksAsDeclared};
}

} // namespace

StatusOr<v1::Graph> importOnnxFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return invalidArgument("cannot read '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string dir = path.find('/') == std::string::npos
                        ? "."
                        : path.substr(0, path.rfind('/'));
  return importOnnx(bytes.str(), dir);
}

StatusOr<v1::Graph> loadModelFile(const std::string &path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0)
    return importOnnxFile(path);
  return loadGraphFile(path);
}

} // namespace anyshape::onnx
