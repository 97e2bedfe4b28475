//===- PerfMap.cpp - JITed functions named for perf -------------*- C++ -*-===//
//
// A JITLink plugin (LLJIT links with JITLink on x86-64 ELF). Every
// function symbol is written with its load address and size, local ones
// (the outlined OpenMP bodies) included, which a lookup by name could not
// give. perf's map format is one line per symbol, "START SIZE NAME" in
// hexadecimal.
//
//===----------------------------------------------------------------------===//
#include "jit/PerfMap.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Object/SymbolSize.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace anyshape::jit {
namespace {

using namespace llvm;
using namespace llvm::orc;

bool requested() {
  const char *value = std::getenv("ANYSHAPE_PERF_MAP");
  return value && std::strcmp(value, "0") != 0 && *value;
}

/// Appends lines to this process's map. Objects link on several threads
/// at once (a server's compiles); whole writes under one lock keep the
/// file parseable.
class PerfMapFile {
public:
  void add(uint64_t address, uint64_t size, llvm::StringRef name) {
    if (size == 0 || name.empty())
      return;
    lines_ += llvm::formatv("{0:x-} {1:x-} {2}\n", address, size, name).str();
  }
  ~PerfMapFile() {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    // A profiling aid: a map that cannot be written never fails a link.
    if (std::FILE *file = std::fopen(perfMapPath().c_str(), "a")) {
      std::fwrite(lines_.data(), 1, lines_.size(), file);
      std::fclose(file);
    }
  }

private:
  std::string lines_;
};

/// A function the object defines, where its section is placed.
struct FunctionInSection {
  std::string section;
  uint64_t offset, size;
  std::string name;
};

/// The object's functions, local ones included. In the graphs LLVM 19's
/// JITLink builds from our objects only the global functions came with
/// names (seen: the kernels were anonymous), so the names come from the
/// object's symbol table and the addresses from the blocks their
/// sections became (an ELF section is one block; st_value is the offset
/// in it). A section name that several sections share is skipped.
std::vector<FunctionInSection> functionsOf(MemoryBufferRef buffer) {
  std::vector<FunctionInSection> functions;
  Expected<std::unique_ptr<object::ObjectFile>> object =
      object::ObjectFile::createObjectFile(buffer);
  if (!object) {
    consumeError(object.takeError());
    return functions;
  }
  for (auto &[symbol, size] : object::computeSymbolSizes(**object)) {
    Expected<object::SymbolRef::Type> type = symbol.getType();
    Expected<StringRef> name = symbol.getName();
    Expected<uint64_t> value = symbol.getValue();
    Expected<object::section_iterator> section = symbol.getSection();
    if (!type || !name || !value || !section ||
        *type != object::SymbolRef::ST_Function ||
        *section == (*object)->section_end()) {
      consumeError(type.takeError());
      consumeError(name.takeError());
      consumeError(value.takeError());
      consumeError(section.takeError());
      continue;
    }
    Expected<StringRef> sectionName = (*section)->getName();
    if (!sectionName) {
      consumeError(sectionName.takeError());
      continue;
    }
    functions.push_back({sectionName->str(), *value, size, name->str()});
  }
  return functions;
}

class PerfMapPlugin : public ObjectLinkingLayer::Plugin {
public:
  void notifyMaterializing(MaterializationResponsibility &,
                           jitlink::LinkGraph &graph, jitlink::JITLinkContext &,
                           MemoryBufferRef object) override {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_[&graph] = functionsOf(object);
  }
  void modifyPassConfig(MaterializationResponsibility &, jitlink::LinkGraph &,
                        jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back(
        [this](jitlink::LinkGraph &graph) { return write(graph); });
  }
  Error notifyFailed(MaterializationResponsibility &) override {
    return Error::success();
  }
  Error notifyRemovingResources(JITDylib &, ResourceKey) override {
    return Error::success();
  }
  void notifyTransferringResources(JITDylib &, ResourceKey,
                                   ResourceKey) override {}

private:
  Error write(jitlink::LinkGraph &graph) {
    std::vector<FunctionInSection> functions;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = pending_.find(&graph);
      if (found == pending_.end())
        return Error::success();
      functions = std::move(found->second);
      pending_.erase(found);
    }
    PerfMapFile map;
    for (const FunctionInSection &function : functions) {
      jitlink::Section *section = graph.findSectionByName(function.section);
      if (!section || section->blocks_size() != 1)
        continue;
      jitlink::Block &block = **section->blocks().begin();
      map.add(block.getAddress().getValue() + function.offset, function.size,
              function.name);
    }
    return Error::success();
  }

  std::mutex mutex_;
  std::map<jitlink::LinkGraph *, std::vector<FunctionInSection>> pending_;
};

} // namespace

std::string perfMapPath() {
  return "/tmp/perf-" + std::to_string(getpid()) + ".map";
}

void addPerfMapIfRequested(LLJIT &jit) {
  if (!requested())
    return;
  if (auto *linker = dyn_cast<ObjectLinkingLayer>(&jit.getObjLinkingLayer()))
    linker->addPlugin(std::make_unique<PerfMapPlugin>());
}

} // namespace anyshape::jit
