//===- LoopBounds.cpp - trip counts of scf loops ----------------*- C++ -*-===//
#include "codegen/Common/LoopBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace anyshape::codegen {

Value tripCount(OpBuilder &b, Location loc, Value lower, Value upper,
                Value step) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value span = b.create<arith::SubIOp>(loc, upper, lower);
  Value count = b.create<arith::CeilDivSIOp>(loc, span, step);
  return b.create<arith::MaxSIOp>(loc, count, zero);
}

Value tripCount(OpBuilder &b, Location loc, scf::ForOp loop) {
  return tripCount(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                   loop.getStep());
}

} // namespace anyshape::codegen
