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

namespace anyshape::dhlo {

#define GEN_PASS_DECL
#include "ir/dhlo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ir/dhlo/Transforms/Passes.h.inc"

/// What a shape pass may retype in one function. Whether a symbol refers
/// to the function takes a walk of the module, so it is looked up once
/// here, not once per value (per value, it made a function of n arguments
/// cost n module walks: quadratic, 1.9 s at 400 inputs).
class Retyping {
public:
  explicit Retyping(mlir::func::FuncOp func);

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

/// Prints the fusion plan of each function of `module` as the compiler
/// plans it (dhlo-form-fusions runs after dhlo-simplify): on a simplified
/// copy, so `module` is unchanged. Returns the number of fusions, or -1 if
/// simplification failed.
int64_t printSimplifiedFusionPlans(mlir::ModuleOp module,
                                   llvm::raw_ostream &os);

/// Registers the passes above (registerDhloPasses, generated) and the named
/// pipelines.
void registerAllDhloPasses();

} // namespace anyshape::dhlo
