//===- ObjectCode.cpp - translate, wrap, optimise, emit ----------*- C++
//-*-===//
//
// Every function but the entry and the initializer (and a fake CUDA
// driver's emulated kernels) becomes internal, so
// LLVM may inline the C-interface wrapper and @main into the entry and drop
// unused code; the object exports those two functions and the globals of
// its load-time constants. Optimisation uses the host target machine,
// whose cost model lets the loop vectoriser use the widest vectors it has.
//
//===----------------------------------------------------------------------===//
#include "compiler/ObjectCode.h"
#include "compiler/LlvmPipeline.h"
#include "compiler/ParallelCodegen.h"
#include "jit/ObjectBundle.h"

#include "codegen/CPU/CpuTarget.h"
#include "codegen/CPU/LoopHints.h"
#include "codegen/CUDA/Passes.h"
#include "codegen/Common/Passes.h"
#include "codegen/Common/ShapeCheckFunction.h"
#include "compiler/SplitLongBlocks.h"
#include "ir/dhlo/Analysis/FusionPlan.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <atomic>
#include <mutex>

namespace anyshape::compiler {

namespace {

/// Adds `int64_t anyshape_entry(void *context, void **args)`: calls the C
/// interface of the shape checks (ShapeCheckFunction.h) with the input
/// descriptors and returns its code if one failed; otherwise calls
/// @main's, whose parameters are the result pointer, the context and the
/// inputs, and returns 0.
Status addEntry(llvm::Module &module) {
  llvm::Function *run = module.getFunction("_mlir_ciface_main");
  llvm::Function *check = module.getFunction(std::string("_mlir_ciface_") +
                                             codegen::kShapeCheckFunction);
  if (!run || !check)
    return internalError("the module lacks the C interface of @main or of "
                         "the shape checks");
  if (check->arg_size() + 2 != run->arg_size())
    return internalError("the shape checks and @main take different inputs");
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *i64 = llvm::Type::getInt64Ty(context);
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(i64, {pointer, pointer}, false),
      llvm::GlobalValue::ExternalLinkage, abi::kEntrySymbol, module);
  auto *start = llvm::BasicBlock::Create(context, "check", entry);
  auto *pass = llvm::BasicBlock::Create(context, "run", entry);
  auto *fail = llvm::BasicBlock::Create(context, "fail", entry);
  llvm::IRBuilder<> b(start);
  // args[0] points to the result pointer, args[1 + k] to input k's.
  auto slot = [&](unsigned index, llvm::Type *type) {
    llvm::Value *at = b.CreateLoad(
        pointer, b.CreateConstGEP1_64(pointer, entry->getArg(1), index));
    return b.CreateLoad(type, at);
  };
  std::vector<llvm::Value *> inputs;
  for (llvm::Argument &param : check->args())
    inputs.push_back(slot(1 + param.getArgNo(), param.getType()));
  std::vector<llvm::Value *> args{slot(0, run->getArg(0)->getType()),
                                  entry->getArg(0)};
  args.insert(args.end(), inputs.begin(), inputs.end());
  llvm::Value *code = b.CreateCall(check, inputs);
  b.CreateCondBr(b.CreateICmpEQ(code, llvm::ConstantInt::get(i64, 0)), pass,
                 fail);
  b.SetInsertPoint(pass);
  b.CreateCall(run, args);
  b.CreateRet(llvm::ConstantInt::get(i64, 0));
  b.SetInsertPoint(fail);
  b.CreateRet(code);
  // The loader's other entry (Passes.h); a module without load-time
  // constants may not define it.
  llvm::Function *initialize = module.getFunction(abi::kInitializeSymbol);
  if (!initialize) {
    initialize = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
        llvm::GlobalValue::ExternalLinkage, abi::kInitializeSymbol, module);
    llvm::IRBuilder<>(llvm::BasicBlock::Create(context, "entry", initialize))
        .CreateRetVoid();
  }
  // Emulated CUDA kernels (a fake driver's: codegen/CUDA/Passes.h) stay
  // exported too.
  // The finalizer, where there is one, is the loader's too.
  llvm::Function *finalize = module.getFunction(abi::kFinalizeSymbol);
  auto exported = [&](const llvm::Function &f) {
    return &f == entry || &f == initialize || (finalize && &f == finalize) ||
           f.getName().ends_with(abi::kEmulatedKernelSuffix);
  };
  for (llvm::Function &f : module)
    if (!exported(f) && !f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  // The runtime allocator returns fresh blocks, as malloc does. Saying so
  // lets alias analysis keep a kernel's accumulator in a register instead
  // of storing it to its buffer on every element (the buffer could
  // otherwise alias the inputs), which is what makes reductions vectorise.
  for (const char *alloc : {abi::kContextAlloc, "_mlir_memref_to_llvm_alloc",
                            "_mlir_memref_to_llvm_aligned_alloc"})
    if (llvm::Function *f = module.getFunction(alloc))
      f->addRetAttr(llvm::Attribute::NoAlias);
  return Status::ok();
}

/// Keeps kernel functions out of line, except library calls. LLVM's
/// inliner would otherwise copy a small kernel's serial version (the one
/// SpeculateKernels keeps for little work) into the host flow at each
/// launch: the 12-layer encoder's @main grew to 20,000 instructions with
/// 37 loop nests (its three bias-and-transpose launches per layer), all
/// optimised and emitted again, on one thread, for each copy. Kept out of
/// line, each kernel is optimised and emitted once: LLVM's share of that
/// model's compile went from 1.65-1.81 to 1.19-1.30 s on a 2-core VM.
/// The kernel loses nothing: its static sizes are in its own code (MLIR's
/// types), and a launch costs a call. A library kernel is the opposite
/// case, one call into the runtime with its operands' descriptors:
/// inlined, that call takes them directly; out of line, each launch passes
/// 28 scalars, and a chain of 1,000 products compiled in 10.5 s instead of
/// 6.4 (its emit 5.5 s instead of 1.1: @main stayed under the size
/// SplitLongBlocks cuts at, and register allocation is superlinear).
/// Returns the names of those kernels (LoopHints.h marks their loops).
llvm::StringSet<> keepKernelsOutOfLine(mlir::ModuleOp module) {
  const llvm::StringRef library =
      dhlo::fusionKindName(dhlo::FusionKind::Library);
  llvm::StringSet<> kernels;
  module.walk([&](mlir::LLVM::LLVMFuncOp function) {
    auto kind = function->getAttrOfType<mlir::StringAttr>(codegen::kKernelAttr);
    if (kind && kind.getValue() != library) {
      function.setNoInline(true);
      kernels.insert(function.getSymName());
    }
  });
  return kernels;
}

/// LLVM's x86 tuning for Intel's AVX-512 cores prefers 256-bit vectors
/// (for the clock penalty of older parts); the kernels' transcendentals
/// are arithmetic-bound and ran 1.35x faster at 512 (softmax, on an
/// Intel Xeon host), and CpuTarget's row-loop split assumes that width.
/// AMD's Zen 4 tuning already prefers 512: no change there.
void preferTargetVectorWidth(llvm::Module &module,
                             const codegen::CpuTarget &target) {
  if (target.vectorBytes != 64)
    return;
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      f.addFnAttr("prefer-vector-width", "512");
}

} // namespace

