//===- BroadcastStretch.h - which broadcast dims stretch ----------*- C++
//-*-===//
//
// For each operand dim of a broadcast_in_dim, whether it reads index 0
// (a static 1), the result's index (proven not to stretch), or must decide
// at run time (a symbolic dim the analysis cannot tell from 1). Lowering
// uses it to pick affine maps or a select on the dim's size; the fusion
// plan uses it to tag the kernels that get a no-stretch version.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ShapeConstraintAnalysis.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace anyshape::dhlo {

enum class DimStretch : int64_t { AlwaysZero = 0, Same = 1, AtRunTime = 2 };

llvm::SmallVector<DimStretch>
broadcastStretch(BroadcastInDimOp op, const ShapeConstraintAnalysis &analysis);

/// True if some operand dim of `op` decides at run time whether it
/// stretches.
bool stretchesAtRunTime(BroadcastInDimOp op,
                        const ShapeConstraintAnalysis &analysis);

} // namespace anyshape::dhlo
