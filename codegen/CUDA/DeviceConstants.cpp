//===- DeviceConstants.cpp - constants the kernels read, on the device -*-
// C++ -*-===//
//
// anyshape-device-constants (see Passes.td). A graph's dense constants and
// load-time weights are host globals (filled by @anyshape_initialize at
// load), which a kernel cannot read. In the host flow, every address of a
// global becomes the address of its device copy, asked of the runtime:
//
//   anyshapeCudaConstant(context, index, hostAddress, bytes) -> device ptr
//
// The runtime uploads a constant the first time a run asks for it and
// keeps it for the executable's life (runtime/cuda/CudaLaunch.h); the
// count is recorded on the module (kCudaConstantsAttr) so the table is
// sized at load. The pass also marks the object as a CUDA host flow
// (abi::kCudaExecutableMarker), which the loader checks.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_DEVICECONSTANTS
#include "codegen/CUDA/Passes.h.inc"

namespace {

struct DeviceConstantsPass : impl::DeviceConstantsBase<DeviceConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    SymbolTable symbols(module);
    DataLayout layout(module);
    llvm::StringMap<int64_t> indexOf;
    LLVM::LLVMFuncOp fetch;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr(kExecutionContextAttr) || func.isExternal())
        continue;
      Value runContext = func.getArgument(0);
      SmallVector<LLVM::AddressOfOp> addresses;
      func.walk([&](LLVM::AddressOfOp op) { addresses.push_back(op); });
      for (LLVM::AddressOfOp address : addresses) {
        auto global = symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
        if (!global)
          continue; // a function's address
        auto [it, inserted] = indexOf.try_emplace(
            global.getSymName(), static_cast<int64_t>(indexOf.size()));
        int64_t bytes =
            static_cast<int64_t>(layout.getTypeSize(global.getGlobalType()));
        if (!fetch) {
          OpBuilder top(module.getBodyRegion());
          fetch = top.create<LLVM::LLVMFuncOp>(
              module.getLoc(), abi::kCudaConstant,
              LLVM::LLVMFunctionType::get(pointer,
                                          {pointer, i64, pointer, i64}));
        }
        OpBuilder b(context);
        b.setInsertionPointAfter(address);
        Location loc = address.getLoc();
        Value index = b.create<LLVM::ConstantOp>(loc, i64, it->second);
        Value size = b.create<LLVM::ConstantOp>(loc, i64, bytes);
        auto call = b.create<LLVM::CallOp>(
            loc, fetch,
            ValueRange{runContext, index, address.getResult(), size});
        address.getResult().replaceAllUsesExcept(call.getResult(), call);
      }
    }
    OpBuilder top(module.getBodyRegion());
    top.create<LLVM::GlobalOp>(module.getLoc(), top.getI8Type(),
                               /*isConstant=*/true, LLVM::Linkage::External,
                               abi::kCudaExecutableMarker,
                               top.getI8IntegerAttr(1));
    module->setAttr(
        kCudaConstantsAttr,
        IntegerAttr::get(i64, static_cast<int64_t>(indexOf.size())));
  }
};

} // namespace
} // namespace anyshape::codegen
