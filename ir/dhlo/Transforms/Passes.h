//===- Passes.h - dhlo passes ------------------------------------*- C++
//-*-===//
//
// Declarations of the dhlo passes (Passes.td) and the dhlo pipelines.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace anyshape::dhlo {

#define GEN_PASS_DECL
#include "ir/dhlo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ir/dhlo/Transforms/Passes.h.inc"

/// The front half of the compile pipeline: propagate shapes, simplify them
/// with the constraint analysis, canonicalize, CSE. Registered as
/// `dhlo-simplify` so anyshape-opt reproduces exactly what the compiler
/// runs.
void buildDhloSimplifyPipeline(mlir::OpPassManager &pm);

/// Registers the passes above (registerDhloPasses, generated) and the named
/// pipelines.
void registerAllDhloPasses();

} // namespace anyshape::dhlo
