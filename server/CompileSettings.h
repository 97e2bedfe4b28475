// A compile request's options, resolved once from the wire: the one place
// that reads CompileOptions' fields. The cache key hashes the resolved
// settings (cache/CacheKey.h) and the compile worker maps them to the
// compiler's options (worker/CompileJob.h), so the two cannot read a field
// differently, and a request the server would refuse never reaches either.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <map>
#include <string>

namespace anyshape::server {

struct CompileSettings {
  bool cuda = false; ///< TARGET_CUDA (unspecified is the CPU)
  int smVersion = 0; ///< cuda: the chip (runtime/cuda/Chips.h); else 0
  bool fuse = true;  ///< not disable_fusion
  std::map<std::string, int64_t> staticSymbols; ///< sorted by name
};

/// INVALID_ARGUMENT naming the field for an unknown target, an unknown
/// chip, or a chip without TARGET_CUDA.
StatusOr<CompileSettings> resolveCompileOptions(const v1::CompileOptions &);

} // namespace anyshape::server
