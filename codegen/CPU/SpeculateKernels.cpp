//===- SpeculateKernels.cpp - up to 4 versions per kernel ---------------===//
//
// anyshape-speculate-kernels (see Passes.td). Every version is a clone
// of the same body: the serial one a plain scf.for nest, the no-stretch
// one with the stretch selects folded to the index they return when no
// size is 1, the split-row and column ones (SplitRowSchedule.h,
// ColumnSchedule.h) its loops over chunks, rows or blocks of rows. So all
// versions compute the same thing whenever their condition holds, up to
// the reassociation a fold allows; only the schedule and the indexing
// differ.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/ChunkedLoops.h"
#include "codegen/CPU/ColumnSchedule.h"
#include "codegen/CPU/Passes.h"
#include "codegen/CPU/SplitRowSchedule.h"
#include "codegen/Common/ImplicitBroadcast.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SetVector.h"

#include <algorithm>

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SPECULATEKERNELS
#include "codegen/CPU/Passes.h.inc"

namespace {

/// The iterations of the scf.for loops directly in `body` whose bounds are
/// defined outside `kernel`, each times those of the loops in its own body
/// alike (a column reduction's rows times its columns); null without such
/// loops.
Value loopWork(OpBuilder &b, Location loc, Block *body, Operation *kernel) {
  Value sum;
  for (auto inner : body->getOps<scf::ForOp>()) {
    if (!boundsDefinedOutside(inner, kernel))
      continue;
    Value trips = tripCount(b, loc, inner);
    if (Value nested = loopWork(b, loc, inner.getBody(), kernel))
      trips = b.create<arith::MulIOp>(loc, trips, nested);
    sum = sum ? b.create<arith::AddIOp>(loc, sum, trips) : trips;
  }
  return sum;
}

/// A kernel's amount of work: its iterations (rows) times the work of one
/// (loopWork of its body: one loop per row for a plain kernel, one per
/// member for a stitched one; null without such loops).
struct Work {
  Value rows, perRow, total;
};

Work estimateWork(OpBuilder &b, scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  Value rows = b.create<arith::ConstantIndexOp>(loc, 1);
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    rows = b.create<arith::MulIOp>(loc, rows,
                                   tripCount(b, loc, lower, upper, step));
  Value perRow = loopWork(b, loc, loop.getBody(), loop);
  if (!perRow)
    return {rows, Value(), rows};
  return {rows, perRow, b.create<arith::MulIOp>(loc, rows, perRow)};
}

/// Rebuilds `loop` (which has no results) at `b`'s insertion point with
/// its dims from `firstSerial` on as an scf.for nest inside a parallel
/// loop over the dims before it (no parallel loop if that is 0). Returns
/// the outermost scf.for (null if there is none).
scf::ForOp buildNest(OpBuilder &b, scf::ParallelOp loop, unsigned firstSerial) {
  Location loc = loop.getLoc();
  IRMapping mapping;
  scf::ForOp outermostSerial;
  OpBuilder::InsertionGuard guard(b);
  if (firstSerial > 0) {
    auto outer = b.create<scf::ParallelOp>(
        loc, loop.getLowerBound().take_front(firstSerial),
        loop.getUpperBound().take_front(firstSerial),
        loop.getStep().take_front(firstSerial));
    for (unsigned d = 0; d < firstSerial; ++d)
      mapping.map(loop.getInductionVars()[d], outer.getInductionVars()[d]);
    b.setInsertionPoint(outer.getBody()->getTerminator());
  }
  for (unsigned d = firstSerial; d < loop.getNumLoops(); ++d) {
    auto serial =
        b.create<scf::ForOp>(loc, loop.getLowerBound()[d],
                             loop.getUpperBound()[d], loop.getStep()[d]);
    mapping.map(loop.getInductionVars()[d], serial.getInductionVar());
    b.setInsertionPoint(serial.getBody()->getTerminator());
    if (!outermostSerial)
      outermostSerial = serial;
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
  return outermostSerial;
}

/// Rebuilds `loop` (no results, at least 2 dims) at `b`'s insertion point
/// as a parallel loop over its outer dims and over chunks of `chunk`
/// iterations of its innermost dim, each chunk an scf.for.
void buildChunkedNest(OpBuilder &b, scf::ParallelOp loop, int64_t chunk) {
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(b);
  Value step = loop.getStep().back();
  ChunkLoop chunks = buildChunkLoop(
      b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
      b.create<arith::MulIOp>(loc, step,
                              b.create<arith::ConstantIndexOp>(loc, chunk)));
  IRMapping mapping;
  mapping.map(loop.getInductionVars(), chunks.loop.getInductionVars());
  auto serial = b.create<scf::ForOp>(loc, chunks.start, chunks.end, step);
  mapping.map(loop.getInductionVars().back(), serial.getInductionVar());
  b.setInsertionPoint(serial.getBody()->getTerminator());
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// The runtime's OpenMP team size for this execution (runtime/Threading.h),
/// declared in `module`.
func::FuncOp teamSizeFunction(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kTeamSizeFunction))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto function =
      b.create<func::FuncOp>(module.getLoc(), kTeamSizeFunction,
                             b.getFunctionType({}, {b.getI64Type()}));
  function.setPrivate();
  return function;
}

struct SpeculateKernelsPass : impl::SpeculateKernelsBase<SpeculateKernelsPass> {
  using SpeculateKernelsBase::SpeculateKernelsBase;

