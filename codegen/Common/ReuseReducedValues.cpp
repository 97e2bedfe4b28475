//===- ReuseReducedValues.cpp - compute once what a stitch uses twice -===//
//
// anyshape-reuse-reduced-values (see Passes.td). Runs inside the loops of
// anyshape-stitch-rows, after CSE has merged their identical row views.
//
// Softmax's row sum adds exp(x - max) and its quotient divides exp(x - max)
// by the sum: two evaluations of an inline exp polynomial per element,
// which made the stitched kernel compute-bound (in cache it ran no faster
// than from memory). When an elementwise member recomputes the very value
// a reduction member before it combines, the reduction also writes that
// value into the elementwise member's output row, and the elementwise
// member reads it back as its output's current value (in the L1 cache).
//
// A stitch often stores an intermediate row first: attention's softmax
// writes its scaled, masked scores s = x * c + mask into the quotient's
// output row while it finds their max, and the quotient then reads s back
// as its output's old value while the sum recomputes s from x and mask.
// So the pass first makes a later member read back what an earlier one
// stored instead of recomputing it (the sum then reads s from the row),
// and treats a member's read of a row and another's read of the same row
// as its output's old value as the same input: the sum then writes
// exp(s - max) over s, and the quotient divides that.
//
// Legality of a read-back (G stores v into row B, a later member L
// recomputes v): L has G's loops and reads one input with the identity
// map as G does, B's map in G is the identity and G does not read B's old
// value, v is the same computation on the same inputs, and nothing
// between G and L touches B's buffer.
//
// Legality, per pair (reduction R, elementwise E) in one stitched body:
//   - R has one reduction dim, its last; E is all-parallel with the same
//     number of dims, one output O with the identity map whose element
//     type is the value's, and R and E read one input with the same
//     identity map (so their index spaces match element for element);
//   - E reads O's old value only to recompute the value (those reads die
//     with the recomputation);
//   - the value is the same computation on the same inputs through the
//     same maps (compared op by op);
//   - nothing from R to E touches O's buffer: R's write of O is the one
//     E reads.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "codegen/Common/BufferRoots.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_REUSEREDUCEDVALUES
#include "codegen/Common/Passes.h.inc"

namespace {

/// Compares values of two generics' bodies: the same computation, element
/// for element, reading the same inputs through the same maps.
class SameComputation {
public:
  /// `oldOutputs`: b's reads of its outputs' old values count as reads of
  /// those rows (the caller checks that nothing writes them from a to b).
  SameComputation(linalg::GenericOp a, linalg::GenericOp b, bool oldOutputs)
      : a_(a), b_(b), oldOutputs_(oldOutputs) {}

  bool operator()(Value x, Value y) {
    if (x == y)
      return !a_->isAncestor(x.getParentRegion()->getParentOp());
    auto [it, inserted] = memo_.try_emplace({x, y}, false);
    if (!inserted)
      return it->second;
    bool same = compare(x, y);
    memo_[{x, y}] = same;
    return same;
  }

private:
  bool compare(Value x, Value y) {
    auto argX = llvm::dyn_cast<BlockArgument>(x);
    auto argY = llvm::dyn_cast<BlockArgument>(y);
    if (argX || argY) {
      if (!argX || !argY || argX.getOwner() != a_.getBody() ||
          argY.getOwner() != b_.getBody())
        return false;
      OpOperand *operandX = a_.getMatchingOpOperand(argX);
      OpOperand *operandY = b_.getMatchingOpOperand(argY);
      return a_.isDpsInput(operandX) &&
             (b_.isDpsInput(operandY) ||
              (oldOutputs_ && b_.isDpsInit(operandY))) &&
             operandX->get() == operandY->get() &&
             a_.getMatchingIndexingMap(operandX) ==
                 b_.getMatchingIndexingMap(operandY);
    }
    Operation *opX = x.getDefiningOp(), *opY = y.getDefiningOp();
    if (opX->getParentOp() != a_ || opY->getParentOp() != b_ ||
        opX->getName() != opY->getName() ||
        opX->getAttrDictionary() != opY->getAttrDictionary() ||
        opX->getNumOperands() != opY->getNumOperands() ||
        opX->getNumRegions() != 0 || !isMemoryEffectFree(opX) ||
        llvm::cast<OpResult>(x).getResultNumber() !=
            llvm::cast<OpResult>(y).getResultNumber())
      return false;
    for (auto [operandX, operandY] :
         llvm::zip(opX->getOperands(), opY->getOperands()))
      if (!(*this)(operandX, operandY))
        return false;
    return true;
  }

