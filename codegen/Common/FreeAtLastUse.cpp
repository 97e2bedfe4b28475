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

/// Each op's place in its block, numbered once: MLIR's `isBeforeInBlock`
/// renumbers a block after every move into it, which made this pass
/// quadratic in a host flow's buffers. Only deallocations move, and
/// lastUseInBlock skips deallocations, so the numbers it reads stay valid.
class BlockOrder {
public:
  int64_t indexOf(Operation *op) {
    Block *block = op->getBlock();
    if (numbered.insert(block).second) {
      int64_t next = 0;
      for (Operation &each : *block)
        index[&each] = next++;
    }
    return index.lookup(op);
  }

private:
  llvm::DenseSet<Block *> numbered;
  llvm::DenseMap<Operation *, int64_t> index;
};

/// The op of `block` after which the buffer `memref` is no longer used
/// through any of its aliases, or null when an alias is used outside the
/// block (then the deallocation stays where it is).
Operation *lastUseInBlock(Value memref, memref::DeallocOp dealloc, Block &block,
                          BlockOrder &order) {
  Operation *last = memref.getDefiningOp();
  if (last && last->getBlock() != &block)
    last = nullptr;
  SmallVector<Value> aliases{memref};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      // Deallocations are not uses, and the ones already moved have stale
      // numbers (BlockOrder).
      if (user == dealloc || llvm::isa<memref::DeallocOp>(user))
        continue;
      // A view (subview, reshape, cast) is another name for the buffer.
      if (llvm::isa<ViewLikeOpInterface>(user))
        llvm::append_range(aliases, user->getResults());
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (!ancestor)
        return nullptr;
      if (!last || order.indexOf(last) < order.indexOf(ancestor))
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
    BlockOrder order;
    for (memref::DeallocOp dealloc : deallocs) {
      Block &block = *dealloc->getBlock();
      int64_t place = order.indexOf(dealloc); // before anything moves
      Operation *last =
          lastUseInBlock(dealloc.getMemref(), dealloc, block, order);
      // A buffer defined in an enclosing block (a function argument) has
      // no last use here: leave its deallocation alone.
      if (!last || order.indexOf(last) >= place)
        continue;
      dealloc->moveAfter(last);
    }
  }
};

} // namespace
} // namespace anyshape::codegen
