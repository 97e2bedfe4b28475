//===- BatchMatmulToRuntimeCall.cpp - GEMM through the runtime ---*- C++
//-*-===//
//
// anyshape-batch-matmul-to-runtime-call (see Passes.td). The callee takes
// fully dynamic strided rank-3 memrefs, so one declaration serves every
// call site whatever its layout: batch_matmul_transpose_a/_b pass their
// transposed operand as a transposed view (memref.transpose), which the
// library reads in place.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace anyshape::codegen {

#define GEN_PASS_DEF_BATCHMATMULTORUNTIMECALL
#include "codegen/Common/Passes.h.inc"

using namespace mlir;

namespace {

/// The zero fill of `op`'s C, when nothing else touches C between the two:
/// the runtime overwrites C, so the fill is a wasted pass over it.
linalg::FillOp zeroFillOfC(linalg::LinalgOp op) {
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
      if (op.getOperation()->isBeforeInBlock(ancestor))
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
    module.walk([&](linalg::LinalgOp op) {
      // Which operand, if any, the op reads transposed ([B, K, M] or
      // [B, N, K]).
      int transposed = -1;
      if (llvm::isa<linalg::BatchMatmulTransposeAOp>(op))
        transposed = 0;
      else if (llvm::isa<linalg::BatchMatmulTransposeBOp>(op))
        transposed = 1;
      else if (!llvm::isa<linalg::BatchMatmulOp>(op))
        return;
      if (!op.hasPureBufferSemantics() ||
          !llvm::all_of(op->getOperandTypes(), [](Type t) {
            return llvm::cast<MemRefType>(t).getElementType().isF32();
          }))
        return;
      if (!callee) {
        b.setInsertionPointToStart(module.getBody());
        callee = b.create<func::FuncOp>(
            module.getLoc(), abi::kBatchMatmulF32,
            b.getFunctionType({argType, argType, argType}, {}));
        callee.setPrivate();
        callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
      }
      if (linalg::FillOp fill = zeroFillOfC(op))
        fill.erase();
      b.setInsertionPoint(op);
      SmallVector<Value> args;
      for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
        Value view = operand;
        if (static_cast<int>(index) == transposed)
          view = b.create<memref::TransposeOp>(
              op.getLoc(), operand,
              AffineMapAttr::get(AffineMap::getPermutationMap(
                  ArrayRef<unsigned>{0, 2, 1}, context)));
        args.push_back(b.create<memref::CastOp>(op.getLoc(), argType, view));
      }
      b.create<func::CallOp>(op.getLoc(), callee, args);
      op->erase();
    });
  }
};

} // namespace
} // namespace anyshape::codegen
