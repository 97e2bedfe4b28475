//===- CudaPipeline.cpp - the CUDA compile pipeline --------------*- C++
//-*-===//
//
// The whole CUDA lowering as one list of stages. Up to the kernels'
// loops it is the CPU's (the same plan, buffers and kernels); then each
// fusion's loops become gpu.launch grids, and either the launches go to
// the device (outlined into gpu.modules, NVVM, PTX) or they run on the
// CPU for testing.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/CudaPipeline.h"

#include "codegen/CUDA/Passes.h"
#include "codegen/Common/Stages.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace anyshape::codegen {

namespace {

/// The device half: each launch outlined into a gpu.module of its own,
/// lowered to NVVM and serialised as PTX for the chip.
void buildKernelsToPtx(OpPassManager &pm, const CudaPipelineOptions &options) {
  pm.addPass(createGpuKernelOutliningPass());
  if (options.emulatedKernels) {
    pm.addPass(createEmulatedKernels());
    pm.addNestedPass<func::FuncOp>(createEmulateGpuLaunches());
  }
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.target.chip();
  attach.features = options.target.ptxFeatures();
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createCheckDeviceOps());
  kernels.addPass(createLowerSubgroupReduces());
  kernels.addPass(arith::createArithExpandOpsPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertSCFToCFPass());
  kernels.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createAlignVectorAccesses());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createRecordKernelSignatures());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa"; // PTX; nvJitLink makes the cubin
  binary.toolkitPath = options.toolkitPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

} // namespace

void buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &options,
                       dhlo::FormedFusionPlan *formed) {
  // Entry, plan, linalg, buffers (Stages.h). No math
  // approximation: the device has fast transcendentals (libdevice).
  buildPlannedLinalgStages(pm, options.fuse, dhlo::ConvolutionsBy::kKernels,
                           formed);
  buildBufferizationStages(pm);
  // Kernels: f32 matmuls to the GEMM library (the host flow calls it).
  pm.addPass(createBatchMatmulToRuntimeCall());
  // Loops: the plan's kernels as loops, then each fusion's loops as
  // launches.
  buildKernelFormationStages(pm, options.fuse, options.printKernelFusions);
  pm.addNestedPass<func::FuncOp>(createCopiesAsLoops());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // Canonicalization folds a unit dim's induction variable to 0, so two
  // views of one row that differed only there become two identical ops;
  // the row schedules forward a scalar from its store to its load only
  // through one view (static shapes lost every shared-row version).
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  // Column reductions as a parallel loop of reduction loops; accumulators
  // in registers: the reduction form the row and column schedules split.
  pm.addNestedPass<func::FuncOp>(createParallelOutsideReductions());
  pm.addNestedPass<func::FuncOp>(createPromoteAccumulators());
  MapKernelsToGpuOptions mapping;
  mapping.blockSize = options.target.blockSize;
  mapping.maxBlocks = options.target.maxBlocks;
  mapping.rowSchedule = options.rowSchedule;
  mapping.columnSchedule = options.columnSchedule;
  mapping.warpMaxRow = options.target.warpMaxRow;
  mapping.warpManyRows = options.target.warpManyRows;
  mapping.warpsPerBlock = options.target.warpsPerBlock;
  mapping.vectorAccesses = options.vectorAccesses;
  pm.addNestedPass<func::FuncOp>(createMapKernelsToGpu(mapping));
  if (options.emulate) {
    // LLVM dialect, emulated: on the CPU, blocks in parallel (an OpenMP
    // team), threads in turn; then the host lowering the CPU's pipeline
    // ends with (Stages.h).
    pm.addNestedPass<func::FuncOp>(createEmulateGpuLaunches());
    // The 4-wide versions' vector accesses, which the host lowering does
    // not expect.
    pm.addPass(createConvertVectorToLLVMPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createCanonicalizerPass());
    buildHostLowering(pm);
    return;
  }
  // LLVM dialect: each fusion a launcher function in the host flow; its
  // launches' bodies kernels in PTX.
  pm.addPass(createOutlineKernels());
  pm.addPass(createMergeIdenticalKernels()); // each compiled to PTX once
  buildKernelsToPtx(pm, options);
  // Then the host flow on this CPU: launches call the CUDA runtime, buffers
  // come from the context's (device) allocator, shape buffers from the
  // stack, constants from their device copies.
  pm.addPass(createExecutionContext());
  pm.addPass(createHostBuffers());
  pm.addPass(createLaunchesToRuntimeCalls());
  if (options.emulatedKernels)
    pm.addPass(createConvertVectorToLLVMPass()); // the 4-wide versions'
  buildHostToLlvm(pm);
  pm.addPass(createDeviceConstants());
  if (options.emulatedKernels)
    pm.addPass(createPackEmulatedKernels());
}

