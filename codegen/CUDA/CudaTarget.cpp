//===- CudaTarget.cpp - what CUDA code is generated for ---------*- C++ -*-===//
#include "codegen/CUDA/CudaTarget.h"

namespace anyshape::codegen {

std::optional<CudaTarget> CudaTarget::fromChip(const std::string &chip) {
  int smVersion = chip.empty() ? 0 : runtime::cuda::smVersionOf(chip);
  if (smVersion == 0)
    return std::nullopt;
  CudaTarget target;
  target.smVersion = smVersion;
  return target;
}

} // namespace anyshape::codegen
