//===- EmulateGpuLaunches.cpp - gpu.launch run on the CPU --------*- C++
//-*-===//
//
// anyshape-emulate-gpu-launches (see Passes.td). A launch of grid
// (gx, gy, gz) and blocks (bx, by, bz) becomes
//   scf.parallel (z, y, x) in grid { scf.for tz, ty, tx in block { body } }
// with the body's block and thread ids, grid and block sizes replaced by
// the loops' values. CUDA promises nothing about the order of blocks, so
// running them in parallel is as faithful as any order; the threads of a
// block run one after the other, which is exact while they do not
// communicate. A launch that synchronises or shares memory is rejected
// here rather than emulated wrongly.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"
#include "codegen/CUDA/Reductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "codegen/CUDA/Passes.h.inc"

namespace {

bool isCollective(Operation *op) {
  return isa<gpu::AllReduceOp, gpu::SubgroupReduceOp, gpu::BarrierOp>(op);
}

/// What makes threads of a block communicate in a way the phases below do
/// not emulate: a shuffle, or a collective or barrier that is not at the
/// top level of the body (under control flow, threads could disagree on
/// reaching it); null if none.
Operation *unsupportedCommunication(gpu::LaunchOp launch) {
  Block &body = launch.getBody().front();
  Operation *found = nullptr;
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::ShuffleOp>(op) ||
        (isCollective(op) && op->getBlock() != &body)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// The body's id and size ops replaced by the launch's block arguments,
/// which the emulation maps to its loops.
void idOpsToArguments(gpu::LaunchOp launch) {
  auto pick = [](gpu::Dimension d, gpu::KernelDim3 v) {
    return d == gpu::Dimension::x ? v.x : d == gpu::Dimension::y ? v.y : v.z;
  };
  SmallVector<std::pair<Operation *, Value>> replaced;
  launch.getBody().walk([&](Operation *op) {
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replaced.push_back({op, pick(id.getDimension(), launch.getBlockIds())});
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replaced.push_back({op, pick(id.getDimension(), launch.getThreadIds())});
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replaced.push_back({op, pick(dim.getDimension(), launch.getBlockSize())});
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replaced.push_back({op, pick(dim.getDimension(), launch.getGridSize())});
  });
  for (auto [op, value] : replaced) {
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
  }
}

/// One block of an emulated launch: its body cut at each top-level
/// collective into phases, each phase a loop over the block's threads.
/// A value one phase defines and a later one uses is kept per thread in
/// an array (a view is recomputed instead); a collective reduces its
/// operand's array serially.
class BlockEmulator {
public:
  BlockEmulator(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                IRMapping &blockMap)
      : b(b), loc(loc), launch(launch), blockMap(blockMap) {}

  LogicalResult emulate() {
    Block &body = launch.getBody().front();
    // Phases and where each top-level value is defined.
    SmallVector<SmallVector<Operation *>> phases(1);
    for (Operation &op : body.without_terminator()) {
      phaseOf[&op] = phases.size() - 1;
      if (isCollective(&op))
        phases.emplace_back();
      else
        phases.back().push_back(&op);
    }
    zero = b.create<arith::ConstantIndexOp>(loc, 0);
    one = b.create<arith::ConstantIndexOp>(loc, 1);
    gpu::KernelDim3 size = launch.getBlockSizeOperandValues();
    threads = b.create<arith::MulIOp>(
        loc, b.create<arith::MulIOp>(loc, size.x, size.y), size.z);
    if (failed(allocateArrays(body)))
      return failure();
    // The block's shared memory: an array per block, in host memory.
    for (BlockArgument shared : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(shared.getType());
      if (!type.hasStaticShape())
        return launch.emitOpError("has dynamically shaped shared memory");
      Value array = b.create<memref::AllocOp>(
          loc, MemRefType::get(type.getShape(), type.getElementType()));
      arrays.push_back(array);
      blockMap.map(shared, array);
    }
    for (auto [p, ops] : llvm::enumerate(phases)) {
      runPhase(ops);
      if (p + 1 < phases.size() && failed(collect(collectiveAfter(body, p))))
        return failure();
    }
    for (Value array : arrays)
      b.create<memref::DeallocOp>(loc, array);
    return success();
  }

private:
  Operation *collectiveAfter(Block &body, size_t phase) {
    for (Operation &op : body)
      if (isCollective(&op) && phaseOf[&op] == phase)
        return &op;
    return nullptr;
  }

  bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

  /// An array per value used past its phase (and per collective operand).
  LogicalResult allocateArrays(Block &body) {
    for (Operation &op : body.without_terminator()) {
      for (Value result : op.getResults()) {
        bool later = llvm::any_of(result.getUsers(), [&](Operation *user) {
          while (user->getBlock() != &body)
            user = user->getParentOp();
          return phaseOf[user] > phaseOf[&op] ||
                 (isCollective(user) && !isCollective(&op));
        });
        if (!later || isa<gpu::AllReduceOp>(op))
          continue; // an all_reduce's result is one value for the block
        if (!isScalar(result.getType())) {
          if (!isMemoryEffectFree(&op))
            return op.emitOpError("defines a non-scalar value used past a "
                                  "barrier: not emulated");
          continue; // recomputed where used
        }
        perThread[result] = allocate(result.getType());
      }
    }
    return success();
  }

  Value allocate(Type type) {
    Value array = b.create<memref::AllocOp>(
        loc, MemRefType::get({ShapedType::kDynamic}, type), threads);
    arrays.push_back(array);
    return array;
  }

  /// The block's threads, each running `ops` with its ids.
  void runPhase(ArrayRef<Operation *> ops) {
    if (ops.empty())
      return; // two collectives in a row
    OpBuilder::InsertionGuard g(b);
    IRMapping map = blockMap;
    gpu::KernelDim3 size = launch.getBlockSizeOperandValues();
    gpu::KernelDim3 ids = launch.getThreadIds();
    for (auto [extent, id] :
         {std::pair{size.z, ids.z}, std::pair{size.y, ids.y},
          std::pair{size.x, ids.x}}) {
      auto loop = b.create<scf::ForOp>(loc, zero, extent, one);
      map.map(id, loop.getInductionVar());
      b.setInsertionPoint(loop.getBody()->getTerminator());
    }
    Value t = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(
            loc,
            b.create<arith::AddIOp>(
                loc, b.create<arith::MulIOp>(loc, map.lookup(ids.z), size.y),
                map.lookup(ids.y)),
            size.x),
        map.lookup(ids.x));
    for (Operation *op : ops) {
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          bringIn(operand, map, t);
      });
      Operation *clone = b.clone(*op, map);
      for (auto [result, cloned] :
           llvm::zip(op->getResults(), clone->getResults()))
        if (Value array = perThread.lookup(result))
          b.create<memref::StoreOp>(loc, cloned, array, t);
    }
  }

  /// Makes `value`, if an earlier phase defined it, available in this
  /// phase's thread loop: loaded from its array, or recomputed.
  void bringIn(Value value, IRMapping &map, Value t) {
    if (map.contains(value))
      return;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &launch.getBody().front())
      return;
    if (Value array = perThread.lookup(value)) {
      map.map(value, b.create<memref::LoadOp>(loc, array, t));
      return;
    }
    if (Value uniform = blockValues.lookup(value)) {
      map.map(value, uniform);
      return;
    }
    // A view defined in an earlier phase: recomputed here.
    for (Value operand : def->getOperands())
      bringIn(operand, map, t);
    b.clone(*def, map);
  }

  /// After a phase: the collective that ends it, computed over the threads.
  LogicalResult collect(Operation *op) {
    if (isa<gpu::BarrierOp>(op))
      return success(); // every thread finished the phase: nothing to do
    Value operand = op->getOperand(0);
    if (!perThread.lookup(operand))
      return op->emitOpError("reduces a value the block's body does not "
                             "compute: not emulated");
    gpu::AllReduceOperation kind =
        isa<gpu::AllReduceOp>(op) ? *cast<gpu::AllReduceOp>(op).getOp()
                                  : cast<gpu::SubgroupReduceOp>(op).getOp();
    Value values = perThread.lookup(operand);
    Type type = operand.getType();
    auto reduceRange = [&](Value begin, Value end) {
      Value identity = reductionIdentity(b, loc, kind, type);
      auto loop = b.create<scf::ForOp>(loc, begin, end, one, identity);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value v = b.create<memref::LoadOp>(loc, values, loop.getInductionVar());
      b.create<scf::YieldOp>(
          loc, combineValues(b, loc, kind, loop.getRegionIterArgs()[0], v));
      return loop.getResult(0);
    };
    if (isa<gpu::AllReduceOp>(op)) {
      blockValues[op->getResult(0)] = reduceRange(zero, threads);
      return success();
    }
    // A warp's reduction: each thread gets its 32-lane group's.
    Value results = perThread.lookup(op->getResult(0));
    auto loop = b.create<scf::ForOp>(loc, zero, threads, one);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value lanes = b.create<arith::ConstantIndexOp>(loc, 32);
    Value t = loop.getInductionVar();
    Value begin = b.create<arith::MulIOp>(
        loc, b.create<arith::DivUIOp>(loc, t, lanes), lanes);
    Value end = b.create<arith::MinUIOp>(
        loc, b.create<arith::AddIOp>(loc, begin, lanes), threads);
    b.create<memref::StoreOp>(loc, reduceRange(begin, end), results, t);
    return success();
  }

  OpBuilder &b;
  Location loc;
  gpu::LaunchOp launch;
  IRMapping &blockMap; ///< the block's ids and the launch's sizes
  llvm::DenseMap<Operation *, size_t> phaseOf;
  llvm::DenseMap<Value, Value> perThread;   ///< value -> its array
  llvm::DenseMap<Value, Value> blockValues; ///< all_reduce -> its value
  SmallVector<Value> arrays;
  Value zero, one, threads;
};

