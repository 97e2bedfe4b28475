//===- CudaLaunch.h - an executable's kernels and their launches -*- C++
//-*-===//
//
// What a CUDA executable's host flow runs on. Its kernel images (cubins)
// are loaded and each CUfunction resolved once, when the executable loads
// (LoadedKernels), so a launch takes no lock and does no lookup. A run
// has a CudaRun: its stream, its stream-ordered allocator, the loaded
// kernels and the first error. The execution context of a run
// (runtime/ExecutionContext.h, from cudaContext) allocates from the run's
// allocator and has the CudaRun as its module table; generated code calls
// anyshapeCudaLaunch with it (the launch ABI:
// codegen/CUDA/LaunchesToRuntimeCalls.cpp). A failed allocation or launch
// records its error and makes every later launch of the run a no-op; the
// caller reads the error after the entry returns, so generated code needs
// no error paths.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/ExecutionContext.h"
#include "runtime/IndexChecks.h"
#include "runtime/NonZero.h" // StridedBytes
#include "runtime/cuda/CublasLt.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/DeviceTimer.h"

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace anyshape::runtime::cuda {

/// One kernel as the compiler made it.
struct KernelImage {
  std::string name;  ///< its gpu.module (for errors)
  std::string entry; ///< the kernel function in the cubin
  std::string cubin;
  int64_t maxThreads = 0; ///< threads per block it was compiled for
  /// Each parameter's bytes, in order: what a launch's slots must match.
  std::vector<int> parameterBytes;
};

/// A CPU function running a whole launch of one kernel, given CUDA's
/// kernelParams followed by pointers to the six grid and block sizes
/// (int64): what a fake driver runs instead of a cubin (tests only).
using EmulatedKernel = void (*)(void **parameters);

struct LoadedKernel {
  void *function = nullptr; ///< CUfunction
  int64_t maxThreads = 0;
  int64_t parameters = 0;
  std::string name;
};

/// An executable's constants on the device (dense constants, load-time
/// weights: codegen/CUDA/DeviceConstants.cpp), each uploaded the first
/// time a run asks for it and kept until the executable unloads. Asking
/// again is one atomic load.
class DeviceConstants {
public:
  DeviceConstants(CudaDevice &device, int64_t count);
  ~DeviceConstants();
  DeviceConstants(const DeviceConstants &) = delete;
  DeviceConstants &operator=(const DeviceConstants &) = delete;

  /// The device copy of constant `index` (`bytes` at `host`); null with
  /// `error` set when it cannot be made.
  void *get(int64_t index, const void *host, int64_t bytes, Status &error);

private:
  CudaDevice &device_;
  int64_t count_;
  std::unique_ptr<std::atomic<void *>[]> copies_;
  std::vector<int64_t> blockBytes_; // under mutex_
  std::mutex mutex_;
};

class LoadedKernels {
public:
  /// Loads every image into the device's context, with room for
  /// `constants` device constants. `emulations`, when not empty, has one
  /// entry per image; a driver that can run them (the tests' fake) is
  /// told each kernel's.
  static StatusOr<std::unique_ptr<LoadedKernels>>
  load(CudaDevice &device, const std::vector<KernelImage> &images,
       int64_t constants, const std::vector<EmulatedKernel> &emulations = {});
  ~LoadedKernels();

  const std::vector<LoadedKernel> &kernels() const { return kernels_; }
  CudaDevice &device() const { return device_; }
  DeviceConstants &constants() const { return *constants_; }
  DeviceGemm &gemm() const { return *gemm_; }
  /// The device time of its runs, when timing is on.
  DeviceTimes &times() const { return *times_; }

private:
  explicit LoadedKernels(CudaDevice &device) : device_(device) {}
  CudaDevice &device_;
  std::vector<void *> modules_; // CUmodule
  std::vector<LoadedKernel> kernels_;
  std::unique_ptr<DeviceConstants> constants_;
  std::unique_ptr<DeviceGemm> gemm_; // its algorithm choices
  std::unique_ptr<DeviceTimes> times_;
};

/// One run's CUDA state (the context's moduleTable).
struct CudaRun {
  const Driver *driver = nullptr;
  void *stream = nullptr;
  const LoadedKernel *kernels = nullptr;
  int64_t kernelCount = 0;
  StreamAllocator *allocator = nullptr;
  DeviceConstants *constants = nullptr;
  DeviceGemm *gemm = nullptr;
  /// Set only for a timed run: each launch and GEMM between two events.
  RunTimer *timer = nullptr;
  Status error; ///< the first failure of the run
  /// The host bytes of each anyshapeCudaUpload, kept until the run ends
  /// (its stream is synchronised before): the copy reads them in stream
  /// order, after the host flow's own storage may be gone.
  std::deque<std::vector<unsigned char>> uploaded;
};

/// A context whose allocations come from `run.allocator` and whose
/// launches go to `run.stream`.
AnyshapeExecutionContext cudaContext(CudaRun &run);

/// The bytes of a device buffer's view (`memref`'s descriptor, elements
/// `elementBytes` wide) from its first element to its last, copied to the
/// host in `run`'s stream order, after the kernels before it, and
/// synchronised: what the host flow's checks and nonzero read. Empty for
/// an empty view, or after a failure, which is recorded in `run`.
std::vector<unsigned char>
spanOnHost(CudaRun &run, const UnrankedMemref &memref, int64_t elementBytes);

/// `bytes` at host address `from` copied to device address `to` in the
/// run's stream order and synchronised (so `from` may go as soon as this
/// returns): what nonzero and scatter write back. A failure is recorded
/// in `run`.
void copyToDevice(CudaRun &run, DevicePointer to, const void *from,
                  size_t bytes);

/// A device buffer's view read on the host, as the host halves of
/// nonzero, scatter, argsort and cumulative read their operands: the span
/// copied into `host` (spanOnHost; empty for an empty view or after a
/// failure), the view addressing the copy.
StridedBytes viewOnHost(CudaRun &run, const UnrankedMemref &memref,
                        int64_t elementBytes, std::vector<unsigned char> &host);

/// `bytes` at `from` copied into the device buffer `result` from its first
/// element on (copyToDevice): a result the host flow allocated, contiguous.
void copyToResult(CudaRun &run, const UnrankedMemref &result,
                  int64_t elementBytes, const void *from, size_t bytes);

extern "C" {
/// The launch generated code calls: kernel `kernel` of the run's table on
/// a grid of blocks with `count` 8-byte parameter words at `slots`.
void anyshapeCudaLaunch(AnyshapeExecutionContext *context, int64_t kernel,
                        int64_t gridX, int64_t gridY, int64_t gridZ,
                        int64_t blockX, int64_t blockY, int64_t blockZ,
                        int64_t sharedBytes, int64_t *slots, int64_t count);
/// The copy generated code calls for a memref.copy between device
/// buffers: `bytes` from `from` to `to`, in the run's stream order.
void anyshapeCudaCopy(AnyshapeExecutionContext *context, int64_t to,
                      int64_t from, int64_t bytes);
/// The upload generated code calls for a small buffer the host flow
/// writes and kernels read (a size read as data, anyshape-host-buffers):
/// `bytes` at host address `from` to device address `to`, in stream order.
void anyshapeCudaUpload(AnyshapeExecutionContext *context, int64_t to,
                        int64_t from, int64_t bytes);
/// The device copy of constant `index`, `bytes` at `host` (null after a
/// failure, which the run then reports).
void *anyshapeCudaConstant(AnyshapeExecutionContext *context, int64_t index,
                           const void *host, int64_t bytes);
/// The index checks generated code calls on this target
/// (runtime/IndexChecks.h; CudaIndexChecks.cpp): the indices are copied
/// from the device, in stream order, and checked on the host.
void anyshapeCudaCheckIndicesI32(UnrankedMemref *indices, int64_t low,
                                 int64_t high, int64_t node,
                                 AnyshapeExecutionContext *context);
void anyshapeCudaCheckIndicesI64(UnrankedMemref *indices, int64_t low,
                                 int64_t high, int64_t node,
                                 AnyshapeExecutionContext *context);
/// nonzero on this target (runtime/NonZero.h; CudaNonZero.cpp): the
/// operand is copied from the device, in stream order, and counted on the
/// host; the coordinates are written there and copied to the result.
int64_t anyshapeCudaCountNonZero(UnrankedMemref *operand, int64_t kind,
                                 AnyshapeExecutionContext *context);
void anyshapeCudaNonZeroIndices(UnrankedMemref *operand, int64_t kind,
                                UnrankedMemref *result,
                                AnyshapeExecutionContext *context);
/// scatter on this target (runtime/Scatter.h; CudaScatter.cpp): the
/// operands are copied from the device, in stream order, the result is
/// computed on the host and copied to its device buffer.
void anyshapeCudaScatter(UnrankedMemref *operand, UnrankedMemref *indices,
                         UnrankedMemref *updates, UnrankedMemref *result,
                         int64_t element, int64_t indexBytes, int64_t reduction,
                         AnyshapeExecutionContext *context);
/// argsort on this target (runtime/Argsort.h; CudaArgsort.cpp): the
/// operand is copied from the device, in stream order, sorted on the host,
/// and the positions copied to the result's device buffer.
void anyshapeCudaArgsort(UnrankedMemref *operand, UnrankedMemref *result,
                         int64_t element, int64_t axis, int64_t descending,
                         AnyshapeExecutionContext *context);
/// cumulative on this target (runtime/Cumulative.h; CudaCumulative.cpp):
/// as argsort's, the operand to the host and the result back.
void anyshapeCudaCumulative(UnrankedMemref *operand, UnrankedMemref *result,
                            int64_t element, int64_t axis, int64_t kind,
                            int64_t flags, AnyshapeExecutionContext *context);
/// The GEMM generated code calls on this target (MLIR's C interface, as
/// runtime/Gemm.h's): c = a x b through cuBLASLt in the run's stream.
void anyshapeCudaBatchMatmulF32(Memref3D *a, Memref3D *b, Memref3D *c,
                                AnyshapeExecutionContext *context);
}

} // namespace anyshape::runtime::cuda
