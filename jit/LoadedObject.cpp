//===- LoadedObject.cpp - LLJIT with absolute runtime symbols ----*- C++
//-*-===//
//
// The symbols an object may import: the runtime (bound here by address,
// never resolved by name at run time) and libc/libm (resolved once at
// link time from this process). Loading validates the object as far as
// the linker does; a truncated or garbled object is an error, not a crash
// — the compile cache verifies checksums before it gets here anyway.
//
//===----------------------------------------------------------------------===//
#include "jit/LoadedObject.h"
#include "jit/ObjectBundle.h"

#include "jit/HostTarget.h"
#include "jit/PerfMap.h"

#include "ir/graph/ConstantData.h"
#include "runtime/Abi.h"
#include "runtime/Allocator.h"
#include "runtime/Argsort.h"
#include "runtime/Bfloat16.h"
#include "runtime/Convolution.h"
#include "runtime/Cumulative.h"
#include "runtime/ExecutionContext.h"
#include "runtime/Gemm.h"
#include "runtime/IndexChecks.h"
#include "runtime/MemrefCopy.h"
#include "runtime/NonZero.h"
#include "runtime/OpenMpAbi.h"
#include "runtime/PackedGemm.h"
#include "runtime/Scatter.h"
#include "runtime/SizeChecks.h"
#include "runtime/Threading.h"
#include "runtime/cuda/CudaLaunch.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"

namespace anyshape::jit {
namespace {

/// abi::kFillSeededUniform's C ABI over the evaluator's generator.
void fillSeededUniformAt(int64_t address, int64_t count, int32_t dtype,
                         uint64_t seed, double low, double high) {
  fillSeededUniform(seed, low, high, static_cast<v1::DType>(dtype), count,
                    reinterpret_cast<char *>(address));
}

/// abi::kFillSeededUniformTransposed's.
void fillSeededUniformTransposedAt(int64_t address, int64_t rows, int64_t cols,
                                   int32_t dtype, uint64_t seed, double low,
                                   double high) {
  fillSeededUniformTransposed(seed, low, high, static_cast<v1::DType>(dtype),
                              rows, cols, reinterpret_cast<char *>(address));
}

llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner &mangle) {
  auto bind = [](auto *function) {
    return llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(function),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  llvm::orc::SymbolMap symbols;
  symbols[mangle("memrefCopy")] = bind(&runtime::anyshapeMemrefCopy);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kBatchMatmulF32)] =
      bind(&runtime::anyshapeBatchMatmulF32);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kBatchMatmulPackedF32)] =
      bind(&runtime::anyshapeBatchMatmulPackedF32);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kConvolutionF32)] =
      bind(&runtime::anyshapeConvolutionF32);
  // Index checks (runtime/IndexChecks.h), on the host and on the device.
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCheckIndicesI32)] =
      bind(&runtime::anyshapeCheckIndicesI32);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCheckIndicesI64)] =
      bind(&runtime::anyshapeCheckIndicesI64);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCudaCheckIndicesI32)] =
      bind(&runtime::cuda::anyshapeCudaCheckIndicesI32);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCudaCheckIndicesI64)] =
      bind(&runtime::cuda::anyshapeCudaCheckIndicesI64);
  // Rules on a nonzero's count (runtime/SizeChecks.h).
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCheckSizes)] =
      bind(&runtime::anyshapeCheckSizes);
  // nonzero (runtime/NonZero.h), one declaration per element type.
  for (const char *suffix : abi::kElementSuffixes) {
    std::string ciface = "_mlir_ciface_";
    symbols[mangle(ciface + abi::kCountNonZero + suffix)] =
        bind(&runtime::anyshapeCountNonZero);
    symbols[mangle(ciface + abi::kNonZeroIndices + suffix)] =
        bind(&runtime::anyshapeNonZeroIndices);
    symbols[mangle(ciface + abi::kCudaCountNonZero + suffix)] =
        bind(&runtime::cuda::anyshapeCudaCountNonZero);
    symbols[mangle(ciface + abi::kCudaNonZeroIndices + suffix)] =
        bind(&runtime::cuda::anyshapeCudaNonZeroIndices);
    // argsort and cumulative (runtime/Argsort.h, runtime/Cumulative.h),
    // one per element type.
    symbols[mangle(ciface + abi::kArgsort + suffix)] =
        bind(&runtime::anyshapeArgsort);
    symbols[mangle(ciface + abi::kCudaArgsort + suffix)] =
        bind(&runtime::cuda::anyshapeCudaArgsort);
    symbols[mangle(ciface + abi::kCumulative + suffix)] =
        bind(&runtime::anyshapeCumulative);
    symbols[mangle(ciface + abi::kCudaCumulative + suffix)] =
        bind(&runtime::cuda::anyshapeCudaCumulative);
    // scatter (runtime/Scatter.h), one per element and index type.
    for (const char *index : abi::kIndexSuffixes) {
      symbols[mangle(ciface + abi::kScatter + suffix + index)] =
          bind(&runtime::anyshapeScatter);
      symbols[mangle(ciface + abi::kCudaScatter + suffix + index)] =
          bind(&runtime::cuda::anyshapeCudaScatter);
    }
  }
  symbols[mangle(abi::kReleaseConvolutionWeights)] =
      bind(&runtime::anyshapeReleaseConvolutionWeights);
  symbols[mangle(abi::kReleaseGemmPack)] =
      bind(&runtime::anyshapeReleaseGemmPack);
  // The execution context's allocator (ExecutionContext.h), and MLIR's
  // generic allocation functions for code that has no context (the shape
  // checks, the initializer).
  symbols[mangle(abi::kContextAlloc)] = bind(&runtime::anyshapeContextAlloc);
  symbols[mangle(abi::kContextFree)] = bind(&runtime::anyshapeContextFree);
  symbols[mangle("_mlir_memref_to_llvm_alloc")] = bind(&runtime::anyshapeAlloc);
  symbols[mangle("_mlir_memref_to_llvm_aligned_alloc")] =
      bind(&runtime::anyshapeAlignedAlloc);
  symbols[mangle("_mlir_memref_to_llvm_free")] = bind(&runtime::anyshapeFree);
  // The libomp ABI of MLIR's OpenMP lowering, served by libgomp.
  symbols[mangle("__kmpc_fork_call")] = bind(&runtime::anyshapeKmpcForkCall);
  symbols[mangle("__kmpc_global_thread_num")] =
      bind(&runtime::anyshapeKmpcGlobalThreadNum);
  symbols[mangle("__kmpc_for_static_init_8u")] =
      bind(&runtime::anyshapeKmpcForStaticInit8u);
  symbols[mangle("__kmpc_for_static_fini")] =
      bind(&runtime::anyshapeKmpcForStaticFini);
  symbols[mangle("__kmpc_barrier")] = bind(&runtime::anyshapeKmpcBarrier);
  symbols[mangle("__kmpc_push_num_threads")] =
      bind(&runtime::anyshapeKmpcPushNumThreads);
  symbols[mangle(abi::kFillSeededUniform)] = bind(&fillSeededUniformAt);
  symbols[mangle(abi::kFillSeededUniformTransposed)] =
      bind(&fillSeededUniformTransposedAt);
  // LLVM's f32 -> bf16 libcall where the host has no instruction for it.
  symbols[mangle("__truncsfbf2")] = bind(&runtime::anyshapeTruncF32ToBf16);
  // A CUDA executable's launches (codegen/CUDA/LaunchesToRuntimeCalls.cpp).
  symbols[mangle(abi::kCudaLaunch)] = bind(&runtime::cuda::anyshapeCudaLaunch);
  symbols[mangle(abi::kCudaCopy)] = bind(&runtime::cuda::anyshapeCudaCopy);
  symbols[mangle(abi::kCudaUpload)] = bind(&runtime::cuda::anyshapeCudaUpload);
  symbols[mangle(abi::kCudaConstant)] =
      bind(&runtime::cuda::anyshapeCudaConstant);
  symbols[mangle(std::string("_mlir_ciface_") + abi::kCudaBatchMatmulF32)] =
      bind(&runtime::cuda::anyshapeCudaBatchMatmulF32);
  return symbols;
}

} // namespace

