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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_EMULATEGPULAUNCHES
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// What makes threads of a block communicate, which serial threads would
/// get wrong; null if none.
Operation *firstCommunication(gpu::LaunchOp launch) {
  Operation *found = nullptr;
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::AllReduceOp,
            gpu::SubgroupReduceOp>(op)) {
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

LogicalResult emulate(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("is asynchronous: not emulated");
  if (launch.getNumWorkgroupAttributions() != 0 ||
      launch.getDynamicSharedMemorySize())
    return launch.emitOpError("uses shared memory: not emulated yet");
  if (Operation *op = firstCommunication(launch))
    return op->emitOpError("synchronises threads: not emulated yet");
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
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  for (auto [size, id] :
       {std::pair{block.z, threadIds.z}, std::pair{block.y, threadIds.y},
        std::pair{block.x, threadIds.x}}) {
    auto threads = b.create<scf::ForOp>(loc, zero, size, one);
    map.map(id, threads.getInductionVar());
    b.setInsertionPoint(threads.getBody()->getTerminator());
  }
  Block &body = launch.getBody().front();
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
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
