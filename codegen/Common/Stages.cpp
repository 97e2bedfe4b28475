//===- Stages.cpp - the pipeline stages every target shares -----*- C++ -*-===//
//
// See Stages.h. The order inside each stage carries reasons, given where
// the passes are added.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Stages.h"

#include "codegen/Common/Passes.h"

#include "ir/dhlo/Conversion/Passes.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace anyshape::codegen {

void buildPlannedLinalgStages(OpPassManager &pm, bool fuse,
                              dhlo::ConvolutionsBy convolutions,
                              dhlo::FormedFusionPlan *formed) {
  // Entry: the recorded shape checks as code, @main's ABI.
  pm.addPass(createShapeCheckFunction());
  pm.addPass(createPrepareEntryAbi());
  // Plan: shapes propagated and simplified with the constraint analysis (a
  // target without a convolution library expands each first). Then the
  // kernels planned: each becomes a dhlo.fusion, which every pass below keeps
  // (a kernel is formed, scheduled and checked one fusion at a time).
  dhlo::buildDhloPlanningPipeline(pm, convolutions);
  pm.addNestedPass<func::FuncOp>(dhlo::createFormFusions(formed));
  // Linalg: dhlo -> linalg on tensors (large seeded constants become globals
  // filled at load); fuse elementwise producers.
  pm.addPass(createSeededConstantsAtLoad());
  pm.addNestedPass<func::FuncOp>(dhlo::createConvertDhloToLinalg());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  if (fuse) {
    // Elementwise producers first, then again with reshapes moving
    // through generics (linalg-fuse-elementwise-ops' patterns, kept to
    // the plan): moved first, a reshape would expand a bias broadcast on
    // its own instead of the add it feeds, and leave it a kernel.
    pm.addNestedPass<func::FuncOp>(createFuseSharedProducers());
    pm.addNestedPass<func::FuncOp>(
        createFuseSharedProducers(FuseSharedProducersOptions{true}));
  }
}

void buildBufferizationStages(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createFreshOutputs());
  pm.addNestedPass<func::FuncOp>(createUnshareInits());
  pm.addNestedPass<func::FuncOp>(createUnshareReshapeShapes());
  pm.addNestedPass<func::FuncOp>(createCopyConcatenations());
  pm.addNestedPass<func::FuncOp>(createShareReadOnlyViews());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  pm.addPass(createIndexChecksToRuntimeCalls());
  pm.addPass(createSizeChecksToRuntimeCalls());
  pm.addPass(createNonZeroToRuntimeCalls());
  pm.addPass(createScatterToRuntimeCalls());
  pm.addPass(createArgsortToRuntimeCalls());
  pm.addPass(createCumulativeToRuntimeCalls());
  pm.addPass(createConvolutionsToRuntimeCalls());
  pm.addNestedPass<func::FuncOp>(createHoistKernelBuffers());
  // MLIR's buffer-deallocation-pipeline, with the buffers that alias
  // nothing split off before its simplification compares them pairwise.
  pm.addPass(memref::createExpandReallocPass(/*emitDeallocs=*/false));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createSplitFreshDeallocations());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createFreeAtLastUse());
}

void buildKernelFormationStages(OpPassManager &pm, bool fuse,
                                bool printKernelFusions, bool allowDepartures) {
  if (!fuse)
    return;
  pm.addNestedPass<func::FuncOp>(createStitchRows());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createReuseReducedValues());
  // Always: codegen builds exactly the plan's kernels, or the compile
  // fails (a departure is an anyshape bug, reported as INTERNAL) or warns.
  pm.addNestedPass<func::FuncOp>(
      createCheckKernelFusions({printKernelFusions, allowDepartures}));
}

void buildHostLowering(OpPassManager &pm) {
  // Each fusion a kernel function, launched (on the CPU: called) from the
  // host flow.
  pm.addPass(createOutlineKernels());
  // Stacked layers' kernels lowered and emitted once.
  pm.addPass(createMergeIdenticalKernels());
  pm.addPass(createExecutionContext());
  buildHostToLlvm(pm);
}

void buildHostToLlvm(OpPassManager &pm) {
  pm.addPass(createLaunchesToCalls());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(arith::createArithExpandOpsPass()); // ceildiv, maximumf, ...
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Allocations call MLIR's generic allocation functions, which become
  // calls of the execution context's allocator after the func lowering
  // (runtime/ExecutionContext.h).
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createContextAllocation());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

} // namespace anyshape::codegen
