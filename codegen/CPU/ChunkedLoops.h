//===- ChunkedLoops.h - loops over chunks of a dim --------------*- C++ -*-===//
//
// The loop shapes every parallel schedule of anyshape-speculate-kernels is
// built from: where values are defined, trip counts (LoopBounds.h), and a
// parallel loop whose
// innermost dim steps a chunk at a time, each iteration a chunk [start, end)
// that a serial loop inside runs (codegen/CPU/SpeculateKernels.cpp,
// SplitRowSchedule.h, ColumnSchedule.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/LoopBounds.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

/// Whether `v` is defined outside `op` (before it, as SSA dominance goes).
bool isDefinedOutside(mlir::Value v, mlir::Operation *op);
/// Whether `loop`'s bounds and step are all defined outside `op`.
bool boundsDefinedOutside(mlir::scf::ForOp loop, mlir::Operation *op);

/// An scf.parallel over `lowers`..`uppers` by `steps`, except that its
/// innermost dim steps by `chunkStride`: each iteration is the chunk
/// [start, end) of that dim, `end` clamped to its upper bound. Leaves `b`
/// in the loop's body, after `end`.
struct ChunkLoop {
  mlir::scf::ParallelOp loop;
  mlir::Value start, end;
};
ChunkLoop buildChunkLoop(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::ValueRange lowers, mlir::ValueRange uppers,
                         mlir::ValueRange steps, mlir::Value chunkStride);

} // namespace anyshape::codegen
