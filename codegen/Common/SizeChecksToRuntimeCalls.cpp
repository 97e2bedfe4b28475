//===- SizeChecksToRuntimeCalls.cpp - count rules as calls ------*- C++ -*-===//
//
// anyshape-size-checks-to-runtime-calls (see Passes.td): each
// dhlo.check_sizes becomes, where it stands in the host flow, its
// condition on i64 and a call
//
//   anyshapeCheckSizes(failed: i64, check: i64, a: i64, b: i64)
//
// through MLIR's C interface (the execution context is appended by
// anyshape-execution-context). The runtime stops the run when `failed` is
// set (runtime/SizeChecks.h). The call is unconditional: one per rule and
// run, where a branch would split the host flow's block.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ShapeCheckAttr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SIZECHECKSTORUNTIMECALLS
#include "codegen/Common/Passes.h.inc"

namespace {

func::FuncOp checkFunction(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kCheckSizes))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  auto declaration =
      b.create<func::FuncOp>(module.getLoc(), kCheckSizes,
                             b.getFunctionType({i64, i64, i64, i64}, {}));
  declaration.setPrivate();
  declaration->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return declaration;
}

/// Whether sizes `a` and `b` (i64) break the condition `kind`, as i1: the
/// negation of what ShapeCheck::Kind says must hold.
Value breaks(ShapeCheck::Kind kind, Value a, Value b, OpBuilder &builder,
             Location loc) {
  using Kind = ShapeCheck::Kind;
  using P = arith::CmpIPredicate;
  auto compare = [&](P p, Value x, Value y) {
    return builder.create<arith::CmpIOp>(loc, p, x, y).getResult();
  };
  auto constant = [&](int64_t v) {
    return builder.create<arith::ConstantIntOp>(loc, v, 64).getResult();
  };
  auto both = [&](Value x, Value y) {
    return builder.create<arith::AndIOp>(loc, x, y).getResult();
  };
  switch (kind) {
  case Kind::Equal:
    return compare(P::ne, a, b);
  case Kind::OneOrEqual:
    return both(compare(P::ne, a, constant(1)), compare(P::ne, a, b));
  case Kind::LessEqual:
    return compare(P::sgt, a, b);
  case Kind::Divides: {
    // a > 0 and a divides b; the divisor is made 1 where it is not
    // positive, so the remainder never divides by zero.
    Value positive = compare(P::sgt, a, constant(0));
    Value divisor =
        builder.create<arith::SelectOp>(loc, positive, a, constant(1));
    Value remainder = builder.create<arith::RemSIOp>(loc, b, divisor);
    return builder.create<arith::OrIOp>(loc, compare(P::sle, a, constant(0)),
                                        compare(P::ne, remainder, constant(0)));
  }
  case Kind::NonEmptyUnlessUnused:
    return both(compare(P::eq, a, constant(0)), compare(P::ne, b, constant(0)));
  default:
    return nullptr;
  }
}

struct SizeChecksToRuntimeCallsPass
    : impl::SizeChecksToRuntimeCallsBase<SizeChecksToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<dhlo::CheckSizesOp> checks;
    module.walk([&](dhlo::CheckSizesOp check) { checks.push_back(check); });
    for (dhlo::CheckSizesOp check : checks) {
      OpBuilder b(check);
      Location loc = check.getLoc();
      Type i64 = b.getI64Type();
      Value a = b.create<arith::IndexCastOp>(loc, i64, check.getA());
      Value c = b.create<arith::IndexCastOp>(loc, i64, check.getB());
      std::optional<ShapeCheck::Kind> kind =
          dhlo::shapeCheckKindNamed(check.getKind());
      Value failed = kind ? breaks(*kind, a, c, b, loc) : nullptr;
      if (!failed) {
        check.emitError("not a condition on two sizes");
        return signalPassFailure();
      }
      Value flag = b.create<arith::ExtUIOp>(loc, i64, failed);
      Value index = b.create<arith::ConstantIntOp>(loc, check.getCheck(), 64);
      b.create<func::CallOp>(loc, checkFunction(module),
                             ValueRange{flag, index, a, c});
      check.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen
