//===- FormFusions.cpp - each planned kernel a dhlo.fusion op ---*- C++ -*-===//
//
// dhlo-form-fusions (see Passes.td). Plans the function's kernels
// (FusionPlan.h), orders its ops so that each fusion's ops are
// consecutive, and moves each fusion's ops into a dhlo.fusion whose
// results are the values the rest of the function reads. From here on the
// plan is the IR: no pass reads it from anywhere else.
//
// The ops are pure, so any order that defines each value before its uses
// computes the same: the fusions are sorted topologically (an earlier
// first op first among those ready), a fusion's ops keep their relative
// order, and an op no fusion owns (one every consumer recomputes, or a
// shape computation) goes right before its first user; a dhlo.check_sizes,
// which no op uses, right after the nonzero it followed, so that a rule
// on the count fails before anything the count shapes runs.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <queue>
#include <set>

using namespace mlir;

namespace anyshape::dhlo {

#define GEN_PASS_DEF_FORMFUSIONS
#include "ir/dhlo/Transforms/Passes.h.inc"

namespace {

/// Reorders `body` so that the ops of each fusion (`owner`: the fusion of
/// each op one owns) are consecutive but for the unowned ops they need,
/// the nonzeros whose counts size them included.
/// Fails, leaving the order as it is, when a path leaves a fusion and
/// re-enters it (the planner never forms one).
/// The nonzeros whose counts size `op`'s results (their #dhlo.shape
/// symbols): `op` must come after them though it reads none of their data.
/// `counts` maps each count symbol of the block to its nonzero.
SmallVector<Operation *>
countsSizing(Operation *op, const llvm::StringMap<Operation *> &counts) {
  SmallVector<Operation *> definers;
  if (counts.empty())
    return definers;
  for (Type type : op->getResultTypes()) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    auto shape = tensor
                     ? llvm::dyn_cast_or_null<ShapeAttr>(tensor.getEncoding())
                     : nullptr;
    for (int64_t d = 0; shape && d < shape.getRank(); ++d)
      if (std::optional<SymExpr> dim = shape.getDim(d))
        for (const std::string &symbol : dim->leafSymbols())
          if (Operation *nonzero = counts.lookup(symbol);
              nonzero && nonzero != op)
            definers.push_back(nonzero);
  }
  return definers;
}

LogicalResult orderByFusion(Block &body,
                            const llvm::DenseMap<Operation *, size_t> &owner,
                            size_t fusions) {
  llvm::StringMap<Operation *> counts;
  for (NonZeroOp nonzero : body.getOps<NonZeroOp>()) {
    auto shape = llvm::dyn_cast_or_null<ShapeAttr>(
        llvm::cast<RankedTensorType>(nonzero.getType()).getEncoding());
    if (std::optional<SymExpr> count = shape ? shape.getDim(1) : std::nullopt)
      if (std::optional<std::string> symbol = count->singleSymbol())
        counts[*symbol] = nonzero;
  }
  // Each fusion's ops in block order; fusions numbered by the plan.
  std::vector<std::vector<Operation *>> opsOf(fusions);
  for (Operation &op : body.without_terminator())
    if (auto it = owner.find(&op); it != owner.end())
      opsOf[it->second].push_back(&op);

  // The fusions a value comes from, through unowned ops: one pass in
  // block order, where every definition precedes its uses (no recursion:
  // a chain of unowned ops may be as long as the graph).
  llvm::DenseMap<Operation *, size_t> position;
  llvm::DenseMap<Operation *, std::set<size_t>> sourcesOfUnowned;
  auto sourcesOf = [&](Value value) -> std::set<size_t> {
    Operation *def = value.getDefiningOp();
    if (!def)
      return {};
    if (auto it = owner.find(def); it != owner.end())
      return {it->second};
    return sourcesOfUnowned.lookup(def);
  };
  for (Operation &op : body.without_terminator()) {
    position[&op] = position.size();
    if (owner.count(&op))
      continue;
    std::set<size_t> sources;
    for (Value operand : op.getOperands())
      for (size_t source : sourcesOf(operand))
        sources.insert(source);
    for (Operation *nonzero : countsSizing(&op, counts))
      for (size_t source : sourcesOfUnowned.lookup(nonzero))
        sources.insert(source);
    sourcesOfUnowned[&op] = std::move(sources);
  }
  std::vector<std::set<size_t>> users(fusions);
  std::vector<size_t> waitingFor(fusions, 0);
  for (size_t fusion = 0; fusion < fusions; ++fusion)
    for (Operation *op : opsOf[fusion]) {
      std::set<size_t> sources;
      for (Value operand : op->getOperands())
        for (size_t source : sourcesOf(operand))
          sources.insert(source);
      for (Operation *nonzero : countsSizing(op, counts))
        for (size_t source : sourcesOfUnowned.lookup(nonzero))
          sources.insert(source);
      for (size_t source : sources)
        if (source != fusion && users[source].insert(fusion).second)
          ++waitingFor[fusion];
    }

  // The fusions are numbered in the order of their roots; among those
  // ready, the one whose first op comes first goes first.
  auto firstOp = [&](size_t fusion) {
    return opsOf[fusion].empty() ? position.size()
                                 : position.lookup(opsOf[fusion].front());
  };
  auto later = [&](size_t a, size_t b) { return firstOp(a) > firstOp(b); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(
      later);
  for (size_t fusion = 0; fusion < fusions; ++fusion)
    if (waitingFor[fusion] == 0)
      ready.push(fusion);
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t fusion = ready.top();
    ready.pop();
    order.push_back(fusion);
    for (size_t user : users[fusion])
      if (--waitingFor[user] == 0)
        ready.push(user);
  }
  if (order.size() != fusions)
    return failure();

  // The rules on a count checked mid-run (dhlo.check_sizes, which no op
  // uses) follow the nonzero they came after: before anything the count
  // shapes.
  llvm::DenseMap<Operation *, SmallVector<Operation *>> checksAfter;
  Operation *lastNonZero = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (isa<NonZeroOp>(op))
      lastNonZero = &op;
    else if (isa<CheckSizesOp>(op) && lastNonZero)
      checksAfter[lastNonZero].push_back(&op);
  }