namespace {

/// Prints `module` as LLVM IR text, except that the initializers of large
/// constants (a graph's weights: the encoder's would be 180 MB of text)
/// are replaced by a comment giving their size.
void printWithoutLargeConstants(const llvm::Module &module,
                                llvm::raw_ostream &out) {
  constexpr uint64_t kLargeBytes = 1024;
  const llvm::DataLayout &layout = module.getDataLayout();
  for (const llvm::GlobalVariable &global : module.globals()) {
    uint64_t bytes = layout.getTypeAllocSize(global.getValueType());
    if (global.hasInitializer() && bytes > kLargeBytes)
      out << "; @" << global.getName() << ": " << *global.getValueType()
          << ", initializer of " << bytes << " bytes elided\n";
    else
      out << global << "\n";
  }
  for (const llvm::Function &function : module)
    out << function << "\n";
}

/// Collects what LLVM reports while optimising and emitting, instead of
/// its default of printing to stderr. The warnings are the vectoriser's
/// notes on hinted loops it left scalar (a remainder loop with a
/// condition, say): nothing a caller can act on, and a server's stderr is
/// no place for them; `--dump-ir` writes them to
/// 4-llvm-optimise/diagnostics.txt. An error fails the compile with its text.
struct CollectedDiagnostics : llvm::DiagnosticHandler {
  std::string text;
  bool error = false;

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    llvm::raw_string_ostream os(text);
    os << llvm::LLVMContext::getDiagnosticMessagePrefix(info.getSeverity())
       << ": ";
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    os << "\n";
    error |= info.getSeverity() == llvm::DS_Error;
    return true;
  }
};

} // namespace

