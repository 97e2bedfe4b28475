//===- Pipelines.cpp - named dhlo pipelines ---------------------*- C++ -*-===//
//
// The pipelines the compiler runs, registered by name so that anyshape-opt
// reproduces them exactly.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace anyshape::dhlo {

void buildDhloSimplifyPipeline(mlir::OpPassManager &pm) {
  mlir::OpPassManager &func = pm.nest<mlir::func::FuncOp>();
  func.addPass(createShapePropagation());
  func.addPass(createShapeSimplification());
  func.addPass(mlir::createCanonicalizerPass());
  func.addPass(mlir::createCSEPass());
}

void registerAllDhloPasses() {
  registerDhloPasses();
  mlir::PassPipelineRegistration<>(
      "dhlo-simplify",
      "Shape propagation, shape simplification, canonicalize, CSE",
      buildDhloSimplifyPipeline);
}

} // namespace anyshape::dhlo
