//===- AlignVectorAccesses.cpp - vector accesses as the host proved -*- C++
//-*-===//
//
// anyshape-align-vector-accesses (see Passes.td). MLIR lowers a
// vector.load of 4 floats to an llvm.load aligned like one float, which
// NVPTX splits into four 32-bit loads. The only vector accesses in the
// kernels are the 4-wide versions' (VectorAccesses.h), which run only
// when the host found every such access aligned to its own size; this
// pass says so to LLVM, which then emits one 128-bit access.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_ALIGNVECTORACCESSES
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// The bytes of `type` if it is a vector of whole-byte scalars; else 0.
int64_t vectorBytes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || vector.getRank() != 1 ||
      !vector.getElementType().isIntOrFloat() ||
      vector.getElementTypeBitWidth() % 8 != 0)
    return 0;
  return vector.getNumElements() * vector.getElementTypeBitWidth() / 8;
}

struct AlignVectorAccessesPass
    : impl::AlignVectorAccessesBase<AlignVectorAccessesPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (int64_t bytes = vectorBytes(load.getType()))
          load.setAlignment(bytes);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (int64_t bytes = vectorBytes(store.getValue().getType()))
          store.setAlignment(bytes);
      }
    });
  }
};

} // namespace
} // namespace anyshape::codegen
