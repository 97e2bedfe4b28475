// How a reshape's dims group (ReshapeGroups.h), read from the symbolic
// types: a symbolic dim must match an equal dim, a static size a run of
// static dims multiplying to it.
#include "ir/dhlo/IR/ReshapeGroups.h"

using namespace mlir;

namespace anyshape::dhlo {
namespace {

/// The symbolic dims of a tensor type (its #dhlo.shape encoding), with
/// static sizes filled in; nullopt for a dim nothing is known of.
SmallVector<std::optional<SymExpr>> symbolicDims(RankedTensorType type) {
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(type.getEncoding());
  SmallVector<std::optional<SymExpr>> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      dims.push_back(SymExpr::constant(type.getDimSize(d)));
    else
      dims.push_back(shape ? shape.getDim(d) : std::nullopt);
  }
  return dims;
}

/// How the dims of `fewer` split into those of `more`, in order: each
/// symbolic dim is one equal dim of `more`, each static size a run of
/// static dims multiplying to it; trailing 1s join the last group. nullopt
/// when the reshape is not such a split (then it reshapes through memory
/// order, tensor.reshape).
std::optional<SmallVector<SmallVector<int64_t, 2>>>
splitGroups(ArrayRef<std::optional<SymExpr>> fewer,
            ArrayRef<std::optional<SymExpr>> more) {
  SmallVector<SmallVector<int64_t, 2>> groups;
  size_t j = 0;
  for (const std::optional<SymExpr> &dim : fewer) {
    if (!dim)
      return std::nullopt;
    SmallVector<int64_t, 2> group;
    std::optional<int64_t> size = dim->constantValue();
    if (!size) {
      // Unit dims before it join its group ([seq] -> [1, seq]: PyTorch's
      // packed QKV reshapes [seq, batch, 96] to [1, seq, batch, 3, 32]).
      while (j < more.size() && more[j] == SymExpr::constant(1))
        group.push_back(j++);
      if (j >= more.size() || more[j] != dim)
        return std::nullopt;
      group.push_back(j++);
    } else {
      int64_t product = 1;
      while (j < more.size() && (product < *size || group.empty())) {
        std::optional<int64_t> next =
            more[j] ? more[j]->constantValue() : std::nullopt;
        if (!next || *next == 0)
          return std::nullopt;
        product *= *next;
        group.push_back(j++);
      }
      if (group.empty() || product != *size)
        return std::nullopt;
    }
    groups.push_back(std::move(group));
  }
  for (; j < more.size(); ++j) {
    if (groups.empty() || more[j] != SymExpr::constant(1))
      return std::nullopt;
    groups.back().push_back(j);
  }
  return groups;
}

} // namespace

std::optional<SmallVector<SmallVector<int64_t, 2>>>
reshapeGroups(ReshapeOp op) {
  auto from = llvm::cast<RankedTensorType>(op.getOperand().getType());
  RankedTensorType to = op.getType();
  if (from.getRank() < to.getRank())
    return splitGroups(symbolicDims(from), symbolicDims(to));
  if (from.getRank() > to.getRank())
    return splitGroups(symbolicDims(to), symbolicDims(from));
  return std::nullopt;
}

} // namespace anyshape::dhlo
