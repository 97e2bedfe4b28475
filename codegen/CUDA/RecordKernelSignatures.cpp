//===- RecordKernelSignatures.cpp - each kernel's launch facts --*- C++ -*-===//
//
// anyshape-record-kernel-signatures (see Passes.td). Once a kernel is in
// the LLVM dialect, its entry name, the block size its launches use and
// the bytes of each parameter are facts of the IR; this pass writes them
// down before gpu-module-to-binary turns the module into PTX, so that no
// later stage reads them back out of the PTX's text. The runtime checks
// each launch against them (runtime/cuda/CudaLaunch.h).
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_RECORDKERNELSIGNATURES
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// The bytes a kernel parameter of `type` takes in CUDA's kernelParams:
/// a pointer or an index 8, a scalar its own width rounded up to bytes;
/// 0 for a type no launch passes.
int parameterBytes(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 8;
  if (type.isIntOrFloat())
    return static_cast<int>((type.getIntOrFloatBitWidth() + 7) / 8);
  return 0;
}

struct RecordKernelSignaturesPass
    : impl::RecordKernelSignaturesBase<RecordKernelSignaturesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    SmallVector<NamedAttribute> signatures;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      SmallVector<LLVM::LLVMFuncOp> entries;
      for (auto func : kernels.getOps<LLVM::LLVMFuncOp>())
        if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          entries.push_back(func);
      if (entries.size() != 1) {
        kernels.emitError("a kernel module needs exactly one NVVM kernel, "
                          "has ")
            << entries.size();
        return signalPassFailure();
      }
      LLVM::LLVMFuncOp entry = entries.front();
      // The launch's block, as the kernel states it (`.maxntid`): every
      // launch of it uses these sizes (MapKernelsToGpu.cpp).
      auto block = entry->getAttrOfType<DenseI32ArrayAttr>(
          NVVM::NVVMDialect::getMaxntidAttrName());
      if (!block || block.empty()) {
        entry.emitError("a kernel without a known block size");
        return signalPassFailure();
      }
      int64_t threads = 1;
      for (int32_t size : block.asArrayRef())
        threads *= size;
      SmallVector<int32_t> bytes;
      for (Type type : entry.getFunctionType().getParams()) {
        bytes.push_back(parameterBytes(type));
        if (bytes.back() == 0) {
          entry.emitError("a kernel parameter of type ")
              << type << " has no launch ABI";
          return signalPassFailure();
        }
      }
      signatures.push_back(b.getNamedAttr(
          kernels.getName(),
          b.getDictionaryAttr(
              {b.getNamedAttr("entry", b.getStringAttr(entry.getName())),
               b.getNamedAttr("block_size", b.getI64IntegerAttr(threads)),
               b.getNamedAttr("parameter_bytes",
                              b.getDenseI32ArrayAttr(bytes))})));
    }
    module->setAttr(kCudaKernelSignaturesAttr, b.getDictionaryAttr(signatures));
  }
};

} // namespace
} // namespace anyshape::codegen
