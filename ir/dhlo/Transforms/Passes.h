//===- Passes.h - dhlo passes ------------------------------------*- C++
//-*-===//
//
// Declarations of the dhlo passes (Passes.td) and the dhlo pipelines.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

#include <mutex>
#include <string>

namespace anyshape::dhlo {

#define GEN_PASS_DECL
#include "ir/dhlo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ir/dhlo/Transforms/Passes.h.inc"

/// Whether `func` has a fusion plan to report: it holds a dhlo op (a
/// target's own functions, such as the shape checks' code, hold none).
bool hasDhloOps(mlir::func::FuncOp func);

/// What dhlo-form-fusions formed, for a compile's report: the plan of
/// each function with dhlo ops as FusionPlan::print writes it (in the order the
/// pass ran on them: the module's, when the context runs passes on one thread),
/// and the fusions of all of them. Read after the pass manager has run.
struct FormedFusionPlan {
  std::mutex mutex; ///< guards the rest against functions run in parallel
  std::string text;
  int64_t fusions = 0;
};

/// dhlo-form-fusions, appending the plan it forms to `formed` (if set):
/// the report then is the plan the target follows, made once.
std::unique_ptr<mlir::Pass> createFormFusions(FormedFusionPlan *formed);

/// The symbols something in `module` refers to (a call, or any other
/// use), by their root name; every function's when some op's uses cannot
/// be known. One walk of the module, made by a module pass before it
/// changes any function: a function pass reading its siblings raced with
/// the threads changing them (a crash in CI).
llvm::DenseSet<mlir::StringAttr> referencedSymbols(mlir::ModuleOp module);

/// What a shape pass may retype in one function. Whether a symbol refers
/// to the function is looked up once (referencedSymbols), not once per
/// value (per value, it made a function of n arguments cost n module
/// walks: quadratic, 1.9 s at 400 inputs).
class Retyping {
public:
  Retyping(mlir::func::FuncOp func,
           const llvm::DenseSet<mlir::StringAttr> &referenced);

  /// Whether `value` (of this function) may change type: every user is a
  /// dhlo op (their verifiers accept any refinement) or the return of a
  /// function no symbol refers to (so no call site's types go stale).
  bool canRetype(mlir::Value value) const;

  /// Sets the function's type from its entry block's argument types and
  /// its return's operand types, if no symbol refers to the function.
  void updateSignature() const;

private:
  mlir::func::FuncOp func_;
  bool uncalled_;
};

/// The front half of the compile pipeline: propagate shapes, simplify them
/// with the constraint analysis, canonicalize, CSE. Registered as
/// `dhlo-simplify` so anyshape-opt reproduces exactly what the compiler
/// runs.
void buildDhloSimplifyPipeline(mlir::OpPassManager &pm);

/// How a target computes convolutions: by its convolution library (the
/// CPU's oneDNN), or as kernels of slices and a contraction (CUDA, until
/// cuDNN).
enum class ConvolutionsBy { kLibrary, kKernels };

/// Everything the compile pipeline runs on dhlo before it plans the
/// kernels: convolutions expanded (kKernels), then dhlo-simplify. The plan
/// the target follows is planFusion of what this leaves, and the plan a
/// compile reports is made by the same function, so the two agree.
void buildDhloPlanningPipeline(mlir::OpPassManager &pm,
                               ConvolutionsBy convolutions);

/// Prints the fusion plan of each function of `module` as the compiler
/// plans it for a target computing convolutions by `convolutions`
/// (dhlo-form-fusions runs after buildDhloPlanningPipeline): on a copy,
/// so `module` is unchanged. Returns the number of fusions, or -1 if a
/// pass failed.
int64_t printSimplifiedFusionPlans(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   ConvolutionsBy convolutions);

/// Registers the passes above (registerDhloPasses, generated) and the named
/// pipelines.
void registerAllDhloPasses();

} // namespace anyshape::dhlo
