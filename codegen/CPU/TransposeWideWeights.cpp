//===- TransposeWideWeights.cpp - wide GEMM weights stored [N, K] -*- C++
//-*-===//
//
// anyshape-transpose-wide-weights (see Passes.td). Which layout of a
// weight is faster is a fact of the GEMM library on a CPU, not of the
// graph, so the CPU pipeline runs this pass only where CpuTarget says
// the library prefers it (oneDNN 2.6 without AVX-512, measured). The
// weight is a constant, so the layout is free to choose: it costs nothing
// per run, and the product is unchanged (the same sums, read in another
// order by the library).
//
// Invariants: only the dot_general and a new constant change; the
// dot_general's result type and every other user of the old constant are
// untouched.
//
//===----------------------------------------------------------------------===//
#include "codegen/CPU/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cstring>

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_TRANSPOSEWIDEWEIGHTS
#include "codegen/CPU/Passes.h.inc"

namespace {

/// `attr` ([K, N] f32) as its [N, K] transpose; null if its storage is not
/// dense f32 elements.
ElementsAttr transposed(ElementsAttr attr, RankedTensorType type) {
  auto dense = llvm::dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(type);
  auto from = llvm::cast<RankedTensorType>(dense.getType());
  int64_t rows = from.getDimSize(0), cols = from.getDimSize(1);
  ArrayRef<char> raw = dense.getRawData();
  constexpr int64_t size = sizeof(float);
  if (static_cast<int64_t>(raw.size()) != rows * cols * size)
    return {};
  std::vector<char> out(raw.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&out[(c * rows + r) * size], &raw[(r * cols + c) * size],
                  size);
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

/// The [N, K] transpose of `weight` ([K, N]), made right after it; null
/// if `weight` is no constant this pass can transpose.
Value transposedConstant(OpBuilder &b, Value weight) {
  auto type = llvm::cast<RankedTensorType>(weight.getType());
  auto to = RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                  type.getElementType());
  if (auto seeded = weight.getDefiningOp<dhlo::SeededUniformOp>()) {
    if (seeded.getTransposed())
      return {};
    b.setInsertionPointAfter(seeded);
    return b.create<dhlo::SeededUniformOp>(
        seeded.getLoc(), to, seeded.getSeedAttr(), seeded.getLowAttr(),
        seeded.getHighAttr(), b.getUnitAttr());
  }
  if (auto constant = weight.getDefiningOp<dhlo::ConstantOp>())
    if (ElementsAttr value = transposed(constant.getValue(), to)) {
      b.setInsertionPointAfter(constant);
      return b.create<dhlo::ConstantOp>(constant.getLoc(), value);
    }
  return {};
}

/// True for a dot_general this pass rewrites: f32, its right operand a
/// static [K, N] with N > K contracted on dim 0, no batch dims.
bool readsWideWeight(dhlo::DotGeneralOp op) {
  auto rhs = llvm::cast<RankedTensorType>(op.getRhs().getType());
  return op.getType().getElementType().isF32() && rhs.getRank() == 2 &&
         rhs.hasStaticShape() && op.getRhsBatchDimensions().empty() &&
         op.getRhsContractingDimensions() == ArrayRef<int64_t>{0} &&
         rhs.getDimSize(1) > rhs.getDimSize(0);
}

struct TransposeWideWeightsPass
    : impl::TransposeWideWeightsBase<TransposeWideWeightsPass> {
  void runOnOperation() override {
    SmallVector<dhlo::DotGeneralOp> wide;
    getOperation().walk([&](dhlo::DotGeneralOp op) {
      if (readsWideWeight(op))
        wide.push_back(op);
    });
    // One transposed copy per weight, however many products read it.
    llvm::DenseMap<Value, Value> transposedOf;
    OpBuilder b(&getContext());
    for (dhlo::DotGeneralOp op : wide) {
      Value weight = op.getRhs();
      Value &stored = transposedOf[weight];
      if (!stored)
        stored = transposedConstant(b, weight);
      if (!stored)
        continue;
      op.getRhsMutable().assign(stored);
      op.setRhsContractingDimensions(ArrayRef<int64_t>{1});
    }
    for (auto [weight, stored] : transposedOf)
      if (stored && weight.use_empty())
        weight.getDefiningOp()->erase();
  }
};

} // namespace

} // namespace anyshape::codegen
