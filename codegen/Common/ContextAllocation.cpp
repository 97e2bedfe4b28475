//===- ContextAllocation.cpp - buffers from the context ----------*- C++
//-*-===//
//
// anyshape-context-allocation (see Passes.td). The memref lowering calls
// MLIR's generic allocation functions, which take no context; in a
// function that has the execution context (anyshape-execution-context),
// each such call becomes a call of the context's allocator
// (runtime/ExecutionContext.h), so buffers come from the run's allocator.
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_CONTEXTALLOCATION
#include "codegen/Common/Passes.h.inc"

namespace {

LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  return b.create<LLVM::LLVMFuncOp>(module.getLoc(), name, type);
}

struct ContextAllocationPass
    : impl::ContextAllocationBase<ContextAllocationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto voidType = LLVM::LLVMVoidType::get(context);
    LLVM::LLVMFuncOp alloc, free;
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      auto func = call->getParentOfType<LLVM::LLVMFuncOp>();
      std::optional<StringRef> callee = call.getCallee();
      if (func && func->hasAttr(kExecutionContextAttr) && callee &&
          (*callee == "_mlir_memref_to_llvm_alloc" ||
           *callee == "_mlir_memref_to_llvm_aligned_alloc" ||
           *callee == "_mlir_memref_to_llvm_free"))
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      auto func = call->getParentOfType<LLVM::LLVMFuncOp>();
      Value executionContext = func.getArgument(0);
      OpBuilder b(call);
      Location loc = call.getLoc();
      StringRef callee = *call.getCallee();
      if (callee == "_mlir_memref_to_llvm_free") {
        if (!free)
          free = declare(
              module, abi::kContextFree,
              LLVM::LLVMFunctionType::get(voidType, {pointer, pointer}));
        b.create<LLVM::CallOp>(
            loc, free, ValueRange{executionContext, call.getOperand(0)});
        call.erase();
        continue;
      }
      if (!alloc)
        alloc =
            declare(module, abi::kContextAlloc,
                    LLVM::LLVMFunctionType::get(pointer, {pointer, i64, i64}));
      // Plain allocations are 64-byte aligned too (Allocator.h).
      Value alignment =
          callee == "_mlir_memref_to_llvm_alloc"
              ? b.create<LLVM::ConstantOp>(loc, i64, 64).getResult()
              : call.getOperand(0);
      Value size = call.getOperands().back();
      auto replacement = b.create<LLVM::CallOp>(
          loc, alloc, ValueRange{executionContext, alignment, size});
      call.getResult().replaceAllUsesWith(replacement.getResult());
      call.erase();
    }
  }
};

} // namespace
} // namespace anyshape::codegen
