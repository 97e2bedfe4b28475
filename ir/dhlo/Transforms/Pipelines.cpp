//===- Pipelines.cpp - named dhlo pipelines ---------------------*- C++ -*-===//
//
// The pipelines the compiler runs, registered by name so that anyshape-opt
// reproduces them exactly.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/Transforms/Passes.h"

#include "ir/dhlo/Analysis/FusionPlan.h"
#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace anyshape::dhlo {

namespace {
bool isUncalled(mlir::func::FuncOp func) {
  auto module = func->getParentOfType<mlir::ModuleOp>();
  return !module || mlir::SymbolTable::symbolKnownUseEmpty(func, module);
}
} // namespace

bool canRetype(mlir::Value value) {
  auto isArgOfCalledFunction = [&] {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(value);
    auto func =
        arg ? llvm::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp())
            : nullptr;
    return func && !isUncalled(func);
  };
  if (isArgOfCalledFunction())
    return false;
  for (mlir::Operation *user : value.getUsers()) {
    if (llvm::isa<mlir::func::ReturnOp>(user)) {
      auto func = user->getParentOfType<mlir::func::FuncOp>();
      if (!func || !isUncalled(func))
        return false;
      continue;
    }
    if (!llvm::isa<DhloDialect>(user->getDialect()))
      return false;
  }
  return true;
}

void updateSignature(mlir::func::FuncOp func) {
  if (!isUncalled(func) || func.getBody().empty())
    return;
  mlir::Operation *terminator = func.getBody().back().getTerminator();
  func.setType(mlir::FunctionType::get(
      func.getContext(), func.getBody().front().getArgumentTypes(),
      terminator->getOperandTypes()));
}

void buildDhloSimplifyPipeline(mlir::OpPassManager &pm) {
  mlir::OpPassManager &func = pm.nest<mlir::func::FuncOp>();
  func.addPass(createShapePropagation());
  func.addPass(createShapeSimplification());
  func.addPass(mlir::createCanonicalizerPass());
  func.addPass(mlir::createCSEPass());
}

int64_t printSimplifiedFusionPlans(mlir::ModuleOp module,
                                   llvm::raw_ostream &os) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  mlir::PassManager pm(module.getContext());
  buildDhloSimplifyPipeline(pm);
  if (mlir::failed(pm.run(*copy)))
    return -1;
  int64_t fusions = 0;
  for (auto func : copy->getOps<mlir::func::FuncOp>()) {
    ShapeConstraintAnalysis analysis(func);
    FusionPlan plan = planFusion(func, analysis);
    plan.print(os, analysis);
    fusions += static_cast<int64_t>(plan.fusions.size());
  }
  return fusions;
}

void registerAllDhloPasses() {
  registerDhloPasses();
  mlir::PassPipelineRegistration<>(
      "dhlo-simplify",
      "Shape propagation, shape simplification, canonicalize, CSE",
      buildDhloSimplifyPipeline);
}

} // namespace anyshape::dhlo
