//===- anyshape-opt.cpp - the anyshape pass driver ---------------*- C++
//-*-===//
//
// mlir-opt with the dhlo dialect and every anyshape pass and pipeline
// registered, plus the upstream dialects the pipelines produce. Reproduces
// exactly what the server runs: `anyshape-opt --pass-pipeline=...` on the
// output of `anyshape import`.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/CpuPipeline.h"
#include "codegen/CUDA/CudaPipeline.h"
#include "codegen/CUDA/Dialects.h"
#include "ir/dhlo/Conversion/Passes.h"
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  anyshape::codegen::registerCudaPipelineDialects(registry);
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  // resolve-ranked-shaped-type-result-dims: replaces tensor.dim of dhlo
  // results with their reified dims (tests shape reification).
  mlir::memref::registerResolveRankedShapeTypeResultDims();
  // one-shot-bufferize: tests how dhlo.fusion bufferizes.
  mlir::bufferization::registerOneShotBufferize();
  anyshape::dhlo::registerAllDhloPasses();
  anyshape::dhlo::registerDhloConversionPasses();
  anyshape::codegen::registerCpuPipeline();
  anyshape::codegen::registerCudaPipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "anyshape pass driver\n", registry));
}
