//===- MapKernelsToGpu.cpp - a fusion's loops as gpu.launch grids -*- C++
//-*-===//
//
// anyshape-map-kernels-to-gpu (see Passes.td). A fusion's body, after its
// linalg ops became loops, is a sequence of top-level ops; each is one of
//  - a parallel loop: launches in versions the host picks per run
//    (implicit broadcast or not; then a row kernel's warp, block or
//    thread per row, RowSchedule.h; a column kernel's tiles or column per
//    thread, ColumnSchedule.h; otherwise 4-wide accesses or not,
//    VectorAccesses.h), the last of each choice the grid-stride schedule
//    whose threads stride over the loop's flattened iterations;
//  - an op without memory effects: stays in the host flow, where the
//    launches read it (sizes, views, and the grid formula built here);
//  - a library call: stays in the host flow (the GEMM);
//  - anything else with effects: contiguous runs become one launch of one
//    thread, in order.
// Launches run in stream order, so splitting a fusion this way keeps its
// meaning as long as no SSA value crosses from one piece to another; a
// fusion where one does runs whole in one thread (correct, slow, rare).
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/ColumnSchedule.h"
#include "codegen/CUDA/Loops.h"
#include "codegen/CUDA/Passes.h"
#include "codegen/CUDA/RowSchedule.h"
#include "codegen/CUDA/VectorAccesses.h"
#include "codegen/Common/ImplicitBroadcast.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_MAPKERNELSTOGPU
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// The most blocks a grid's x dim may have.
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;

enum class Piece { kHost, kParallel, kSerial };

Piece pieceOf(Operation *op) {
  if (isa<scf::ParallelOp>(op))
    return Piece::kParallel;
  if (isa<func::CallOp>(op) || isMemoryEffectFree(op))
    return Piece::kHost;
  return Piece::kSerial;
}

/// Whether `op`'s results are used outside `piece` (ops of one launch).
bool escapes(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &piece) {
  for (Value result : op->getResults())
    for (Operation *user : result.getUsers()) {
      Operation *top = user;
      while (top && !piece.contains(top))
        top = top->getParentOp();
      if (!top)
        return true;
    }
  return false;
}

