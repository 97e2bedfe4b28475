// What the fake driver's files share (FakeCudaDriver.cpp: the probe;
// FakeCudaExecution.cpp: contexts, memory, modules, launches): CUDA's
// error numbers and the call log.
#pragma once

namespace fake_cuda {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;
constexpr int kOutOfMemory = 2;
constexpr int kNotInitialized = 3;
constexpr int kNoDevice = 100;
constexpr int kInvalidDevice = 101;
constexpr int kInvalidImage = 200;
constexpr int kInvalidContext = 201;
constexpr int kInvalidHandle = 400;
constexpr int kNotFound = 500;
constexpr int kNotReady = 600;
constexpr int kLaunchOutOfResources = 701;

/// cuInit succeeded.
extern bool initialised;
/// Appends `call` to $FAKE_CUDA_LOG, when set.
void record(const char *call);

} // namespace fake_cuda
