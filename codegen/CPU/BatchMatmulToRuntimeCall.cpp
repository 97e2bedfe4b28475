//===- BatchMatmulToRuntimeCall.cpp - GEMM through the runtime ---*- C++
//-*-===//
//
// anyshape-batch-matmul-to-runtime-call (see Passes.td). The callee takes
// fully dynamic strided rank-3 memrefs, so one declaration serves every
// call site whatever its layout.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace anyshape::codegen {

#define GEN_PASS_DEF_BATCHMATMULTORUNTIMECALL
#include "codegen/CPU/Passes.h.inc"

using namespace mlir;

namespace {

/// The zero fill of `op`'s C, when nothing else touches C between the two:
/// the runtime overwrites C, so the fill is a wasted pass over it.
linalg::FillOp zeroFillOfC(linalg::BatchMatmulOp op) {
  Value c = op.getDpsInits()[0];
  linalg::FillOp fill;
  // The GEMM's kernel (its dhlo.fusion) is ordered against other kernels'
  // uses of C in the block that allocates C; a view of C (made by the host
  // flow, before the kernel) is C itself, used where the view is.
  Block *hostBlock = c.getParentBlock();
  Operation *kernel = hostBlock->findAncestorOpInBlock(*op);
  SmallVector<Value> aliases{c};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == op)
        continue;
      if (llvm::isa<ViewLikeOpInterface>(user) &&
          user->getBlock() == hostBlock) {
        llvm::append_range(aliases, user->getResults());
        continue;
      }
      Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor) {
        Operation *other = hostBlock->findAncestorOpInBlock(*user);
        if (kernel && other && kernel->isBeforeInBlock(other))
          continue; // read by a later kernel
        return {};  // used somewhere this block does not order: keep it
      }
      if (op->isBeforeInBlock(ancestor))
        continue;
      auto candidate = llvm::dyn_cast<linalg::FillOp>(user);
      if (candidate != ancestor || fill || alias != c)
        return {}; // another use before the GEMM: keep everything
      fill = candidate;
    }
  }
  if (!fill || !c.getDefiningOp<memref::AllocOp>() ||
      !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  return fill;
}

struct BatchMatmulToRuntimeCallPass
    : impl::BatchMatmulToRuntimeCallBase<BatchMatmulToRuntimeCallPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    OpBuilder b(context);
    int64_t dynamic = ShapedType::kDynamic;
    auto layout =
        StridedLayoutAttr::get(context, dynamic, {dynamic, dynamic, dynamic});
    auto argType =
        MemRefType::get({dynamic, dynamic, dynamic}, b.getF32Type(), layout);
    func::FuncOp callee;
    module.walk([&](linalg::BatchMatmulOp op) {
      if (!op.hasPureBufferSemantics() ||
          !llvm::all_of(op->getOperandTypes(), [](Type t) {
            return llvm::cast<MemRefType>(t).getElementType().isF32();
          }))
        return;
      if (!callee) {
        b.setInsertionPointToStart(module.getBody());
        callee = b.create<func::FuncOp>(
            module.getLoc(), kBatchMatmulF32,
            b.getFunctionType({argType, argType, argType}, {}));
        callee.setPrivate();
        callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
      }
      if (linalg::FillOp fill = zeroFillOfC(op))
        fill.erase();
      b.setInsertionPoint(op);
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(b.create<memref::CastOp>(op.getLoc(), argType, operand));
      b.create<func::CallOp>(op.getLoc(), callee, args);
      op.erase();
    });
  }
};

} // namespace
} // namespace anyshape::codegen
