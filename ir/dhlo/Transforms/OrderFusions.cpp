//===- OrderFusions.cpp - each fusion's ops next to each other ---*- C++
//-*-===//
//
// dhlo-order-fusions (see Passes.td): reorders a marked function's ops so
// that every fusion's ops are consecutive, as the kernel-forming passes,
// which look at runs of neighbouring ops, need them. The ops are pure, so
// any order that defines each value before its uses computes the same:
// the fusions are sorted topologically (an earlier first op first among
// those ready), a fusion's ops keep their relative order, and an unmarked
// op, one every consumer recomputes, goes right before its first user.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <queue>
#include <set>

using namespace mlir;

namespace anyshape::dhlo {

#define GEN_PASS_DEF_ORDERFUSIONS
#include "ir/dhlo/Transforms/Passes.h.inc"

namespace {

struct OrderFusionsPass : impl::OrderFusionsBase<OrderFusionsPass> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    // The fusions, numbered by where their first op stands, each with its
    // ops in block order. Unmarked ops (cheap ones every consumer
    // recomputes) belong to none: each goes right before its first user.
    std::vector<std::vector<Operation *>> units;
    llvm::DenseMap<Operation *, size_t> unitOf;
    std::map<int64_t, size_t> unitOfFusion;
    for (Operation &op : body.without_terminator()) {
      std::optional<int64_t> fusion = fusionOf(&op);
      if (!fusion)
        continue;
      auto [it, fresh] = unitOfFusion.try_emplace(*fusion, units.size());
      if (fresh)
        units.emplace_back();
      units[it->second].push_back(&op);
      unitOf[&op] = it->second;
    }

    // The fusions a value comes from, through unmarked ops: one pass in
    // block order, where every definition precedes its uses (no
    // recursion: a chain of unmarked ops may be as long as the graph).
    llvm::DenseMap<Operation *, size_t> position;
    llvm::DenseMap<Operation *, std::set<size_t>> sourcesOfUnmarked;
    auto sourcesOf = [&](Value value) -> std::set<size_t> {
      Operation *def = value.getDefiningOp();
      if (!def)
        return {};
      if (auto it = unitOf.find(def); it != unitOf.end())
        return {it->second};
      return sourcesOfUnmarked.lookup(def);
    };
    for (Operation &op : body.without_terminator()) {
      position[&op] = position.size();
      if (unitOf.count(&op))
        continue;
      std::set<size_t> sources;
      for (Value operand : op.getOperands())
        for (size_t source : sourcesOf(operand))
          sources.insert(source);
      sourcesOfUnmarked[&op] = std::move(sources);
    }
    std::vector<std::set<size_t>> users(units.size());
    std::vector<size_t> waitingFor(units.size(), 0);
    for (size_t unit = 0; unit < units.size(); ++unit)
      for (Operation *op : units[unit])
        for (Value operand : op->getOperands())
          for (size_t source : sourcesOf(operand))
            if (source != unit && users[source].insert(unit).second)
              ++waitingFor[unit];

    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>>
        ready;
    for (size_t unit = 0; unit < units.size(); ++unit)
      if (waitingFor[unit] == 0)
        ready.push(unit);
    std::vector<size_t> order;
    while (!ready.empty()) {
      size_t unit = ready.top();
      ready.pop();
      order.push_back(unit);
      for (size_t user : users[unit])
        if (--waitingFor[user] == 0)
          ready.push(user);
    }
    // A fusion that a path leaves and re-enters has no consecutive order;
    // the planner never forms one, and the order is left as it is then.
    if (order.size() != units.size())
      return markAllAnalysesPreserved();

    // Each op goes to the end, after the unmarked ops it needs that are
    // not placed yet, in their (topological) block order.
    Operation *terminator = body.getTerminator();
    llvm::DenseSet<Operation *> placed;
    auto place = [&](Operation *op) {
      if (placed.count(op))
        return;
      SmallVector<Operation *> needed, worklist{op};
      llvm::DenseSet<Operation *> seen;
      while (!worklist.empty()) {
        Operation *next = worklist.pop_back_val();
        for (Value operand : next->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && def->getBlock() == &body && !unitOf.count(def) &&
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
        placed.insert(ready);
        ready->moveBefore(terminator);
      }
    };
    for (size_t unit : order)
      for (Operation *op : units[unit])
        place(op);
    // Unmarked ops no fusion uses (results, or nothing), in block order.
    SmallVector<Operation *> rest;
    for (Operation &op : body.without_terminator())
      if (!placed.count(&op))
        rest.push_back(&op);
    for (Operation *op : rest)
      place(op);
    markAllAnalysesPreserved(); // the same ops, in another order
  }
};

} // namespace
} // namespace anyshape::dhlo
