//===- CudaTarget.cpp - what CUDA code is generated for ---------*- C++ -*-===//
#include "codegen/CUDA/CudaTarget.h"

namespace anyshape::codegen {

std::optional<CudaTarget> CudaTarget::fromChip(const std::string &chip) {
  std::string digits = chip.rfind("sm_", 0) == 0 ? chip.substr(3) : chip;
  CudaTarget target;
  if (digits == "80")
    target.smVersion = 80;
  else if (digits == "90")
    target.smVersion = 90;
  else
    return std::nullopt;
  return target;
}

} // namespace anyshape::codegen
