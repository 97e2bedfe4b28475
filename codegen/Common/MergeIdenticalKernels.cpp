//===- MergeIdenticalKernels.cpp - one function per distinct kernel -*- C++
//-*-===//
//
// anyshape-merge-identical-kernels (see Passes.td). A model that stacks
// the same layer outlines the same kernels once per layer; everything
// after outlining (the LLVM lowering, LLVM's optimiser, instruction
// selection, register allocation) would then do the same work once per
// layer. This pass keeps the first kernel of each set of identical ones
// and points every launch of the others at it.
//
// Identical means: the same function type, argument and result
// attributes, discardable attributes (the kernel's kind) and a body equal
// op for op up to locations (OperationEquivalence, which maps block
// arguments and results as it goes). Kernels are bucketed by a hash of
// those parts first, so each is compared only with the kernels of its
// bucket: linear in the module, not quadratic in its kernels.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_MERGEIDENTICALKERNELS
#include "codegen/Common/Passes.h.inc"

namespace {

/// What a kernel's function is besides its name: everything two kernels
/// must share to be interchangeable.
bool sameSignature(func::FuncOp a, func::FuncOp b) {
  return a.getFunctionType() == b.getFunctionType() &&
         a.getArgAttrsAttr() == b.getArgAttrsAttr() &&
         a.getResAttrsAttr() == b.getResAttrsAttr() &&
         a.getVisibility() == b.getVisibility() &&
         a->getDiscardableAttrDictionary() == b->getDiscardableAttrDictionary();
}

/// A hash that identical kernels share (names and locations left out);
/// kernels that differ usually differ in it.
llvm::hash_code structuralHash(func::FuncOp kernel) {
  llvm::hash_code hash = llvm::hash_combine(
      kernel.getFunctionType(), kernel->getDiscardableAttrDictionary());
  kernel.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

struct MergeIdenticalKernelsPass
    : impl::MergeIdenticalKernelsBase<MergeIdenticalKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kept kernels by hash; a bucket holds the distinct kernels that share
    // one, so a collision costs a comparison, never a wrong merge.
    llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> kept;
    SmallVector<std::pair<func::FuncOp, func::FuncOp>> duplicates;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttr) || kernel.isExternal())
        continue;
      auto &bucket = kept[structuralHash(kernel)];
      auto same = llvm::find_if(bucket, [&](func::FuncOp other) {
        return sameSignature(kernel, other) &&
               OperationEquivalence::isRegionEquivalentTo(
                   &kernel.getBody(), &other.getBody(),
                   OperationEquivalence::IgnoreLocations);
      });
      if (same == bucket.end())
        bucket.push_back(kernel);
      else
        duplicates.push_back({kernel, *same});
    }
    if (duplicates.empty())
      return;
    // One walk of the module finds every symbol use; each replacement then
    // touches only the launches of its kernel.
    SymbolTableCollection tables;
    SymbolUserMap users(tables, module);
    for (auto [duplicate, kernel] : duplicates) {
      users.replaceAllUsesWith(duplicate, kernel.getSymNameAttr());
      duplicate.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen
