//===- Reductions.h - combining values across threads ------------*- C++
//-*-===//
//
// The reductions a kernel splits across threads: which gpu collective
// combines like a reduction loop's combining op, its identity, and the
// scalar combine. Shared by the row schedules (which emit gpu.all_reduce
// and gpu.subgroup_reduce) and their emulation (which computes them
// serially), so both agree on every kind.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace anyshape::codegen {

/// The collective that combines like `combiner` (arith.addf, maximumf,
/// ...); nullopt for an op that is no associative, commutative combine.
std::optional<mlir::gpu::AllReduceOperation>
reductionKindOf(mlir::Operation *combiner);

/// The value `kind` leaves unchanged (0 for add, -inf for maximumf, ...).
mlir::Value reductionIdentity(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::gpu::AllReduceOperation kind,
                              mlir::Type type);

/// lhs `kind` rhs.
mlir::Value combineValues(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::gpu::AllReduceOperation kind, mlir::Value lhs,
                          mlir::Value rhs);

} // namespace anyshape::codegen