void registerCudaPipeline() {
  registerCodegenCommonPasses();
  registerCodegenCudaPasses();
  struct CliOptions : PassPipelineOptions<CliOptions> {
    CudaPipelineOptions defaults;
    Option<bool> fuse{*this, "fuse", llvm::cl::desc("Fuse kernels"),
                      llvm::cl::init(defaults.fuse)};
    // Only the chips of runtime/cuda/Chips.h parse (added below, from its
    // list): MLIR's NVVM default (sm_50) and any other chip are an option
    // error, not a warning from LLVM.
    enum Chip : int {};
    Option<Chip> chip{
        *this, "chip", llvm::cl::desc("The chip generated for"),
        llvm::cl::init(static_cast<Chip>(defaults.target.smVersion))};
    CliOptions() {
      for (const runtime::cuda::Chip &known : runtime::cuda::kChips)
        chip.getParser().addLiteralOption(
            known.name, static_cast<Chip>(known.smVersion), known.devices);
    }
    Option<bool> emulate{*this, "emulate",
                         llvm::cl::desc("Run the kernels on the CPU")};
    Option<int64_t> blockSize{
        *this, "block-size",
        llvm::cl::desc("Threads per block of a grid-stride kernel"),
        llvm::cl::init(defaults.target.blockSize)};
    Option<int64_t> maxBlocks{
        *this, "max-blocks",
        llvm::cl::desc("Most blocks of a grid-stride kernel"),
        llvm::cl::init(defaults.target.maxBlocks)};
    Option<std::string> rowSchedule{
        *this, "row-schedule",
        llvm::cl::desc("A row kernel's version: auto, thread, warp, block"),
        llvm::cl::init(defaults.rowSchedule)};
    Option<std::string> columnSchedule{
        *this, "column-schedule",
        llvm::cl::desc("A column kernel's version: auto, thread, tile"),
        llvm::cl::init(defaults.columnSchedule)};
    Option<bool> vectorAccesses{
        *this, "vector-accesses",
        llvm::cl::desc("4-wide versions of loops walking the last dim"),
        llvm::cl::init(defaults.vectorAccesses)};
    Option<bool> emulatedKernels{
        *this, "emulated-kernels",
        llvm::cl::desc("Also a CPU version of each kernel, for a fake "
                       "driver (tests)")};
    Option<bool> printKernelFusions{
        *this, "print-kernel-fusions",
        llvm::cl::desc("Print each kernel with its fusions of the plan")};
  };
  PassPipelineRegistration<CliOptions>(
      "anyshape-cuda-pipeline",
      "Imported dhlo to host launchers and PTX kernels, shapes symbolic",
      [](OpPassManager &pm, const CliOptions &cli) {
        CudaPipelineOptions options;
        options.target.smVersion = static_cast<int>(cli.chip);
        options.fuse = cli.fuse;
        options.emulate = cli.emulate;
        options.emulatedKernels = cli.emulatedKernels;
        options.target.blockSize = cli.blockSize;
        options.target.maxBlocks = cli.maxBlocks;
        options.printKernelFusions = cli.printKernelFusions;
        options.rowSchedule = cli.rowSchedule;
        options.columnSchedule = cli.columnSchedule;
        options.vectorAccesses = cli.vectorAccesses;
        buildCudaPipeline(pm, options);
      });
}

} // namespace anyshape::codegen
