//===- HostBuffers.cpp - which buffers the host flow touches -----*- C++
//-*-===//
//
// anyshape-host-buffers (see Passes.td). On the CUDA target the context's
// allocator hands out device memory, so a buffer the CPU reads or writes
// must not come from it. The host flow's only such buffers are shape
// operands of memref.reshape (a few indices, statically sized), which move
// to the stack. A copy between buffers (an output that is an input)
// becomes the runtime's device copy; any other host access to a buffer is
// reported, since it would dereference a device pointer on the CPU.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_HOSTBUFFERS
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// Larger buffers are never shape operands (a shape has one index per
/// dim, and ranks are at most 8 in practice).
constexpr int64_t kMaxShapeBufferElements = 64;

/// `alloc` is a shape buffer: static, small, and only the host flow's
/// stores and loads, reshapes' shape operands and its dealloc use it.
bool isShapeBuffer(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || type.getNumElements() > kMaxShapeBufferElements)
    return false;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (llvm::isa<memref::StoreOp>(user) &&
        llvm::cast<memref::StoreOp>(user).getMemRef() == alloc)
      continue;
    if (llvm::isa<memref::LoadOp, memref::DeallocOp>(user))
      continue;
    if (auto reshape = llvm::dyn_cast<memref::ReshapeOp>(user);
        reshape && reshape.getShape() == alloc)
      continue;
    return false;
  }
  return true;
}

/// `copy` of one contiguous device buffer into another as the runtime's
/// stream-ordered device copy: anyshapeCudaCopy(context, to, from, bytes).
/// False if a side is not contiguous (no host flow copies one).
bool copyOnTheDevice(memref::CopyOp copy, Value context) {
  auto from = llvm::cast<MemRefType>(copy.getSource().getType());
  auto to = llvm::cast<MemRefType>(copy.getTarget().getType());
  if (!from.getLayout().isIdentity() || !to.getLayout().isIdentity())
    return false;
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  Type i64 = b.getI64Type();
  int64_t elementBytes = (from.getElementTypeBitWidth() + 7) / 8;
  // The first element's address: aligned pointer plus offset.
  auto address = [&](Value buffer) -> Value {
    auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, buffer);
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, buffer);
    Value offset = b.create<arith::MulIOp>(
        loc, metadata.getOffset(),
        b.create<arith::ConstantIndexOp>(loc, elementBytes));
    return b.create<arith::IndexCastOp>(
        loc, i64, b.create<arith::AddIOp>(loc, base, offset));
  };
  Value bytes = b.create<arith::ConstantIndexOp>(loc, elementBytes);
  for (int64_t d = 0; d < from.getRank(); ++d)
    bytes = b.create<arith::MulIOp>(
        loc, bytes, b.create<memref::DimOp>(loc, copy.getSource(), d));
  b.create<func::CallOp>(
      loc, kCudaCopy, TypeRange{},
      ValueRange{context, address(copy.getTarget()), address(copy.getSource()),
                 b.create<arith::IndexCastOp>(loc, i64, bytes)});
  copy.erase();
  return true;
}

struct HostBuffersPass : impl::HostBuffersBase<HostBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false, copies = false;
    // Only the host's functions: a gpu.module's kernels are not walked.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func->hasAttr(kEmulatedKernelAttr))
        continue;
      // A copy between device buffers (an output that is an input) runs
      // on the device, in stream order.
      if (func->hasAttr(kExecutionContextAttr)) {
        SmallVector<memref::CopyOp> deviceCopies;
        func.walk([&](memref::CopyOp copy) { deviceCopies.push_back(copy); });
        for (memref::CopyOp copy : deviceCopies)
          copies |= copyOnTheDevice(copy, func.getArgument(0));
      }
      SmallVector<memref::AllocOp> shapeBuffers;
      func.walk([&](memref::AllocOp alloc) {
        if (isShapeBuffer(alloc))
          shapeBuffers.push_back(alloc);
      });
      OpBuilder entry(&func.front(), func.front().begin());
      for (memref::AllocOp alloc : shapeBuffers) {
        auto alloca = entry.create<memref::AllocaOp>(
            alloc.getLoc(), alloc.getType(), alloc.getAlignmentAttr());
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          if (llvm::isa<memref::DeallocOp>(user))
            user->erase();
        alloc.replaceAllUsesWith(alloca.getResult());
        alloc.erase();
      }
      func.walk([&](Operation *op) {
        Value buffer;
        if (auto load = llvm::dyn_cast<memref::LoadOp>(op))
          buffer = load.getMemRef();
        else if (auto store = llvm::dyn_cast<memref::StoreOp>(op))
          buffer = store.getMemRef();
        else if (llvm::isa<memref::CopyOp>(op))
          buffer = op->getOperand(0);
        if (!buffer || buffer.getDefiningOp<memref::AllocaOp>())
          return;
        op->emitError("the host flow would access a device buffer here");
        failedAny = true;
      });
    }
    if (copies) {
      MLIRContext *context = &getContext();
      Type i64 = IntegerType::get(context, 64);
      OpBuilder b(module.getBodyRegion());
      b.create<func::FuncOp>(
           module.getLoc(), kCudaCopy,
           FunctionType::get(
               context, {LLVM::LLVMPointerType::get(context), i64, i64, i64},
               {}))
          .setPrivate();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
