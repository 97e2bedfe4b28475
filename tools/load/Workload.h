// The load generator's arithmetic, apart from its network code so it can be
// tested alone: which sequence lengths the requests use, a bucket's padded
// inputs, and the latency percentiles reported.
#pragma once

#include "anyshape/v1/graph.pb.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace anyshape::load {

enum class LengthDistribution {
  /// Every length in [min, max] equally likely.
  Uniform,
  /// Short requests dominate, as in chat and search traffic: 80% of draws
  /// are uniform over the lowest 20% of [min, max] (at least one length),
  /// the other 20% uniform over the rest.
  Skewed,
};

std::optional<LengthDistribution> parseDistribution(std::string_view name);
const char *distributionName(LengthDistribution distribution);

/// `count` lengths in [min, max] (min <= max), the same for the same seed.
/// Drawn up front, so which request gets which length does not depend on
/// how the client threads interleave.
std::vector<int64_t> drawLengths(LengthDistribution distribution, int64_t min,
                                 int64_t max, int64_t count, uint64_t seed);

/// A trace written out: lengths >= 0 separated by whitespace or commas
/// (a `--lengths` file). At least one; at most `maxCount`.
StatusOr<std::vector<int64_t>> parseLengths(std::string_view text,
                                            int64_t maxCount);

/// `tensor` zero-padded at the end of each dim to `shape` (each dim at
/// least the tensor's): the inputs of a bucket's executable.
StatusOr<v1::Tensor> padTensor(const v1::Tensor &tensor,
                               const std::vector<int64_t> &shape);

/// The nearest-rank percentile (p in [0, 100]) of `values`, which must be
/// sorted ascending; 0 when empty.
double percentile(const std::vector<double> &sorted, double p);

} // namespace anyshape::load
