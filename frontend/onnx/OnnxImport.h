// ONNX models in: an ONNX ModelProto (ONNX's own schema, Debian's
// libonnx-dev) becomes the wire Graph every other entry point takes, built
// through client::GraphBuilder so that the shape rules, numpy broadcasting
// and validation are the SDK's own. Dynamic dims stay symbolic: a
// `dim_param` becomes the symbol of that name, an unnamed dynamic dim a
// fresh one, so the imported graph compiles once for every size.
//
// Bad input is an error naming what is wrong, never a crash: bytes that are
// no model, an opset outside 9-28, an op or attribute this importer does
// not translate (naming the node and the op), an input used before it is
// defined (a graph out of order or cyclic), an initializer whose data does
// not match its shape.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <string>

namespace anyshape::onnx {

/// The opsets imported: what PyTorch's exporters emit (9 to 12 as 13,
/// OnnxOpsetUpgrade.cpp), and ONNX's newest. Of the ops translated, 24 to
/// 28 change the meaning of Attention (nonpad_kv_seqlen, windows), Range
/// (half precision computed in f32) and Mod (float fmod = 0), each taken
/// or refused where it is translated; new attributes are refused by name
/// where not read, and the other changes add element types.
constexpr int64_t kMinOpset = 9;
constexpr int64_t kMaxOpset = 28;

/// `bytes` (a serialised ModelProto) as a validated wire Graph.
/// `externalDataDir` is where tensors stored outside the model live (the
/// model file's directory); empty: external data is an error.
StatusOr<v1::Graph> importOnnx(const std::string &bytes,
                               const std::string &externalDataDir = "");

/// Reads and imports the model at `path` (external data beside it).
StatusOr<v1::Graph> importOnnxFile(const std::string &path);

/// The graph in `path`, whatever a tool is given: an ONNX model (`.onnx`,
/// imported with its dim_params as symbols), graph text (`.pbtxt`,
/// `.txt`) or a binary anyshape.v1.Graph.
StatusOr<v1::Graph> loadModelFile(const std::string &path);

} // namespace anyshape::onnx
