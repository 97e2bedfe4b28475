// The canonical fingerprint of a graph: the graph part of the compile
// cache key.
//
// 128-bit XXH3 over a canonical form: a Merkle hash of the output values
// (each node hashes its op, attributes and operands' hashes, so node order
// and node names do not matter), inputs by position with their dtype, rank
// and dims, and every symbol renamed to the order of its first use in the
// inputs (so renaming symbols consistently does not matter, while which
// dims share a symbol does). Constant bytes are hashed in place, once, at
// memory speed; seeded constants hash their parameters. Names (inputs,
// nodes, outputs) are not part of it: executables are positional. The
// service's cache key adds the input and output names (server/cache/
// CacheKey.h), which Execute maps a request through. Stable across runs,
// processes and machines: only little-endian fixed-width values are hashed.
#pragma once

#include "Validate.h"

#include <cstdint>
#include <string>

namespace anyshape {

struct Fingerprint {
  uint64_t high = 0, low = 0;
  /// 32 lowercase hex digits.
  std::string hex() const;
  bool operator==(const Fingerprint &o) const {
    return high == o.high && low == o.low;
  }
  bool operator!=(const Fingerprint &o) const { return !(*this == o); }
};

/// The fingerprint of a graph that `info` validated.
Fingerprint fingerprintGraph(const v1::Graph &graph, const GraphInfo &info);

/// Validates, then fingerprints.
StatusOr<Fingerprint> fingerprintGraph(const v1::Graph &graph,
                                       const GraphLimits &limits = {});

} // namespace anyshape
