// Opsets 9 to 12 imported as opset 13 (OnnxOpsetUpgrade.cpp says how).
#pragma once

#include "frontend/onnx/OnnxNode.h"

#include <functional>

namespace anyshape::onnx {

/// Rewrites the nodes of `model`, of default-domain `opset`, whose opset-13
/// form takes an attribute list as an input (nothing at 13 and later).
Status upgradeToOpset13(::onnx::ModelProto &model, int64_t opset);

/// `over(x, axis)` for Softmax, LogSoftmax and Hardmax: at opset 13 and
/// later over the node's axis (default -1); before, over the input coerced
/// to rows of the dims from its axis on (default 1).
StatusOr<Value>
coercedAxisOp(Node &n, Value x,
              const std::function<StatusOr<Value>(Value, int64_t)> &over);

} // namespace anyshape::onnx
