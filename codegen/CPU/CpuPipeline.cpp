//===- CpuPipeline.cpp - the CPU compile pipeline ----------------*- C++
//-*-===//
//
// The whole CPU lowering as one readable list of stages. Symbolic dims
// stay symbolic throughout: every dynamic size is computed at run time
// from the input dims (shape reification), so one compile serves every
// shape.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/CpuPipeline.h"

#include "codegen/CPU/Passes.h"
#include "codegen/Common/Stages.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace anyshape::codegen {

bool strictFusionPlanFromEnvironment() {
  const char *value = std::getenv("ANYSHAPE_STRICT_FUSION_PLAN");
  return value && *value && std::strcmp(value, "0") != 0;
}

void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options,
                      dhlo::FormedFusionPlan *formed) {
  // Weights in the layout this CPU's GEMM library reads fastest, before
  // anything plans around their shapes.
  if (options.target.transposeWideWeights)
    pm.addNestedPass<func::FuncOp>(createTransposeWideWeights());
  // Entry, plan, linalg: the planned graph in linalg (Stages.h), then
  // vectorisable exp/tanh/erf/...
  buildPlannedLinalgStages(pm, options.fuse, dhlo::ConvolutionsBy::kLibrary,
                           formed);
  pm.addPass(createMathApproximation());
  // Buffers: tensors -> buffers, owned by the host flow.
  buildBufferizationStages(pm);
  // Kernels: f32 matmuls to the GEMM library; everything else to loops;
  // then the LLVM dialect.
  pm.addPass(createBatchMatmulToRuntimeCall());
  // GEMMs on constant weights reuse a pack of the weight made once.
  if (options.packConstantWeights)
    pm.addPass(createPackConstantWeights());
  // Loops: parallel dims become scf.parallel; each outermost one gets a serial
  // twin chosen at run time by its amount of work, and the parallel
  // version becomes an OpenMP region (runtime/OpenMpAbi.h).
  // A row reduction and its consumers (kStitch) run row by row in one
  // parallel loop.
  buildKernelFormationStages(pm, options.fuse, options.printKernelFusions,
                             options.allowPlanDepartures);
  pm.addNestedPass<func::FuncOp>(createMinMaxReductions());
  if (options.parallel) {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    // Drops the unit dims of the loops a stitched row's ops became.
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createPromoteAccumulators());
    pm.addPass(createSpeculateKernels(
        {options.parallelMinWork, options.parallelChunk,
         options.splitRowMinWork, options.maxColumnPartials}));
    // After versioning, every innermost loop of every version is an scf.for.
    pm.addNestedPass<func::FuncOp>(
        createSplitVectorRemainders({options.target.rowLoopStep()}));
    pm.addPass(createConvertSCFToOpenMPPass());
    // Inlines the memref.alloca_scope the conversion wraps each loop body
    // in (kernel bodies allocate nothing on the stack); left in place it
    // would hold the multi-block body scf-to-cf produces, which it may not.
    pm.addPass(createCanonicalizerPass());
  } else {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  }
  // LLVM dialect: the host flow and its kernels.
  buildHostLowering(pm);
}

void registerCpuPipeline() {
  registerCodegenCommonPasses();
  registerCodegenCpuPasses();
  // Every CpuPipelineOptions field, with its default: what the server
  // compiles is this pipeline with these options (compileOptionsFor).
  struct CliOptions : PassPipelineOptions<CliOptions> {
    CpuPipelineOptions defaults;
    Option<bool> fuse{*this, "fuse", llvm::cl::desc("Fuse kernels"),
                      llvm::cl::init(defaults.fuse)};
    Option<bool> parallel{*this, "parallel",
                          llvm::cl::desc("Parallel kernel versions"),
                          llvm::cl::init(defaults.parallel)};
    Option<int64_t> parallelMinWork{
        *this, "parallel-min-work",
        llvm::cl::desc("Work from which a kernel runs in parallel"),
        llvm::cl::init(defaults.parallelMinWork)};
    Option<int64_t> parallelChunk{
        *this, "parallel-chunk",
        llvm::cl::desc("Iterations per chunk of a parallel innermost dim"),
        llvm::cl::init(defaults.parallelChunk)};
    Option<int64_t> splitRowMinWork{
        *this, "split-row-min-work",
        llvm::cl::desc("Row work from which rows are shared by the team"),
        llvm::cl::init(defaults.splitRowMinWork)};
    Option<int64_t> maxColumnPartials{
        *this, "max-column-partials",
        llvm::cl::desc("Partial sums above which columns are chunked"),
        llvm::cl::init(defaults.maxColumnPartials)};
    Option<bool> packConstantWeights{
        *this, "pack-constant-weights",
        llvm::cl::desc("GEMMs on constant weights run from a pack made once"),
        llvm::cl::init(defaults.packConstantWeights)};
    Option<bool> printKernelFusions{
        *this, "print-kernel-fusions",
        llvm::cl::desc("Print each kernel with its fusions of the plan")};
    Option<bool> allowPlanDepartures{
        *this, "allow-plan-departures",
        llvm::cl::desc("Warn of kernels formed against the fusion plan "
                       "instead of failing"),
        llvm::cl::init(false)};
    Option<int64_t> vectorBytes{
        *this, "vector-bytes",
        llvm::cl::desc("Bytes of the target's vector registers"),
        llvm::cl::init(defaults.target.vectorBytes)};
    Option<bool> transposeWideWeights{
        *this, "transpose-wide-weights",
        llvm::cl::desc("Store constant GEMM weights [K, N], N > K, as [N, K]"),
        llvm::cl::init(defaults.target.transposeWideWeights)};
  };
  PassPipelineRegistration<CliOptions>(
      "anyshape-cpu-pipeline",
      "Imported dhlo to the LLVM dialect for the CPU, shapes symbolic",
      [](OpPassManager &pm, const CliOptions &cli) {
        CpuPipelineOptions options;
        options.fuse = cli.fuse;
        options.parallel = cli.parallel;
        options.parallelMinWork = cli.parallelMinWork;
        options.parallelChunk = cli.parallelChunk;
        options.splitRowMinWork = cli.splitRowMinWork;
        options.maxColumnPartials = cli.maxColumnPartials;
        options.packConstantWeights = cli.packConstantWeights;
        options.printKernelFusions = cli.printKernelFusions;
        options.allowPlanDepartures = cli.allowPlanDepartures;
        options.target.vectorBytes = cli.vectorBytes;
        options.target.transposeWideWeights = cli.transposeWideWeights;
        buildCpuPipeline(pm, options);
      });
}

} // namespace anyshape::codegen
