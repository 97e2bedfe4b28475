// This machine's CPU as LLVM describes it (HostTarget.h).
#include "jit/HostTarget.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

namespace anyshape::jit {

void initialiseNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

namespace {

StatusOr<llvm::orc::JITTargetMachineBuilder> hostBuilder() {
  initialiseNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return internalError("cannot describe the host CPU: " +
                         llvm::toString(builder.takeError()));
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return std::move(*builder);
}

} // namespace

std::string HostTarget::description() const {
  return triple + ";" + cpu + ";" + features;
}

const HostTarget &hostTarget() {
  static const HostTarget target = [] {
    HostTarget t;
    auto builder = hostBuilder();
    if (!builder.isOk())
      return t;
    t.triple = builder->getTargetTriple().str();
    t.cpu = builder->getCPU();
    t.features = builder->getFeatures().getString();
    return t;
  }();
  return target;
}

StatusOr<std::unique_ptr<llvm::TargetMachine>> createHostTargetMachine() {
  ANYSHAPE_ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder builder,
                            hostBuilder());
  auto machine = builder.createTargetMachine();
  if (!machine)
    return internalError("cannot create a target machine: " +
                         llvm::toString(machine.takeError()));
  return std::move(*machine);
}

} // namespace anyshape::jit
