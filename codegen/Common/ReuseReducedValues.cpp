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
// Legality, per pair (reduction R, elementwise E) in one stitched body:
//   - R has one reduction dim, its last; E is all-parallel with the same
//     number of dims, one output O with the identity map whose old value
//     it does not read and whose element type is the value's, and R and E
//     read one input with the same identity map (so their index spaces
//     match element for element);
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
  SameComputation(linalg::GenericOp a, linalg::GenericOp b) : a_(a), b_(b) {}

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
      return a_.isDpsInput(operandX) && b_.isDpsInput(operandY) &&
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

/// Rewrites R to also write `value` into `output` (identity map).
linalg::GenericOp addOutput(linalg::GenericOp reduction, Value value,
                            Value output) {
  OpBuilder b(reduction);
  SmallVector<Value> inits(reduction.getDpsInits());
  inits.push_back(output);
  SmallVector<AffineMap> maps = reduction.getIndexingMapsArray();
  maps.push_back(b.getMultiDimIdentityMap(reduction.getNumLoops()));
  auto rewritten = b.create<linalg::GenericOp>(
      reduction.getLoc(), TypeRange{}, reduction.getDpsInputs(), inits, maps,
      reduction.getIteratorTypesArray());
  rewritten.getRegion().takeBody(reduction.getRegion());
  Block *body = rewritten.getBody();
  body->addArgument(llvm::cast<MemRefType>(output.getType()).getElementType(),
                    reduction.getLoc());
  Operation *yield = body->getTerminator();
  yield->insertOperands(yield->getNumOperands(), value);
  reduction.erase();
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
  // E must not read its output's old value (it is about to become the
  // reused one), and the value must fit the output as it is.
  if (!elementwise.getRegionOutputArgs()[0].use_empty() ||
      value.getType() !=
          llvm::cast<MemRefType>(output.getType()).getElementType())
    return false;
  Value root = rootBuffer(output);
  for (Operation *op = reduction; op != elementwise; op = op->getNextNode())
    if (touches(op, root))
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
  SameComputation same(reduction, elementwise);
  Value match;
  elementwise.getBody()->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (!match && same(value, result))
        match = result;
  });
  if (!match)
    return false;
  if (viewAfterReduction)
    view->moveBefore(reduction);
  reduction = addOutput(reduction, value, output);
  match.replaceAllUsesWith(elementwise.getRegionOutputArgs()[0]);
  // The recomputation is dead now.
  SmallVector<Operation *> body;
  for (Operation &op : elementwise.getBody()->without_terminator())
    body.push_back(&op);
  for (Operation *op : llvm::reverse(body))
    if (op->use_empty() && isMemoryEffectFree(op))
      op->erase();
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
      for (size_t r = 0; r < generics.size(); ++r) {
        if (generics[r].getNumReductionLoops() == 0)
          continue;
        for (size_t e = r + 1; e < generics.size(); ++e)
          if (reuse(generics[r], generics[e]))
            break;
      }
    });
  }
};

} // namespace
} // namespace anyshape::codegen
