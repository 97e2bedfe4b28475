// A module's object code emitted in parts, one thread each
// (ParallelCodegen.h).
#include "compiler/ParallelCodegen.h"

#include "compiler/LlvmPipeline.h"
#include "compiler/ObjectCode.h"
#include "compiler/SplitLongBlocks.h"
#include "jit/ObjectBundle.h"
#include "runtime/support/RunOnThreads.h"

#include "llvm/ADT/StringMap.h"
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
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <thread>

namespace anyshape::compiler {
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

/// One part, from its bitcode: parsed into a context of its own,
/// optimised, and emitted as an object; its optimised IR into `optimised`
/// if given.
StatusOr<std::string> emitPart(const llvm::SmallVector<char, 0> &bitcode,
                               int index, int optLevel,
                               std::string *optimised) {
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
                            jit::createHostTargetMachine());
  optimizeModule(**module, optLevel, machine.get());
  splitLongBlocks(**module); // bounded work for register allocation
  if (optimised) {
    llvm::raw_string_ostream out(*optimised);
    out << "; " << name << "\n";
    (*module)->print(out, nullptr);
  }
  ANYSHAPE_ASSIGN_OR_RETURN(std::string object, emitObject(**module, *machine));
  if (!diagnostics.errors.empty())
    return internalError("LLVM failed on " + name + ": " + diagnostics.errors);
  return object;
}

/// The function a group of the split is named for: a kernel's outlined
/// OpenMP bodies (`main_kernel3..omp_par`, `..omp_par.1`) go with the
/// kernel, so that the pipeline optimises the two together (what the
/// kernel passes its parallel body through the captured struct).
llvm::StringRef groupOf(const llvm::Function &function) {
  llvm::StringRef name = function.getName();
  size_t outlined = name.find("..omp_par");
  return outlined == llvm::StringRef::npos ? name : name.take_front(outlined);
}

/// `module` in `parts` linkable modules: its local symbols made hidden
/// globals (so the parts link to each other), each group of functions
/// (groupOf) defined in one part, the largest groups first into the part
/// with the fewest instructions so far, and every other global defined
/// in part 0.
std::vector<std::unique_ptr<llvm::Module>> splitByKernel(llvm::Module &module,
                                                         int parts) {
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration())
      continue;
    if (value.hasLocalLinkage()) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
    value.setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::None);
    if (!value.hasName())
      value.setName("anyshape.split");
  }
  llvm::StringMap<int64_t> sizes;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration())
      sizes[groupOf(function)] += function.getInstructionCount();
  std::vector<std::pair<int64_t, llvm::StringRef>> groups;
  for (const auto &entry : sizes)
    groups.emplace_back(entry.second, entry.first());
  std::sort(groups.begin(), groups.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<int64_t> load(static_cast<size_t>(parts), 0);
  llvm::StringMap<int> partOf;
  for (const auto &[size, name] : groups) {
    int least = static_cast<int>(std::min_element(load.begin(), load.end()) -
                                 load.begin());
    load[least] += size;
    partOf[name] = least;
  }
  std::vector<std::unique_ptr<llvm::Module>> out;
  for (int k = 0; k < parts; ++k) {
    llvm::ValueToValueMapTy map;
    out.push_back(
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          if (const auto *function = llvm::dyn_cast<llvm::Function>(value))
            return partOf.lookup(groupOf(*function)) == k;
          return k == 0;
        }));
  }
  return out;
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
    return std::min(requested, jit::kMaxBundledObjects);
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

StatusOr<std::vector<std::string>> emitInParts(llvm::Module &module, int parts,
                                               int optLevel,
                                               std::string *optimised) {
  // The split runs in `module`'s context: each part leaves it as bitcode.
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  for (std::unique_ptr<llvm::Module> &part : splitByKernel(module, parts)) {
    llvm::SmallVector<char, 0> &out = bitcode.emplace_back();
    llvm::raw_svector_ostream stream(out);
    llvm::WriteBitcodeToFile(*part, stream);
  }
  std::vector<StatusOr<std::string>> objects(
      bitcode.size(), internalError("a part was not emitted"));
  std::vector<std::string> texts(bitcode.size());
  runOnThreads(static_cast<int64_t>(bitcode.size()), [&](int64_t k) {
    objects[k] = emitPart(bitcode[k], static_cast<int>(k), optLevel,
                          optimised ? &texts[k] : nullptr);
  });
  if (optimised)
    for (const std::string &text : texts)
      *optimised += text;
  std::vector<std::string> out;
  for (StatusOr<std::string> &object : objects) {
    if (!object.isOk())
      return object.status();
    out.push_back(std::move(*object));
  }
  return out;
}

} // namespace anyshape::compiler
