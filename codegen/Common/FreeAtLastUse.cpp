//===- FreeAtLastUse.cpp - deallocate right after the last use ---*- C++
//-*-===//
//
// anyshape-free-at-last-use (see Passes.td). Runs on buffers, right after
// MLIR's ownership-based deallocation, which frees every buffer at the end
// of the block that allocated it.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_FREEATLASTUSE
#include "codegen/Common/Passes.h.inc"

namespace {

/// The op of `block` after which the buffer `memref` is no longer used
/// through any of its aliases, or null when an alias is used outside the
/// block (then the deallocation stays where it is).
Operation *lastUseInBlock(Value memref, memref::DeallocOp dealloc,
                          Block &block) {
  Operation *last = memref.getDefiningOp();
  if (last && last->getBlock() != &block)
    last = nullptr;
  SmallVector<Value> aliases{memref};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == dealloc)
        continue;
      // A view (subview, reshape, cast) is another name for the buffer.
      if (llvm::isa<ViewLikeOpInterface>(user))
        llvm::append_range(aliases, user->getResults());
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (!ancestor)
        return nullptr;
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  return last;
}

struct FreeAtLastUsePass : impl::FreeAtLastUseBase<FreeAtLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      Block &block = *dealloc->getBlock();
      Operation *last = lastUseInBlock(dealloc.getMemref(), dealloc, block);
      // A buffer defined in an enclosing block (a function argument) has
      // no last use here: leave its deallocation alone.
      if (!last || !last->isBeforeInBlock(dealloc))
        continue;
      dealloc->moveAfter(last);
    }
  }
};

} // namespace
} // namespace anyshape::codegen
