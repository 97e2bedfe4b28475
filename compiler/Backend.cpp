//===- Backend.cpp - the backends by name -----------------------*- C++ -*-===//
#include "compiler/Backend.h"

namespace anyshape::compiler {

namespace {
constexpr KernelBackend kBackends[] = {
    KernelBackend::kCpu, KernelBackend::kCudaEmulated, KernelBackend::kCuda};
} // namespace

const char *backendName(KernelBackend backend) {
  switch (backend) {
  case KernelBackend::kCpu:
    return "cpu";
  case KernelBackend::kCudaEmulated:
    return "cuda-emulated";
  case KernelBackend::kCuda:
    return "cuda";
  }
  return "unknown";
}

std::optional<KernelBackend> parseBackend(std::string_view name) {
  for (KernelBackend backend : kBackends)
    if (name == backendName(backend))
      return backend;
  return std::nullopt;
}

std::string backendNames() {
  std::string names;
  for (KernelBackend backend : kBackends)
    names += (names.empty() ? "" : ", ") + std::string(backendName(backend));
  return names;
}

} // namespace anyshape::compiler
