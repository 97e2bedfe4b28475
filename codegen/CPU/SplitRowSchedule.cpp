//===- SplitRowSchedule.cpp - rows shared among threads ------------------===//
//
// See SplitRowSchedule.h. A reduction's chunks each start from their first
// element rather than from an identity: the accumulator's initial value
// (the reduce's init, already in the accumulator) is folded in exactly
// once, after the partials, so any fold with any init stays exact up to
// reassociation, which the float folds allow (`reassoc`).
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/SplitRowSchedule.h"

#include "codegen/CPU/ChunkedLoops.h"
#include "codegen/CPU/ColumnSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace anyshape::codegen {
namespace {

/// Chunks of a row are at least this long (a chunk's start costs a few
/// index operations and, for a reduction, one partial) ...
constexpr int64_t kMinRowChunk = 1024;
/// ... and at most this many per row: the partials of a reduction live in
/// a fixed stack array, which is enough chunks for 256 threads.
constexpr int64_t kMaxRowChunks = 256;

bool hasReassoc(Operation *op) {
  auto fastMath = llvm::dyn_cast<arith::ArithFastMathInterface>(op);
  return fastMath &&
         arith::bitEnumContainsAll(fastMath.getFastMathFlagsAttr().getValue(),
                                   arith::FastMathFlags::reassoc);
}

/// The op folding `loop`'s single accumulator into the next value, when
/// the accumulator is used by that op alone, the op is associative and
/// commutative, and its result is only yielded.
Operation *singleFold(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() != 1)
    return nullptr;
  Value accumulator = loop.getRegionIterArgs()[0];
  if (!accumulator.hasOneUse())
    return nullptr;
  Operation *fold = *accumulator.getUsers().begin();
  if (fold->getNumOperands() != 2 || fold->getNumResults() != 1 ||
      fold->getBlock() != loop.getBody() || !fold->getResult(0).hasOneUse() ||
      !llvm::isa<scf::YieldOp>(*fold->getResult(0).getUsers().begin()))
    return nullptr;
  return isAssociativeFold(fold) ? fold : nullptr;
}

/// Every store in `loop` writes an element of the current iteration, so
/// its iterations may run in any order and at once.
bool storesIndexIteration(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  return !loop.getBody()
              ->walk([&](memref::StoreOp store) {
                return llvm::is_contained(store.getIndices(), iv)
                           ? WalkResult::advance()
                           : WalkResult::interrupt();
              })
              .wasInterrupted();
}

Value allocatePartials(OpBuilder &b, scf::ForOp reduction) {
  return b.create<memref::AllocaOp>(
      reduction.getLoc(),
      MemRefType::get({kMaxRowChunks}, reduction.getResult(0).getType()));
}

/// Iterations per chunk of `loop`'s row: at least kMinRowChunk, and few
/// enough that there are at most kMaxRowChunks chunks.
Value chunkLength(OpBuilder &b, Location loc, Value trips) {
  Value spread = b.create<arith::CeilDivSIOp>(
      loc, trips, b.create<arith::ConstantIndexOp>(loc, kMaxRowChunks));
  return b.create<arith::MaxSIOp>(
      loc, spread, b.create<arith::ConstantIndexOp>(loc, kMinRowChunk));
}

