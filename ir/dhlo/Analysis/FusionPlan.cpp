//===- FusionPlan.cpp - the fusion planner ------------------------*- C++
//-*-===//
//
// Four phases. Grouping walks the ops backwards from each kernel root and
// pulls in producers whose every user is already in the kernel and whose
// index space provably equals the kernel's (all dims equal, or equal
// element counts for a linear space). Stitching then merges a row
// reduction (reducing trailing dims) into the kernel that consumes its
// result over the same rows, together with the per-row arithmetic between
// them, until nothing changes. A loop kernel feeding several kernels over
// its space is then recomputed in each, and finally consecutive kernels
// over the same rows, one of them reducing, are stitched into one.
//
//===----------------------------------------------------------------------===//
#include "FusionPlan.h"

#include "BroadcastStretch.h"

#include "ir/dhlo/IR/DhloDialect.h"
#include "ir/dhlo/IR/ReshapeGroups.h"
#include "ir/graph/OpRegistry.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <set>

using namespace mlir;

namespace anyshape::dhlo {
namespace {

enum class Role { Cheap, LoopFusible, Reduce, Library, Own };

/// Ops of one kernel, at most: a longer chain of elementwise ops becomes
/// several kernels. LLVM's work on one loop body grows faster than its
/// size: a chain of 2,000 ops compiled in 11.1 s as kernels of 512, 8.2 s
/// of 128 and 7.7 s of 64 (and as one kernel of 10,000 ops took 6.1 ms an
/// op against 4.6 at 1,000; 100,000 took 21 minutes). Writing one
/// intermediate per 128 ops costs nothing measurable; the largest kernel
/// of the encoder layer (a layer norm) has 26 ops. Codegen keeps to the
/// plan's cut (FuseSharedProducers.cpp).
constexpr size_t kMaxKernelOps = 128;

Role roleOf(Operation *op) {
  if (llvm::isa<ConstantOp, SeededUniformOp, IotaOp>(op))
    return Role::Cheap;
  if (auto broadcast = llvm::dyn_cast<BroadcastInDimOp>(op)) {
    Operation *source = broadcast.getOperand().getDefiningOp();
    if (source && roleOf(source) == Role::Cheap)
      return Role::Cheap; // a splat: recomputed wherever it is used
    return Role::LoopFusible;
  }
  const OpInfo *info = lookupOp(op->getName().stripDialect());
  if (!info)
    return Role::Own;
  switch (info->opClass) {
  case OpClass::Unary:
  case OpClass::Binary:
  case OpClass::Select:
    return Role::LoopFusible;
  case OpClass::Reduce:
    return Role::Reduce;
  case OpClass::DotGeneral:
    return Role::Library;
  default:
    // A reshape that splits or merges dims is a view kernels read through;
    // any other goes through memory order, a copy of its own in codegen.
    if (auto reshape = llvm::dyn_cast<ReshapeOp>(op))
      return reshape.getOperand().getType() == reshape.getType() ||
                     reshapeGroups(reshape)
                 ? Role::LoopFusible
                 : Role::Own;
    return Role::Own;
  }
}

bool dimsEqual(const ShapeConstraintAnalysis &a, Value x, Value y) {
  auto tx = llvm::cast<RankedTensorType>(x.getType());
  auto ty = llvm::cast<RankedTensorType>(y.getType());
  if (tx.getRank() != ty.getRank())
    return false;
  for (int64_t d = 0; d < tx.getRank(); ++d)
    if (!a.isEqual(x, d, y, d))
      return false;
  return true;
}

/// x's dims are the leading dims of y's (a per-row value of y's rows).
bool isRowSpaceOf(const ShapeConstraintAnalysis &a, Value x, Value y) {
  auto tx = llvm::cast<RankedTensorType>(x.getType());
  auto ty = llvm::cast<RankedTensorType>(y.getType());
  if (tx.getRank() >= ty.getRank())
    return false;
  for (int64_t d = 0; d < tx.getRank(); ++d)
    if (!a.isEqual(x, d, y, d))
      return false;
  return true;
}

bool isRowReduction(ReduceOp reduce) {
  int64_t rank =
      llvm::cast<RankedTensorType>(reduce.getOperand().getType()).getRank();
  ArrayRef<int64_t> dims = reduce.getDimensions();
  for (int64_t d = rank - static_cast<int64_t>(dims.size()); d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      return false;
  return !dims.empty();
}

/// The node name in `loc`, looking through fused locations.
std::optional<StringRef> nodeNameIn(Location loc) {
  if (auto name = llvm::dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto name = nodeNameIn(inner))
        return name;
  return std::nullopt;
}

std::string describe(Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (std::optional<StringRef> name = nodeNameIn(op->getLoc()))
    s += " '" + name->str() + "'";
  return s;
}

std::string dimsString(const ShapeConstraintAnalysis &a, Value v) {
  std::string s = "[";
  auto t = llvm::cast<RankedTensorType>(v.getType());
  for (int64_t d = 0; d < t.getRank(); ++d)
    s += (d ? ", " : "") + a.canonicalDim(v, d).toString();
  return s + "]";
}

/// How a reduction lowers, by the dims it folds.
enum class ReductionShape {
  Vector,  // every dim of a 1-D value: one row
  Whole,   // every dim of a higher-rank value: a serial loop nest
  Columns, // the first dim alone: rows outside the columns
  Rows,    // the innermost dim alone: rows (the dims before it) of its own
  Middle,  // another single dim: rows before it, columns after it
  Other,   // several dims, not all
};

ReductionShape reductionShape(ReduceOp reduce) {
  int64_t rank =
      llvm::cast<RankedTensorType>(reduce.getOperand().getType()).getRank();
  ArrayRef<int64_t> dims = reduce.getDimensions();
  if (static_cast<int64_t>(dims.size()) == rank)
    return rank == 1 ? ReductionShape::Vector : ReductionShape::Whole;
  if (dims.size() != 1)
    return ReductionShape::Other;
  if (dims[0] == 0)
    return ReductionShape::Columns;
  return dims[0] == rank - 1 ? ReductionShape::Rows : ReductionShape::Middle;
}

/// The versions the backends build for `fusion` (Fusion::versions).
std::vector<std::string>
kernelVersions(const Fusion &fusion, const ShapeConstraintAnalysis &analysis) {
  if (fusion.kind == FusionKind::Library)
    return {"library"};
  bool stretch = llvm::any_of(fusion.ops, [&](Operation *op) {
    auto broadcast = llvm::dyn_cast<BroadcastInDimOp>(op);
    return broadcast && stretchesAtRunTime(broadcast, analysis);
  });
  if (stretch)
    return {"no-stretch/parallel", "no-stretch/serial", "stretch/parallel",
            "stretch/serial"};
  std::optional<ReductionShape> shape;
  for (Operation *op : fusion.ops)
    if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
      ReductionShape next = reductionShape(reduce);
      shape = !shape || *shape == next ? next : ReductionShape::Other;
    }
  if (shape == ReductionShape::Vector)
    return {"split-row", "serial"};
  if (shape == ReductionShape::Whole)
    return {"serial"};
  if (shape == ReductionShape::Rows)
    return {"split-row", "parallel", "serial"};
  if (shape == ReductionShape::Middle)
    return {"split-row/row-blocks", "split-row/column-chunks", "parallel",
            "serial"};
  if (shape == ReductionShape::Columns)
    return {"row-blocks", "column-chunks", "serial"};
  return {"parallel", "serial"};
}

/// Whether `op` reads `operand` at indices it computes from data or
/// arithmetic (a gather's table, a pad's source), not along its loops: a
/// loop nest cannot compute such an operand as it goes, so its producer is
/// a kernel of its own, finished before.
bool loadsAtComputedIndices(Operation *op, Value operand) {
  return llvm::isa<GatherOp, PadOp>(op) && op->getOperand(0) == operand;
}

/// Whether an op of `consumer` reads a value of `producer` at computed
/// indices (loadsAtComputedIndices): then the two cannot be one kernel.
bool feedsComputedIndices(const Fusion &producer, const Fusion &consumer) {
  for (Operation *op : producer.ops)
    for (OpOperand &use : op->getUses())
      if (loadsAtComputedIndices(use.getOwner(), use.get()) &&
          llvm::is_contained(consumer.ops, use.getOwner()))
        return true;
  return false;
}

/// Whether `op` lowers to one loop nest over its result (or its operand,
/// for a reduction), which other loop nests can share (a gather or pad
/// loads its operand inside the loop): not concatenate or slice, which
/// become copies into or out of parts of a buffer.
bool isLoopNestOp(Operation *op) {
  Role role = roleOf(op);
  return role == Role::Cheap || role == Role::LoopFusible ||
         role == Role::Reduce ||
         llvm::isa<DimSizeOp, GatherOp, PadOp, TransposeOp>(op);
}

bool isLoopNest(const Fusion &f) { return llvm::all_of(f.ops, isLoopNestOp); }

/// Whether codegen builds `op` as copies of its operands into or out of
/// parts of a buffer (a concatenate, a slice): a loop producer pulled in
/// would be a loop nest of its own beside the copies, two kernels for one
/// fusion. Grouping meets this only where the producer's space provably
/// equals the copy's: a concatenate whose other operands are empty
/// (EfficientNet's last ceil-mode pooling window at some image sizes).
bool copiesOperands(Operation *op) {
  return llvm::isa<ConcatenateOp, SliceOp>(op);
}

/// Ops a backend lowers to a loop that reads each operand element at the
/// point it writes (elementwise) or along its rows (reduce, broadcast):
/// what linalg elementwise fusion can fold a producer into.
bool readsInPlace(Operation *op) {
  Role role = roleOf(op);
  return (role == Role::LoopFusible && !llvm::isa<ReshapeOp>(op)) ||
         role == Role::Reduce;
}

/// Whether cheap `op` is a loop when it is built alone (an iota, a
/// broadcast), unlike a constant, which is data any kernel reads.
bool isGeneratedLoop(Operation *op) {
  return llvm::isa<IotaOp, BroadcastInDimOp>(op);
}

/// Whether `consumer` can recompute a cheap operand point by point inside
/// its own loop: elementwise ops and broadcasts. Not a reduction (linalg
/// cannot fuse a producer without inputs into one: nothing would give the
/// reduced loop its size), a gather's table or a pad's operand (read at
/// computed indices), a product, a copy or a reshape through memory.
bool recomputesCheapOperands(Operation *consumer) {
  Role role = roleOf(consumer);
  return role == Role::Cheap ||
         (role == Role::LoopFusible && !llvm::isa<ReshapeOp>(consumer));
}

/// Whether `f` materialises a cheap op (FusionPlan.h): its kernel writes
/// the value for the users that cannot recompute it, and stays a kernel of
/// its own.
bool materializesCheapOp(const Fusion &f) {
  return roleOf(f.root) == Role::Cheap;
}

/// Whether a reduction can recompute `producer` inside its own loop:
/// linalg fuses a producer into a reduction only while some operand still
/// gives each loop its size, so one of the producer's inputs must span its
/// result's whole index space. An embedding gather ([b, s] ids into
/// [b, s, h] rows) does not: the reduction over h would lose h's size.
bool reductionCanRecompute(const Fusion &producer) {
  auto result =
      llvm::cast<RankedTensorType>(producer.root->getResult(0).getType());
  for (Operation *op : producer.ops)
    for (Value operand : op->getOperands()) {
      Operation *source = operand.getDefiningOp();
      if (source && llvm::is_contained(producer.ops, source))
        continue;
      if (operand.getType() == result)
        return true;
    }
  return false;
}

/// Phase 3: a loop kernel whose result feeds several kernels over the
/// same index space, each reading it in place, is recomputed in each of
/// them instead of written to memory (jit's anyshape-fuse-shared-producers
/// does this on linalg; softmax's exp feeding the sum and the quotient is
/// the same trade inside one kernel). Bounded like that pass: producers of
/// at most 48 ops.
void duplicateSharedLoops(FusionPlan &plan, std::vector<bool> &alive,
                          llvm::DenseMap<Operation *, int> &groupOf,
                          const llvm::DenseMap<Operation *, int64_t> &position,
                          const ShapeConstraintAnalysis &analysis) {
  constexpr size_t kMaxDuplicatedOps = 48;
  for (size_t p = 0; p < plan.fusions.size(); ++p) {
    Fusion &producer = plan.fusions[p];
    // Only loop nests: a concatenate or slice is copies, which a consumer
    // cannot recompute point by point (left to no kernel, it was a copy
    // in the host flow, which on a GPU reads device memory).
    if (!alive[p] || producer.kind != FusionKind::Loop ||
        producer.ops.size() > kMaxDuplicatedOps ||
        materializesCheapOp(producer) || !isLoopNest(producer))
      continue;
    std::set<int> consumers;
    bool duplicable = true;
    for (Operation *user : producer.root->getUsers()) {
      auto it = groupOf.find(user);
      if (!position.count(user) || it == groupOf.end() || !readsInPlace(user) ||
          (roleOf(user) == Role::Reduce && !reductionCanRecompute(producer)) ||
          plan.fusions[it->second].kind == FusionKind::Library ||
          !dimsEqual(analysis, producer.root->getResult(0),
                     plan.fusions[it->second].space)) {
        duplicable = false;
        break;
      }
      consumers.insert(it->second);
    }
    if (!duplicable || consumers.size() < 2)
      continue;
    for (int c : consumers)
      for (Operation *op : producer.ops)
        if (!llvm::is_contained(plan.fusions[c].ops, op))
          plan.fusions[c].ops.push_back(op);
    for (Operation *op : producer.ops)
      groupOf.erase(op); // in several kernels now: no single owner
    alive[p] = false;
  }
}

/// The leading dims a kernel's ops all share as parallel dims, as the CPU
/// backend's loops have them: every dim of a loop kernel's space; the
/// dims a row reduction keeps; none for library calls, reductions of
/// leading dims and copies into or out of parts of buffers (concatenate,
/// slice).
int64_t rowDimsOf(const Fusion &f) {
  if (f.kind == FusionKind::Library || !isLoopNest(f))
    return 0;
  // A kernel that ends in a reshape to another rank has no rows to share:
  // codegen moves that reshape above the elementwise ops before it
  // (linalg's reshape propagation), so they run over the reshaped space,
  // which a stitched kernel's row loop does not cover (reduce -> log ->
  // reshape [n, 3] to [n, 3, 1], ReduceLogSum with keepdims).
  if (auto reshape = llvm::dyn_cast<ReshapeOp>(f.root))
    if (llvm::cast<RankedTensorType>(reshape.getOperand().getType())
            .getRank() != reshape.getType().getRank())
      return 0;
  int64_t rows = llvm::cast<RankedTensorType>(f.space.getType()).getRank();
  for (Operation *op : f.ops) {
    if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
      if (!isRowReduction(reduce))
        return 0;
      int64_t rank =
          llvm::cast<RankedTensorType>(reduce.getOperand().getType()).getRank();
      rows = std::min<int64_t>(
          rows, rank - static_cast<int64_t>(reduce.getDimensions().size()));
    }
  }
  return rows;
}

/// Whether `op` reads `operand` at the row it is computing, for the first
/// `rows` dims: elementwise ops and reductions read their operands at the
/// same leading indices; a broadcast must map those dims to themselves.
bool readsAtSameRow(Operation *op, Value operand, int64_t rows) {
  if (auto broadcast = llvm::dyn_cast<BroadcastInDimOp>(op)) {
    ArrayRef<int64_t> mapping = broadcast.getBroadcastDimensions();
    int64_t rank = llvm::cast<RankedTensorType>(operand.getType()).getRank();
    if (rank < rows)
      return false;
    for (int64_t d = 0; d < rows; ++d)
      if (mapping[d] != d)
        return false;
    return true;
  }
  return readsInPlace(op);
}

/// Phase 4: consecutive kernels over the same rows, at least one of them
/// reducing, run row by row in one stitched kernel, the way the CPU
/// backend's anyshape-stitch-rows builds them: a row's sibling reductions
/// and the per-row values computed from them share one pass over it.
/// Legal when every value a member produces is read by later members only
/// at the row being computed.
void stitchRowNeighbours(FusionPlan &plan, std::vector<bool> &alive,
                         llvm::DenseMap<Operation *, int> &groupOf,
                         const llvm::DenseMap<Operation *, int64_t> &position,
                         const ShapeConstraintAnalysis &analysis) {
  std::vector<int> order;
  for (size_t i = 0; i < plan.fusions.size(); ++i)
    if (alive[i])
      order.push_back(static_cast<int>(i));
  llvm::sort(order, [&](int a, int b) {
    return position.lookup(plan.fusions[a].root) <
           position.lookup(plan.fusions[b].root);
  });
  auto sameRows = [&](const Fusion &a, const Fusion &b, int64_t rows) {
    for (int64_t d = 0; d < rows; ++d)
      if (!analysis.isEqual(a.space, d, b.space, d))
        return false;
    return true;
  };
  // Whether `value` is computed, through ops of no kernel (the host
  // flow's calls, cheap ops), from a member of `inside` other than `m`.
  auto fromOtherMember = [&](Value value, const std::set<int> &inside, int m) {
    std::vector<Value> pending{value};
    llvm::DenseSet<Operation *> seen;
    while (!pending.empty()) {
      Operation *def = pending.back().getDefiningOp();
      pending.pop_back();
      if (!def || !seen.insert(def).second)
        continue;
      if (auto it = groupOf.find(def); it != groupOf.end()) {
        if (it->second != m && inside.count(it->second))
          return true;
        continue;
      }
      pending.insert(pending.end(), def->operand_begin(), def->operand_end());
    }
    return false;
  };
  auto legal = [&](const std::vector<int> &members, int64_t rows) {
    std::set<int> inside(members.begin(), members.end());
    for (int m : members)
      for (Operation *op : plan.fusions[m].ops)
        for (Value operand : op->getOperands()) {
          Operation *def = operand.getDefiningOp();
          auto it = def ? groupOf.find(def) : groupOf.end();
          // A host-flow call (a convolution, a scatter) between two
          // members would have to run inside their one kernel.
          if (def && isHostFlowCall(def) && fromOtherMember(operand, inside, m))
            return false;
          if (it == groupOf.end() || it->second == m ||
              !inside.count(it->second))
            continue;
          if (!readsAtSameRow(op, operand, rows))
            return false;
        }
    return true;
  };
  auto reduces = [&](int f) {
    return llvm::any_of(plan.fusions[f].ops,
                        [](Operation *op) { return llvm::isa<ReduceOp>(op); });
  };
  for (size_t i = 0; i < order.size();) {
    int64_t rows = materializesCheapOp(plan.fusions[order[i]])
                       ? 0
                       : rowDimsOf(plan.fusions[order[i]]);
    std::vector<int> members{order[i]};
    for (size_t j = i + 1; rows > 0 && j < order.size(); ++j) {
      const Fusion &next = plan.fusions[order[j]];
      int64_t fewer =
          materializesCheapOp(next) ? 0 : std::min(rows, rowDimsOf(next));
      members.push_back(order[j]);
      if (fewer == 0 || !sameRows(plan.fusions[order[i]], next, fewer) ||
          !legal(members, fewer)) {
        members.pop_back();
        break;
      }
      rows = fewer;
    }
    size_t taken = members.size();
    if (taken >= 2 && llvm::any_of(members, reduces)) {
      Fusion &first = plan.fusions[members.front()];
      for (int m : llvm::drop_begin(members)) {
        Fusion &other = plan.fusions[m];
        for (Operation *op : other.ops) {
          if (groupOf.count(op))
            groupOf[op] = members.front();
          if (!llvm::is_contained(first.ops, op))
            first.ops.push_back(op);
        }
        alive[m] = false;
      }
      first.root = plan.fusions[members.back()].root;
      first.kind = FusionKind::Stitch;
    }
    i += taken;
  }
}

} // namespace

