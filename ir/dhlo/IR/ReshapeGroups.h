//===- ReshapeGroups.h - which reshapes split or merge dims -*- C++ -*-===//
//
// A reshape that splits or merges dims in order ([batch*seq, 768] <->
// [batch, seq, 12, 64], unit dims included) is a view: lowering makes it a
// tensor.expand_shape or collapse_shape that fusion sees through. Any
// other reshape goes through memory order, a copy of its own. The fusion
// plan and the lowering both ask here, so the plan never fuses a reshape
// that codegen must copy; a reduction of merged dims reduces the unmerged
// ones instead (ReduceCanonicalize.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/dhlo/IR/DhloDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace anyshape::dhlo {

/// For each dim of the lower-rank side of `op`, the dims of the other side
/// it spans; nullopt when `op` is not such a split or merge (equal ranks
/// included).
std::optional<llvm::SmallVector<llvm::SmallVector<int64_t, 2>>>
reshapeGroups(ReshapeOp op);

} // namespace anyshape::dhlo