  linalg::GenericOp a_, b_;
  bool oldOutputs_;
  llvm::DenseMap<std::pair<Value, Value>, bool> memo_;
};

/// The value R's single reduction output combines into its accumulator:
/// `yield combine(acc, value)`.
Value combinedValue(linalg::GenericOp reduction) {
  if (reduction.getNumDpsInits() != 1)
    return {};
  auto yield =
      llvm::cast<linalg::YieldOp>(reduction.getBody()->getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 ||
      combine->getParentOp() != reduction)
    return {};
  BlockArgument acc = reduction.getRegionOutputArgs()[0];
  if (combine->getOperand(0) == acc)
    return combine->getOperand(1);
  if (combine->getOperand(1) == acc)
    return combine->getOperand(0);
  return {};
}

bool sharesIdentityInput(linalg::GenericOp a, linalg::GenericOp b) {
  for (OpOperand *x : a.getDpsInputOperands())
    for (OpOperand *y : b.getDpsInputOperands())
      if (x->get() == y->get() && a.getMatchingIndexingMap(x).isIdentity() &&
          b.getMatchingIndexingMap(y).isIdentity())
        return true;
  return false;
}

/// True if `op` may read or write `root` (views only name it), as an
/// operand or from its body (a pad loads its source there).
bool touches(Operation *op, Value root) {
  if (isMemoryEffectFree(op))
    return false;
  WalkResult walk = op->walk([&](Operation *inner) {
    bool named = llvm::any_of(inner->getOperands(), [&](Value operand) {
      return llvm::isa<MemRefType>(operand.getType()) &&
             rootBuffer(operand) == root;
    });
    return named ? WalkResult::interrupt() : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// True if an op strictly between `first` and `last` (one block) may
/// read or write `root`.
bool touchedBetween(Operation *first, Operation *last, Value root) {
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode())
    if (touches(op, root))
      return true;
  return false;
}

/// The first result in `generic`'s body that computes what `value` of
/// `earlier` computes (null if none).
Value findSameComputation(linalg::GenericOp earlier, Value value,
                          linalg::GenericOp generic, bool oldOutputs) {
  SameComputation same(earlier, generic, oldOutputs);
  Value match;
  generic.getBody()->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (!match && same(value, result))
        match = result;
  });
  return match;
}

/// The ops of `body` left without a use once `match`'s uses go elsewhere.
llvm::SmallPtrSet<Operation *, 16> deadOnceReplaced(Block *body, Value match) {
  llvm::SmallPtrSet<Operation *, 16> dead;
  for (Operation &op : llvm::reverse(body->without_terminator())) {
    bool unused = llvm::all_of(op.getResults(), [&](Value result) {
      return result == match ||
             llvm::all_of(result.getUsers(),
                          [&](Operation *user) { return dead.contains(user); });
    });
    if (unused && isMemoryEffectFree(&op))
      dead.insert(&op);
  }
  return dead;
}

/// Erases the ops of `generic`'s body that nothing uses any more.
void eraseDeadOps(linalg::GenericOp generic) {
  SmallVector<Operation *> body;
  for (Operation &op : generic.getBody()->without_terminator())
    body.push_back(&op);
  for (Operation *op : llvm::reverse(body))
    if (isOpTriviallyDead(op))
      op->erase();
}

/// `generic` with one more operand, `value` read (an input) or written
/// (an output) with the identity map; its body moves over, with the new
/// block argument, which `argument` is set to. The old op is erased.
linalg::GenericOp withOperand(linalg::GenericOp generic, Value value,
                              bool output, BlockArgument &argument) {
  OpBuilder b(generic);
  SmallVector<Value> inputs(generic.getDpsInputs()),
      inits(generic.getDpsInits());
  unsigned position =
      output ? generic->getNumOperands() : generic.getNumDpsInputs();
  (output ? inits : inputs).push_back(value);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  maps.insert(maps.begin() + position,
              b.getMultiDimIdentityMap(generic.getNumLoops()));
  auto rewritten =
      b.create<linalg::GenericOp>(generic.getLoc(), TypeRange{}, inputs, inits,
                                  maps, generic.getIteratorTypesArray());
  rewritten.getRegion().takeBody(generic.getRegion());
  argument = rewritten.getBody()->insertArgument(
      position, llvm::cast<MemRefType>(value.getType()).getElementType(),
      generic.getLoc());
  generic.erase();
  return rewritten;
}

/// Tries to make `later` read back a row `stored` writes instead of
/// recomputing it; true if it did.
bool readBack(linalg::GenericOp stored, linalg::GenericOp &later) {
  if (later.getNumLoops() != stored.getNumLoops() ||
      !sharesIdentityInput(stored, later))
    return false;
  for (OpOperand &init : stored.getDpsInitsMutable()) {
    Value row = init.get();
    Value value = stored.getMatchingYieldValue(&init)->get();
    if (!stored.getMatchingIndexingMap(&init).isIdentity() ||
        !stored.getMatchingBlockArgument(&init).use_empty() ||
        llvm::isa<BlockArgument>(value))
      continue;
    Value root = rootBuffer(row);
    if (touchedBetween(stored, later, root) ||
        llvm::any_of(later.getDpsInits(),
                     [&](Value output) { return rootBuffer(output) == root; }))
      continue;
    Value match = findSameComputation(stored, value, later, false);
    if (!match)
      continue;
    BlockArgument argument;
    // The body moves to the new op, `match` included.
    later = withOperand(later, row, /*output=*/false, argument);
    match.replaceAllUsesWith(argument);
    eraseDeadOps(later);
    return true;
  }
  return false;
}

/// Rewrites R to also write `value` into `output` (identity map).
linalg::GenericOp addOutput(linalg::GenericOp reduction, Value value,
                            Value output) {
  BlockArgument argument;
  linalg::GenericOp rewritten =
      withOperand(reduction, output, /*output=*/true, argument);
  Operation *yield = rewritten.getBody()->getTerminator();
  yield->insertOperands(yield->getNumOperands(), value);
  return rewritten;
}

/// Tries to make `elementwise` read what `reduction` combined; true if it
/// did.
bool reuse(linalg::GenericOp &reduction, linalg::GenericOp elementwise) {
  Value value = combinedValue(reduction);
  if (!value || llvm::isa<BlockArgument>(value) ||
      elementwise.getNumDpsInits() != 1 ||
      elementwise.getNumParallelLoops() != elementwise.getNumLoops() ||
      elementwise.getNumLoops() != reduction.getNumLoops() ||
      !elementwise.getIndexingMapsArray().back().isIdentity() ||
      !sharesIdentityInput(reduction, elementwise))
    return false;
  SmallVector<utils::IteratorType> iterators =
      reduction.getIteratorTypesArray();
  if (reduction.getNumReductionLoops() != 1 ||
      iterators.back() != utils::IteratorType::reduction)
    return false;
  Value output = elementwise.getDpsInits()[0];
  // The value must fit the output as it is.
  if (value.getType() !=
      llvm::cast<MemRefType>(output.getType()).getElementType())
    return false;
  // E's old value of O must be what R read of it: R must not write O
  // already, nor anything between them.
  Value root = rootBuffer(output);
  if (touchedBetween(reduction, elementwise, root) ||
      llvm::any_of(reduction.getDpsInits(),
                   [&](Value init) { return rootBuffer(init) == root; }))
    return false;
  // R writes the output row, so the view naming it must come before R.
  Operation *view = output.getDefiningOp();
  bool viewAfterReduction = view && view->getBlock() == reduction->getBlock() &&
                            reduction->isBeforeInBlock(view);
  if (viewAfterReduction &&
      llvm::any_of(view->getOperands(), [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        return def && def->getBlock() == reduction->getBlock() &&
               !def->isBeforeInBlock(reduction);
      }))
    return false;
  Value match = findSameComputation(reduction, value, elementwise, true);
  if (!match)
    return false;
  // E's reads of its output's old value must die with the recomputation:
  // the output is about to hold the reused value instead.
  llvm::SmallPtrSet<Operation *, 16> dead =
      deadOnceReplaced(elementwise.getBody(), match);
  if (llvm::any_of(elementwise.getRegionOutputArgs()[0].getUsers(),
                   [&](Operation *user) { return !dead.contains(user); }))
    return false;
  if (viewAfterReduction)
    view->moveBefore(reduction);
  reduction = addOutput(reduction, value, output);
  match.replaceAllUsesWith(elementwise.getRegionOutputArgs()[0]);
  eraseDeadOps(elementwise); // the recomputation
  return true;
}

struct ReuseReducedValuesPass
    : impl::ReuseReducedValuesBase<ReuseReducedValuesPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ParallelOp loop) {
      if (!loop->hasAttr(kStitchedLoopAttr))
        return;
      SmallVector<linalg::GenericOp> generics(
          loop.getBody()->getOps<linalg::GenericOp>());
      // Each rewrite can enable others: a reuse makes a row hold a value
      // that later members may read back, and a read-back makes two
      // members read the same row. Each removes a recomputation, so this
      // ends; the bound only guards against a rewrite that does not.
      for (size_t round = 0; round < 4 * generics.size(); ++round) {
        bool changed = false;
        for (size_t g = 0; g < generics.size(); ++g)
          for (size_t l = g + 1; l < generics.size(); ++l)
            changed |= readBack(generics[g], generics[l]);
        for (size_t r = 0; r < generics.size(); ++r) {
          if (generics[r].getNumReductionLoops() == 0)
            continue;
          for (size_t e = r + 1; e < generics.size(); ++e)
            if (reuse(generics[r], generics[e])) {
              changed = true;
              break;
            }
        }
        if (!changed)
          break;
      }
    });
  }
};

} // namespace
} // namespace anyshape::codegen
