// A fake libcuda.so.1 for tests: the runtime loads it through the same
// dlopen table as the real driver (ANYSHAPE_LIBCUDA names it) and it
// answers like one H200. Every call is appended, one name per line, to
// the file $FAKE_CUDA_LOG when set, so a test can check what was called.
// $FAKE_CUDA_DEVICES sets how many devices it reports (default 1).
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;
constexpr int kNotInitialized = 3;
constexpr int kNoDevice = 100;
constexpr int kInvalidDevice = 101;

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

} // namespace

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
  case kSuccess:
    *name = "CUDA_SUCCESS";
    return kSuccess;
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case kNotInitialized:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    return kSuccess;
  case kNoDevice:
    *name = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case kInvalidDevice:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

} // extern "C"
