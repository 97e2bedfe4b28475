// What the ONNX importer carries from node to node (OnnxImport.cpp reads
// the model into it; OnnxOps.cpp translates one node at a time).
#pragma once

#include "anyshape/client/GraphBuilder.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace anyshape::onnx {

struct ImportState {
  client::GraphBuilder builder;
  /// Every ONNX value defined so far, by name.
  std::map<std::string, client::Value> values;
  /// The elements of small int64 tensors known at import time
  /// (initializers and Constant outputs): Reshape's shape, the axes
  /// inputs of Unsqueeze, Squeeze and ReduceSum.
  std::map<std::string, std::vector<int64_t>> knownInts;
  /// Int64 tensors of rank 0 or 1 whose elements are known as dims
  /// ("batch", "seq + 1", "8"), though not as numbers: what Shape makes,
  /// and what Gather, Unsqueeze, Concat and arithmetic make of it
  /// (OnnxShapeOps.cpp). Reshape, Expand, ConstantOfShape, Range and
  /// Slice read their shapes from here, so an exported model's shape
  /// computations become dim expressions and the graph stays symbolic.
  struct KnownDims {
    std::vector<std::string> dims;
    bool scalar = false;
  };
  std::map<std::string, KnownDims> knownDims;
  /// Int64 matrices of dims, [dims.size() / columns, columns] row-major:
  /// TorchScript's F.pad builds its pads as [n, 2], reverses the rows and
  /// flattens them (OnnxKnownDims.cpp); no op reads a shape from these.
  struct KnownMatrix {
    std::vector<std::string> dims;
    int64_t columns = 1;
  };
  std::map<std::string, KnownMatrix> knownMatrices;
  /// The elements of small f32 tensors known at import time (Resize's
  /// scales).
  std::map<std::string, std::vector<float>> knownFloats;
  /// The node that defines each value (none for inputs and
  /// initializers), pointing into the model being imported.
  std::map<std::string, const ::onnx::NodeProto *> producers;
  /// The coordinates of each value's nonzero elements, once found
  /// (OnnxMaskCounts.cpp), so that one mask has one count.
  std::map<std::string, client::Value> nonzeros;
  /// ConstantOfShape's outputs, by whether their one value is nonzero:
  /// the coordinates of their nonzero elements are known without a count
  /// (opsets 9 and 10 write arange(n) as NonZero(ConstantOfShape([n], 1))).
  std::map<std::string, bool> uniformFills;
  int64_t opset = 0;
  /// The branch an If takes where its condition is on sizes the import
  /// cannot decide (OnnxSizeConditions.h): true the then branch; unset,
  /// such an If is refused. `speculated` records that one was taken.
  std::optional<bool> undecidedBranch;
  bool speculated = false;

  explicit ImportState(const std::string &name) : builder(name) {}
};

/// "node 'name' (Op)", or "node #index (Op)" for a node without a name
/// (ONNX allows them; exporters emit them): how every error names a node,
/// `index` being its position in the graph.
std::string describe(const ::onnx::NodeProto &node, int index);

/// What the wire nodes `node` becomes are named after (the builder's
/// node name prefix): its name, or its first output where it has none.
std::string nodeNamePrefix(const ::onnx::NodeProto &node);

/// Translates `node` (its inputs already defined; "" for an omitted
/// optional input gives an invalid Value) into `state`, defining its
/// outputs. An op or attribute not supported is an error naming it.
Status importNode(ImportState &state, const ::onnx::NodeProto &node, int index,
                  const std::vector<client::Value> &inputs);

/// What int64 tensor `name` (the value `value`) is known to hold as dims:
/// its elements if it is a small constant (knownInts), else what
/// knownDims records; nullopt if neither.
std::optional<ImportState::KnownDims> knownDimsOf(const ImportState &state,
                                                  const std::string &name,
                                                  client::Value value);

/// A dim text that is an integer ("8", "-1") as its number; nullopt for
/// a symbolic one ("seq", "batch*seq").
std::optional<int64_t> dimNumber(const std::string &text);

/// Records what `node`'s outputs are known to hold as dims, from what its
/// inputs are known to hold (after the node is translated).
void propagateKnownDims(ImportState &state, const ::onnx::NodeProto &node,
                        const std::vector<client::Value> &inputs);

/// The wire dtype of an ONNX element type, or nullopt.
std::optional<v1::DType> wireDType(int32_t onnxElementType);

/// A constant with `tensor`'s data (raw_data or the typed fields),
/// checked against its shape; external data is read from `dataDir`.
StatusOr<client::Value> importTensor(ImportState &state,
                                     const ::onnx::TensorProto &tensor,
                                     const std::string &dataDir);

} // namespace anyshape::onnx
