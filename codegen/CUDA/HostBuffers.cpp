//===- HostBuffers.cpp - which buffers the host flow touches -----*- C++
//-*-===//
//
// anyshape-host-buffers (see Passes.td). On the CUDA target the context's
// allocator hands out device memory, so a buffer the CPU reads or writes
// must not come from it. The host flow's only such buffers are shape
// operands of memref.reshape (a few indices, statically sized), which move
// to the stack, and small buffers the host only writes and kernels read (a
// dim_size's scalar), written on the stack and uploaded. A copy between
// buffers (an output that is an input) becomes the runtime's device copy;
// any other host access to a buffer is reported, since it would
// dereference a device pointer on the CPU.
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

/// The address of `buffer`'s first element as an i64, at `b`: its aligned
/// pointer plus its offset.
Value firstElementAddress(OpBuilder &b, Location loc, Value buffer) {
  auto type = llvm::cast<MemRefType>(buffer.getType());
  int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, buffer);
  Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, buffer);
  Value offset = b.create<arith::MulIOp>(
      loc, metadata.getOffset(),
      b.create<arith::ConstantIndexOp>(loc, elementBytes));
  return b.create<arith::IndexCastOp>(
      loc, b.getI64Type(), b.create<arith::AddIOp>(loc, base, offset));
}

/// The stores of `alloc` if it is a small buffer the host flow only writes
/// and kernels then read (a size read as data: dim_size's scalar): every
/// store in its block, before every other use; empty otherwise.
SmallVector<memref::StoreOp> uploadedStores(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  SmallVector<memref::StoreOp> stores;
  if (!type.hasStaticShape() ||
      type.getNumElements() > kMaxShapeBufferElements ||
      !type.getLayout().isIdentity())
    return {};
  Block *block = alloc->getBlock();
  for (Operation *user : alloc->getUsers()) {
    auto store = llvm::dyn_cast<memref::StoreOp>(user);
    if (store && store.getMemRef() == alloc && user->getBlock() == block)
      stores.push_back(store);
    else if (store || llvm::isa<memref::LoadOp, memref::CopyOp>(user))
      return {}; // a host read, or a store elsewhere
  }
  for (Operation *user : alloc->getUsers()) {
    if (llvm::isa<memref::StoreOp>(user))
      continue;
    Operation *at = block->findAncestorOpInBlock(*user);
    for (memref::StoreOp store : stores)
      if (!at || at->isBeforeInBlock(store))
        return {};
  }
  return stores;
}

/// The stores of `alloc` written into a stack copy instead, uploaded to
/// the device buffer after the last: anyshapeCudaUpload(context, to, from,
/// bytes), which keeps the bytes until the run ends.
void uploadAfterStores(memref::AllocOp alloc, ArrayRef<memref::StoreOp> stores,
                       OpBuilder &entry, Value context) {
  auto alloca = entry.create<memref::AllocaOp>(alloc.getLoc(), alloc.getType(),
                                               alloc.getAlignmentAttr());
  memref::StoreOp last = stores.front();
  for (memref::StoreOp store : stores) {
    store.getMemrefMutable().assign(alloca);
    if (last->isBeforeInBlock(store))
      last = store;
  }
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = last.getLoc();
  MemRefType type = alloc.getType();
  int64_t bytes =
      type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  b.create<func::CallOp>(
      loc, kCudaUpload, TypeRange{},
      ValueRange{context, firstElementAddress(b, loc, alloc),
                 firstElementAddress(b, loc, alloca),
                 b.create<arith::ConstantIntOp>(loc, bytes, 64)});
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
  auto address = [&](Value buffer) {
    return firstElementAddress(b, loc, buffer);
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
    bool failedAny = false, copies = false, uploaded = false;
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
      // Small buffers the host writes and kernels read are uploaded.
      if (func->hasAttr(kExecutionContextAttr)) {
        SmallVector<std::pair<memref::AllocOp, SmallVector<memref::StoreOp>>>
            uploads;
        func.walk([&](memref::AllocOp alloc) {
          if (llvm::is_contained(shapeBuffers, alloc))
            return; // the host's own: moved to the stack below
          if (SmallVector<memref::StoreOp> stores = uploadedStores(alloc);
              !stores.empty())
            uploads.emplace_back(alloc, std::move(stores));
        });
        for (auto &[alloc, stores] : uploads)
          uploadAfterStores(alloc, stores, entry, func.getArgument(0));
        uploaded |= !uploads.empty();
      }
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
    MLIRContext *context = &getContext();
    Type i64 = IntegerType::get(context, 64);
    OpBuilder b(module.getBodyRegion());
    for (auto [used, name] :
         {std::pair{copies, kCudaCopy}, std::pair{uploaded, kCudaUpload}})
      if (used)
        b.create<func::FuncOp>(
             module.getLoc(), name,
             FunctionType::get(
                 context, {LLVM::LLVMPointerType::get(context), i64, i64, i64},
                 {}))
            .setPrivate();
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
