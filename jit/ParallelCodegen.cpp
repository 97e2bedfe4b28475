// A module's object code emitted in parts, one thread each
// (ParallelCodegen.h).
#include "jit/ParallelCodegen.h"

#include "jit/ObjectBundle.h"
#include "jit/ObjectCode.h"
#include "runtime/support/RunOnThreads.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <thread>

namespace anyshape::jit {
namespace {

/// Keeps a part's LLVM errors (its context is private to its thread).
struct PartDiagnostics : llvm::DiagnosticHandler {
  std::string errors;
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error)
      return true;
    llvm::raw_string_ostream os(errors);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    os << "; ";
    return true;
  }
};

/// One part, from its bitcode: parsed into a context of its own and
/// emitted as an object.
StatusOr<std::string> emitPart(const llvm::SmallVector<char, 0> &bitcode,
                               int index) {
  std::string name = "part " + std::to_string(index);
  llvm::LLVMContext context;
  auto owned = std::make_unique<PartDiagnostics>();
  PartDiagnostics &diagnostics = *owned;
  context.setDiagnosticHandler(std::move(owned));
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()),
                            name),
      context);
  if (!module)
    return internalError(name + ": " + llvm::toString(module.takeError()));
  ANYSHAPE_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine,
                            createHostTargetMachine());
  ANYSHAPE_ASSIGN_OR_RETURN(std::string object, emitObject(**module, *machine));
  if (!diagnostics.errors.empty())
    return internalError("LLVM failed on " + name + ": " + diagnostics.errors);
  return object;
}

} // namespace

StatusOr<std::string> emitObject(llvm::Module &module,
                                 llvm::TargetMachine &machine) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return internalError("the target cannot emit object files");
  codegen.run(module);
  return std::string(buffer.begin(), buffer.end());
}

int codegenParts(const llvm::Module &module, int requested) {
  if (requested > 0) // a bundle holds at most kMaxBundledObjects
    return std::min(requested, kMaxBundledObjects);
  const llvm::DataLayout &layout = module.getDataLayout();
  int64_t constantBytes = 0;
  for (const llvm::GlobalVariable &global : module.globals())
    // Undefined or zero-filled globals (the buffers seeded weights are
    // generated into at load) cost nothing in bitcode.
    if (global.hasInitializer() && !global.getInitializer()->isNullValue() &&
        !llvm::isa<llvm::UndefValue>(global.getInitializer()))
      constantBytes += static_cast<int64_t>(
          layout.getTypeAllocSize(global.getValueType()).getFixedValue());
  if (constantBytes > kMaxConstantBytesToSplit)
    return 1;
  int64_t instructions = 0;
  for (const llvm::Function &function : module)
    instructions += function.getInstructionCount();
  int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<int64_t>(
      instructions / kMinInstructionsPerPart, 1, std::min<int64_t>(cores, 4)));
}

StatusOr<std::vector<std::string>> emitInParts(llvm::Module &module,
                                               int parts) {
  // The split runs in `module`'s context: each part leaves it as bitcode.
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(
      module, static_cast<unsigned>(parts),
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::SmallVector<char, 0> &out = bitcode.emplace_back();
        llvm::raw_svector_ostream stream(out);
        llvm::WriteBitcodeToFile(*part, stream);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  std::vector<StatusOr<std::string>> objects(
      bitcode.size(), internalError("a part was not emitted"));
  runOnThreads(static_cast<int64_t>(bitcode.size()), [&](int64_t k) {
    objects[k] = emitPart(bitcode[k], static_cast<int>(k));
  });
  std::vector<std::string> out;
  for (StatusOr<std::string> &object : objects) {
    if (!object.isOk())
      return object.status();
    out.push_back(std::move(*object));
  }
  return out;
}

} // namespace anyshape::jit
