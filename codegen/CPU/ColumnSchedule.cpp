//===- ColumnSchedule.cpp - column reductions over threads ---------------===//
//
// See ColumnSchedule.h. Swapping the serial loop inside the parallel one
// is legal when no element is touched by two columns: then each column's
// iterations run in their original order, only interleaved differently
// with other columns', which never see them.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/ColumnSchedule.h"

#include "codegen/CPU/ChunkedLoops.h"
#include "codegen/CPU/SplitRowSchedule.h"
#include "codegen/Common/BufferRoots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace anyshape::codegen {
namespace {

/// Loads and stores of `columns`' body by buffer; false if the body has
/// any other op with memory effects (or effects it cannot tell).
bool collectAccesses(scf::ParallelOp columns,
                     llvm::DenseMap<Value, SmallVector<Operation *>> &accesses,
                     llvm::SmallPtrSetImpl<Value> &written) {
  WalkResult walk = columns.getBody()->walk([&](Operation *op) {
    if (auto load = llvm::dyn_cast<memref::LoadOp>(op)) {
      accesses[load.getMemRef()].push_back(op);
      return WalkResult::advance();
    }
    if (auto store = llvm::dyn_cast<memref::StoreOp>(op)) {
      accesses[store.getMemRef()].push_back(op);
      written.insert(store.getMemRef());
      return WalkResult::advance();
    }
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

ValueRange indicesOf(Operation *access) {
  if (auto load = llvm::dyn_cast<memref::LoadOp>(access))
    return load.getIndices();
  return llvm::cast<memref::StoreOp>(access).getIndices();
}

} // namespace

scf::ParallelOp columnsOf(scf::ForOp outer) {
  if (outer.getNumResults() != 0)
    return nullptr;
  Block *body = outer.getBody();
  auto columns = llvm::dyn_cast<scf::ParallelOp>(body->front());
  if (!columns ||
      std::next(body->begin()) != body->getTerminator()->getIterator() ||
      columns.getNumResults() != 0)
    return nullptr;
  auto definedInside = [&](Value v) { return !isDefinedOutside(v, outer); };
  if (llvm::any_of(columns.getLowerBound(), definedInside) ||
      llvm::any_of(columns.getUpperBound(), definedInside) ||
      llvm::any_of(columns.getStep(), definedInside))
    return nullptr;
  llvm::DenseMap<Value, SmallVector<Operation *>> accesses;
  llvm::SmallPtrSet<Value, 4> written;
  if (!collectAccesses(columns, accesses, written))
    return nullptr;
  for (Value buffer : written) {
    // A buffer defined inside (a view) could alias anything, and one read
    // through another view could show other columns' writes: reject.
    if (definedInside(buffer))
      return nullptr;
    for (const auto &[other, unused] : accesses)
      if (other != buffer && rootBuffer(other) == rootBuffer(buffer))
        return nullptr;
    ValueRange first = indicesOf(accesses[buffer].front());
    for (Value iv : columns.getInductionVars())
      if (!llvm::is_contained(first, iv))
        return nullptr;
    for (Operation *access : accesses[buffer])
      if (!llvm::equal(indicesOf(access), first))
        return nullptr;
  }
  return columns;
}

Value columnChunkLength(OpBuilder &b, Location loc, Value columns) {
  // Chunks of 4096 columns ran 4.6, 4.5, 4.0, 3.1 and 3.2 ms with chunks
  // of 64, 256, 512, 1024 and 2048 (BM_Sum, [4096, 4096], 2 threads):
  // longer stretches of each row read faster, until too few chunks share.
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v);
  };
  Value quarter = b.create<arith::CeilDivSIOp>(loc, columns, constant(4));
  Value vectors = b.create<arith::CeilDivSIOp>(loc, quarter, constant(64));
  Value length = b.create<arith::MulIOp>(loc, vectors, constant(64));
  return b.create<arith::MinSIOp>(
      loc, b.create<arith::MaxSIOp>(loc, length, constant(64)), constant(1024));
}

void buildColumnChunkNest(OpBuilder &b, scf::ForOp outer,
                          scf::ParallelOp columns) {
  Location loc = columns.getLoc();
  OpBuilder::InsertionGuard guard(b);
  Value step = columns.getStep().back();
  Value trips = tripCount(b, loc, columns.getLowerBound().back(),
                          columns.getUpperBound().back(), step);
  ChunkLoop chunks = buildChunkLoop(
      b, loc, columns.getLowerBound(), columns.getUpperBound(),
      columns.getStep(),
      b.create<arith::MulIOp>(loc, step, columnChunkLength(b, loc, trips)));
  IRMapping mapping;
  mapping.map(columns.getInductionVars(), chunks.loop.getInductionVars());
  auto rows = b.create<scf::ForOp>(loc, outer.getLowerBound(),
                                   outer.getUpperBound(), outer.getStep());
  mapping.map(outer.getInductionVar(), rows.getInductionVar());
  b.setInsertionPoint(rows.getBody()->getTerminator());
  auto inChunk = b.create<scf::ForOp>(loc, chunks.start, chunks.end, step);
  mapping.map(columns.getInductionVars().back(), inChunk.getInductionVar());
  b.setInsertionPoint(inChunk.getBody()->getTerminator());
  for (Operation &op : columns.getBody()->without_terminator())
    b.clone(op, mapping);
}

std::optional<ColumnNest> columnNestOf(scf::ParallelOp columns) {
  for (auto [lower, step] :
       llvm::zip(columns.getLowerBound(), columns.getStep()))
    if (!matchPattern(lower, m_Zero()) || !matchPattern(step, m_One()))
      return std::nullopt;
  return ColumnNest{columns.getBody(), columns.getInductionVars(),
                    columns.getUpperBound()};
}

std::optional<ColumnNest> columnNestOf(scf::ForOp columns) {
  if (!matchPattern(columns.getLowerBound(), m_Zero()) ||
      !matchPattern(columns.getStep(), m_One()))
    return std::nullopt;
  return ColumnNest{columns.getBody(),
                    {columns.getInductionVar()},
                    {columns.getUpperBound()}};
}

std::optional<ColumnFold> columnFoldOf(const ColumnNest &columns) {
  SmallVector<memref::StoreOp> stores;
  columns.body->walk([&](memref::StoreOp store) { stores.push_back(store); });
  if (stores.size() != 1 || stores[0]->getBlock() != columns.body)
    return std::nullopt;
  memref::StoreOp store = stores[0];
  // Each column owns one element: its induction variables index it, and
  // any other index is a constant.
  for (Value iv : columns.ivs)
    if (!llvm::is_contained(store.getIndices(), iv))
      return std::nullopt;
  for (Value index : store.getIndices())
    if (!llvm::is_contained(columns.ivs, index) &&
        !matchPattern(index, m_Constant()))
      return std::nullopt;
  Operation *fold = store.getValueToStore().getDefiningOp();
  if (!fold || fold->getBlock() != columns.body || !isAssociativeFold(fold) ||
      !fold->getResult(0).hasOneUse())
    return std::nullopt;
  for (unsigned side = 0; side < 2; ++side) {
    auto load = fold->getOperand(side).getDefiningOp<memref::LoadOp>();
    if (!load || load.getMemRef() != store.getMemRef() ||
        !llvm::equal(load.getIndices(), store.getIndices()) ||
        !load->hasOneUse() || load->getBlock() != columns.body)
      continue;
    // No other access to the buffer.
    bool alone = true;
    columns.body->walk([&](memref::LoadOp other) {
      alone &= other == load || other.getMemRef() != store.getMemRef();
    });
    if (alone)
      return ColumnFold{load, fold, store, fold->getOperand(1 - side)};
  }
  return std::nullopt;
}

RowBlockChoice beginRowBlocks(OpBuilder &b, Location loc, Value rows,
                              const ColumnNest &columns, Value threads,
                              int64_t maxPartials, const IRMapping &outside) {
  Value blocks = b.create<arith::MinSIOp>(loc, threads, rows);
  Value partials = blocks;
  for (Value upper : columns.uppers)
    partials =
        b.create<arith::MulIOp>(loc, partials, outside.lookupOrDefault(upper));
  Value fits = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::sle, partials,
      b.create<arith::ConstantIndexOp>(loc, maxPartials));
  auto choice = b.create<scf::IfOp>(loc, fits, /*withElse=*/true);
  b.setInsertionPoint(choice.thenBlock()->getTerminator());
  return {blocks, choice.elseBlock()->getTerminator()};
}

