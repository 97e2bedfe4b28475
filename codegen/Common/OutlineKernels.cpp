//===- OutlineKernels.cpp - each fusion a kernel function ---------*- C++
//-*-===//
//
// anyshape-outline-kernels (see Passes.td). Splits each function into its
// host flow and its kernels: every dhlo.fusion (scheduled, without
// results) becomes a private function holding its body, and a dhlo.launch
// of it in its place. The kernel takes, in order of first use, the values
// its body read from the host flow (buffers, sizes, the results of the
// host's index arithmetic); constants are cloned in instead, so the
// kernel's own code generation still sees them.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include <string>

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_OUTLINEKERNELS
#include "codegen/Common/Passes.h.inc"

namespace {

LogicalResult outline(dhlo::FusionOp fusion, SymbolTable &symbols) {
  if (fusion.getNumResults() != 0)
    return fusion.emitOpError(
        "still has results: its buffers were not hoisted");
  auto host = fusion->getParentOfType<func::FuncOp>();
  Region &body = fusion.getBody();

  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(body, captured);
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value value : captured) {
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() &&
        def->getNumOperands() == 0)
      constants.push_back(def);
    else
      arguments.push_back(value);
  }

  OpBuilder b(host);
  auto kernel = b.create<func::FuncOp>(
      fusion.getLoc(),
      (host.getSymName() + "_kernel" + std::to_string(fusion.getId())).str(),
      b.getFunctionType(ValueRange(arguments).getTypes(), {}));
  kernel.setPrivate();
  kernel->setAttr(kKernelAttr, fusion.getKindAttr());
  symbols.insert(kernel); // renamed if the name is taken

  Block *entry = kernel.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping inside;
  for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
    inside.map(value, argument);
  for (Operation *constant : constants)
    inside.map(constant->getResult(0), b.clone(*constant)->getResult(0));
  // One walk of the body: a value from above (a shared constant, a size)
  // may have uses all over the host flow, so replacing its uses region by
  // region would visit them once per kernel.
  body.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      if (Value inner = inside.lookupOrNull(operand.get()))
        operand.set(inner);
  });
  Block &fused = body.front();
  entry->getOperations().splice(entry->end(), fused.getOperations());
  Operation *yield = entry->getTerminator();
  b.setInsertionPoint(yield);
  b.create<func::ReturnOp>(yield->getLoc());
  yield->erase();

  b.setInsertionPoint(fusion);
  b.create<dhlo::LaunchOp>(fusion.getLoc(), kernel.getSymName(), fusion.getId(),
                           fusion.getKind(), arguments);
  fusion.erase();
  return success();
}

struct OutlineKernelsPass : impl::OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    SmallVector<dhlo::FusionOp> fusions;
    getOperation().walk([&](dhlo::FusionOp op) { fusions.push_back(op); });
    for (dhlo::FusionOp fusion : fusions)
      if (failed(outline(fusion, symbols)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
