//===- HostBuffers.cpp - which buffers the host flow touches -----*- C++
//-*-===//
//
// anyshape-host-buffers (see Passes.td). On the CUDA target the context's
// allocator hands out device memory, so a buffer the CPU reads or writes
// must not come from it. The host flow's only such buffers are shape
// operands of memref.reshape (a few indices, statically sized), which move
// to the stack, and small buffers the host only writes and kernels read (a
// dim_size's scalar), written on the stack and uploaded. A copy into a
// fresh buffer (an output that is an input, or a slice) becomes the
// runtime's device copies, one per contiguous block;
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
#include "mlir/Dialect/SCF/IR/SCF.h"

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
      loc, abi::kCudaUpload, TypeRange{},
      ValueRange{context, firstElementAddress(b, loc, alloc),
                 firstElementAddress(b, loc, alloca),
                 b.create<arith::ConstantIntOp>(loc, bytes, 64)});
}

/// The first of `type`'s trailing dims that its static strides and sizes
/// prove contiguous (0 for an identity layout; the rank if not even the
/// last is).
int64_t contiguousFrom(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(getStridesAndOffset(type, strides, offset)))
    return type.getRank();
  int64_t first = type.getRank(), expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (strides[d] != expected)
      break;
    first = d;
    if (type.isDynamicDim(d))
      break; // the next stride would have to be this dim times expected
    expected *= type.getDimSize(d);
  }
  return first;
}

/// `copy` of a device buffer into a contiguous one (an output that is an
/// input, or a slice of another value) as the runtime's stream-ordered
/// device copies, anyshapeCudaCopy(context, to, from, bytes): one per
/// block of the source's trailing dims that its type proves contiguous,
/// a host loop over the others. False if the target is strided (no host
/// flow copies into one) or the source's innermost dim is.
bool copyOnTheDevice(memref::CopyOp copy, Value context) {
  Value source = copy.getSource(), target = copy.getTarget();
  auto from = llvm::cast<MemRefType>(source.getType());
  auto to = llvm::cast<MemRefType>(target.getType());
  int64_t inner = contiguousFrom(from);
  if (!to.getLayout().isIdentity() || (inner == from.getRank() && inner > 0))
    return false;
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto index = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  int64_t elementBytes = (from.getElementTypeBitWidth() + 7) / 8;
  Value blockBytes = index(elementBytes);
  for (int64_t d = inner; d < from.getRank(); ++d)
    blockBytes = b.create<arith::MulIOp>(
        loc, blockBytes, b.create<memref::DimOp>(loc, source, d));
  auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, source);
  Value sourceStart = b.create<arith::AddIOp>(
      loc, b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, source),
      b.create<arith::MulIOp>(loc, metadata.getOffset(), index(elementBytes)));
  Value targetStart = b.create<arith::AddIOp>(
      loc, b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, target),
      b.create<arith::MulIOp>(
          loc,
          b.create<memref::ExtractStridedMetadataOp>(loc, target).getOffset(),
          index(elementBytes)));
  SmallVector<Value> lower(inner, index(0)), upper, steps(inner, index(1));
  for (int64_t d = 0; d < inner; ++d)
    upper.push_back(b.create<memref::DimOp>(loc, source, d));
  auto i64 = [&](OpBuilder &at, Value v) {
    return at.create<arith::IndexCastOp>(loc, at.getI64Type(), v).getResult();
  };
  scf::buildLoopNest(
      b, loc, lower, upper, steps,
      [&](OpBuilder &at, Location, ValueRange outer) {
        Value from = sourceStart, block = index(0);
        for (int64_t d = 0; d < inner; ++d) {
          Value stride = at.create<arith::MulIOp>(loc, metadata.getStrides()[d],
                                                  index(elementBytes));
          from = at.create<arith::AddIOp>(
              loc, from, at.create<arith::MulIOp>(loc, outer[d], stride));
          block = at.create<arith::AddIOp>(
              loc, at.create<arith::MulIOp>(loc, block, upper[d]), outer[d]);
        }
        Value into = at.create<arith::AddIOp>(
            loc, targetStart, at.create<arith::MulIOp>(loc, block, blockBytes));
        at.create<func::CallOp>(loc, abi::kCudaCopy, TypeRange{},
                                ValueRange{context, i64(at, into),
                                           i64(at, from), i64(at, blockBytes)});
      });
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
    for (auto [used, name] : {std::pair{copies, abi::kCudaCopy},
                              std::pair{uploaded, abi::kCudaUpload}})
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