  // Each op goes to the end, after the unowned ops it needs that are not
  // placed yet, in their (topological) block order.
  Operation *terminator = body.getTerminator();
  llvm::DenseSet<Operation *> placed;
  std::function<void(Operation *)> place = [&](Operation *op) {
    if (placed.count(op))
      return;
    SmallVector<Operation *> needed, worklist{op};
    llvm::DenseSet<Operation *> seen;
    while (!worklist.empty()) {
      Operation *next = worklist.pop_back_val();
      SmallVector<Operation *> defs = countsSizing(next, counts);
      for (Value operand : next->getOperands())
        defs.push_back(operand.getDefiningOp());
      for (Operation *def : defs) {
        if (def && def->getBlock() == &body && !owner.count(def) &&
            !placed.count(def) && seen.insert(def).second) {
          needed.push_back(def);
          worklist.push_back(def);
        }
      }
    }
    llvm::sort(needed, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    needed.push_back(op);
    for (Operation *ready : needed) {
      if (!placed.insert(ready).second) // placed by a check before it
        continue;
      ready->moveBefore(terminator);
      for (Operation *check : checksAfter.lookup(ready))
        place(check);
    }
  };
  for (size_t fusion : order)
    for (Operation *op : opsOf[fusion])
      place(op);
  // Unowned ops no fusion uses (results, or nothing), in block order.
  SmallVector<Operation *> rest;
  for (Operation &op : body.without_terminator())
    if (!placed.count(&op))
      rest.push_back(&op);
  for (Operation *op : rest)
    place(op);
  return success();
}

/// Moves the ops from `first` to `last` (consecutive after orderByFusion)
/// into a dhlo.fusion for `fusion`. Unowned ops between them go before it
/// if they do not depend on the fusion's ops, into it if they do and the
/// fusion needs them, and after it otherwise.
void wrap(const Fusion &fusion, int64_t id, Operation *first, Operation *last,
          const llvm::DenseMap<Operation *, size_t> &owner) {
  SmallVector<Operation *> run;
  for (Operation *op = first;; op = op->getNextNode()) {
    run.push_back(op);
    if (op == last)
      break;
  }
  auto owned = [&](Operation *op) {
    auto it = owner.find(op);
    return it != owner.end() && static_cast<int64_t>(it->second) == id;
  };
  llvm::DenseSet<Operation *> dependent, needed;
  for (Operation *op : run)
    if (owned(op) || llvm::any_of(op->getOperands(), [&](Value v) {
          return dependent.count(v.getDefiningOp());
        }))
      dependent.insert(op);
  for (Operation *op : llvm::reverse(run))
    if (owned(op) || needed.count(op))
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          needed.insert(def);

  SmallVector<Operation *> before, inside, after;
  for (Operation *op : run) {
    if (!dependent.count(op))
      before.push_back(op);
    else if (owned(op) || needed.count(op))
      inside.push_back(op);
    else
      after.push_back(op);
  }
  llvm::DenseSet<Operation *> insideSet(inside.begin(), inside.end());
  SmallVector<Value> yielded;
  for (Operation *op : inside)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !insideSet.count(user); }))
        yielded.push_back(result);

  Operation *next = last->getNextNode();
  for (Operation *op : before)
    op->moveBefore(next);
  OpBuilder b(next);
  SmallVector<std::string> versions(fusion.versions.begin(),
                                    fusion.versions.end());
  SmallVector<StringRef> versionRefs(versions.begin(), versions.end());
  auto fusionOp = b.create<FusionOp>(
      fusion.root->getLoc(), ValueRange(yielded).getTypes(), id,
      fusionKindName(fusion.kind), b.getStrArrayAttr(versionRefs));
  Block *block = b.createBlock(&fusionOp.getBody());
  for (Operation *member : inside)
    member->moveBefore(block, block->end());
  b.setInsertionPointToEnd(block);
  b.create<YieldOp>(fusion.root->getLoc(), yielded);
  for (auto [value, result] : llvm::zip(yielded, fusionOp.getResults()))
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !fusionOp->isProperAncestor(use.getOwner());
    });
  for (Operation *later : after)
    later->moveBefore(next);
}

