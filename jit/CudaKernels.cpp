//===- CudaKernels.cpp - a graph's CUDA kernels as cubins -------*- C++ -*-===//
#include "jit/CudaKernels.h"

#include "jit/Lowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <cstdio>
#include <fstream>
#include <regex>

namespace anyshape::jit {

namespace {

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// The PTX of each gpu.binary's one object, with its kernel's entry and
/// block size, which the PTX states as `.maxntid`.
StatusOr<std::vector<CudaKernel>> kernelsOf(mlir::ModuleOp module) {
  std::vector<CudaKernel> kernels;
  Status status = Status::ok();
  module.walk([&](mlir::gpu::BinaryOp binary) {
    auto objects = binary.getObjects();
    if (objects.size() != 1) {
      status =
          internalError("gpu.binary @" + binary.getName().str() + " has " +
                        std::to_string(objects.size()) + " objects, not 1");
      return;
    }
    auto object = mlir::cast<mlir::gpu::ObjectAttr>(objects[0]);
    CudaKernel kernel;
    kernel.module = binary.getName().str();
    kernel.ptx = object.getObject().getValue().str();
    // gpu-module-to-binary ends its PTX with a NUL.
    while (!kernel.ptx.empty() && kernel.ptx.back() == '\0')
      kernel.ptx.pop_back();
    std::string_view ptx = kernel.ptx;
    auto entry = ptx.find(".entry ");
    if (entry != std::string_view::npos) {
      auto begin = entry + 7, end = ptx.find('(', begin);
      kernel.entry = std::string(ptx.substr(begin, end - begin));
    }
    // ".param .u64 name," per parameter, in the entry's parenthesis.
    auto open = ptx.find('(', entry), close = ptx.find(')', open);
    if (open != std::string_view::npos && close != std::string_view::npos) {
      std::string params(ptx.substr(open, close - open));
      std::regex param(R"(\.param\s+\.[a-z](\d+)\s)");
      for (std::sregex_iterator it(params.begin(), params.end(), param), end;
           it != end; ++it)
        kernel.parameterBytes.push_back(std::stoi((*it)[1].str()) / 8);
    }
    auto maxntid = ptx.find(".maxntid ");
    if (maxntid != std::string_view::npos) {
      // ".maxntid x, y, z": the block's threads are their product.
      int64_t x = 1, y = 1, z = 1;
      std::string dims(ptx.substr(maxntid + 9, 40));
      if (std::sscanf(dims.c_str(), "%ld, %ld, %ld", &x, &y, &z) == 3)
        kernel.blockSize = x * y * z;
    }
    kernels.push_back(std::move(kernel));
  });
  if (!status.isOk())
    return status;
  return kernels;
}

} // namespace

StatusOr<std::vector<CudaKernel>>
compileCudaKernels(const v1::Graph &graph, const CudaKernelsOptions &options) {
  ANYSHAPE_ASSIGN_OR_RETURN(GraphInfo info,
                            validateGraph(graph, options.limits));
  LoweringRequest request;
  request.graph = &graph;
  request.info = &info;
  request.tensors = options.tensors;
  request.dumpIrDir = options.dumpIrDir;
  request.cudaDialects = true;
  std::vector<CudaKernel> kernels;
  codegen::CudaPipelineOptions pipeline = options.pipeline;
  pipeline.emulate = false;
  ANYSHAPE_RETURN_IF_ERROR(lowerGraph(
      request, "CUDA pipeline",
      [&](mlir::OpPassManager &pm) {
        codegen::buildCudaPipeline(pm, pipeline);
      },
      [&](mlir::ModuleOp module) -> Status {
        ANYSHAPE_ASSIGN_OR_RETURN(kernels, kernelsOf(module));
        return Status::ok();
      }));
  std::string chip = pipeline.target.chip();
  for (CudaKernel &kernel : kernels) {
    StatusOr<LinkedCubin> linked = linkPtxToCubin(kernel.ptx, chip);
    if (!options.dumpIrDir.empty()) {
      std::string base = options.dumpIrDir + "/" + kernel.module;
      writeFile(base + ".ptx", kernel.ptx);
      writeFile(base + ".nvjitlink.log",
                linked.isOk() ? linked->log : linked.status().toString());
    }
    if (!linked.isOk())
      return Status(linked.status().code(),
                    kernel.module + ": " + linked.status().message());
    kernel.linked = std::move(*linked);
  }
  return kernels;
}

} // namespace anyshape::jit
