//===- ImplicitBroadcast.h - kernels versioned on stretching dims -*- C++
//-*-===//
//
// A dim that is 1 at some runs and not at others is read through
// `select(size == 1, 0, i)` (ShapeOpsToLinalg): the implicit broadcast of
// numpy semantics decided at run time. Both targets version such a
// kernel: the original for runs where some such size is 1, and a copy
// with the selects folded to `i` for the runs where none is (plain strided
// accesses: vectorised on the CPU, coalesced on the GPU).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SetVector.h"

namespace anyshape::codegen {

/// The conditions `size == 1` of the implicit-broadcast selects
/// `select(size == 1, 0, i)` in `loop`, computed before it.
llvm::SetVector<mlir::Value> stretchConditions(mlir::scf::ParallelOp loop);

/// Folds the selects of `loop` on `conditions` to their false value: the
/// version for runs where no broadcast dim stretches.
void assumeNoStretch(mlir::scf::ParallelOp loop,
                     const llvm::SetVector<mlir::Value> &conditions);

} // namespace anyshape::codegen