void buildRowBlockNest(OpBuilder &b, scf::ForOp outer,
                       const ColumnNest &columns, ColumnFold fold, Value blocks,
                       const IRMapping &outside) {
  Location loc = outer.getLoc();
  OpBuilder::InsertionGuard guard(b);
  auto constant = [&](int64_t v) {
    return b.create<arith::ConstantIndexOp>(loc, v);
  };
  Value zero = constant(0), one = constant(1);
  Value rowLower = outside.lookupOrDefault(outer.getLowerBound());
  Value rowStep = outside.lookupOrDefault(outer.getStep());
  Value rows =
      tripCount(b, loc, rowLower,
                outside.lookupOrDefault(outer.getUpperBound()), rowStep);
  SmallVector<Value> uppers;
  for (Value upper : columns.uppers)
    uppers.push_back(outside.lookupOrDefault(upper));
  SmallVector<Value> zeros(uppers.size(), zero), ones(uppers.size(), one);
  SmallVector<Value> sizes{blocks};
  llvm::append_range(sizes, uppers);
  auto partialsType =
      MemRefType::get(SmallVector<int64_t>(sizes.size(), ShapedType::kDynamic),
                      fold.store.getValueToStore().getType());
  Value partials = b.create<memref::AllocOp>(loc, partialsType, sizes);

  // The columns' body at row `row` over the partials of `block`: its load
  // of the buffer reads the partial; on the block's first row there is
  // nothing to fold yet and the element is stored as it is.
  auto buildRow = [&](OpBuilder &nested, Value block, Value row,
                      bool firstRow) {
    scf::buildLoopNest(
        nested, loc, zeros, uppers, ones,
        [&](OpBuilder &inner, Location, ValueRange ivs) {
          IRMapping mapping = outside;
          mapping.map(outer.getInductionVar(), row);
          mapping.map(columns.ivs, ivs);
          SmallVector<Value> at{block};
          llvm::append_range(at, ivs);
          for (Operation &op : columns.body->without_terminator()) {
            if (&op == fold.load.getOperation()) {
              if (!firstRow)
                mapping.map(fold.load.getResult(),
                            inner.create<memref::LoadOp>(loc, partials, at));
            } else if (&op == fold.fold && firstRow) {
              mapping.map(fold.fold->getResult(0),
                          mapping.lookupOrDefault(fold.element));
            } else if (&op == fold.store.getOperation()) {
              inner.create<memref::StoreOp>(
                  loc, mapping.lookup(fold.store.getValueToStore()), partials,
                  at);
            } else {
              inner.clone(op, mapping);
            }
          }
        });
  };

  auto perBlock = b.create<scf::ParallelOp>(loc, zero, blocks, one);
  {
    OpBuilder::InsertionGuard inBlock(b);
    b.setInsertionPoint(perBlock.getBody()->getTerminator());
    Value block = perBlock.getInductionVars()[0];
    auto rowAt = [&](Value index) {
      return b.create<arith::AddIOp>(
          loc, rowLower, b.create<arith::MulIOp>(loc, index, rowStep));
    };
    auto boundary = [&](Value k) { // rows * k / blocks
      return b.create<arith::DivSIOp>(
          loc, b.create<arith::MulIOp>(loc, rows, k), blocks);
    };
    Value first = rowAt(boundary(block));
    Value end = rowAt(boundary(b.create<arith::AddIOp>(loc, block, one)));
    buildRow(b, block, first, /*firstRow=*/true);
    auto rest = b.create<scf::ForOp>(
        loc, b.create<arith::AddIOp>(loc, first, rowStep), end, rowStep);
    OpBuilder inRest = OpBuilder::atBlockBegin(rest.getBody());
    buildRow(inRest, block, rest.getInductionVar(), /*firstRow=*/false);
  }

  // Each column: the buffer folded with every block's partial, in order.
  auto combine = b.create<scf::ParallelOp>(loc, zeros, uppers, ones);
  {
    OpBuilder::InsertionGuard inColumn(b);
    b.setInsertionPoint(combine.getBody()->getTerminator());
    SmallVector<Value> ivs = combine.getInductionVars();
    IRMapping atColumn = outside;
    atColumn.map(columns.ivs, ivs);
    Value initial = b.clone(*fold.load, atColumn)->getResult(0);
    auto folded = b.create<scf::ForOp>(
        loc, zero, blocks, one, ValueRange{initial},
        [&](OpBuilder &nested, Location, Value block, ValueRange args) {
          SmallVector<Value> at{block};
          llvm::append_range(at, ivs);
          IRMapping mapping;
          mapping.map(fold.load.getResult(), args[0]);
          mapping.map(fold.element,
                      nested.create<memref::LoadOp>(loc, partials, at));
          nested.create<scf::YieldOp>(
              loc, nested.clone(*fold.fold, mapping)->getResult(0));
        });
    atColumn.map(fold.store.getValueToStore(), folded.getResult(0));
    b.clone(*fold.store, atColumn);
  }
  b.create<memref::DeallocOp>(loc, partials);
}

} // namespace anyshape::codegen
