//===- VectorAccesses.h - 128-bit loads and stores of kLoop kernels -*- C++
//-*-===//
//
// A grid-stride kernel whose loads and stores walk the last dim gets a
// version in which each thread handles 4 neighbouring elements of it with
// one vector access per buffer (ld.global.v4.f32 for f32: 128 bits),
// taken when the host proves at run time that every such access is
// aligned to the vector's size (the last dim a multiple of 4, each
// buffer's aligned pointer, offset and outer strides too, its last stride
// 1). The device lowering relies on that proof: it marks the kernels'
// 4-element vector accesses aligned (anyshape-align-vector-accesses).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

/// Elements per vector access.
inline constexpr int64_t kVectorLanes = 4;

/// Whether `loop` (a fusion's top-level parallel loop, not a row or column
/// kernel) has a 4-wide version: its last dim runs from 0 by 1 and some
/// load or store in its body indexes a buffer's last dim with it.
bool hasVectorAccesses(mlir::scf::ParallelOp loop);

/// At `b` (host code): whether the 4-wide version is exact and aligned
/// for this run.
mlir::Value vectorAccessCondition(mlir::OpBuilder &b,
                                  mlir::scf::ParallelOp loop);

/// The 4-wide version's launch at `b`, a grid-stride loop over groups of
/// 4 iterations; `loop` is left in place.
void buildVectorAccessLaunch(mlir::OpBuilder &b, mlir::scf::ParallelOp loop,
                             int64_t blockSize, int64_t maxBlocks);

} // namespace anyshape::codegen
