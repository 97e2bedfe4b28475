//===- Chips.h - the CUDA chips anyshape compiles for -----------*- C++ -*-===//
//
// The one owner of which chips a CUDA compile may target, their names on
// the wire and the command line, and the default: the server validates a
// request's cuda_arch and keys its cache by it, the CLI parses --chip, and
// codegen's CudaTarget takes the SM version. Plain constants, no MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace anyshape::runtime::cuda {

struct Chip {
  int smVersion;       ///< compute capability x 10
  const char *name;    ///< as the wire and --chip spell it
  const char *devices; ///< for help text
};

inline constexpr Chip kChips[] = {{80, "sm_80", "A100"},
                                  {90, "sm_90", "H100, H200"}};
/// What an empty cuda_arch, and the CLI without --chip, compile for.
inline constexpr int kDefaultSmVersion = 90;

/// The SM version of "sm_80" or "sm_90" (also "80", "90"), the default's
/// for an empty name, and 0 for any other chip.
inline int smVersionOf(std::string_view name) {
  if (name.empty())
    return kDefaultSmVersion;
  std::string_view digits = name.substr(0, 3) == "sm_" ? name.substr(3) : name;
  for (const Chip &chip : kChips)
    if (digits == std::string_view(chip.name).substr(3))
      return chip.smVersion;
  return 0;
}

/// "sm_90" for 90.
inline std::string chipName(int smVersion) {
  return "sm_" + std::to_string(smVersion);
}

/// "sm_80, sm_90": for errors that list what is accepted.
inline std::string chipList() {
  std::string list;
  for (const Chip &chip : kChips)
    list += (list.empty() ? "" : ", ") + std::string(chip.name);
  return list;
}

} // namespace anyshape::runtime::cuda