LoadedObject::LoadedObject(std::unique_ptr<llvm::orc::LLJIT> jit)
    : jit_(std::move(jit)) {}

LoadedObject::~LoadedObject() {
  // The executable that owns this object is gone, so no run is left.
  if (finalize_)
    finalize_();
}

StatusOr<std::unique_ptr<LoadedObject>>
LoadedObject::load(std::string_view object) {
  initialiseNativeTarget();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return internalError("cannot create the JIT: " +
                         llvm::toString(jit.takeError()));
  addPerfMapIfRequested(**jit);
  llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return internalError(llvm::toString(process.takeError()));
  dylib.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  if (llvm::Error error =
          dylib.define(llvm::orc::absoluteSymbols(runtimeSymbols(mangle))))
    return internalError(llvm::toString(std::move(error)));
  // A module emitted in parts is several objects: one JITDylib links them
  // to each other (their shared symbols are hidden, not exported).
  ANYSHAPE_ASSIGN_OR_RETURN(std::vector<std::string_view> objects,
                            objectsIn(object));
  for (std::string_view part : objects)
    if (llvm::Error error = (*jit)->addObjectFile(
            dylib, llvm::MemoryBuffer::getMemBufferCopy(
                       llvm::StringRef(part.data(), part.size()))))
      return invalidArgument("cannot load object code: " +
                             llvm::toString(std::move(error)));
  // Links now, so no run pays for it and a bad object fails here.
  auto entry = (*jit)->lookup(abi::kEntrySymbol);
  if (!entry)
    return invalidArgument("cannot link object code: " +
                           llvm::toString(entry.takeError()));
  auto initialize = (*jit)->lookup(abi::kInitializeSymbol);
  if (!initialize)
    return invalidArgument("cannot link object code: " +
                           llvm::toString(initialize.takeError()));
  // Load-time constants, before anything can run.
  initialize->toPtr<void (*)()>()();
  std::unique_ptr<LoadedObject> loaded(new LoadedObject(std::move(*jit)));
  loaded->entry_ = entry->toPtr<EntryFunction>();
  // Optional: only an object holding something to free defines it.
  if (auto finalize = loaded->jit_->lookup(abi::kFinalizeSymbol))
    loaded->finalize_ = finalize->toPtr<void (*)()>();
  else
    llvm::consumeError(finalize.takeError());
  return loaded;
}

void *LoadedObject::lookup(const std::string &name) const {
  auto symbol = jit_->lookup(name);
  if (!symbol) {
    llvm::consumeError(symbol.takeError());
    return nullptr;
  }
  return symbol->toPtr<void *>();
}

} // namespace anyshape::jit
