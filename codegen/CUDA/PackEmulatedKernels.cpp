//===- PackEmulatedKernels.cpp - CUDA's kernelParams for the CPU -*- C++
//-*-===//
//
// anyshape-pack-emulated-kernels (see Passes.td): each emulated kernel
// (anyshape-emulated-kernels), now an llvm.func of scalar parameters,
// gets a wrapper @<module>_emulated(ptr parameters) that loads parameter
// i from the pointer at parameters[i] and calls it: CUDA's kernelParams
// convention, which is how the fake driver passes a launch's words
// (followed by pointers to the grid and block sizes).
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_PACKEMULATEDKERNELS
#include "codegen/CUDA/Passes.h.inc"

namespace {

struct PackEmulatedKernelsPass
    : impl::PackEmulatedKernelsBase<PackEmulatedKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto voidType = LLVM::LLVMVoidType::get(context);
    SmallVector<LLVM::LLVMFuncOp> emulations;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(kEmulatedKernelAttr))
        emulations.push_back(func);
    for (LLVM::LLVMFuncOp emulation : emulations) {
      auto name = emulation->getAttrOfType<StringAttr>(kEmulatedKernelAttr);
      Location loc = emulation.getLoc();
      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointToEnd(module.getBody());
      auto wrapper = b.create<LLVM::LLVMFuncOp>(
          loc, (name.getValue() + abi::kEmulatedKernelSuffix).str(),
          LLVM::LLVMFunctionType::get(voidType, {pointer}));
      Block *entry = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      Value parameters = entry->getArgument(0);
      SmallVector<Value> arguments;
      for (auto [k, type] :
           llvm::enumerate(emulation.getFunctionType().getParams())) {
        Value slot = b.create<LLVM::GEPOp>(
            loc, pointer, pointer, parameters,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
        Value address = b.create<LLVM::LoadOp>(loc, pointer, slot);
        arguments.push_back(b.create<LLVM::LoadOp>(loc, type, address));
      }
      b.create<LLVM::CallOp>(loc, emulation, arguments);
      b.create<LLVM::ReturnOp>(loc, ValueRange{});
    }
  }
};

} // namespace
} // namespace anyshape::codegen
