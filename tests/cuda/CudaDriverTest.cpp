// The CUDA driver table against a fake libcuda.so.1 (FakeCudaDriver.cpp)
// and against none. The driver loads once per process, so ctest runs this
// binary once per environment, each run filtered to its tests
// (tests/cuda/CMakeLists.txt).
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/CublasLt.h"
#include "runtime/cuda/Toolkit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace anyshape;

namespace {

/// The fake driver's log starts empty in each run (it appends), before any
/// test loads the driver.
const bool logCleared = [] {
  if (const char *path = std::getenv("FAKE_CUDA_LOG"))
    std::remove(path);
  return true;
}();

std::string calls() {
  std::ifstream log(std::getenv("FAKE_CUDA_LOG"));
  std::stringstream text;
  text << log.rdbuf();
  return text.str();
}

} // namespace

TEST(NoDriver, IsAFailedPreconditionThatSaysSo) {
  auto device = runtime::cuda::probeDevice();
  ASSERT_FALSE(device.isOk());
  EXPECT_EQ(device.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(device.status().message().find("no CUDA driver"), std::string::npos)
      << device.status().toString();
}

TEST(FakeDriver, ProbesTheDeviceThroughTheTable) {
  auto device = runtime::cuda::probeDevice();
  ASSERT_TRUE(device.isOk()) << device.status().toString();
  EXPECT_EQ(device->name, "anyshape fake H200");
  EXPECT_EQ(device->smVersion, 90);
  EXPECT_EQ(device->driverVersion, 13000);
  EXPECT_EQ(device->deviceCount, 1);
  EXPECT_EQ(device->memoryBytes, int64_t{141} << 30);
  // The driver initialised once, and this probe's calls in order.
  std::string log = calls();
  EXPECT_EQ(log.rfind("cuInit\n", 0), 0u) << log;
  EXPECT_EQ(log.find("cuInit", 1), std::string::npos) << log;
  EXPECT_NE(log.find("cuDriverGetVersion\ncuDeviceGetCount\ncuDeviceGet\n"
                     "cuDeviceGetName\ncuDeviceGetAttribute\n"
                     "cuDeviceGetAttribute\ncuDeviceTotalMem_v2\n"),
            std::string::npos)
      << log;
}

TEST(FakeDriver, AMissingDeviceNamesTheCount) {
  auto device = runtime::cuda::probeDevice(3);
  ASSERT_FALSE(device.isOk());
  EXPECT_EQ(device.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(device.status().message().find("sees 1"), std::string::npos)
      << device.status().toString();
}

TEST(FakeDriverWithoutDevices, IsAFailedPrecondition) {
  auto device = runtime::cuda::probeDevice();
  ASSERT_FALSE(device.isOk());
  EXPECT_EQ(device.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(device.status().message().find("cuInit"), std::string::npos)
      << device.status().toString();
}

TEST(RealCublasLt, ExportsEveryEntryPointTheTableNames) {
  // The toolkit's libcublasLt.so.13 (where there is one): a typo or a
  // renamed entry in CublasLtEntries.def would fail every GEMM on a GPU.
  auto blas = runtime::cuda::loadCublasLt();
  // Only a library that is not there skips; one that lacks an entry fails.
  if (!blas.isOk()) {
    ASSERT_EQ(blas.status().message().find(" lacks "), std::string::npos)
        << blas.status().toString();
    GTEST_SKIP() << blas.status().toString();
  }
  EXPECT_NE((*blas)->cublasLtMatmul, nullptr);
}

// Where the toolkit's files are looked for (runtime/cuda/Toolkit.h), and
// how a library that is not there is refused.
TEST(ToolkitSearch, CudaHomeFirstThenTheUsualPlace) {
  const char *before = std::getenv("CUDA_HOME");
  std::string saved = before ? before : "";
  ::setenv("CUDA_HOME", "/opt/cuda-test", 1);
  EXPECT_EQ(runtime::cuda::toolkitPaths("bin/ptxas"),
            (std::vector<std::string>{"/opt/cuda-test/bin/ptxas",
                                      "/usr/local/cuda/bin/ptxas"}));
  ::setenv("CUDA_HOME", "", 1);
  EXPECT_EQ(runtime::cuda::toolkitPaths("bin/ptxas"),
            (std::vector<std::string>{"/usr/local/cuda/bin/ptxas"}));
  if (before)
    ::setenv("CUDA_HOME", saved.c_str(), 1);
  else
    ::unsetenv("CUDA_HOME");
}

TEST(ToolkitSearch, AnAbsentLibraryIsAnErrorSayingWhatToSet) {
  ::setenv("ANYSHAPE_TEST_ABSENT_LIBRARY", "/nonexistent/libabsent.so.13", 1);
  runtime::cuda::ToolkitLibrary library = runtime::cuda::openToolkitLibrary(
      "libabsent.so.13", "ANYSHAPE_TEST_ABSENT_LIBRARY", "the absent library");
  EXPECT_EQ(library.handle, nullptr);
  EXPECT_NE(library.error.find("no the absent library: "
                               "/nonexistent/libabsent.so.13 could not be "
                               "loaded"),
            std::string::npos)
      << library.error;
  EXPECT_NE(library.error.find("set CUDA_HOME or LD_LIBRARY_PATH"),
            std::string::npos)
      << library.error;
  ::unsetenv("ANYSHAPE_TEST_ABSENT_LIBRARY");
}