/// A launch of `blocks` x `threads` (x dims only) before `at`, with an
/// empty body ended by its terminator; the builder is left inside.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value blocks,
                           Value threads) {
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto launch =
      b.create<gpu::LaunchOp>(loc, blocks, one, one, threads, one, one);
  b.setInsertionPointToEnd(&launch.getBody().front());
  b.create<gpu::TerminatorOp>(loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

/// Every scf.parallel inside `root` as nested scf.for loops (a thread runs
/// them in sequence). They reduce nothing: the linalg lowering puts
/// reductions in scf.for.
LogicalResult sequentializeNestedParallels(Operation *root) {
  SmallVector<scf::ParallelOp> loops;
  root->walk([&](scf::ParallelOp loop) { loops.push_back(loop); });
  for (scf::ParallelOp loop : loops) { // inner loops first (post-order)
    if (loop.getNumResults() != 0)
      return loop.emitOpError("reduces in a GPU thread: not supported");
    OpBuilder b(loop);
    IRMapping map;
    for (auto [lb, ub, step, iv] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
                   loop.getInductionVars())) {
      auto inner = b.create<scf::ForOp>(loop.getLoc(), lb, ub, step);
      map.map(iv, inner.getInductionVar());
      b.setInsertionPoint(inner.getBody()->getTerminator());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    loop.erase();
  }
  return success();
}

struct MapKernelsToGpuPass : impl::MapKernelsToGpuBase<MapKernelsToGpuPass> {
  using MapKernelsToGpuBase::MapKernelsToGpuBase;

  void runOnOperation() override {
    if (blockSize < 1 || blockSize > 1024 || maxBlocks < 1 ||
        warpsPerBlock < 1 || warpsPerBlock > 32 || warpMaxRow < 0 ||
        warpMaxRow > (int64_t{1} << 40) || warpManyRows < 0) {
      getOperation().emitError(
          "block-size must be in [1, 1024], max-blocks at least 1, "
          "warps-per-block in [1, 32], warp-max-row in [0, 2^40], "
          "warp-many-rows at least 0");
      return signalPassFailure();
    }
    if (rowSchedule != "auto" && rowSchedule != "thread" &&
        rowSchedule != "warp" && rowSchedule != "block") {
      getOperation().emitError("row-schedule must be auto, thread, warp or "
                               "block");
      return signalPassFailure();
    }
    if (columnSchedule != "auto" && columnSchedule != "thread" &&
        columnSchedule != "tile") {
      getOperation().emitError("column-schedule must be auto, thread or "
                               "tile");
      return signalPassFailure();
    }
    SmallVector<dhlo::FusionOp> fusions;
    getOperation().walk([&](dhlo::FusionOp op) { fusions.push_back(op); });
    for (dhlo::FusionOp fusion : fusions)
      if (failed(map(fusion)))
        return signalPassFailure();
  }

  LogicalResult map(dhlo::FusionOp fusion) {
    if (fusion.getNumResults() != 0)
      return fusion.emitOpError("has results: map after bufferization");
    Block &body = fusion.getBody().front();
    // The pieces, in order; a serial piece is a contiguous run.
    SmallVector<std::pair<Piece, SmallVector<Operation *>>> pieces;
    for (Operation &op : body.without_terminator()) {
      Piece piece = pieceOf(&op);
      if (piece == Piece::kHost)
        continue;
      if (piece == Piece::kSerial && !pieces.empty() &&
          pieces.back().first == Piece::kSerial &&
          pieces.back().second.back()->getNextNode() == &op) {
        pieces.back().second.push_back(&op);
        continue;
      }
      pieces.push_back({piece, {&op}});
    }
    bool crosses = false;
    for (auto &[piece, ops] : pieces) {
      llvm::SmallPtrSet<Operation *, 8> set(ops.begin(), ops.end());
      for (Operation *op : ops)
        crosses |= escapes(op, set);
    }
    if (crosses) {
      if (!body.getOps<func::CallOp>().empty())
        return fusion.emitOpError(
            "mixes a library call with device code that exchanges values");
      return wholeInOneThread(fusion);
    }
    for (auto &[piece, ops] : pieces)
      if (failed(piece == Piece::kParallel
                     ? mapParallel(cast<scf::ParallelOp>(ops.front()))
                     : oneThread(ops)))
        return failure();
    return success();
  }

  /// `ops` (contiguous, in order) moved into a launch of one thread.
  LogicalResult oneThread(ArrayRef<Operation *> ops) {
    OpBuilder b(ops.front());
    Location loc = ops.front()->getLoc();
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    gpu::LaunchOp launch = createLaunch(b, loc, one, one);
    Operation *terminator = launch.getBody().front().getTerminator();
    for (Operation *op : ops)
      op->moveBefore(terminator);
    return sequentializeNestedParallels(launch);
  }

  LogicalResult wholeInOneThread(dhlo::FusionOp fusion) {
    SmallVector<Operation *> ops;
    for (Operation &op : fusion.getBody().front().without_terminator())
      ops.push_back(&op);
    if (ops.empty())
      return success();
    return oneThread(ops);
  }

  /// `loop` as launches: with an implicit broadcast, a version for runs
  /// where some broadcast dim stretches and one (the selects folded) for
  /// runs where none does, chosen by the host; each as mapSchedules.
  LogicalResult mapParallel(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return loop.emitOpError("reduces across threads: not supported");
    llvm::SetVector<Value> conditions = stretchConditions(loop);
    if (conditions.empty())
      return mapSchedules(loop);
    OpBuilder b(loop);
    Value stretches = conditions.front();
    for (Value condition : llvm::drop_begin(conditions))
      stretches = b.create<arith::OrIOp>(loop.getLoc(), stretches, condition);
    auto choice =
        b.create<scf::IfOp>(loop.getLoc(), stretches, /*withElse=*/true);
    loop->moveBefore(choice.thenBlock()->getTerminator());
    b.setInsertionPoint(choice.elseBlock()->getTerminator());
    auto noStretch = cast<scf::ParallelOp>(b.clone(*loop));
    assumeNoStretch(noStretch, conditions);
    if (failed(mapSchedules(loop)))
      return failure();
    return mapSchedules(noStretch);
  }

  /// `loop` as launches: a row kernel's three versions, chosen by the
  /// host from its row length and count, a column kernel's two, or the
  /// grid-stride one.
  LogicalResult mapSchedules(scf::ParallelOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    if (rowSchedule == "thread" || !prepareSharedRows(loop)) {
      if (columnSchedule != "thread" && prepareColumnTiles(loop)) {
        if (failed(columnVersions(b, loop)))
          return failure();
      } else if (vectorAccesses && hasVectorAccesses(loop)) {
        // Four neighbouring elements a thread when the host proves the
        // accesses aligned; else one.
        auto version = b.create<scf::IfOp>(loc, vectorAccessCondition(b, loop),
                                           /*withElse=*/true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(version.thenBlock());
        buildVectorAccessLaunch(b, loop, blockSize, maxBlocks);
        b.setInsertionPointToStart(version.elseBlock());
        if (failed(gridStride(b, loop)))
          return failure();
      } else if (failed(gridStride(b, loop))) {
        return failure();
      }
    } else if (rowSchedule == "warp" || rowSchedule == "block") {
      buildSharedRowLaunch(b, loop, rowSchedule == "warp", blockSize,
                           warpsPerBlock);
    } else {
      // Short rows: a warp each, and rows up to twice as long when there
      // are enough of them to fill the device with warps; long rows: a
      // block each, unless there are more rows than a grid has blocks; no
      // rows: the grid-stride version, which runs nothing.
      Value length = reductionLength(b, loop);
      Value count = rowCount(b, loop);
      auto constant = [&](int64_t v) {
        return b.create<arith::ConstantIndexOp>(loc, v);
      };
      Value some = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                                           count, constant(0));
      Value shortRows = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle,
                                                length, constant(warpMaxRow));
      Value fairlyShort = b.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::sle, length, constant(2 * warpMaxRow));
      Value many = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                           count, constant(warpManyRows));
      shortRows = b.create<arith::OrIOp>(
          loc, shortRows, b.create<arith::AndIOp>(loc, fairlyShort, many));
      Value gridFits = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle,
                                               count, constant(kMaxGridX));
      auto warp = b.create<scf::IfOp>(
          loc, b.create<arith::AndIOp>(loc, some, shortRows), true);
      b.setInsertionPointToStart(warp.thenBlock());
      buildSharedRowLaunch(b, loop, true, blockSize, warpsPerBlock);
      b.setInsertionPointToStart(warp.elseBlock());
      auto block = b.create<scf::IfOp>(
          loc, b.create<arith::AndIOp>(loc, some, gridFits), true);
      b.setInsertionPointToStart(block.thenBlock());
      buildSharedRowLaunch(b, loop, false, blockSize, warpsPerBlock);
      b.setInsertionPointToStart(block.elseBlock());
      if (failed(gridStride(b, loop)))
        return failure();
    }
    loop.erase();
    return success();
  }

  /// A column kernel's versions: tiles when each column has rows for the
  /// tile's 8 slices and the grid fits, else one column per thread.
  LogicalResult columnVersions(OpBuilder &b, scf::ParallelOp loop) {
    if (columnSchedule == "tile") {
      buildColumnTileLaunch(b, loop);
      return success();
    }
    Location loc = loop.getLoc();
    auto constant = [&](int64_t v) {
      return b.create<arith::ConstantIndexOp>(loc, v);
    };
    Value tiles = columnTileCount(b, loop);
    Value tall =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                reductionLength(b, loop), constant(kTileRows));
    Value some = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, tiles,
                                         constant(0));
    Value fits = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, tiles,
                                         constant(kMaxGridX));
    auto version = b.create<scf::IfOp>(
        loc,
        b.create<arith::AndIOp>(loc, tall,
                                b.create<arith::AndIOp>(loc, some, fits)),
        /*withElse=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(version.thenBlock());
    buildColumnTileLaunch(b, loop);
    b.setInsertionPointToStart(version.elseBlock());
    return gridStride(b, loop);
  }

  /// `loop` as a launch whose threads stride over its flattened
  /// iterations, last dim fastest; at `b`, leaving `loop` in place.
  LogicalResult gridStride(OpBuilder &b, scf::ParallelOp loop) {
    // Host: the trip counts (a dim with ub < lb runs 0 times) and the grid.
    SmallVector<Value> trips = tripCounts(b, loop);
    GridStrideLaunch grid = buildGridStrideLaunch(
        b, loop.getLoc(), product(b, loop.getLoc(), trips), blockSize,
        maxBlocks);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(grid.loop.getBody()->getTerminator());
    IRMapping map;
    mapFlatIteration(b, loop, trips, grid.loop.getInductionVar(), map);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    return sequentializeNestedParallels(grid.launch);
  }
};

} // namespace
} // namespace anyshape::codegen
