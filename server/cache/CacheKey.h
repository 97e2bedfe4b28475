// The compile cache key: what decides whether two compile requests may
// share one executable.
//
// Key = xxh3-128 over: the wire-format schema version, the compiler build
// id (git commit, plus a timestamp when built from a modified tree) and
// the LLVM/MLIR version, the target (triple, CPU, features), the resolved
// compile settings (CompileSettings.h), and the graph's canonical fingerprint
// (ir/graph/Fingerprint.h: no node names, symbols renamed by first use) -- or,
// for an ONNX model, its bytes' hash. Concrete sizes of dynamic dims are not
// inputs of the graph, so they never enter the key.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "ir/graph/Limits.h"
#include "runtime/support/Status.h"
#include "server/CompileSettings.h"

#include <string>

namespace anyshape::server {

/// Compiler build and target, as one string: a cache entry written under
/// a different one is never loaded.
const std::string &compilerIdentity();

/// True for what compileCacheKey returns: exactly 32 lowercase hex digits.
/// Ids from clients are checked with this before they name any file.
bool isCacheKey(const std::string &text);

/// 32 lowercase hex digits; INVALID_ARGUMENT if the graph does not
/// validate. `maxElementsPerTensor` (the server's --max-elements) is in
/// the key: the generated shape checks enforce it.
StatusOr<std::string> compileCacheKey(
    const v1::Graph &graph, const CompileSettings &settings,
    int64_t maxElementsPerTensor = GraphLimits().maxElementsPerTensor);

/// The key of an ONNX model sent as bytes (CompileRequest.onnx_model):
/// the same parts, with a hash of the bytes in place of the graph's
/// fingerprint, so that a cache hit costs a hash and no import. The
/// importer is part of the compiler build id. The same model sent as an
/// imported Graph has another key (both compile to the same code).
std::string
onnxCacheKey(const std::string &modelBytes, const CompileSettings &settings,
             int64_t maxElementsPerTensor = GraphLimits().maxElementsPerTensor);

} // namespace anyshape::server
