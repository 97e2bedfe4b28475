// What a check_index node (graph.proto) checks and the error it fails
// with: one definition for the reference evaluator and the executables,
// which report the same message for the same index.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <cstdint>

namespace anyshape {

/// Whether `index` is in range for an axis of size `extent`: [-extent,
/// extent) when negative indices count from the end, else [0, extent).
inline bool indexInRange(bool allowNegative, int64_t index, int64_t extent) {
  return index < extent && index >= (allowNegative ? -extent : 0);
}

/// The INVALID_ARGUMENT of a check_index whose `index` is out of range.
Status indexOutOfRange(const v1::CheckIndexAttrs &attrs, int64_t index,
                       int64_t extent);

} // namespace anyshape
