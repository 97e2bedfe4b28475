//===- StitchRows.cpp - one parallel loop over the rows of a stitch -===//
//
// anyshape-stitch-rows (see Passes.td). Runs on buffers, after
// deallocation and before linalg becomes loops. A group is a run of
// consecutive linalg ops (only allocations, deallocations and pure ops
// between them) whose leading parallel dims span the same index space,
// provably: the sizes are compared through the allocations' size operands
// and memref.dim, which the shape analysis made canonical (one SSA value
// per symbol). Each member is then tiled to one row of that space inside
// one scf.parallel, so a row's reductions and their consumers run back to
// back while the row is in the cache.
//
// Legality: every buffer written by a member is only accessed, by every
// member, at the current row (its leading dims indexed exactly by the
// row's loop dims, the other dims independent of them), and no member
// writes a buffer that a member's body loads from at computed rows (a
// gather's table; a pad's source may be written, as a pad loads it at the
// current row). Then row i of the group depends only on row i of
// earlier members, and rows may run in any order, in parallel. Members
// are ops of one dhlo.fusion: the pass stitches within each kernel.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "codegen/Common/BufferRoots.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_STITCHROWS
#include "codegen/Common/Passes.h.inc"

namespace {

/// What a dim's size is known to equal: a constant, or a value (an index
/// value, or dim `dim` of a memref the size cannot be traced through).
struct SizeKey {
  int64_t constant = ShapedType::kDynamic;
  Value value;
  int64_t dim = -1;
  bool operator==(const SizeKey &other) const {
    return constant == other.constant && value == other.value &&
           dim == other.dim;
  }
};

SizeKey sizeOfMemrefDim(Value memref, int64_t dim);

SizeKey sizeOfIndex(Value index) {
  if (std::optional<int64_t> constant = getConstantIntValue(index))
    return {*constant, {}, -1};
  if (auto dimOp = index.getDefiningOp<memref::DimOp>())
    if (std::optional<int64_t> dim = dimOp.getConstantIndex())
      return sizeOfMemrefDim(dimOp.getSource(), *dim);
  return {ShapedType::kDynamic, index, -1};
}

SizeKey sizeOfMemrefDim(Value memref, int64_t dim) {
  auto type = llvm::cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(dim))
    return {type.getDimSize(dim), {}, -1};
  if (auto alloc = memref.getDefiningOp<memref::AllocOp>())
    return sizeOfIndex(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
  return {ShapedType::kDynamic, memref, dim};
}

/// Buffers whose aliasing is known: fresh allocations, constants, and the
/// function's arguments (inputs, never written).
bool knownRoot(Value root) {
  return llvm::isa<BlockArgument>(root) ||
         root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::GetGlobalOp>();
}

unsigned leadingParallelDims(linalg::LinalgOp op) {
  unsigned count = 0;
  for (utils::IteratorType type : op.getIteratorTypesArray()) {
    if (type != utils::IteratorType::parallel)
      break;
    ++count;
  }
  return count;
}

/// The loads in `op`'s body from buffers outside it (a gather's table, a
/// pad's source under its scf.if), or nullopt if the body touches memory
/// any other way.
std::optional<SmallVector<memref::LoadOp>> bodyLoads(Operation *op) {
  SmallVector<memref::LoadOp> loaded;
  Region &body = op->getRegion(0);
  WalkResult walk = body.walk([&](Operation *inner) {
    if (auto load = llvm::dyn_cast<memref::LoadOp>(inner)) {
      if (body.isAncestor(load.getMemRef().getParentRegion()))
        return WalkResult::interrupt();
      loaded.push_back(load);
      return WalkResult::advance();
    }
    // An op with regions has the effects of the ops it holds, which the
    // walk visits too.
    if (isMemoryEffectFree(inner) ||
        inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return loaded;
}

/// A linalg op on buffers whose body writes no memory and reads only its
/// operands or buffers from outside it (bodyLoads).
bool isStitchable(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureBufferSemantics() &&
         llvm::isa<TilingInterface>(op) && leadingParallelDims(linalgOp) > 0 &&
         bodyLoads(op).has_value();
}

/// The size of loop dim `dim` of `op`, read from its inits first (fresh
/// allocations sized by the canonical symbol values), then its inputs.
std::optional<SizeKey> loopSize(linalg::LinalgOp op, unsigned dim) {
  SmallVector<OpOperand *> operands;
  for (OpOperand &init : op.getDpsInitsMutable())
    operands.push_back(&init);
  for (OpOperand *input : op.getDpsInputOperands())
    operands.push_back(input);
  for (OpOperand *operand : operands) {
    if (!llvm::isa<MemRefType>(operand->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r) == getAffineDimExpr(dim, op->getContext()))
        return sizeOfMemrefDim(operand->get(), r);
  }
  return std::nullopt;
}

/// Whether body load `load` of `member` reads only the current row of its
/// buffer: it loads from the buffer itself or from a view that starts at
/// row 0 with unit steps over the row dims, at indices that are the loop's
/// row indices (or 0 along a row dim of size 1). A pad reading the row it
/// shifts is such a load.
bool loadsAtCurrentRow(memref::LoadOp load, linalg::LinalgOp member,
                       unsigned rowDims, const llvm::SmallBitVector &unitRow) {
  Value memref = load.getMemRef();
  if (auto view = memref.getDefiningOp<memref::SubViewOp>()) {
    if (view.getSourceType().getRank() != view.getType().getRank())
      return false;
    for (unsigned r = 0; r < rowDims; ++r)
      if (view.getStaticOffsets()[r] != 0 || view.getStaticStrides()[r] != 1)
        return false;
    memref = view.getSource();
  }
  if (memref != rootBuffer(memref) || load.getIndices().size() < rowDims)
    return false;
  for (unsigned r = 0; r < rowDims; ++r) {
    Value index = load.getIndices()[r];
    auto loopIndex = index.getDefiningOp<linalg::IndexOp>();
    bool atRow = (loopIndex && loopIndex.getDim() == r &&
                  loopIndex->getParentOp() == member) ||
                 (unitRow[r] && getConstantIntValue(index) == 0);
    if (!atRow)
      return false;
  }
  return true;
}

/// True if `members`, tiled to one point of their first `rowDims` dims,
/// compute what they compute one after the other (file comment).
bool canStitch(ArrayRef<linalg::LinalgOp> members, unsigned rowDims) {
  if (rowDims == 0)
    return false;
  // Row dims of static size 1: an access may index them with 0 (as
  // canonical maps do once the size is known), which is the current row.
  llvm::SmallBitVector unitRow(rowDims);
  for (unsigned d = 0; d < rowDims; ++d) {
    std::optional<SizeKey> reference = loopSize(members.front(), d);
    if (!reference)
      return false;
    unitRow[d] = reference->constant == 1;
    for (linalg::LinalgOp member : members.drop_front()) {
      std::optional<SizeKey> size = loopSize(member, d);
      if (!size || !(*size == *reference))
        return false;
    }
  }
  llvm::DenseSet<Value> written;
  for (linalg::LinalgOp member : members)
    for (Value init : member.getDpsInits())
      written.insert(rootBuffer(init));
  for (linalg::LinalgOp member : members) {
    // A buffer the body loads from must be one no member writes, or be
    // loaded at the current row only.
    // (The loads are kept in a local: a range over `*bodyLoads(member)`
    // would outlive the optional it points into.)
    SmallVector<memref::LoadOp> loads = *bodyLoads(member);
    for (memref::LoadOp load : loads) {
      Value root = rootBuffer(load.getMemRef());
      if (!knownRoot(root) ||
          (written.contains(root) &&
           !loadsAtCurrentRow(load, member, rowDims, unitRow)))
        return false;
    }
    for (OpOperand &operand : member->getOpOperands()) {
      if (!llvm::isa<MemRefType>(operand.get().getType()))
        continue;
      Value root = rootBuffer(operand.get());
      if (!knownRoot(root))
        return false;
      if (!written.contains(root))
        continue;
      if (operand.get() != root)
        return false;
      AffineMap map = member.getMatchingIndexingMap(&operand);
      if (map.getNumResults() < rowDims)
        return false;
      for (unsigned r = 0; r < map.getNumResults(); ++r) {
        AffineExpr result = map.getResult(r);
        if (r < rowDims) {
          bool atRow = result == getAffineDimExpr(r, member->getContext()) ||
                       (unitRow[r] && result == getAffineConstantExpr(
                                                    0, member->getContext()));
          if (!atRow)
            return false;
          continue;
        }
        for (unsigned d = 0; d < rowDims; ++d)
          if (result.isFunctionOfDim(d))
            return false;
      }
    }
  }
  return true;
}

bool hasReduction(linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; }

/// A store into a fresh buffer that none of `members` (the members before
/// it) touches: a scalar made from sizes, as `tensor.from_elements`
/// bufferizes. It stays before the stitched loop, so later members still
/// read what it stored, and earlier ones never saw the buffer.
bool isFreshBufferStore(Operation &op, ArrayRef<linalg::LinalgOp> members) {
  auto store = llvm::dyn_cast<memref::StoreOp>(op);
  if (!store || !store.getMemRef().getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::none_of(members, [&](linalg::LinalgOp member) {
    return llvm::any_of(member->getOperands(), [&](Value operand) {
      return llvm::isa<MemRefType>(operand.getType()) &&
             rootBuffer(operand) == store.getMemRef();
    });
  });
}

/// Ops that may sit between members: allocations, pure ops and fresh
/// buffer stores stay where they are, before the stitched loop;
/// deallocations move after it.
bool mayInterleave(Operation &op, ArrayRef<linalg::LinalgOp> members) {
  return llvm::isa<memref::AllocOp, memref::DeallocOp>(op) ||
         (op.getNumRegions() == 0 && isMemoryEffectFree(&op)) ||
         isFreshBufferStore(op, members);
}

/// Replaces `members` with one scf.parallel over their first `rowDims`
/// dims whose body runs each member on one row.
LogicalResult stitch(ArrayRef<linalg::LinalgOp> members,
                     ArrayRef<Operation *> between, unsigned rowDims) {
  // The loop goes after the last member: every member's domain sizes
  // (computed just before it) and every allocation between them dominate
  // it. Deallocations between members move after it.
  Operation *last = members.back();
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = members.front()->getLoc();
  SmallVector<SmallVector<Range>> domains;
  for (linalg::LinalgOp member : members)
    domains.push_back(llvm::cast<TilingInterface>(member.getOperation())
                          .getIterationDomain(b));
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> lower(rowDims, zero), steps(rowDims, one), upper;
  for (unsigned d = 0; d < rowDims; ++d)
    upper.push_back(
        getValueOrCreateConstantIndexOp(b, loc, domains.front()[d].size));
  auto loop = b.create<scf::ParallelOp>(loc, lower, upper, steps);
  loop->setAttr(kStitchedLoopAttr, b.getUnitAttr());
  for (Operation *op : llvm::reverse(between))
    if (llvm::isa<memref::DeallocOp>(op))
      op->moveAfter(loop);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  for (auto [index, member] : llvm::enumerate(members)) {
    ArrayRef<Range> domain = domains[index];
    SmallVector<OpFoldResult> offsets, sizes;
    for (unsigned d = 0; d < domain.size(); ++d) {
      bool row = d < rowDims;
      offsets.push_back(row ? OpFoldResult(loop.getInductionVars()[d])
                            : domain[d].offset);
      sizes.push_back(row ? OpFoldResult(b.getIndexAttr(1)) : domain[d].size);
    }
    Operation *op = member;
    if (failed(llvm::cast<TilingInterface>(op).getTiledImplementation(
            b, offsets, sizes)))
      return member->emitOpError("could not be tiled to one row");
    member->erase();
  }
  return success();
}

struct StitchRowsPass : impl::StitchRowsBase<StitchRowsPass> {
  void runOnOperation() override {
    SmallVector<Block *> kernels;
    getOperation().walk([&](dhlo::FusionOp fusion) {
      kernels.push_back(&fusion.getBody().front());
    });
    for (Block *block : kernels) {
      SmallVector<Operation *> ops;
      for (Operation &op : *block)
        ops.push_back(&op);
      for (size_t i = 0; i < ops.size();) {
        if (!isStitchable(ops[i])) {
          ++i;
          continue;
        }
        SmallVector<linalg::LinalgOp> members{
            llvm::cast<linalg::LinalgOp>(ops[i])};
        unsigned rowDims = leadingParallelDims(members.front());
        SmallVector<Operation *> between, pending;
        size_t next = i + 1;
        for (; next < ops.size(); ++next) {
          Operation *op = ops[next];
          if (isStitchable(op)) {
            auto candidate = llvm::cast<linalg::LinalgOp>(op);
            // The most leading dims that still work as rows: a pad that
            // shifts its row's columns stitches over the rows alone.
            unsigned dims = std::min(rowDims, leadingParallelDims(candidate));
            members.push_back(candidate);
            while (dims > 0 && !canStitch(members, dims))
              --dims;
            if (dims == 0) {
              members.pop_back();
              break;
            }
            rowDims = dims;
            between.append(pending);
            pending.clear();
            continue;
          }
          if (!mayInterleave(*op, members))
            break;
          pending.push_back(op);
        }
        if (members.size() >= 2 && llvm::any_of(members, hasReduction)) {
          if (failed(stitch(members, between, rowDims)))
            return signalPassFailure();
        }
        // Restart after the last member: a member that did not fit may
        // start the next group.
        i += members.size() + between.size();
      }
    }
  }
};

} // namespace
} // namespace anyshape::codegen