const char *fusionKindName(FusionKind kind) {
  switch (kind) {
  case FusionKind::Loop:
    return "kLoop";
  case FusionKind::Input:
    return "kInput";
  case FusionKind::Stitch:
    return "kStitch";
  case FusionKind::Library:
    return "kLibrary";
  }
  return "?";
}

FusionPlan planFusion(func::FuncOp func,
                      const ShapeConstraintAnalysis &analysis) {
  std::vector<Operation *> order;
  llvm::DenseMap<Operation *, int64_t> position;
  // A host-flow call is in no kernel: the host flow calls the runtime on
  // the buffers (a nonzero's count sizes what follows).
  func.walk([&](Operation *op) {
    if (llvm::isa<DhloDialect>(op->getDialect()) && !isHostFlowCall(op)) {
      position[op] = order.size();
      order.push_back(op);
    }
  });
  FusionPlan plan;
  llvm::DenseMap<Operation *, int> groupOf; // non-cheap ops only
  std::vector<bool> alive;
  // (producer, consumer root) pairs grouping could not prove compatible;
  // stitching may still join them, so they are reported at the end.
  std::vector<std::pair<Operation *, Operation *>> rejected;

  // Phase 1: grouping, roots first (reverse program order).
  for (Operation *root : llvm::reverse(order)) {
    Role role = roleOf(root);
    // Cheap ops are recomputed inside each consumer; they are kernels of
    // their own only when a result leaves the function directly, or when
    // one that is a loop has a user that cannot recompute it.
    bool materialized = llvm::any_of(root->getUsers(), [&](Operation *u) {
      if (llvm::isa<CheckIndexOp>(u)) // reads a buffer, from the host flow
        return isGeneratedLoop(root);
      return !position.count(u) ||
             (isGeneratedLoop(root) && !recomputesCheapOperands(u));
    });
    if (groupOf.count(root) || (role == Role::Cheap && !materialized))
      continue;
    int id = plan.fusions.size();
    Fusion f{role == Role::Reduce    ? FusionKind::Input
             : role == Role::Library ? FusionKind::Library
                                     : FusionKind::Loop,
             root,
             {root},
             role == Role::Reduce ? root->getOperand(0) : root->getResult(0),
             {}};
    groupOf[root] = id;
    std::vector<Operation *> worklist{root};
    while (!worklist.empty()) {
      Operation *consumer = worklist.back();
      worklist.pop_back();
      for (Value operand : consumer->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || !position.count(producer) ||
            loadsAtComputedIndices(consumer, operand))
          continue;
        if (roleOf(producer) == Role::Cheap) {
          // A loop this consumer cannot recompute is read from the kernel
          // that materialises it.
          if (isGeneratedLoop(producer) && !recomputesCheapOperands(consumer))
            continue;
          if (!llvm::is_contained(f.ops, producer)) {
            f.ops.push_back(producer); // duplicated into each consumer
            worklist.push_back(producer);
          }
          continue;
        }
        if (groupOf.count(producer) || f.kind == FusionKind::Library ||
            roleOf(producer) != Role::LoopFusible || copiesOperands(consumer))
          continue;
        bool allUsersInside =
            llvm::all_of(producer->getUsers(), [&](Operation *u) {
              auto it = groupOf.find(u);
              return it != groupOf.end() && it->second == id;
            });
        if (!allUsersInside)
          continue;
        Value result = producer->getResult(0);
        if (!dimsEqual(analysis, result, f.space) &&
            !analysis.isSameNumElements(result, f.space)) {
          rejected.push_back({producer, root});
          continue;
        }
        if (f.ops.size() >= kMaxKernelOps)
          continue; // the producer roots a kernel of its own
        groupOf[producer] = id;
        f.ops.push_back(producer);
        worklist.push_back(producer);
      }
    }
    plan.fusions.push_back(std::move(f));
    alive.push_back(true);
  }

  // Phase 2: stitch row reductions (and the per-row values between them)
  // into the kernels that consume them over the same rows.
  auto rootUsersAllIn = [&](const Fusion &p, int id) {
    return llvm::all_of(p.root->getUsers(), [&](Operation *u) {
      auto it = groupOf.find(u);
      return it != groupOf.end() && it->second == id;
    });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int c = 0; c < static_cast<int>(plan.fusions.size()); ++c) {
      Fusion &consumer = plan.fusions[c];
      if (!alive[c] || consumer.kind == FusionKind::Library ||
          consumer.kind == FusionKind::Input)
        continue;
      for (size_t i = 0; i < consumer.ops.size() && !changed; ++i) {
        for (Value operand : consumer.ops[i]->getOperands()) {
          Operation *def = operand.getDefiningOp();
          auto it = def ? groupOf.find(def) : groupOf.end();
          if (it == groupOf.end() || it->second == c || !alive[it->second] ||
              loadsAtComputedIndices(consumer.ops[i], operand))
            continue;
          int p = it->second;
          Fusion &producer = plan.fusions[p];
          if (producer.root != def || !rootUsersAllIn(producer, c) ||
              feedsComputedIndices(producer, consumer) ||
              materializesCheapOp(producer))
            continue;
          Value produced = def->getResult(0);
          // Rows are what a stitched kernel runs in parallel: a reduction
          // of every dim has none (its consumers wait for the whole value,
          // on any target), so it stays a kernel of its own.
          bool stitch =
              producer.kind == FusionKind::Input &&
              isRowReduction(llvm::cast<ReduceOp>(def)) &&
              llvm::cast<RankedTensorType>(def->getResult(0).getType())
                      .getRank() > 0 &&
              dimsEqual(analysis, producer.space, consumer.space);
          bool perRow = producer.kind == FusionKind::Loop &&
                        isLoopNest(producer) &&
                        isRowSpaceOf(analysis, produced, consumer.space);
          // A whole kernel over the same space whose every use is now in
          // the consumer (e.g. exp between softmax's two reductions).
          bool sameSpace = producer.kind != FusionKind::Input &&
                           producer.kind != FusionKind::Library &&
                           isLoopNest(producer) &&
                           dimsEqual(analysis, producer.space, consumer.space);
          if ((!stitch && !perRow && !sameSpace) ||
              consumer.ops.size() + producer.ops.size() > kMaxKernelOps)
            continue;
          stitch |= sameSpace && producer.kind == FusionKind::Stitch;
          for (Operation *op : producer.ops) {
            if (roleOf(op) != Role::Cheap)
              groupOf[op] = c;
            if (!llvm::is_contained(consumer.ops, op))
              consumer.ops.push_back(op);
          }
          if (stitch)
            consumer.kind = FusionKind::Stitch;
          alive[p] = false;
          changed = true;
          break;
        }
      }
    }
  }

  duplicateSharedLoops(plan, alive, groupOf, position, analysis);
  stitchRowNeighbours(plan, alive, groupOf, position, analysis);

  for (auto [producer, root] : rejected)
    if (groupOf.lookup(producer) != groupOf.lookup(root) ||
        !groupOf.count(producer))
      plan.notFused.push_back(
          describe(producer) + " into " + describe(root) + ": index space " +
          dimsString(analysis, producer->getResult(0)) + " not provably " +
          dimsString(analysis, plan.fusions[groupOf.lookup(root)].space));

  std::vector<Fusion> kept;
  for (size_t i = 0; i < plan.fusions.size(); ++i)
    if (alive[i]) {
      Fusion f = plan.fusions[i];
      llvm::sort(f.ops, [&](Operation *a, Operation *b) {
        return position[a] < position[b];
      });
      kept.push_back(std::move(f));
    }
  llvm::sort(kept, [&](const Fusion &a, const Fusion &b) {
    return position[a.root] < position[b.root];
  });
  for (Fusion &f : kept)
    f.versions = kernelVersions(f, analysis);
  plan.fusions = std::move(kept);
  return plan;
}

