//===- CudaKernels.h - a graph's CUDA kernels as cubins ---------*- C++ -*-===//
//
// Compiles a graph with the CUDA pipeline (codegen/CUDA/CudaPipeline.h)
// and links each kernel's PTX into a cubin for the chip with nvJitLink
// (NvJitLink.h), reporting what each costs the device. The CUDA backend
// (backends/CudaBackend.cpp) links the same kernels into the images a
// CUDA executable loads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/CUDA/CudaPipeline.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/Validate.h"
#include "runtime/cuda/CudaLaunch.h"
#include "runtime/cuda/NvJitLink.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace anyshape::compiler {

/// One kernel as the compiler made it: what an executable loads (its
/// image, whose signature codegen recorded:
/// anyshape-record-kernel-signatures) and what only reports read.
struct CudaKernel {
  runtime::cuda::KernelImage image;
  std::string ptx;
  /// nvJitLink's report of the link (the cubin itself is the image's).
  runtime::cuda::LinkedCubin linked;
};

struct CudaKernelsOptions {
  codegen::CudaPipelineOptions pipeline;
  GraphLimits limits;
  const TensorLookup *tensors = nullptr;
  /// The IR after every stage, a folder each (Stage.h); per kernel
  /// <module>.ptx and <module>.nvjitlink.log in the CUDA kernels' folder.
  std::string dumpIrDir;
};

/// The kernels a finished CUDA pipeline recorded on `module`
/// (codegen::kCudaKernelsAttr), in launch-index order, each linked for
/// `chip`; with `dumpIrDir`, each kernel's PTX and nvJitLink log there.
StatusOr<std::vector<CudaKernel>>
linkCudaKernels(mlir::ModuleOp module, const std::string &chip,
                const std::string &dumpIrDir = "");

/// What an executable loads of each kernel.
std::vector<runtime::cuda::KernelImage>
kernelImagesOf(std::vector<CudaKernel> kernels);

/// Every kernel of `graph`, in the host flow's order.
StatusOr<std::vector<CudaKernel>>
compileCudaKernels(const v1::Graph &graph,
                   const CudaKernelsOptions &options = {});

} // namespace anyshape::compiler