StatusOr<std::string> emitObjectCode(mlir::ModuleOp module, int optLevel,
                                     const codegen::CpuTarget &target,
                                     const std::string &dumpDir,
                                     llvm::function_ref<void(Stage)> stageDone,
                                     int requestedParts) {
  if (!dumpDir.empty())
    (void)llvm::sys::fs::create_directories(dumpDir);
  auto dump = [&](const llvm::Module &m, const char *name) {
    if (dumpDir.empty())
      return;
    std::error_code error;
    llvm::raw_fd_ostream out(dumpDir + "/" + name, error);
    if (!error)
      printWithoutLargeConstants(m, out);
  };
  ANYSHAPE_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                            jit::createHostTargetMachine());
  llvm::LLVMContext context;
  auto collected = std::make_unique<CollectedDiagnostics>();
  CollectedDiagnostics &diagnostics = *collected;
  context.setDiagnosticHandler(std::move(collected));
  llvm::StringSet<> kernels = keepKernelsOutOfLine(module);
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "anyshape");
  if (!llvmModule)
    return internalError("translation to LLVM IR failed");
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple().str());
  ANYSHAPE_RETURN_IF_ERROR(addEntry(*llvmModule));
  preferTargetVectorWidth(*llvmModule, target);
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return internalError("generated LLVM IR does not verify");

  codegen::addLoopHints(*llvmModule, *machine, target, kernels);
  dump(*llvmModule, "before.ll");

  auto writeDiagnostics = [&] {
    if (!dumpDir.empty() && !diagnostics.text.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream(dumpDir + "/diagnostics.txt", error)
          << diagnostics.text;
    }
  };
  std::vector<std::string> objects;
  if (int parts = codegenParts(*llvmModule, requestedParts); parts > 1) {
    // Optimised and emitted part by part, one thread each ("LLVM emit"):
    // what the pipeline learns across functions is learnt on the whole
    // first ("LLVM optimise").
    propagateAcrossFunctions(*llvmModule, machine.get());
    writeDiagnostics(); // the parts' own go with their errors
    if (diagnostics.error)
      return internalError("LLVM failed: " + diagnostics.text);
    if (stageDone)
      stageDone(Stage::kLlvmOptimise);
    std::string optimised;
    ANYSHAPE_ASSIGN_OR_RETURN(
        objects, emitInParts(*llvmModule, parts, optLevel,
                             dumpDir.empty() ? nullptr : &optimised));
    if (!dumpDir.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream(dumpDir + "/after.ll", error) << optimised;
    }
  } else {
    optimizeModule(*llvmModule, optLevel, machine.get());
    splitLongBlocks(*llvmModule); // bounded work for register allocation
    dump(*llvmModule, "after.ll");
    if (stageDone)
      stageDone(Stage::kLlvmOptimise);
    ANYSHAPE_ASSIGN_OR_RETURN(std::string object,
                              emitObject(*llvmModule, *machine));
    writeDiagnostics();
    if (diagnostics.error)
      return internalError("LLVM failed: " + diagnostics.text);
    objects.push_back(std::move(object));
  }
  if (stageDone)
    stageDone(Stage::kLlvmEmit);
  return jit::bundleObjects(std::move(objects));
}

} // namespace anyshape::compiler
