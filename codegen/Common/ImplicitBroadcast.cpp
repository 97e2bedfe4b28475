//===- ImplicitBroadcast.cpp - kernels versioned on stretching dims -*- C++
//-*-===//
#include "codegen/Common/ImplicitBroadcast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace anyshape::codegen {

llvm::SetVector<Value> stretchConditions(scf::ParallelOp loop) {
  llvm::SetVector<Value> conditions;
  loop.getBody()->walk([&](arith::SelectOp select) {
    Value condition = select.getCondition();
    auto compare = condition.getDefiningOp<arith::CmpIOp>();
    if (!compare || loop->isAncestor(compare) ||
        compare.getPredicate() != arith::CmpIPredicate::eq ||
        !matchPattern(compare.getRhs(), m_One()) ||
        !matchPattern(select.getTrueValue(), m_Zero()))
      return;
    conditions.insert(condition);
  });
  return conditions;
}

void assumeNoStretch(scf::ParallelOp loop,
                     const llvm::SetVector<Value> &conditions) {
  SmallVector<arith::SelectOp> selects;
  loop.getBody()->walk([&](arith::SelectOp select) {
    if (conditions.contains(select.getCondition()) &&
        matchPattern(select.getTrueValue(), m_Zero()))
      selects.push_back(select);
  });
  for (arith::SelectOp select : selects) {
    select.getResult().replaceAllUsesWith(select.getFalseValue());
    select.erase();
  }
}

} // namespace anyshape::codegen
