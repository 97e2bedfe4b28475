//===- Backend.h - what a compile asks of the target it is for --*- C++ -*-===//
//
// The compiler's one seam per target. Compiler.cpp runs every compile
// through the same stages (Stage.h) and asks the backend, at each point
// where targets differ: which dialects its pipeline creates, the pipeline
// itself, and what of the finished module is not host code (CUDA's
// kernels, linked into cubins). A new target is a new file in backends/
// and a case of makeBackend; nothing else in the compiler tests which
// target it compiles for.
//
// The serving side has its own half of each target (jit/Executable's
// loader, the server's resolved CompileSettings); it never links this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CUDA/CudaPipeline.h"
#include "ir/dhlo/Transforms/Passes.h"
#include "jit/Executable.h"
#include "runtime/support/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace anyshape::compiler {

/// Where an executable's kernels run.
enum class KernelBackend {
  kCpu, ///< this CPU's kernels (codegen/CPU)
  /// The CUDA kernels (codegen/CUDA), run on this CPU by their emulation:
  /// how their numerics are tested without a GPU. Not a serving backend.
  kCudaEmulated,
  /// The CUDA kernels as cubins, launched on the device by an ORC-JITed
  /// host flow (runtime/cuda). Compiles anywhere; runs where a driver and
  /// device are (a fake driver in tests).
  kCuda,
};

/// As users name it (`--backend`): "cpu", "cuda-emulated", "cuda".
const char *backendName(KernelBackend backend);
/// The backend `name` names (backendName's inverse), if any.
std::optional<KernelBackend> parseBackend(std::string_view name);
/// Every name parseBackend takes, for a usage message: "cpu, ...".
std::string backendNames();

class Backend {
public:
  virtual ~Backend() = default;

  /// How progress lines and errors name its pipeline: "CPU pipeline".
  virtual const char *pipelineName() const = 0;
  /// The dialects its pipeline creates (a context is made with them).
  virtual void registerDialects(mlir::DialectRegistry &registry) const = 0;
  /// Its MLIR pipeline, from imported dhlo to the LLVM dialect (host code
  /// only, once takeDeviceCode has run); the fusion plan it forms is
  /// written to `formed`.
  virtual void buildPipeline(mlir::OpPassManager &pm,
                             dhlo::FormedFusionPlan *formed) const = 0;
  /// Takes off the finished module what is not host code: nullopt when
  /// everything is (the CPU, CUDA's emulation); CUDA's kernels linked into
  /// the cubins the host flow launches, each kernel's PTX and linker log
  /// written to `dumpDir` if set.
  virtual StatusOr<std::optional<jit::DeviceCode>>
  takeDeviceCode(mlir::ModuleOp module, const std::string &dumpDir) const {
    return std::optional<jit::DeviceCode>();
  }
  /// The CPU the host code (the object) is generated for.
  virtual const codegen::CpuTarget &host() const = 0;
};

/// The CPU's kernels, with `options`' codegen choices.
std::unique_ptr<Backend> cpuBackend(const codegen::CpuPipelineOptions &options);
/// CUDA's kernels as cubins, or (`emulated`) run on this CPU by their
/// emulation; the host code is for `host`.
std::unique_ptr<Backend>
cudaBackend(const codegen::CudaPipelineOptions &options, bool emulated,
            const codegen::CpuTarget &host);

} // namespace anyshape::compiler
