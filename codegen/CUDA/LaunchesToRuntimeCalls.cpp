//===- LaunchesToRuntimeCalls.cpp - gpu.launch_func to the runtime -*- C++
//-*-===//
//
// anyshape-launches-to-runtime-calls (see Passes.td). The launch ABI of a
// CUDA executable: the host flow calls
//
//   anyshapeCudaLaunch(context, kernel, gridX, gridY, gridZ,
//                      blockX, blockY, blockZ, sharedBytes, slots, count)
//
// (runtime/cuda/CudaLaunch.h) where `kernel` indexes the executable's
// kernel images (the order of the gpu.binary ops, recorded on the module
// as kCudaKernelsAttr) and `slots` is an array of `count` 8-byte words,
// one per kernel parameter in the order the NVVM lowering gives the
// kernel's: a memref is its descriptor's fields (allocated and aligned
// pointer, offset, sizes, strides), a scalar its bits in the low bytes of
// its word (little-endian, which CUDA's kernelParams read through a
// pointer to each word). The allocated pointer is passed as the aligned
// one: no kernel frees a buffer, and memref ops give no other.
//
//===----------------------------------------------------------------------===//
#include "codegen/CUDA/Passes.h"

#include "codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace anyshape::codegen {

#define GEN_PASS_DEF_LAUNCHESTORUNTIMECALLS
#include "codegen/CUDA/Passes.h.inc"

namespace {

/// The words a kernel operand takes, built at `b` (empty: not a type the
/// launch ABI passes).
SmallVector<Value> wordsOf(OpBuilder &b, Location loc, Value operand) {
  Type i64 = b.getI64Type();
  auto word = [&](Value index) -> Value {
    return b.create<arith::IndexCastOp>(loc, i64, index);
  };
  Type type = operand.getType();
  if (auto memref = llvm::dyn_cast<MemRefType>(type)) {
    auto metadata = b.create<memref::ExtractStridedMetadataOp>(loc, operand);
    Value aligned =
        word(b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, operand));
    SmallVector<Value> words{aligned, aligned, word(metadata.getOffset())};
    for (Value size : metadata.getSizes())
      words.push_back(word(size));
    for (Value stride : metadata.getStrides())
      words.push_back(word(stride));
    return words;
  }
  if (type.isIndex())
    return {word(operand)};
  if (auto integer = llvm::dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() == 64)
      return {operand};
    if (integer.getWidth() < 64)
      return {b.create<arith::ExtUIOp>(loc, i64, operand)};
    return {};
  }
  if (auto real = llvm::dyn_cast<FloatType>(type)) {
    Type bits = b.getIntegerType(real.getWidth());
    Value raw = b.create<arith::BitcastOp>(loc, bits, operand);
    if (real.getWidth() == 64)
      return {raw};
    return {b.create<arith::ExtUIOp>(loc, i64, raw)};
  }
  return {};
}

