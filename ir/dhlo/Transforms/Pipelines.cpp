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

llvm::DenseSet<mlir::StringAttr> referencedSymbols(mlir::ModuleOp module) {
  llvm::DenseSet<mlir::StringAttr> referenced;
  std::optional<mlir::SymbolTable::UseRange> uses =
      mlir::SymbolTable::getSymbolUses(&module.getBodyRegion());
  if (!uses) { // an op whose uses cannot be known: every function is used
    for (auto func : module.getOps<mlir::func::FuncOp>())
      referenced.insert(func.getSymNameAttr());
    return referenced;
  }
  for (const mlir::SymbolTable::SymbolUse &use : *uses)
    referenced.insert(use.getSymbolRef().getRootReference());
  return referenced;
}

Retyping::Retyping(mlir::func::FuncOp func,
                   const llvm::DenseSet<mlir::StringAttr> &referenced)
    : func_(func), uncalled_(!referenced.contains(func.getSymNameAttr())) {}

bool Retyping::canRetype(mlir::Value value) const {
  mlir::func::FuncOp func = func_; // op handles' accessors are not const
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(value);
  if (arg && arg.getOwner()->getParentOp() == func.getOperation() && !uncalled_)
    return false;
  for (mlir::Operation *user : value.getUsers()) {
    // A return in this function: values do not cross function bodies.
    if (llvm::isa<mlir::func::ReturnOp>(user)) {
      if (!uncalled_)
        return false;
      continue;
    }
    if (!llvm::isa<DhloDialect>(user->getDialect()))
      return false;
  }
  return true;
}

void Retyping::updateSignature() const {
  mlir::func::FuncOp func = func_;
  if (!uncalled_ || func.getBody().empty())
    return;
  mlir::Operation *terminator = func.getBody().back().getTerminator();
  func.setType(mlir::FunctionType::get(
      func.getContext(), func.getBody().front().getArgumentTypes(),
      terminator->getOperandTypes()));
}

bool hasDhloOps(mlir::func::FuncOp func) {
  return func
      .walk([](mlir::Operation *op) {
        return llvm::isa<DhloDialect>(op->getDialect())
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

void buildDhloSimplifyPipeline(mlir::OpPassManager &pm) {
  // First, so that propagation types the chunks it makes.
  pm.addNestedPass<mlir::func::FuncOp>(createSplitWideConcatenations());
  // On the module: they look at calls between functions.
  pm.addPass(createShapePropagation());
  pm.addPass(createShapeSimplification());
  mlir::OpPassManager &func = pm.nest<mlir::func::FuncOp>();
  // Before anything reads a splat's elements: none is materialised to be
  // cut or combined.
  func.addPass(createFoldSplats());
  func.addPass(mlir::createCanonicalizerPass());
  func.addPass(mlir::createCSEPass());
}

void buildDhloPlanningPipeline(mlir::OpPassManager &pm,
                               ConvolutionsBy convolutions) {
  // Expanded before shapes and the plan see them (their shape checks were
  // recorded with the graph).
  if (convolutions == ConvolutionsBy::kKernels)
    pm.addNestedPass<mlir::func::FuncOp>(createExpandConvolutions());
  buildDhloSimplifyPipeline(pm);
}

int64_t printSimplifiedFusionPlans(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   ConvolutionsBy convolutions) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  mlir::PassManager pm(module.getContext());
  buildDhloPlanningPipeline(pm, convolutions);
  if (mlir::failed(pm.run(*copy)))
    return -1;
  int64_t fusions = 0;
  for (auto func : copy->getOps<mlir::func::FuncOp>()) {
    if (!hasDhloOps(func))
      continue;
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
      "Wide concatenates split, shape propagation, shape simplification, "
      "splats folded, canonicalize, CSE",
      buildDhloSimplifyPipeline);
}

} // namespace anyshape::dhlo