struct FormFusionsPass : impl::FormFusionsBase<FormFusionsPass> {
  explicit FormFusionsPass(FormedFusionPlan *formed = nullptr)
      : formed_(formed) {}

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    ShapeConstraintAnalysis analysis(func);
    FusionPlan plan = planFusion(func, analysis);
    if (formed_ && hasDhloOps(func))
      report(plan, analysis);
    llvm::DenseMap<Operation *, size_t> owner = kernelOwners(plan);
    Block &body = func.getBody().front();
    if (failed(orderByFusion(body, owner, plan.fusions.size()))) {
      func.emitError("the fusion plan has a fusion that a path leaves and "
                     "re-enters");
      return signalPassFailure();
    }
    std::vector<Operation *> first(plan.fusions.size()),
        last(plan.fusions.size());
    for (Operation &op : body.without_terminator())
      if (auto it = owner.find(&op); it != owner.end()) {
        if (!first[it->second])
          first[it->second] = &op;
        last[it->second] = &op;
      }
    for (size_t i = 0; i < plan.fusions.size(); ++i)
      if (first[i])
        wrap(plan.fusions[i], i, first[i], last[i], owner);
  }

private:
  void report(const FusionPlan &plan, const ShapeConstraintAnalysis &analysis) {
    std::string text;
    llvm::raw_string_ostream os(text);
    plan.print(os, analysis);
    std::lock_guard<std::mutex> lock(formed_->mutex);
    formed_->text += text;
    formed_->fusions += static_cast<int64_t>(plan.fusions.size());
  }

  FormedFusionPlan *formed_;
};

} // namespace

std::unique_ptr<Pass> createFormFusions(FormedFusionPlan *formed) {
  return std::make_unique<FormFusionsPass>(formed);
}

} // namespace anyshape::dhlo
