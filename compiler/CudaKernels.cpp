//===- CudaKernels.cpp - a graph's CUDA kernels as cubins -------*- C++ -*-===//
#include "compiler/CudaKernels.h"

#include "compiler/Lowering.h"
#include "compiler/Stage.h"

#include "codegen/CUDA/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <fstream>
#include <regex>

namespace anyshape::compiler {

namespace {

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// The kernel `name` from its PTX: entry, parameter layout and block
/// size, which the PTX states as `.maxntid`.
CudaKernel describeKernel(std::string name, std::string ptx) {
  CudaKernel kernel;
  kernel.module = std::move(name);
  kernel.ptx = std::move(ptx);
  // gpu-module-to-binary ends its PTX with a NUL.
  while (!kernel.ptx.empty() && kernel.ptx.back() == '\0')
    kernel.ptx.pop_back();
  std::string_view text = kernel.ptx;
  auto entry = text.find(".entry ");
  if (entry != std::string_view::npos) {
    auto begin = entry + 7, end = text.find('(', begin);
    kernel.entry = std::string(text.substr(begin, end - begin));
  }
  // One ".param" per parameter, in the entry's parenthesis: ".param .u64
  // name" for a scalar the PTX has a type for, ".param .align 2 .b8
  // name[2]" for one it has none for (an f16 or bf16 scalar): the array's
  // bytes.
  auto open = text.find('(', entry), close = text.find(')', open);
  if (open != std::string_view::npos && close != std::string_view::npos) {
    std::string params(text.substr(open, close - open));
    std::regex param(
        R"(\.param\s+(?:\.align\s+\d+\s+)?\.[a-z](\d+)\s+[\w$]+(?:\[(\d+)\])?)");
    for (std::sregex_iterator it(params.begin(), params.end(), param), end;
         it != end; ++it) {
      int bytes = std::stoi((*it)[1].str()) / 8;
      if ((*it)[2].matched)
        bytes *= std::stoi((*it)[2].str());
      kernel.parameterBytes.push_back(bytes);
    }
  }
  auto maxntid = text.find(".maxntid ");
  if (maxntid != std::string_view::npos) {
    // ".maxntid x, y, z": the block's threads are their product.
    int64_t x = 1, y = 1, z = 1;
    std::string dims(text.substr(maxntid + 9, 40));
    if (std::sscanf(dims.c_str(), "%ld, %ld, %ld", &x, &y, &z) == 3)
      kernel.blockSize = x * y * z;
  }
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
    auto fields = mlir::dyn_cast<mlir::DictionaryAttr>(image);
    auto name = fields ? fields.getAs<mlir::StringAttr>("name") : nullptr;
    auto object = fields ? fields.getAs<mlir::StringAttr>("object") : nullptr;
    if (!name || !object)
      return internalError("a malformed kernel image record");
    CudaKernel kernel = describeKernel(name.str(), object.str());
    StatusOr<runtime::cuda::LinkedCubin> linked =
        runtime::cuda::linkPtxToCubin(kernel.ptx, chip);
    if (!dumpIrDir.empty()) {
      (void)llvm::sys::fs::create_directories(dumpIrDir);
      std::string base = dumpIrDir + "/" + kernel.module;
      writeFile(base + ".ptx", kernel.ptx);
      writeFile(base + ".nvjitlink.log",
                linked.isOk() ? linked->log : linked.status().toString());
    }
    if (!linked.isOk())
      return Status(linked.status().code(),
                    kernel.module + ": " + linked.status().message());
    kernel.linked = std::move(*linked);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

std::vector<runtime::cuda::KernelImage>
kernelImagesOf(std::vector<CudaKernel> kernels) {
  std::vector<runtime::cuda::KernelImage> images;
  for (CudaKernel &kernel : kernels)
    images.push_back({std::move(kernel.module), std::move(kernel.entry),
                      std::move(kernel.linked.cubin), kernel.blockSize,
                      std::move(kernel.parameterBytes)});
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