struct LaunchesToRuntimeCallsPass
    : impl::LaunchesToRuntimeCallsBase<LaunchesToRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    Builder builder(context);

    // The kernel images, numbered in module order, each with the
    // signature anyshape-record-kernel-signatures wrote down.
    auto signatures =
        module->getAttrOfType<DictionaryAttr>(kCudaKernelSignaturesAttr);
    module->removeAttr(kCudaKernelSignaturesAttr);
    SmallVector<Attribute> images;
    llvm::StringMap<int64_t> indexOf;
    SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
    for (gpu::BinaryOp binary : binaries) {
      auto signature = signatures
                           ? signatures.getAs<DictionaryAttr>(binary.getName())
                           : nullptr;
      if (binary.getObjects().size() != 1 || !signature) {
        binary.emitError("a kernel image needs exactly one object and a "
                         "recorded signature");
        return signalPassFailure();
      }
      auto object = llvm::cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      indexOf[binary.getName()] = static_cast<int64_t>(images.size());
      SmallVector<NamedAttribute> fields{
          builder.getNamedAttr("name", binary.getNameAttr()),
          builder.getNamedAttr("object", object.getObject())};
      fields.append(signature.begin(), signature.end());
      images.push_back(builder.getDictionaryAttr(fields));
    }

    auto pointer = LLVM::LLVMPointerType::get(context);
    Type i64 = builder.getI64Type();
    SmallVector<Type> parameters{pointer};
    parameters.append(8, i64); // kernel, grid, block, shared bytes
    parameters.push_back(pointer);
    parameters.push_back(i64);
    auto launchType = builder.getFunctionType(parameters, {});

    // GEMMs run on the device too, through the runtime's cuBLASLt call;
    // index checks read the device's indices (same C interfaces as the
    // CPU's); nonzero, scatter, argsort and cumulative read the device's
    // operands and write the device's result.
    std::vector<std::pair<std::string, std::string>> renames = {
        {abi::kBatchMatmulF32, abi::kCudaBatchMatmulF32},
        {abi::kCheckIndicesI32, abi::kCudaCheckIndicesI32},
        {abi::kCheckIndicesI64, abi::kCudaCheckIndicesI64}};
    for (const char *suffix : abi::kElementSuffixes) {
      renames.emplace_back(std::string(abi::kCountNonZero) + suffix,
                           std::string(abi::kCudaCountNonZero) + suffix);
      renames.emplace_back(std::string(abi::kNonZeroIndices) + suffix,
                           std::string(abi::kCudaNonZeroIndices) + suffix);
      renames.emplace_back(std::string(abi::kArgsort) + suffix,
                           std::string(abi::kCudaArgsort) + suffix);
      renames.emplace_back(std::string(abi::kCumulative) + suffix,
                           std::string(abi::kCudaCumulative) + suffix);
      for (const char *index : abi::kIndexSuffixes)
        renames.emplace_back(std::string(abi::kScatter) + suffix + index,
                             std::string(abi::kCudaScatter) + suffix + index);
    }
    for (const auto &[cpu, cuda] : renames)
      if (auto callee = module.lookupSymbol<func::FuncOp>(cpu)) {
        if (failed(SymbolTable::replaceAllSymbolUses(
                callee, builder.getStringAttr(cuda), module)))
          return signalPassFailure();
        callee.setSymName(cuda);
      }

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    bool failedAny = false;
    for (gpu::LaunchFuncOp launch : launches) {
      auto func = launch->getParentOfType<func::FuncOp>();
      auto index = indexOf.find(launch.getKernelModuleName().getValue());
      if (!func || !func->hasAttr(kExecutionContextAttr) ||
          index == indexOf.end() || launch.getAsyncToken()) {
        launch.emitError("a launch needs the execution context and a "
                         "kernel image, and runs on the context's stream");
        failedAny = true;
        continue;
      }
      Location loc = launch.getLoc();
      OpBuilder b(launch);
      SmallVector<Value> words;
      for (Value operand : launch.getKernelOperands()) {
        SmallVector<Value> some = wordsOf(b, loc, operand);
        if (some.empty()) {
          launch.emitError("kernel operand of type ")
              << operand.getType() << " has no launch ABI";
          failedAny = true;
        }
        words.append(some);
      }
      // The slots live in the launcher's frame: one array per launch
      // site, allocated once at its entry (never in a loop).
      OpBuilder entry(&func.front(), func.front().begin());
      auto slotsType =
          MemRefType::get({static_cast<int64_t>(words.size())}, i64);
      Value slots = entry.create<memref::AllocaOp>(loc, slotsType);
      for (auto [k, word] : llvm::enumerate(words))
        b.create<memref::StoreOp>(
            loc, word, slots,
            ValueRange{b.create<arith::ConstantIndexOp>(loc, k)});
      Value address = b.create<arith::IndexCastOp>(
          loc, i64,
          b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, slots));
      Value slotsPointer = b.create<LLVM::IntToPtrOp>(loc, pointer, address);

      auto constant = [&](int64_t value) -> Value {
        return b.create<arith::ConstantIntOp>(loc, value, 64);
      };
      auto word = [&](Value index) -> Value {
        return b.create<arith::IndexCastOp>(loc, i64, index);
      };
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value shared = launch.getDynamicSharedMemorySize()
                         ? b.create<arith::ExtUIOp>(
                                loc, i64, launch.getDynamicSharedMemorySize())
                               .getResult()
                         : constant(0);
      SmallVector<Value> arguments{
          func.getArgument(0),
          constant(index->second),
          word(grid.x),
          word(grid.y),
          word(grid.z),
          word(block.x),
          word(block.y),
          word(block.z),
          shared,
          slotsPointer,
          constant(static_cast<int64_t>(words.size()))};
      b.create<func::CallOp>(loc, abi::kCudaLaunch, TypeRange{}, arguments);
      launch.erase();
    }
    if (failedAny)
      return signalPassFailure();

    if (!launches.empty() || !binaries.empty()) {
      OpBuilder b(module.getBodyRegion());
      auto declaration =
          b.create<func::FuncOp>(module.getLoc(), abi::kCudaLaunch, launchType);
      declaration.setPrivate();
    }
    for (gpu::BinaryOp binary : binaries)
      binary.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    module->setAttr(kCudaKernelsAttr, builder.getArrayAttr(images));
  }
};

} // namespace
} // namespace anyshape::codegen
