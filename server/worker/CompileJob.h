// One compile for the cache, and how it travels to a compile worker.
//
// compileForCache is the single compile routine of the service: the wire
// options mapped to the compiler's (the same fields the cache key hashes),
// the compile to object code, and the ExecutableInfo. A compile worker runs
// it (WorkerMain.h); so does the server itself when compiling in process.
// Either way the server links the result with loadStored (CompileCache.h), the
// path an entry from a cache tier takes too. The framing helpers read and write
// worker.proto's messages on pipes: a u64 little-endian byte count, then the
// bytes.
#pragma once

#include "anyshape/v1/worker.pb.h"
#include "ir/graph/ConstantData.h"
#include "jit/Compiler.h"
#include "server/cache/CompileCache.h"

#include <string>

namespace anyshape::server {

/// A CUDA compile's chip (CompileOptions.cuda_arch: "sm_80", "sm_90", or
/// empty for sm_90) as CudaTarget::smVersion; 0 for anything else.
int cudaSmVersion(const v1::CompileOptions &options);

/// The compiler's options for a request's wire options, under the
/// server's limits.
jit::CompileOptions compileOptionsFor(const v1::CompileOptions &options,
                                      const TensorLookup *tensors,
                                      const GraphLimits &limits = {});

/// Compiles `request` in this process into what a cache tier stores under
/// `key`: the object code is not linked here (the server links it, as it
/// does an entry from the disk).
StatusOr<StoredExecutable> compileForCache(const v1::CompileRequest &request,
                                           const std::string &key,
                                           const TensorLookup *tensors,
                                           const GraphLimits &limits,
                                           jit::CompileReport *report);

/// The stored tensors the graph's constants reference, each once, in
/// order of first use.
std::vector<std::string> storedTensorIds(const v1::Graph &graph);

/// Appends one framed message to `out` (written with server/Io.h's
/// writeAll).
void appendFramed(const google::protobuf::Message &message, std::string &out);
/// Reads one framed message from a blocking `fd` (at most `maxBytes`).
Status readFramed(int fd, google::protobuf::Message &message,
                  uint64_t maxBytes);

} // namespace anyshape::server