  void runOnOperation() override {
    // A reduction over all dims of a 1-D value is a serial scf.for in its
    // kernel's body: it has no rows, only one to share among threads.
    SmallVector<scf::ForOp> wholeReductions;
    getOperation()->walk([&](scf::ForOp loop) {
      if (llvm::isa<func::FuncOp, dhlo::FusionOp>(loop->getParentOp()) &&
          isSplittableReduction(loop))
        wholeReductions.push_back(loop);
    });
    SmallVector<scf::ParallelOp> outermost;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          loop.getNumResults() == 0)
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      // Loops nested in it run serially in each thread: as OpenMP regions
      // they would fork a team per outer iteration (a reduction over a
      // middle dim nests a parallel loop in a serial one in a parallel one).
      // What those directly in its body do stays known (RowLoops).
      RowLoops rowLoops;
      for (auto member : loop.getBody()->getOps<scf::ForOp>())
        if (columnsOf(member))
          rowLoops.columns.insert(member);
      SmallVector<scf::ParallelOp> nested;
      loop.getBody()->walk([&](scf::ParallelOp inner) {
        if (inner.getNumResults() == 0)
          nested.push_back(inner);
      });
      for (scf::ParallelOp inner : llvm::reverse(nested)) {
        OpBuilder inPlace(inner);
        scf::ForOp serial = buildNest(inPlace, inner, 0);
        if (serial && inner->getBlock() == loop.getBody())
          rowLoops.elementwise.insert(serial);
        inner->erase();
      }
      // A column reduction: the rows' loop around it joins the kernel.
      auto rows = llvm::dyn_cast<scf::ForOp>(loop->getParentOp());
      if (rows && !rows->getParentOfType<LoopLikeOpInterface>() &&
          columnsOf(rows) == loop && stretchConditions(loop).empty()) {
        versionColumns(rows, loop);
        continue;
      }
      // Implicit broadcast: the original under `some size is 1`, a copy
      // without the selects otherwise; each is then versioned by work.
      // With those 4 versions a kernel is at its limit: no split-row one.
      llvm::SetVector<Value> conditions = stretchConditions(loop);
      if (!conditions.empty()) {
        OpBuilder b(loop);
        Value stretches = conditions.front();
        for (Value condition : llvm::drop_begin(conditions))
          stretches =
              b.create<arith::OrIOp>(loop.getLoc(), stretches, condition);
        auto choice =
            b.create<scf::IfOp>(loop.getLoc(), stretches, /*withElse=*/true);
        loop->moveBefore(choice.thenBlock()->getTerminator());
        b.setInsertionPoint(choice.elseBlock()->getTerminator());
        auto noStretch = llvm::cast<scf::ParallelOp>(b.clone(*loop));
        assumeNoStretch(noStretch, conditions);
        versionByWork(noStretch, {});
        versionByWork(loop, {});
        continue;
      }
      versionByWork(loop, rowLoops);
    }
    for (scf::ForOp reduction : wholeReductions)
      versionWholeReduction(reduction);
  }

  /// Replaces `rows` (a column reduction, its body the parallel loop
  /// `columns`) with `scf.if (work >= minWork) {parallel} else {serial}`;
  /// work counts every row of every column. The parallel version folds a
  /// block of rows per thread into private partials when the columns
  /// accumulate with one fold and the partials fit maxColumnPartials;
  /// otherwise the threads share chunks of columns.
  void versionColumns(scf::ForOp rows, scf::ParallelOp columns) {
    OpBuilder b(rows);
    Location loc = rows.getLoc();
    Value rowTrips = tripCount(b, loc, rows);
    Value work =
        b.create<arith::MulIOp>(loc, estimateWork(b, columns).total, rowTrips);
    Value enough =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, work,
                                b.create<arith::ConstantIndexOp>(loc, minWork));
    auto byWork = b.create<scf::IfOp>(loc, enough, /*withElse=*/true);
    b.setInsertionPoint(byWork.thenBlock()->getTerminator());
    std::optional<ColumnNest> nest = columnNestOf(columns);
    std::optional<ColumnFold> fold;
    if (nest)
      fold = columnFoldOf(*nest);
    if (fold) {
      // A block of rows per thread, unless their partials would be large.
      RowBlockChoice blocks =
          beginRowBlocks(b, loc, rowTrips, *nest, teamSize(b, loc),
                         maxColumnPartials, IRMapping());
      buildRowBlockNest(b, rows, *nest, *fold, blocks.blocks, IRMapping());
      b.setInsertionPoint(blocks.otherwise);
    }
    buildColumnChunkNest(b, rows, columns);
    b.setInsertionPoint(byWork.elseBlock()->getTerminator());
    auto serial = llvm::cast<scf::ForOp>(b.clone(*rows));
    auto serialColumns = llvm::cast<scf::ParallelOp>(serial.getBody()->front());
    OpBuilder inPlace(serialColumns);
    buildNest(inPlace, serialColumns, 0);
    serialColumns->erase();
    rows->erase();
  }

  /// The execution's OpenMP team size, asked at run time.
  Value teamSize(OpBuilder &b, Location loc) {
    return b.create<arith::IndexCastOp>(
        loc, b.getIndexType(),
        b.create<func::CallOp>(loc, teamSizeFunction(getOperation()))
            .getResult(0));
  }

  /// `rows < threads && perRow >= splitRowMinWork`.
  Value splitRowCondition(OpBuilder &b, Location loc, Value rows, Value perRow,
                          Value threads) {
    Value fewRows =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rows, threads);
    Value longRows = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sge, perRow,
        b.create<arith::ConstantIndexOp>(loc, splitRowMinWork));
    return b.create<arith::AndIOp>(loc, fewRows, longRows);
  }

  /// A reduction of a whole 1-D value is one row and no kernel loop: its
  /// versions are split-row (the row shared among the threads, under the
  /// kernels' condition with one row) and serial (the loop itself).
  void versionWholeReduction(scf::ForOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value trips = tripCount(b, loc, loop);
    Value enough =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, trips,
                                b.create<arith::ConstantIndexOp>(loc, minWork));
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    Value split = b.create<arith::AndIOp>(
        loc, enough, splitRowCondition(b, loc, one, trips, teamSize(b, loc)));
    auto choice = b.create<scf::IfOp>(loc, loop.getResultTypes(), split,
                                      /*withElse=*/true);
    OpBuilder splitRow = choice.getThenBodyBuilder();
    splitRow.create<scf::YieldOp>(loc, buildSplitReduction(splitRow, loop));
    OpBuilder serial = choice.getElseBodyBuilder();
    serial.create<scf::YieldOp>(loc, serial.clone(*loop)->getResults());
    loop->replaceAllUsesWith(choice.getResults());
    loop->erase();
  }

  /// Replaces `loop` with `scf.if (work >= minWork) {parallel} else
  /// {serial}`; the parallel version of a row-reduction kernel is itself
  /// `scf.if (rows < threads && row work >= splitRowMinWork) {split-row}
  /// else {rows in parallel}`.
  void versionByWork(scf::ParallelOp loop, const RowLoops &rowLoops) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Work work = estimateWork(b, loop);
    Value enough =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, work.total,
                                b.create<arith::ConstantIndexOp>(loc, minWork));
    auto choice = b.create<scf::IfOp>(loc, enough, /*withElse=*/true);
    b.setInsertionPoint(choice.thenBlock()->getTerminator());
    if (canSplitRows(loop, rowLoops)) {
      Value threads = teamSize(b, loc);
      auto schedule = b.create<scf::IfOp>(
          loc, splitRowCondition(b, loc, work.rows, work.perRow, threads),
          /*withElse=*/true);
      b.setInsertionPoint(schedule.thenBlock()->getTerminator());
      buildSplitRowNest(b, loop, rowLoops, threads, maxColumnPartials);
      b.setInsertionPoint(schedule.elseBlock()->getTerminator());
    }
    buildParallelNest(b, loop);
    b.setInsertionPoint(choice.elseBlock()->getTerminator());
    buildNest(b, loop, 0);
    loop->erase();
  }

  /// Parallel version: the innermost dim runs in serial chunks, so each
  /// thread runs contiguous, vectorisable stretches (a collapsed index
  /// space over elements would recompute every index with a division per
  /// element; over chunks it is one per chunk). A stitched loop's dims
  /// are all rows: its body holds the serial loops.
  void buildParallelNest(OpBuilder &b, scf::ParallelOp loop) {
    unsigned dims = loop.getNumLoops();
    if (dims == 1 || loop->hasAttr(kStitchedLoopAttr))
      buildNest(b, loop, dims);
    else
      buildChunkedNest(b, loop, std::max<int64_t>(chunk, 1));
  }
};

} // namespace
} // namespace anyshape::codegen
