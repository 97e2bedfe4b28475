// libFuzzer target: a disk-cache entry that passes the MAC check -- one
// this server wrote, damaged by a bug, a different entry-format version or
// a torn write that a failing disk still authenticated -- read as the
// server reads it at startup or on a miss: the layout and its lengths
// (server/cache/DiskCache.cpp), the identity and key checks, the two
// protobufs and the device code, then the compiled graph validated as
// jit::Executable::load does before it links anything. Nothing may crash,
// trip a sanitizer, or run past libFuzzer's limits; a refused entry is
// removed.
//
// The input is the entry file less its MAC: the target seals it with a
// key of its own, so that every input reaches the parser (an
// unauthenticated file is refused before it, DiskCache.h). Seeds
// (corpus/cache_entry) are real entries of the example graphs, written
// under the identity "fuzz". What the entry's object code holds is not
// parsed here: once authenticated it is this server's own output, and
// LLVM's object reader is not where the cache's trust boundary lies.
//
//   build/bin/anyshape-fuzz-cache-entry -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/cache_entry
#include "ir/graph/Validate.h"
#include "server/cache/DiskCache.h"
#include "server/cache/EntryKey.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

using namespace anyshape;

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";
const std::string kEntryKey(32, 'k');

server::DiskCache &cache() {
  static server::DiskCache *made = [] {
    static char dir[] = "/tmp/anyshape-fuzz-cache-XXXXXX";
    if (!::mkdtemp(dir))
      std::abort();
    // Gone when the fuzzer exits (not after a crash: the input is kept).
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    });
    auto opened = server::DiskCache::open(dir, "fuzz", kEntryKey);
    if (!opened.isOk())
      std::abort(); // the harness itself is broken
    return opened->release();
  }();
  return *made;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  server::DiskCache &disk = cache();
  std::string bytes(reinterpret_cast<const char *>(data), size);
  bytes += server::entryMac(kEntryKey, bytes.data(), bytes.size());
  std::ofstream(disk.pathOf(kKey), std::ios::binary | std::ios::trunc) << bytes;
  StatusOr<server::StoredExecutable> entry = disk.load(kKey);
  if (!entry.isOk()) {
    // A refused entry is gone: it must never be read again.
    if (::access(disk.pathOf(kKey).c_str(), F_OK) == 0 &&
        entry.status().code() == StatusCode::DataLoss)
      __builtin_trap();
    return 0;
  }
  auto info = validateGraph(entry->compiledGraph);
  if (info.isOk())
    for (const std::string &name : entry->compiledGraph.outputs())
      (void)info->typeOf(info->values.at(name)).rank();
  return 0;
}
