//===- ShareReadOnlyViews.cpp - one view per buffer -------------*- C++ -*-===//
//
// anyshape-share-read-only-views (see Passes.td). Runs on @main's tensors,
// right before bufferization.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <map>
#include <vector>

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_SHAREREADONLYVIEWS
#include "codegen/Common/Passes.h.inc"

namespace {

/// What makes two views the same view: the op, the viewed value, the
/// result type and the shape's parts (constants, dims of function-level
/// tensors, function-level values), as integers and pointers.
using ViewKey = std::vector<intptr_t>;

intptr_t asKey(const void *pointer) {
  return reinterpret_cast<intptr_t>(pointer);
}

class ViewSharing {
public:
  explicit ViewSharing(func::FuncOp function)
      : function(function), entry(function.getBody().front()) {}

  /// Replaces `op` (in a library fusion) by the one function-level view
  /// of its kind and operands, built before `fusion` the first time.
  void share(Operation *op, Operation *fusion) {
    if (auto reshape = llvm::dyn_cast<tensor::ReshapeOp>(op))
      shareReshape(reshape, fusion);
    else if (auto cast = llvm::dyn_cast<tensor::CastOp>(op))
      shareCast(cast, fusion);
  }

private:
  bool atFunctionLevel(Value value) const {
    return value.getParentBlock() == &entry;
  }

  /// A buffer nothing writes: a constant, an argument bufferization may
  /// not write (all of @main's: PrepareEntryAbi), or a view this pass
  /// shares of one.
  bool readOnly(Value value) const {
    if (shared.contains(value))
      return true;
    if (!atFunctionLevel(value))
      return false;
    if (auto argument = llvm::dyn_cast<BlockArgument>(value)) {
      auto writable = function.getArgAttrOfType<BoolAttr>(
          argument.getArgNumber(), "bufferization.writable");
      return writable && !writable.getValue();
    }
    return value.getDefiningOp<arith::ConstantOp>() != nullptr;
  }

  /// The key of one element of a reshape's shape, or nothing when it is
  /// not a constant, a dim of a function-level tensor or a function-level
  /// value.
  bool addShapeElement(Value size, ViewKey &key) const {
    if (atFunctionLevel(size)) {
      key.insert(key.end(), {2, asKey(size.getAsOpaquePointer())});
      return true;
    }
    APInt constant;
    if (matchPattern(size, m_ConstantInt(&constant))) {
      key.insert(key.end(),
                 {0, static_cast<intptr_t>(constant.getSExtValue())});
      return true;
    }
    auto dim = size.getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    if (!index || !atFunctionLevel(dim.getSource()))
      return false;
    key.insert(key.end(), {1, asKey(dim.getSource().getAsOpaquePointer()),
                           static_cast<intptr_t>(*index)});
    return true;
  }

  /// `size` rebuilt before `fusion` (it has a key: addShapeElement).
  Value sizeAtFunctionLevel(OpBuilder &b, Value size) const {
    if (atFunctionLevel(size))
      return size;
    APInt constant;
    if (matchPattern(size, m_ConstantInt(&constant)))
      return b.create<arith::ConstantIndexOp>(size.getLoc(),
                                              constant.getSExtValue());
    auto dim = size.getDefiningOp<tensor::DimOp>();
    return b.create<tensor::DimOp>(size.getLoc(), dim.getSource(),
                                   *dim.getConstantIndex());
  }

  void shareReshape(tensor::ReshapeOp reshape, Operation *fusion) {
    auto shape = reshape.getShape().getDefiningOp<tensor::FromElementsOp>();
    // Index shapes only (all the lowering makes): the sizes are rebuilt as
    // index constants and dims.
    if (!shape || !shape.getType().getElementType().isIndex() ||
        !readOnly(reshape.getSource()))
      return;
    ViewKey key{0, asKey(reshape.getSource().getAsOpaquePointer()),
                asKey(reshape.getType().getAsOpaquePointer())};
    for (Value size : shape.getElements())
      if (!addShapeElement(size, key))
        return;
    Value &view = views[key];
    if (!view) {
      OpBuilder b(fusion);
      SmallVector<Value> sizes;
      for (Value size : shape.getElements())
        sizes.push_back(sizeAtFunctionLevel(b, size));
      // A shape of its own: shared, it would make the views of different
      // buffers alias each other (UnshareReshapeShapes).
      Value ownShape = b.create<tensor::FromElementsOp>(shape.getLoc(),
                                                        shape.getType(), sizes);
      view = b.create<tensor::ReshapeOp>(reshape.getLoc(), reshape.getType(),
                                         reshape.getSource(), ownShape);
      shared.insert(view);
    }
    replaceAndEraseDead(reshape, view);
  }

  void shareCast(tensor::CastOp cast, Operation *fusion) {
    if (!readOnly(cast.getSource()))
      return;
    ViewKey key{1, asKey(cast.getSource().getAsOpaquePointer()),
                asKey(cast.getType().getAsOpaquePointer())};
    Value &view = views[key];
    if (!view) {
      OpBuilder b(fusion);
      view = b.create<tensor::CastOp>(cast.getLoc(), cast.getType(),
                                      cast.getSource());
      shared.insert(view);
    }
    replaceAndEraseDead(cast, view);
  }

  /// Replaces `op` by `view`, then erases what only `op` used inside its
  /// fusion (its shape, and that shape's constants and dims): a dead shape
  /// tensor would still bufferize to a buffer.
  static void replaceAndEraseDead(Operation *op, Value view) {
    op->getResult(0).replaceAllUsesWith(view);
    SmallVector<Operation *> maybeDead{op};
    llvm::DenseSet<Operation *> erased;
    while (!maybeDead.empty()) {
      Operation *dead = maybeDead.pop_back_val();
      if (erased.contains(dead) || !isOpTriviallyDead(dead) ||
          !dead->getParentOfType<dhlo::FusionOp>())
        continue;
      for (Value operand : dead->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          maybeDead.push_back(producer);
      erased.insert(dead);
      dead->erase();
    }
  }

  mutable func::FuncOp function; // attribute getters are not const
  Block &entry;
  std::map<ViewKey, Value> views;
  llvm::DenseSet<Value> shared;
};

struct ShareReadOnlyViewsPass
    : impl::ShareReadOnlyViewsBase<ShareReadOnlyViewsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    ViewSharing sharing(function);
    const char *library = dhlo::fusionKindName(dhlo::FusionKind::Library);
    for (Operation &op :
         llvm::make_early_inc_range(function.getBody().front())) {
      auto fusion = llvm::dyn_cast<dhlo::FusionOp>(op);
      if (!fusion || fusion.getKind() != library)
        continue;
      for (Operation &inner :
           llvm::make_early_inc_range(fusion.getBody().front()))
        sharing.share(&inner, fusion);
    }
  }
};

} // namespace
} // namespace anyshape::codegen
