//===- LoadedObject.h - executable code in this process ---------*- C++ -*-===//
//
// Links an object from emitObjectCode (ObjectCode.h) into this process
// with ORC's LLJIT, binding the runtime functions it calls (allocator,
// GEMM, strided copy, constant generator) as absolute addresses, resolves
// its entry once and runs its initializer (load-time constants); its
// finalizer, when it has one (the GEMM packs it made), runs on unload.
// The same path serves fresh compiles and objects read back from the
// compile cache, so a cached executable is exactly what was tested.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <memory>
#include <string>
#include <string_view>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace anyshape::jit {

// ObjectCode.h: entry ABI; the context is a
// runtime::AnyshapeExecutionContext.
using EntryFunction = int64_t (*)(void *context, void **args);

class LoadedObject {
public:
  static StatusOr<std::unique_ptr<LoadedObject>> load(std::string_view object);
  ~LoadedObject();

  EntryFunction entry() const { return entry_; }
  /// The address of another symbol the object defines, or null.
  void *lookup(const std::string &name) const;

private:
  explicit LoadedObject(std::unique_ptr<llvm::orc::LLJIT> jit);
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  EntryFunction entry_ = nullptr;
  void (*finalize_)() = nullptr;
};

} // namespace anyshape::jit
