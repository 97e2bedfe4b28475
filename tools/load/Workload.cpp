// Length distributions and percentiles for anyshape-load (Workload.h).
#include "Workload.h"

#include "ir/graph/DType.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace anyshape::load {

std::optional<LengthDistribution> parseDistribution(std::string_view name) {
  if (name == "uniform")
    return LengthDistribution::Uniform;
  if (name == "skewed")
    return LengthDistribution::Skewed;
  return std::nullopt;
}

const char *distributionName(LengthDistribution distribution) {
  return distribution == LengthDistribution::Uniform ? "uniform" : "skewed";
}

std::vector<int64_t> drawLengths(LengthDistribution distribution, int64_t min,
                                 int64_t max, int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  // The skewed distribution's low band: the lowest 20%, rounded up.
  int64_t lowEnd = min + std::max<int64_t>(1, (max - min + 1 + 4) / 5) - 1;
  std::vector<int64_t> lengths;
  lengths.reserve(std::max<int64_t>(0, count));
  for (int64_t k = 0; k < count; ++k) {
    if (distribution == LengthDistribution::Uniform)
      lengths.push_back(uniform(min, max));
    else if (lowEnd >= max ||
             std::uniform_real_distribution<double>()(rng) < 0.8)
      lengths.push_back(uniform(min, lowEnd));
    else
      lengths.push_back(uniform(lowEnd + 1, max));
  }
  return lengths;
}

StatusOr<std::vector<int64_t>> parseLengths(std::string_view text,
                                            int64_t maxCount) {
  std::vector<int64_t> lengths;
  size_t i = 0;
  auto separator = [](char c) {
    return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r';
  };
  while (i < text.size()) {
    if (separator(text[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    int64_t value = 0;
    for (; i < text.size() && !separator(text[i]); ++i) {
      char c = text[i];
      if (c < '0' || c > '9' || value > (INT64_MAX - 9) / 10)
        return invalidArgument("lengths: '" +
                               std::string(text.substr(start, 20)) +
                               "' is not a length (0 to 2^63 - 1)");
      value = value * 10 + (c - '0');
    }
    if (static_cast<int64_t>(lengths.size()) == maxCount)
      return resourceExhausted("lengths: more than " +
                               std::to_string(maxCount));
    lengths.push_back(value);
  }
  if (lengths.empty())
    return invalidArgument("lengths: none given");
  return lengths;
}

StatusOr<v1::Tensor> padTensor(const v1::Tensor &tensor,
                               const std::vector<int64_t> &shape) {
  int64_t rank = tensor.shape_size();
  if (rank != static_cast<int64_t>(shape.size()))
    return invalidArgument("padTensor: rank differs");
  int64_t element = dtypeByteSize(tensor.dtype());
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[d] < tensor.shape(d))
      return invalidArgument("padTensor: a dim shrinks");
    count *= shape[d];
  }
  // Copy runs of the innermost dim; everything else stays zero.
  int64_t inner = rank == 0 ? 1 : tensor.shape(rank - 1);
  int64_t runs = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    runs *= tensor.shape(d);
  v1::Tensor out;
  out.set_dtype(tensor.dtype());
  for (int64_t size : shape)
    out.add_shape(size);
  std::string bytes(static_cast<size_t>(count * element), '\0');
  std::vector<int64_t> index(static_cast<size_t>(std::max<int64_t>(rank, 1)));
  for (int64_t run = 0; run < runs; ++run) {
    // The run's index in the source, then its offset in the padded shape.
    int64_t rest = run, offset = 0, stride = 1;
    for (int64_t d = rank - 2; d >= 0; --d) {
      index[d] = rest % tensor.shape(d);
      rest /= tensor.shape(d);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += (d == rank - 1 ? 0 : index[d]) * stride;
      stride *= shape[d];
    }
    std::memcpy(bytes.data() + offset * element,
                tensor.data().data() + run * inner * element,
                static_cast<size_t>(inner * element));
  }
  out.set_data(std::move(bytes));
  return out;
}

double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * sorted.size());
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

} // namespace anyshape::load
