//===- HoistKernelBuffers.cpp - a kernel's buffers to the host --*- C++ -*-===//
//
// anyshape-hoist-kernel-buffers (see Passes.td). After bufferization a
// fusion allocates the buffers it writes and yields them; this moves each
// allocation, with the pure index and view ops it is computed from, out
// in front of the fusion, and the fusion's results become those buffers;
// a memref.reshape in the kernel moves out too, with the stores of its
// shape, where its source allows.
// What stays inside only reads and writes memory the host flow owns; a
// fusion with nothing left (a reshape, now a view) goes away.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_HOISTKERNELBUFFERS
#include "codegen/Common/Passes.h.inc"

namespace {

/// Moves the ops of `fusion`'s body that `roots` are computed from in
/// front of `fusion`, in their order: pure ops, allocations, and the
/// stores that write the shape a hoisted memref.reshape reads (a reshape
/// is pure, but reads its shape operand's buffer). Fails, moving nothing,
/// on any other op with a memory effect (it would not compute the same
/// outside) or an op in a nested region; with `required`, naming it.
LogicalResult hoistSlices(dhlo::FusionOp fusion, ArrayRef<Value> roots,
                          bool required = true) {
  auto fail = [&](Operation *op, const char *message) {
    return required ? op->emitOpError(message) : failure();
  };
  Block &body = fusion.getBody().front();
  llvm::DenseSet<Operation *> slice;
  SmallVector<Operation *> worklist;
  auto add = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && fusion->isProperAncestor(def) && slice.insert(def).second)
      worklist.push_back(def);
  };
  for (Value root : roots)
    add(root);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op->getBlock() != &body)
      return fail(op, "defines a kernel's buffer inside a loop");
    if (auto reshape = llvm::dyn_cast<memref::ReshapeOp>(op))
      for (Operation *user : reshape.getShape().getUsers()) {
        auto store = llvm::dyn_cast<memref::StoreOp>(user);
        if (store && store.getMemRef() == reshape.getShape()) {
          if (slice.insert(store).second)
            worklist.push_back(store);
        } else if (user != op && fusion->isProperAncestor(user)) {
          return fail(user, "writes the shape of a kernel's buffer");
        }
      }
    if (!isMemoryEffectFree(op) &&
        !llvm::isa<memref::AllocOp, memref::StoreOp>(op))
      return fail(op, "defines a kernel's buffer with side effects");
    for (Value operand : op->getOperands())
      add(operand);
  }
  for (Operation &op : llvm::make_early_inc_range(body))
    if (slice.count(&op))
      op.moveBefore(fusion);
  return success();
}

LogicalResult hoist(dhlo::FusionOp fusion) {
  SmallVector<Value> roots;
  fusion.getBody().walk(
      [&](memref::AllocOp alloc) { roots.push_back(alloc.getResult()); });
  dhlo::YieldOp yield = fusion.getYield();
  llvm::append_range(roots, yield->getOperands());
  if (failed(hoistSlices(fusion, roots)))
    return failure();
  // So do the views a kernel makes through a shape buffer (a GEMM's
  // operands as 3-D): the host writes the shape, the kernel gets the view.
  SmallVector<Value> reshapes;
  for (auto reshape : fusion.getBody().front().getOps<memref::ReshapeOp>())
    reshapes.push_back(reshape.getResult());
  for (Value reshape : reshapes)
    (void)hoistSlices(fusion, {reshape}, /*required=*/false);
  // The results are now the yielded values themselves, defined outside.
  fusion->replaceAllUsesWith(yield->getOperands());
  // A fusion that was only views (a reshape) has nothing left to run.
  if (&fusion.getBody().front().front() == yield.getOperation()) {
    fusion.erase();
    return success();
  }
  OpBuilder b(fusion);
  auto bare =
      b.create<dhlo::FusionOp>(fusion.getLoc(), TypeRange{}, fusion.getIdAttr(),
                               fusion.getKindAttr(), fusion.getVersionsAttr());
  bare.getBody().takeBody(fusion.getBody());
  yield->setOperands({});
  fusion.erase();
  return success();
}

struct HoistKernelBuffersPass
    : impl::HoistKernelBuffersBase<HoistKernelBuffersPass> {
  void runOnOperation() override {
    SmallVector<dhlo::FusionOp> fusions;
    getOperation().walk([&](dhlo::FusionOp op) { fusions.push_back(op); });
    for (dhlo::FusionOp fusion : fusions)
      if (failed(hoist(fusion)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
