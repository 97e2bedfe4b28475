// One compile for the cache: the compile side of the service, linked by
// anyshape-compile-worker (WorkerMain.h) and never by anyshape-server.
//
// compileForCache is the single compile routine of the service: the wire
// options resolved (CompileSettings.h, as the cache key resolves them) and
// mapped to the compiler's, the compile to object code, and the
// ExecutableInfo. The server links the result with loadStored
// (CompileCache.h), the path an entry from a cache tier takes too.
#pragma once

#include "anyshape/v1/worker.pb.h"
#include "compiler/Compiler.h"
#include "ir/graph/ConstantData.h"
#include "server/CompileSettings.h"
#include "server/cache/CompileCache.h"

#include <string>

namespace anyshape::server {

/// The compiler's options for a request's resolved settings, under the
/// server's limits.
compiler::CompileOptions compileOptionsFor(const CompileSettings &settings,
                                           const TensorLookup *tensors,
                                           const GraphLimits &limits = {});

/// Compiles `request` in this process into what a cache tier stores under
/// `key`: the object code is not linked here (the server links it, as it
/// does an entry from the disk).
StatusOr<StoredExecutable> compileForCache(const v1::CompileRequest &request,
                                           const std::string &key,
                                           const TensorLookup *tensors,
                                           const GraphLimits &limits,
                                           compiler::CompileReport *report);

} // namespace anyshape::server
