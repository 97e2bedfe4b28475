//===- CheckKernelFusions.cpp - kernels against the fusion plan -*- C++ -*-===//
//
// anyshape-check-kernel-fusions (see Passes.td): each dhlo.fusion (one
// fusion of the plan) must have become one kernel, and nothing outside
// the fusions a kernel; reports where codegen departs from that, as an
// error or (allow-departures) a warning.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_CHECKKERNELFUSIONS
#include "codegen/Common/Passes.h.inc"

namespace {

bool isKernel(Operation *op) {
  // An index or size check, nonzero, scatter, argsort, cumulative or
  // convolution is a call of the runtime from the host flow.
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee() != abi::kCheckIndicesI32 &&
           call.getCallee() != abi::kCheckIndicesI64 &&
           call.getCallee() != abi::kCheckSizes &&
           !isNonZeroCall(call.getCallee()) &&
           !call.getCallee().starts_with(abi::kScatter) &&
           !call.getCallee().starts_with(abi::kArgsort) &&
           !call.getCallee().starts_with(abi::kCumulative) &&
           call.getCallee() != abi::kConvolutionF32;
  return isa<linalg::LinalgOp, memref::CopyOp>(op) ||
         (isa<scf::ParallelOp>(op) && op->hasAttr(kStitchedLoopAttr));
}

/// A kernel codegen formed: a top-level op of the function or of a fusion.
struct Kernel {
  Operation *op;
  dhlo::FusionOp fusion; // null outside every fusion
};

/// Whether `kernel` only narrows what `previous`, a reduction of the same
/// fusion, accumulated in a wider type (f16 sums accumulate in f32, float
/// products in f64): a
/// column reduction's accumulators are final only after its last row, so
/// the cast is a pass of its own, over the result only.
bool narrowsAccumulator(const Kernel &kernel, const Kernel *previous) {
  auto cast = dyn_cast<linalg::GenericOp>(kernel.op);
  auto reduction =
      previous ? dyn_cast<linalg::LinalgOp>(previous->op) : nullptr;
  if (!cast || !reduction || reduction.getNumReductionLoops() == 0 ||
      kernel.fusion != previous->fusion || cast.getNumDpsInputs() != 1 ||
      cast.getNumReductionLoops() != 0 ||
      !llvm::is_contained(reduction.getDpsInits(),
                          cast.getDpsInputOperand(0)->get()))
    return false;
  // One cast or a chain of them (f64 to f16 goes through f32).
  Block &body = cast.getRegion().front();
  return body.getOperations().size() >= 2 &&
         llvm::all_of(body.without_terminator(),
                      [](Operation &op) { return isa<CastOpInterface>(op); });
}

struct CheckKernelFusionsPass
    : impl::CheckKernelFusionsBase<CheckKernelFusionsPass> {
  using CheckKernelFusionsBase::CheckKernelFusionsBase;

  void runOnOperation() override {
    // Declarations have no kernels; the initializer and the finalizer run
    // once, at load and unload, outside any plan (their calls fill
    // constants and free GEMM packs).
    if (getOperation().isExternal() ||
        getOperation().getSymName() == abi::kInitializeSymbol ||
        getOperation().getSymName() == abi::kFinalizeSymbol)
      return;
    std::vector<Kernel> kernels;
    auto collect = [&](Block &block, dhlo::FusionOp fusion) {
      for (Operation &op : block)
        if (isKernel(&op))
          kernels.push_back({&op, fusion});
    };
    for (Operation &op : getOperation().getBody().getOps()) {
      if (auto fusion = dyn_cast<dhlo::FusionOp>(op))
        collect(fusion.getBody().front(), fusion);
      else if (isKernel(&op))
        kernels.push_back({&op, nullptr});
    }

    std::vector<std::pair<Operation *, std::string>> departures;
    std::map<Operation *, int> kernelsOf;
    const Kernel *previous = nullptr;
    for (const Kernel &kernel : kernels) {
      // Copies of one fusion, back to back, are one kernel: a concatenate
      // copies each operand into its part of the result.
      bool continuesCopies = previous && isa<memref::CopyOp>(kernel.op) &&
                             isa<memref::CopyOp>(previous->op) &&
                             kernel.fusion == previous->fusion;
      bool finish = narrowsAccumulator(kernel, previous);
      previous = &kernel;
      // A reduction's accumulator fill, and the transposed or packed copy
      // of a GEMM operand (a strided view whose batch dims cannot merge:
      // GPT-NeoX's V, a slice of the fused QKV), are part of the kernel
      // they prepare; a narrowing cast, of the kernel it finishes.
      bool preparation = isa<linalg::FillOp>(kernel.op) ||
                         (isa<linalg::TransposeOp, memref::CopyOp>(kernel.op) &&
                          kernel.fusion &&
                          dhlo::FusionOp(kernel.fusion).getKind() ==
                              dhlo::fusionKindName(dhlo::FusionKind::Library));
      if (kernel.fusion && !preparation && !continuesCopies && !finish)
        ++kernelsOf[kernel.fusion];
      // What is left outside every fusion is what the plan has its users
      // recompute (cheap ops, duplicated producers): built alone, it is a
      // kernel the plan does not have.
      if (!kernel.fusion && !isa<linalg::FillOp, memref::CopyOp>(kernel.op))
        departures.push_back(
            {kernel.op, "a kernel outside the plan's fusions (holding only "
                        "ops the plan has every kernel recompute)"});
    }
    getOperation().walk([&](dhlo::FusionOp fusion) {
      if (int count = kernelsOf[fusion]; count > 1)
        departures.push_back(
            {fusion, "fusion #" + std::to_string(fusion.getId()) + " is " +
                         std::to_string(count) + " kernels"});
    });

    if (print) {
      llvm::raw_ostream &os = llvm::outs();
      os << "kernels of @" << getOperation().getName() << "\n";
      for (size_t i = 0; i < kernels.size(); ++i) {
        os << "  kernel " << i << " " << kernels[i].op->getName() << ":";
        if (kernels[i].fusion)
          os << " #" << kernels[i].fusion.getId();
        os << "\n";
      }
      os << "departures from the plan: " << departures.size() << "\n";
      for (const auto &[op, text] : departures)
        os << "  " << text << "\n";
      markAllAnalysesPreserved();
      return;
    }
    // Codegen builds exactly the plan's kernels: a departure fails the
    // compile, or is a warning where a slower model beats a refused one.
    for (const auto &[op, text] : departures)
      (allowDepartures ? op->emitWarning() : op->emitError())
          << "codegen departs from the fusion plan: " << text;
    if (!departures.empty() && !allowDepartures)
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
} // namespace anyshape::codegen