LogicalResult emulate(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("is asynchronous: not emulated");
  if (launch.getDynamicSharedMemorySize() ||
      launch.getNumPrivateAttributions() != 0)
    return launch.emitOpError("uses dynamic shared or private memory: not "
                              "emulated yet");
  if (Operation *op = unsupportedCommunication(launch))
    return op->emitOpError("communicates between threads in a way the "
                           "emulation does not run: not emulated yet");
  if (!launch.getBody().hasOneBlock())
    return launch.emitOpError("has a multi-block body: not emulated");

  idOpsToArguments(launch);
  Location loc = launch.getLoc();
  OpBuilder b(launch);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  auto blocks = b.create<scf::ParallelOp>(loc, ValueRange{zero, zero, zero},
                                          ValueRange{grid.z, grid.y, grid.x},
                                          ValueRange{one, one, one});
  b.setInsertionPoint(blocks.getBody()->getTerminator());
  IRMapping map;
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  map.map(blockIds.z, blocks.getInductionVars()[0]);
  map.map(blockIds.y, blocks.getInductionVars()[1]);
  map.map(blockIds.x, blocks.getInductionVars()[2]);
  gpu::KernelDim3 gridArgs = launch.getGridSize();
  gpu::KernelDim3 blockArgs = launch.getBlockSize();
  map.map(gridArgs.x, grid.x);
  map.map(gridArgs.y, grid.y);
  map.map(gridArgs.z, grid.z);
  map.map(blockArgs.x, block.x);
  map.map(blockArgs.y, block.y);
  map.map(blockArgs.z, block.z);
  if (failed(BlockEmulator(b, loc, launch, map).emulate()))
    return failure();
  launch.erase();
  return success();
}

struct EmulateGpuLaunchesPass
    : impl::EmulateGpuLaunchesBase<EmulateGpuLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