/// Clones `loop`'s body (without its terminator) with `mapping`.
void cloneBody(OpBuilder &b, scf::ForOp loop, IRMapping &mapping) {
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// An elementwise row loop as a parallel loop over chunks, each an scf.for.
void buildChunkedElementwise(OpBuilder &b, scf::ForOp loop,
                             IRMapping &mapping) {
  Location loc = loop.getLoc();
  Value step = mapping.lookupOrDefault(loop.getStep());
  OpBuilder::InsertionGuard guard(b);
  ChunkLoop chunks = buildChunkLoop(
      b, loc, mapping.lookupOrDefault(loop.getLowerBound()),
      mapping.lookupOrDefault(loop.getUpperBound()), step,
      b.create<arith::MulIOp>(loc, step,
                              chunkLength(b, loc, tripCount(b, loc, loop))));
  auto serial = b.create<scf::ForOp>(loc, chunks.start, chunks.end, step);
  b.setInsertionPoint(serial.getBody()->getTerminator());
  mapping.map(loop.getInductionVar(), serial.getInductionVar());
  cloneBody(b, loop, mapping);
}

/// The loop over columns that is the body of `reduced` (a column loop).
scf::ForOp columnLoopOf(scf::ForOp reduced) {
  return llvm::cast<scf::ForOp>(reduced.getBody()->front());
}

/// A column loop (a loop over a reduced dim whose body is a loop over
/// columns) as a parallel loop over chunks of the columns, each running
/// every reduced index over its chunk.
void buildChunkedColumns(OpBuilder &b, scf::ForOp reduced, IRMapping &mapping) {
  Location loc = reduced.getLoc();
  scf::ForOp columns = columnLoopOf(reduced);
  Value step = mapping.lookupOrDefault(columns.getStep());
  OpBuilder::InsertionGuard guard(b);
  ChunkLoop chunks = buildChunkLoop(
      b, loc, mapping.lookupOrDefault(columns.getLowerBound()),
      mapping.lookupOrDefault(columns.getUpperBound()), step,
      b.create<arith::MulIOp>(
          loc, step, columnChunkLength(b, loc, tripCount(b, loc, columns))));
  auto rows = b.create<scf::ForOp>(
      loc, mapping.lookupOrDefault(reduced.getLowerBound()),
      mapping.lookupOrDefault(reduced.getUpperBound()),
      mapping.lookupOrDefault(reduced.getStep()));
  mapping.map(reduced.getInductionVar(), rows.getInductionVar());
  b.setInsertionPoint(rows.getBody()->getTerminator());
  auto inChunk = b.create<scf::ForOp>(loc, chunks.start, chunks.end, step);
  mapping.map(columns.getInductionVar(), inChunk.getInductionVar());
  b.setInsertionPoint(inChunk.getBody()->getTerminator());
  cloneBody(b, columns, mapping);
}

/// A column loop of a split row: blocks of its reduced indices over the
/// threads when it accumulates with one fold and the partials fit,
/// otherwise chunks of its columns.
void buildSplitColumns(OpBuilder &b, scf::ForOp reduced, IRMapping &mapping,
                       Value threads, int64_t maxColumnPartials) {
  std::optional<ColumnNest> nest = columnNestOf(columnLoopOf(reduced));
  std::optional<ColumnFold> fold;
  if (nest)
    fold = columnFoldOf(*nest);
  if (!fold) {
    buildChunkedColumns(b, reduced, mapping);
    return;
  }
  OpBuilder::InsertionGuard guard(b);
  Location loc = reduced.getLoc();
  RowBlockChoice choice =
      beginRowBlocks(b, loc, tripCount(b, loc, reduced), *nest, threads,
                     maxColumnPartials, mapping);
  buildRowBlockNest(b, reduced, *nest, *fold, choice.blocks, mapping);
  b.setInsertionPoint(choice.otherwise);
  buildChunkedColumns(b, reduced, mapping);
}

/// A reduction row loop as a parallel loop over chunks, each folding its
/// elements into `partials[chunk]`, then a serial fold of the partials into
/// the accumulator's initial value; maps the loop's result to that fold.
void buildChunkedReduction(OpBuilder &b, scf::ForOp loop, Value partials,
                           IRMapping &mapping) {
  Location loc = loop.getLoc();
  Operation *fold = singleFold(loop);
  Value accumulator = loop.getRegionIterArgs()[0];
  Value element = fold->getOperand(0) == accumulator ? fold->getOperand(1)
                                                     : fold->getOperand(0);
  Value lower = mapping.lookupOrDefault(loop.getLowerBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  Value init = mapping.lookupOrDefault(loop.getInitArgs()[0]);
  Value trips = tripCount(b, loc, loop);
  Value length = chunkLength(b, loc, trips);
  Value chunkStep = b.create<arith::MulIOp>(loc, step, length);
  {
    OpBuilder::InsertionGuard guard(b);
    ChunkLoop chunks = buildChunkLoop(
        b, loc, lower, mapping.lookupOrDefault(loop.getUpperBound()), step,
        chunkStep);
    Value start = chunks.start, end = chunks.end;
    // The chunk's first element starts its partial (a chunk is never
    // empty); the cloned fold of that iteration is dead.
    IRMapping first = mapping;
    first.map(loop.getInductionVar(), start);
    first.map(accumulator, init);
    cloneBody(b, loop, first);
    Operation *deadFold = first.lookup(fold->getResult(0)).getDefiningOp();
    Value firstElement = first.lookupOrDefault(element);
    deadFold->erase();
    auto rest = b.create<scf::ForOp>(
        loc, b.create<arith::AddIOp>(loc, start, step), end, step,
        ValueRange{firstElement},
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          IRMapping inChunk = mapping;
          inChunk.map(loop.getInductionVar(), iv);
          inChunk.map(accumulator, args[0]);
          cloneBody(nested, loop, inChunk);
          nested.create<scf::YieldOp>(loc, inChunk.lookup(fold->getResult(0)));
        });
    Value slot = b.create<arith::DivSIOp>(
        loc, b.create<arith::SubIOp>(loc, start, lower), chunkStep);
    b.create<memref::StoreOp>(loc, rest.getResult(0), partials, slot);
  }
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value count = b.create<arith::CeilDivSIOp>(loc, trips, length);
  auto combine = b.create<scf::ForOp>(
      loc, zero, count, one, ValueRange{init},
      [&](OpBuilder &nested, Location, Value k, ValueRange args) {
        IRMapping folding;
        folding.map(accumulator, args[0]);
        folding.map(element, nested.create<memref::LoadOp>(loc, partials, k));
        nested.create<scf::YieldOp>(loc,
                                    nested.clone(*fold, folding)->getResult(0));
      });
  mapping.map(loop.getResult(0), combine.getResult(0));
}

} // namespace

