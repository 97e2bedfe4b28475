//===- ExecutionContext.cpp - the run's context, passed along ----*- C++
//-*-===//
//
// anyshape-execution-context (see Passes.td): @main and every kernel take
// the execution context (runtime/ExecutionContext.h) as their first
// argument, an !llvm.ptr; the host flow passes it to each kernel it
// launches, which every target's lowering of a launch then keeps. The team size
// a schedule picks its version by, and the team each parallel region forks, are
// then read from it, not from the thread.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "ir/dhlo/IR/DhloDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_EXECUTIONCONTEXT
#include "codegen/Common/Passes.h.inc"

namespace {

/// The context's team size (an i64 at offset 0), loaded at `b`.
Value loadTeamSize(OpBuilder &b, Location loc, Value context) {
  return b.create<LLVM::LoadOp>(loc, b.getI64Type(), context);
}

struct ExecutionContextPass : impl::ExecutionContextBase<ExecutionContextPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *mlirContext = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(mlirContext);
    // @main (the entry's), the kernels, and any other function that
    // launches or calls kernels (a module not from the importer may have
    // several).
    // One table: a lookup on the module op itself scans its body.
    SymbolTable symbols(module);
    auto isKernel = [&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      return callee && callee->hasAttr(kKernelAttr);
    };
    SmallVector<func::FuncOp> takers;
    for (auto func : module.getOps<func::FuncOp>()) {
      bool launches = false;
      func.walk([&](func::CallOp call) { launches |= isKernel(call); });
      func.walk([&](dhlo::LaunchOp) { launches = true; });
      if (!func.isExternal() && (func.getSymName() == "main" || launches ||
                                 func->hasAttr(kKernelAttr)))
        takers.push_back(func);
    }
    for (func::FuncOp func : takers) {
      func.insertArgument(0, pointer, {}, func.getLoc());
      func->setAttr(kExecutionContextAttr, UnitAttr::get(mlirContext));
    }
    for (func::FuncOp func : takers) {
      Value context = func.getArgument(0);
      func.walk(
          [&](dhlo::LaunchOp launch) { launch->insertOperands(0, context); });
      func.walk([&](func::CallOp call) {
        if (isKernel(call)) {
          call->insertOperands(0, context);
        } else if (takesContextLast(call.getCallee())) {
          call->insertOperands(call->getNumOperands(), context);
        } else if (call.getCallee() == kTeamSizeFunction) {
          OpBuilder b(call);
          call.getResult(0).replaceAllUsesWith(
              loadTeamSize(b, call.getLoc(), context));
          call.erase();
        }
      });
      func.walk([&](omp::ParallelOp parallel) {
        if (parallel.getNumThreadsVar())
          return;
        OpBuilder b(parallel);
        Value team = b.create<LLVM::TruncOp>(
            parallel.getLoc(), b.getI32Type(),
            loadTeamSize(b, parallel.getLoc(), context));
        parallel.getNumThreadsVarMutable().assign(team);
      });
    }
    // The GEMM runs on the run's team too (runtime/Gemm.h); an index check
    // records a failure in the context (runtime/IndexChecks.h); nonzero
    // and scatter read the CUDA run's stream from it (runtime/NonZero.h,
    // runtime/Scatter.h).
    for (auto callee : module.getOps<func::FuncOp>())
      if (callee.isExternal() && takesContextLast(callee.getSymName())) {
        FunctionType type = callee.getFunctionType();
        SmallVector<Type> inputs(type.getInputs());
        inputs.push_back(pointer);
        callee.setFunctionType(
            FunctionType::get(mlirContext, inputs, type.getResults()));
      }
    if (auto teamSize = symbols.lookup<func::FuncOp>(kTeamSizeFunction))
      if (SymbolTable::symbolKnownUseEmpty(teamSize, module))
        teamSize.erase();
  }
};

} // namespace
} // namespace anyshape::codegen
