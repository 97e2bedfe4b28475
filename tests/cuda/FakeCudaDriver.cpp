// A fake libcuda.so.1 for tests: the runtime loads it through the same
// dlopen table as the real driver (ANYSHAPE_LIBCUDA names it) and it
// answers like one H200. Every call is appended, one name per line, to
// the file $FAKE_CUDA_LOG when set, so a test can check what was called.
// $FAKE_CUDA_DEVICES sets how many devices it reports (default 1). This
// file is the device probe; FakeCudaExecution.cpp the rest.
#include "FakeCuda.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fake_cuda {

bool initialised = false;

void record(const char *call) {
  if (const char *path = std::getenv("FAKE_CUDA_LOG"))
    if (FILE *log = std::fopen(path, "a")) {
      std::fprintf(log, "%s\n", call);
      std::fclose(log);
    }
}

int devices() {
  const char *count = std::getenv("FAKE_CUDA_DEVICES");
  return count ? std::atoi(count) : 1;
}

int checkDevice(int device) {
  if (!initialised)
    return kNotInitialized;
  return device >= 0 && device < devices() ? kSuccess : kInvalidDevice;
}

} // namespace fake_cuda

using namespace fake_cuda;

extern "C" {

int cuInit(unsigned int flags) {
  record("cuInit");
  if (flags != 0)
    return kInvalidValue;
  initialised = true;
  return devices() > 0 ? kSuccess : kNoDevice;
}

int cuDriverGetVersion(int *version) {
  record("cuDriverGetVersion");
  *version = 13000;
  return kSuccess;
}

int cuDeviceGetCount(int *count) {
  record("cuDeviceGetCount");
  if (!initialised)
    return kNotInitialized;
  *count = devices();
  return kSuccess;
}

int cuDeviceGet(int *device, int ordinal) {
  record("cuDeviceGet");
  if (int error = checkDevice(ordinal))
    return error;
  *device = ordinal;
  return kSuccess;
}

int cuDeviceGetName(char *name, int length, int device) {
  record("cuDeviceGetName");
  if (int error = checkDevice(device))
    return error;
  std::snprintf(name, length, "anyshape fake H200");
  return kSuccess;
}

int cuDeviceGetAttribute(int *value, int attribute, int device) {
  record("cuDeviceGetAttribute");
  if (int error = checkDevice(device))
    return error;
  switch (attribute) {
  case 75: // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    *value = 9;
    return kSuccess;
  case 76: // ..._MINOR
    *value = 0;
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

int cuDeviceTotalMem_v2(size_t *bytes, int device) {
  record("cuDeviceTotalMem_v2");
  if (int error = checkDevice(device))
    return error;
  *bytes = size_t{141} << 30;
  return kSuccess;
}

int cuGetErrorName(int error, const char **name) {
  switch (error) {
#define ERROR(value, text)                                                     \
  case value:                                                                  \
    *name = text;                                                              \
    return kSuccess;
    ERROR(kSuccess, "CUDA_SUCCESS")
    ERROR(kInvalidValue, "CUDA_ERROR_INVALID_VALUE")
    ERROR(kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY")
    ERROR(kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED")
    ERROR(kNoDevice, "CUDA_ERROR_NO_DEVICE")
    ERROR(kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE")
    ERROR(kInvalidImage, "CUDA_ERROR_INVALID_IMAGE")
    ERROR(kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT")
    ERROR(kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE")
    ERROR(kNotFound, "CUDA_ERROR_NOT_FOUND")
    ERROR(kLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
#undef ERROR
  default:
    return kInvalidValue;
  }
}

} // extern "C"
