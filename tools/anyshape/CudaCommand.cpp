// anyshape cuda-kernels: a graph's CUDA kernels compiled to cubins for a
// chip, with what each costs the device. Needs no GPU: the toolkit's
// nvJitLink links them here.
#include "Cli.h"
#include "frontend/onnx/OnnxImport.h"

#include "compiler/CudaKernels.h"
#include "ir/graph/GraphText.h"
#include "runtime/cuda/Chips.h"

#include <chrono>
#include <cstdio>

namespace anyshape::cli {

int runCudaKernels(const GlobalOptions &,
                   const std::vector<std::string> &args) {
  std::string file,
      chip = runtime::cuda::chipName(runtime::cuda::kDefaultSmVersion);
  compiler::CudaKernelsOptions options;
  for (size_t i = 0; i < args.size();) {
    if (takeOption(args, i, "--chip", chip) ||
        takeOption(args, i, "--dump-ir", options.dumpIrDir))
      continue;
    if (args[i].rfind("--", 0) == 0 || !file.empty())
      return usage("unexpected argument '" + args[i] + "'");
    file = args[i++];
  }
  if (file.empty())
    return usage("cuda-kernels needs a FILE");
  std::optional<codegen::CudaTarget> target =
      codegen::CudaTarget::fromChip(chip);
  if (!target)
    return usage("unknown chip '" + chip +
                 "' (available: " + runtime::cuda::chipList() + ")");
  options.pipeline.target = *target;
  auto graph = onnx::loadModelFile(file);
  if (!graph)
    return fail(graph.status());
  auto start = std::chrono::steady_clock::now();
  auto kernels = compiler::compileCudaKernels(*graph, options);
  if (!kernels)
    return fail(kernels.status());
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("%s: %zu kernels for %s in %.0f ms\n", graph->name().c_str(),
              kernels->size(), target->chip().c_str(), ms);
  for (const compiler::CudaKernel &k : *kernels) {
    const runtime::cuda::KernelResources &r = k.linked.resources;
    int paramBytes = 0;
    for (int bytes : k.image.parameterBytes)
      paramBytes += bytes;
    std::printf(
        "  %-28s block %4lld  %3d registers  spills %lld/%lld B  "
        "smem %lld B  params %zu (%d B)  cubin %zu B\n",
        k.image.name.c_str(), static_cast<long long>(k.image.maxThreads),
        r.registers, static_cast<long long>(r.spillStoreBytes),
        static_cast<long long>(r.spillLoadBytes),
        static_cast<long long>(r.sharedBytes), k.image.parameterBytes.size(),
        paramBytes, k.image.cubin.size());
  }
  if (!options.dumpIrDir.empty())
    std::printf("IR, PTX and nvJitLink logs in %s\n",
                options.dumpIrDir.c_str());
  return 0;
}

} // namespace anyshape::cli
