// Element types of the wire format: names, sizes and classes.
//
// The one place that knows how many bytes an element takes and which ops a
// dtype admits (float, integer, bool); validation, the evaluator and the
// builder all ask here.
#pragma once

#include "anyshape/v1/graph.pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace anyshape {

using v1::DType;

/// True for the six element types of the op set (not UNSPECIFIED, not an
/// unknown enum number that arrived over the wire).
bool isKnownDType(int dtype);
bool isFloatDType(DType dtype);
bool isIntegerDType(DType dtype); // i32, i64 (not bool)
/// Bytes per element; 0 for an unknown dtype.
int64_t dtypeByteSize(DType dtype);
/// "f32", "bf16", "i64", "bool", or "dtype(<number>)" for unknown ones.
std::string dtypeName(int dtype);
/// Inverse of dtypeName for known dtypes.
std::optional<DType> parseDType(std::string_view name);

} // namespace anyshape