bool isAssociativeFold(Operation *op) {
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return false;
  bool exact =
      llvm::isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
                arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
                arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp,
                arith::MaxNumFOp, arith::MinNumFOp, LLVM::MaximumOp,
                LLVM::MinimumOp>(op);
  return exact ||
         (llvm::isa<arith::AddFOp, arith::MulFOp>(op) && hasReassoc(op));
}

bool isSplittableReduction(scf::ForOp loop) {
  return singleFold(loop) && storesIndexIteration(loop);
}

Value buildSplitReduction(OpBuilder &b, scf::ForOp loop) {
  IRMapping mapping;
  buildChunkedReduction(b, loop, allocatePartials(b, loop), mapping);
  return mapping.lookup(loop.getResult(0));
}

bool canSplitRows(scf::ParallelOp kernel, const RowLoops &rowLoops) {
  bool anyReduction = false;
  for (Operation &op : kernel.getBody()->without_terminator()) {
    if (op.getNumRegions() == 0)
      continue;
    auto loop = llvm::dyn_cast<scf::ForOp>(op);
    if (!loop || !boundsDefinedOutside(loop, kernel))
      return false;
    if (rowLoops.elementwise.contains(loop))
      continue;
    if (rowLoops.columns.contains(loop)) {
      if (!boundsDefinedOutside(columnLoopOf(loop), kernel))
        return false;
    } else if (!isSplittableReduction(loop)) {
      return false;
    }
    anyReduction = true;
  }
  return anyReduction;
}

void buildSplitRowNest(OpBuilder &b, scf::ParallelOp kernel,
                       const RowLoops &rowLoops, Value threads,
                       int64_t maxColumnPartials) {
  Location loc = kernel.getLoc();
  OpBuilder::InsertionGuard guard(b);
  auto isReduction = [&](scf::ForOp loop) {
    return !rowLoops.elementwise.contains(loop) &&
           !rowLoops.columns.contains(loop);
  };
  // One partials array per reduction, outside the row loops: an alloca in
  // a loop would grow the stack every row.
  llvm::DenseMap<Operation *, Value> partials;
  for (auto loop : kernel.getBody()->getOps<scf::ForOp>())
    if (isReduction(loop))
      partials[loop] = allocatePartials(b, loop);
  IRMapping mapping;
  for (unsigned d = 0; d < kernel.getNumLoops(); ++d) {
    auto row =
        b.create<scf::ForOp>(loc, kernel.getLowerBound()[d],
                             kernel.getUpperBound()[d], kernel.getStep()[d]);
    mapping.map(kernel.getInductionVars()[d], row.getInductionVar());
    b.setInsertionPoint(row.getBody()->getTerminator());
  }
  for (Operation &op : kernel.getBody()->without_terminator()) {
    auto loop = llvm::dyn_cast<scf::ForOp>(op);
    if (!loop)
      b.clone(op, mapping);
    else if (rowLoops.elementwise.contains(loop))
      buildChunkedElementwise(b, loop, mapping);
    else if (rowLoops.columns.contains(loop))
      buildSplitColumns(b, loop, mapping, threads, maxColumnPartials);
    else
      buildChunkedReduction(b, loop, partials.at(loop), mapping);
  }
}

} // namespace anyshape::codegen
