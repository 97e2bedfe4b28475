//===- CudaDriver.cpp - the CUDA driver, loaded when asked -------*- C++
//-*-===//
#include "runtime/cuda/CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace anyshape::runtime::cuda {

namespace {

using Result = int;                // CUresult; CUDA_SUCCESS is 0
constexpr Result kOutOfMemory = 2; // CUDA_ERROR_OUT_OF_MEMORY
constexpr Result kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

struct Loaded {
  Driver driver;
  std::string error; ///< why it did not load; empty when loaded
};

const Loaded &loaded() {
  static Loaded once = [] {
    Loaded l;
    Driver &d = l.driver;
    const char *override = std::getenv("ANYSHAPE_LIBCUDA");
    std::string path = override && *override ? override : "libcuda.so.1";
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      l.error = "no CUDA driver: " + path + " could not be loaded (" +
                std::string(dlerror()) + ")";
      return l;
    }
#define X(name, params)                                                        \
  d.name = reinterpret_cast<Result(*) params>(dlsym(handle, #name));           \
  if (!d.name && l.error.empty())                                              \
    l.error = "the CUDA driver " + path + " lacks " #name;
#define OPTIONAL_X(name, params)                                               \
  d.name = reinterpret_cast<Result(*) params>(dlsym(handle, #name));
#include "runtime/cuda/CudaDriverEntries.def"
#undef OPTIONAL_X
#undef X
    d.fakeEmulate = reinterpret_cast<decltype(d.fakeEmulate)>(
        dlsym(handle, "anyshapeFakeCudaEmulate"));
    if (l.error.empty() && d.cuInit(0) != 0)
      l.error = "no CUDA device: cuInit failed";
    return l;
  }();
  return once;
}

#define ANYSHAPE_CU(d, call, ...)                                              \
  do {                                                                         \
    if (Result result = (d).call(__VA_ARGS__); result != 0)                    \
      return checkCall(d, #call, result);                                      \
  } while (0)

} // namespace

StatusOr<const Driver *> loadDriver() {
  const Loaded &l = loaded();
  if (!l.error.empty())
    return Status(StatusCode::FailedPrecondition, l.error);
  return &l.driver;
}

Status checkCall(const Driver &d, const char *call, int result) {
  if (result == 0)
    return Status::ok();
  const char *name = nullptr;
  if (d.cuGetErrorName(result, &name) != 0 || !name)
    name = "unknown error";
  StatusCode code = result == kNoDevice      ? StatusCode::FailedPrecondition
                    : result == kOutOfMemory ? StatusCode::ResourceExhausted
                                             : StatusCode::Internal;
  return Status(code, std::string(call) + " failed: " + name + " (" +
                          std::to_string(result) + ")");
}

StatusOr<DeviceInfo> probeDevice(int ordinal) {
  ANYSHAPE_ASSIGN_OR_RETURN(const Driver *driver, loadDriver());
  const Driver &d = *driver;
  DeviceInfo info;
  ANYSHAPE_CU(d, cuDriverGetVersion, &info.driverVersion);
  ANYSHAPE_CU(d, cuDeviceGetCount, &info.deviceCount);
  if (ordinal < 0 || ordinal >= info.deviceCount)
    return Status(StatusCode::FailedPrecondition,
                  "no CUDA device " + std::to_string(ordinal) +
                      ": the driver "
                      "sees " +
                      std::to_string(info.deviceCount));
  int device = 0;
  ANYSHAPE_CU(d, cuDeviceGet, &device, ordinal);
  char name[256] = {};
  ANYSHAPE_CU(d, cuDeviceGetName, name, static_cast<int>(sizeof name) - 1,
              device);
  info.name = name;
  int major = 0, minor = 0;
  ANYSHAPE_CU(d, cuDeviceGetAttribute, &major, kComputeCapabilityMajor, device);
  ANYSHAPE_CU(d, cuDeviceGetAttribute, &minor, kComputeCapabilityMinor, device);
  info.smVersion = major * 10 + minor;
  size_t bytes = 0;
  ANYSHAPE_CU(d, cuDeviceTotalMem_v2, &bytes, device);
  info.memoryBytes = static_cast<int64_t>(bytes);
  return info;
}

} // namespace anyshape::runtime::cuda