llvm::DenseMap<Operation *, size_t> kernelOwners(const FusionPlan &plan) {
  llvm::DenseMap<Operation *, int> fusionsOf;
  for (const Fusion &f : plan.fusions)
    for (Operation *op : f.ops)
      ++fusionsOf[op];
  llvm::DenseMap<Operation *, size_t> owners;
  for (size_t i = 0; i < plan.fusions.size(); ++i)
    for (Operation *op : plan.fusions[i].ops)
      // Cheap ops are recomputed by every kernel that uses them, and
      // lowering may share them between kernels (one constant for all);
      // one is a kernel itself only as the root of the kernel that
      // materialises it (other kernels may list it too, recomputing it).
      if (op == plan.fusions[i].root ||
          (fusionsOf[op] == 1 && roleOf(op) != Role::Cheap))
        owners[op] = i;
  return owners;
}

void FusionPlan::print(llvm::raw_ostream &os,
                       const ShapeConstraintAnalysis &analysis) const {
  os << "fusions: " << fusions.size() << "\n";
  for (size_t i = 0; i < fusions.size(); ++i) {
    const Fusion &f = fusions[i];
    int64_t reductions = llvm::count_if(
        f.ops, [](Operation *op) { return llvm::isa<ReduceOp>(op); });
    os << "  #" << i << " " << fusionKindName(f.kind) << " root "
       << describe(f.root) << " over " << dimsString(analysis, f.space) << ", "
       << f.ops.size() << " ops";
    if (reductions)
      os << ", " << reductions << " reductions";
    os << ":";
    for (Operation *op : f.ops)
      os << " " << op->getName().stripDialect();
    os << " | versions:";
    for (const std::string &version : f.versions)
      os << " " << version;
    os << "\n";
  }
  os << "not fused: " << notFused.size() << "\n";
  for (const std::string &line : notFused)
    os << "  " << line << "\n";
}

} // namespace anyshape::dhlo
