//===- Loops.h - what the GPU schedules read off scf loops --------*- C++
//-*-===//
//
// Shared by the schedules (MapKernelsToGpu.cpp, RowSchedule.cpp,
// ColumnSchedule.cpp): a nest's trip counts (each LoopBounds.h's), a flat
// index spread back over its dims, and the combine of a reduction loop.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "codegen/Common/LoopBounds.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace anyshape::codegen {

/// `loop`'s trip counts, one per dim, at `b`.
llvm::SmallVector<mlir::Value> tripCounts(mlir::OpBuilder &b,
                                          mlir::scf::ParallelOp loop);

/// The product of `trips` (null for none).
mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ValueRange trips);

/// Maps `loop`'s induction variables to the iteration `flat` numbers, last
/// dim fastest (`trips` from tripCounts); bounds looked up in `map`.
void mapFlatIteration(mlir::OpBuilder &b, mlir::scf::ParallelOp loop,
                      mlir::ValueRange trips, mlir::Value flat,
                      mlir::IRMapping &map);

/// A launch at `b` of `blockSize` threads a block and as many blocks as
/// cover `count` iterations once (at least 1, at most `maxBlocks`), whose
/// threads run a grid-stride loop over [0, count): thread t of block k
/// from k * blockDim + t, by the whole grid. `b` is left after the launch.
struct GridStrideLaunch {
  mlir::gpu::LaunchOp launch;
  mlir::scf::ForOp loop;
};
GridStrideLaunch buildGridStrideLaunch(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value count, int64_t blockSize,
                                       int64_t maxBlocks);

/// The reduction loop `loop` (reductionCombiner) as one thread's share of
/// it, at `b`: its iterations lane, lane + width, ... (in steps of the
/// loop's step), from the combine's identity, none where `valid` is false
/// (an idle thread contributes the identity). Its body is cloned through
/// `map`; returns the partial, which the caller combines across threads
/// and then with the loop's own init.
mlir::Value buildStridedPartial(mlir::OpBuilder &b, mlir::scf::ForOp loop,
                                mlir::IRMapping &map, mlir::Value lane,
                                mlir::Value width, mlir::Value valid);

/// The combining op of a reduction loop: the one use of its one iter_arg,
/// an associative combine (Reductions.h) whose result the loop yields;
/// null if `loop` is no such reduction.
mlir::Operation *reductionCombiner(mlir::scf::ForOp loop);

} // namespace anyshape::codegen
