//===- EmulatedKernels.cpp - each outlined kernel, for the CPU ---*- C++
//-*-===//
//
// anyshape-emulated-kernels (see Passes.td): for the tests' fake driver,
// which runs a launch by calling a CPU version of its kernel with the
// launch's own parameters. Each gpu.module's kernel K gets a host
// function @<module>_emulation(K's arguments..., grid x/y/z, block
// x/y/z) whose body is one gpu.launch of K's body on that grid;
// anyshape-emulate-gpu-launches then makes it loops, and
// anyshape-pack-emulated-kernels gives it CUDA's kernelParams interface.
// K's arguments lower to the same words on both sides (memref
// descriptors expanded, index as i64), so the host flow's launch words
// are the emulation's arguments.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_EMULATEDKERNELS
#include "codegen/CUDA/Passes.h.inc"

namespace {

LogicalResult emulationOf(ModuleOp module, gpu::GPUModuleOp kernels,
                          gpu::GPUFuncOp kernel) {
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError("a multi-block kernel: not emulated");
  MLIRContext *context = module.getContext();
  Location loc = kernel.getLoc();
  Type index = IndexType::get(context);
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.append(6, index); // grid x, y, z; block x, y, z
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto func =
      b.create<func::FuncOp>(loc, (kernels.getName() + kEmulationSuffix).str(),
                             FunctionType::get(context, inputs, {}));
  func->setAttr(kEmulatedKernelAttr, b.getStringAttr(kernels.getName()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned count = kernel.getNumArguments();
  auto arg = [&](unsigned k) { return entry->getArgument(count + k); };
  auto launch = b.create<gpu::LaunchOp>(loc, arg(0), arg(1), arg(2), arg(3),
                                        arg(4), arg(5));
  IRMapping map;
  for (unsigned k = 0; k < count; ++k)
    map.map(kernel.getArgument(k), entry->getArgument(k));
  for (BlockArgument shared : kernel.getWorkgroupAttributions())
    map.map(shared, launch.addWorkgroupAttribution(shared.getType(), loc));
  for (BlockArgument local : kernel.getPrivateAttributions())
    map.map(local, launch.addPrivateAttribution(local.getType(), loc));
  OpBuilder body = OpBuilder::atBlockEnd(&launch.getBody().front());
  for (Operation &op : kernel.getBody().front()) {
    if (llvm::isa<gpu::ReturnOp>(op)) {
      body.create<gpu::TerminatorOp>(loc);
      continue;
    }
    body.clone(op, map);
  }
  b.setInsertionPointToEnd(entry);
  b.create<func::ReturnOp>(loc);
  return success();
}

struct EmulatedKernelsPass : impl::EmulatedKernelsBase<EmulatedKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp kernels : kernelModules)
      for (auto kernel : kernels.getOps<gpu::GPUFuncOp>())
        if (kernel.isKernel() && failed(emulationOf(module, kernels, kernel)))
          return signalPassFailure();
  }
};

} // namespace
} // namespace anyshape::codegen
