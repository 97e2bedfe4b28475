//===- CudaKernels.cpp - a graph's CUDA kernels as cubins -------*- C++ -*-===//
#include "compiler/CudaKernels.h"

#include "compiler/Lowering.h"
#include "compiler/Stage.h"

#include "codegen/CUDA/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"

#include <fstream>
#include <optional>

namespace anyshape::compiler {

namespace {

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// The image record `fields` (codegen::kCudaKernelsAttr) as a kernel
/// whose PTX is yet to be linked; nullopt when a field is missing.
std::optional<CudaKernel> kernelOf(mlir::Attribute record) {
  auto fields = mlir::dyn_cast<mlir::DictionaryAttr>(record);
  if (!fields)
    return std::nullopt;
  auto name = fields.getAs<mlir::StringAttr>("name");
  auto object = fields.getAs<mlir::StringAttr>("object");
  auto entry = fields.getAs<mlir::StringAttr>("entry");
  auto blockSize = fields.getAs<mlir::IntegerAttr>("block_size");
  auto parameterBytes =
      fields.getAs<mlir::DenseI32ArrayAttr>("parameter_bytes");
  if (!name || !object || !entry || !blockSize || !parameterBytes)
    return std::nullopt;
  CudaKernel kernel;
  kernel.image.name = name.str();
  kernel.image.entry = entry.str();
  kernel.image.maxThreads = blockSize.getInt();
  kernel.image.parameterBytes.assign(parameterBytes.asArrayRef().begin(),
                                     parameterBytes.asArrayRef().end());
  kernel.ptx = object.str();
  // gpu-module-to-binary ends its PTX with a NUL.
  while (!kernel.ptx.empty() && kernel.ptx.back() == '\0')
    kernel.ptx.pop_back();
  return kernel;
}

} // namespace

StatusOr<std::vector<CudaKernel>>
linkCudaKernels(mlir::ModuleOp module, const std::string &chip,
                const std::string &dumpIrDir) {
  auto images =
      module->getAttrOfType<mlir::ArrayAttr>(codegen::kCudaKernelsAttr);
  if (!images)
    return internalError("the CUDA pipeline recorded no kernel images");
  std::vector<CudaKernel> kernels;
  for (mlir::Attribute image : images) {
    std::optional<CudaKernel> kernel = kernelOf(image);
    if (!kernel)
      return internalError("a malformed kernel image record");
    const std::string &name = kernel->image.name;
    StatusOr<runtime::cuda::LinkedCubin> linked =
        runtime::cuda::linkPtxToCubin(kernel->ptx, chip);
    if (!dumpIrDir.empty()) {
      (void)llvm::sys::fs::create_directories(dumpIrDir);
      std::string base = dumpIrDir + "/" + name;
      writeFile(base + ".ptx", kernel->ptx);
      writeFile(base + ".nvjitlink.log",
                linked.isOk() ? linked->log : linked.status().toString());
    }
    if (!linked.isOk())
      return Status(linked.status().code(),
                    name + ": " + linked.status().message());
    kernel->image.cubin = std::move(linked->cubin);
    linked->cubin.clear();
    kernel->linked = std::move(*linked);
    kernels.push_back(std::move(*kernel));
  }
  return kernels;
}

std::vector<runtime::cuda::KernelImage>
kernelImagesOf(std::vector<CudaKernel> kernels) {
  std::vector<runtime::cuda::KernelImage> images;
  for (CudaKernel &kernel : kernels)
    images.push_back(std::move(kernel.image));
  return images;
}

StatusOr<std::vector<CudaKernel>>
compileCudaKernels(const v1::Graph &graph, const CudaKernelsOptions &options) {
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(graph, options.limits));
  std::unique_ptr<Backend> backend = cudaBackend(
      options.pipeline, /*emulated=*/false, codegen::CpuTarget::host());
  auto folder = [&](Stage stage) {
    return options.dumpIrDir.empty()
               ? ""
               : options.dumpIrDir + "/" + stageFolder(stage);
  };
  ANYSHAPE_ASSIGN_OR_RETURN(std::unique_ptr<LoweredGraph> lowered,
                            LoweredGraph::import(*backend, graph, info,
                                                 options.tensors,
                                                 folder(Stage::kImport)));
  PipelineRun run;
  run.dumpDir = folder(Stage::kMlirPipeline);
  ANYSHAPE_RETURN_IF_ERROR(lowered->runPipeline(*backend, run));
  return linkCudaKernels(lowered->module(), options.pipeline.target.chip(),
                         folder(Stage::kCudaKernels));
}

} // namespace anyshape::compiler
